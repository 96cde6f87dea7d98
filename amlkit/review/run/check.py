"""What a provider's `Check` adds to a resource's inputs in a preview, before Analyze, Diff and Create see them.

The engine calls `Check(olds, news)` on every registration and hands the checked inputs to the analyzers
(pulumi/pulumi `pkg/resource/deploy/step_generator.go`: `prov.Check` before `analyzeAll`), to `Diff`, and to
`Create`/`Update`, whose preview outputs mirror them. On a replacement it checks again without the old inputs, so
auto-named inputs are named afresh. The runner's monitor applies `checked` to each registration, on the one path
check, preview, served, sharded and worker runs share.

azure-native (pulumi/pulumi-azure-native `provider/pkg/provider/provider.go`, `Check` -> `applyDefaults`):
- Auto-naming (`getDefaultName`): an omitted auto-named input takes the old inputs' value, else the provider's
  strategy for it (`provider/pkg/resources/resources.go` `AutoNamer.AutoName`: only the last parameter of the
  type's ARM path; `uuid` for `roleAssignmentName`/`roleDefinitionId`, `random` for `endpointName`/
  `customDomainName`, `random` when the path after its last `Microsoft.` namespace has one parameter (or there is
  no namespace: a resource group), else `copy`, a child resource): `random` is the URN's name plus 8 hex
  characters from the engine's seed (`resource.NewUniqueName(randomSeed, name, 8, 0, nil)`), `uuid` a UUID from
  it, `copy` the URN's name. A random or uuid name also sets `__createBeforeDelete: true`. The engine's seed is
  random per preview, so the CLI's suffix differs on every run; offline it derives from the URN (`suffix`), so a
  cold, served, sharded or worker run gives the same bytes. Auto-named types are those of the ARM tables in
  amlkit.review.arm (`arm_path`); another type's omitted name stays omitted (no rule reads one).
- Auto-location (`getDefaultLocation`), for a type whose PUT body has `location` (its SDK Args class has one),
  except the `AutoLocationDisabled` paths: the first of (1) the old inputs' `location`, (2) the provider's
  `location` config (the default provider's is the stack's `azure-native:location`; an explicit provider's is its
  own `location` input only), (3) unknown when `resourceGroupName` is unknown, (4) the group's location read from
  ARM. Offline (4) is the group's deployed location when the state holds it; none for a group that does not exist
  (the group a ResourceGroup's own Check reads, or one this program registered without a deployed state: the CLI's
  GET fails and `location` stays out); else unknown: the review cannot read Azure. A type that requires `location`
  (`REQUIRED_LOCATION`) and gets none fails Check (`CheckError`), and so the preview.

- The API version (`applyDefaults`, azure-native 3.x): an omitted `azureApiVersion` input becomes the type's API
  version from the provider's metadata (none for a few types, e.g. storage:Blob). Offline it is the version the
  installed SDK's class documents (`amlkit.review.run.sdk.api_version`; the SDK and the provider plugin of one
  release share their metadata). A deployed state's inputs hold it, so without it every unchanged azure-native
  resource would plan an update.

The classic provider (pulumi/pulumi-azure `provider/resources.go`): every resource with `location` and
`resourceGroupName` defaults `location` to the group's, read from Azure (`defaultAzureLocation`: unknown when the
group name is unknown); offline as (4) above, the old inputs first (the bridge keeps a defaulted value on update).
Its auto-naming of `name` and a resource group's `location` from `azure:location`: amlkit.review.run.classic
(`provider_location` is then the classic provider's `location` config).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Any

from pulumi.runtime import rpc

from amlkit.review.arm import arm_path, type_key
from amlkit.review.run.classic import GROUP as CLASSIC_GROUP
from amlkit.review.run.classic import LOCATION_CONFIG as CLASSIC_LOCATION_CONFIG
from amlkit.review.run.classic import CheckError, classic_defaults, suffix
from amlkit.review.run.sdk import api_version, input_names
from amlkit.tokens import type_parts

__all__ = [
    "API_VERSION", "AUTO_LOCATION_DISABLED", "CREATE_BEFORE_DELETE", "GROUP", "LOCATION_CONFIG", "REQUIRED_LOCATION",
    "autoname", "checked", "suffix",
]

CREATE_BEFORE_DELETE = "__createBeforeDelete"
API_VERSION = "azureApiVersion"
LOCATION_CONFIG = "azure-native:location"
AUTO_LOCATION_DISABLED = frozenset({
    "resources:Deployment", "network:LoadBalancerBackendAddressPool",
    "documentdb:CassandraResourceCassandraKeyspace", "documentdb:CassandraResourceCassandraTable",
    "documentdb:GremlinResourceGremlinDatabase", "documentdb:GremlinResourceGremlinGraph",
    "documentdb:MongoDBResourceMongoDBDatabase", "documentdb:MongoDBResourceMongoDBCollection",
    "documentdb:SqlResourceSqlDatabase", "documentdb:SqlResourceSqlContainer", "documentdb:TableResourceTable",
})
"""azure-native types `AutoLocationDisabled` (resources.go) leaves without a default location: template deployments,
load balancer backend pools, Cosmos DB child resources."""

GROUP = "resources:ResourceGroup"
REQUIRED_LOCATION = frozenset({GROUP})
"""azure-native types whose PUT body requires `location`, so Check fails when no default gives one (provider.go
`validateType`: "missing required property 'location'"). The requirement is the provider's metadata, which the SDK
does not carry (it makes every auto-located `location` optional); this table holds the types the review knows it of:
a resource group (Microsoft.Resources/resourceGroups: `location` "string (required)", the ARM template reference,
learn.microsoft.com/azure/templates/microsoft.resources/resourcegroups)."""

GroupLocation = Callable[[str], Any]
"""The location of a resource group by name, as step (4) reads it: a string, the engine's unknown, or None when
the group does not exist (one this preview creates)."""


def autoname(type_token: str) -> tuple[str, str] | None:
    """(the auto-named input, its strategy: random, copy or uuid) of an azure-native type, per AutoNamer.AutoName;
    None when the type is not in the ARM tables."""
    found = arm_path(type_token)
    if found is None:
        return None
    path, name_input = found
    if name_input in ("endpointName", "customDomainName"):
        return name_input, "random"
    if name_input in ("roleAssignmentName", "roleDefinitionId"):
        return name_input, "uuid"
    parts = path.lower().split("microsoft.")
    return name_input, "random" if len(parts) == 1 or parts[-1].count("{") == 1 else "copy"


def _default_name(urn: str, strategy: str) -> str:
    name = urn.rsplit("::", 1)[-1]
    if strategy == "random":
        return name + suffix(urn, 8)
    if strategy == "uuid":
        return str(uuid.UUID(hex=suffix(urn, 32)))
    return name


def _has(inputs: Mapping[str, Any], key: str) -> bool:
    return inputs.get(key) is not None


def checked(type_token: str, urn: str, inputs: Mapping[str, Any], olds: Mapping[str, Any] | None,
            provider_location: Any, group_location: GroupLocation) -> dict[str, Any]:
    """The inputs as the provider's Check returns them (wire form): `inputs` with the defaults above.
    `provider_location`: the provider's `location` config (None when it has none); `olds`: the old inputs of a
    deployed resource, else None."""
    news = dict(inputs)
    olds = olds or {}
    native = type_parts(type_token) is not None
    named = autoname(type_token) if native else None
    if named is not None and not _has(news, named[0]):
        key, strategy = named
        if key in olds:
            news[key] = olds[key]
            if olds.get(CREATE_BEFORE_DELETE) is True:
                news[CREATE_BEFORE_DELETE] = True
        else:
            news[key] = _default_name(urn, strategy)
            if strategy != "copy":
                news[CREATE_BEFORE_DELETE] = True
    if not native and type_token.startswith("azure:"):
        classic_defaults(type_token, urn, news, olds, provider_location)
    version = api_version(type_token)  # None for the classic provider
    if version is not None and not _has(news, API_VERSION):
        news[API_VERSION] = version
    if not _has(news, "location") and _auto_located(type_token, native):
        if type_key(type_token) == GROUP:  # step (4) reads the group being checked: it does not exist yet
            group_location = _no_group
        location = _default_location(news, olds, provider_location if native else None, group_location, native)
        if location is not None:
            news["location"] = location
    _refuse_missing_location(type_token, urn, news, native)
    return news


def _no_group(group: str) -> Any:
    return None


def _refuse_missing_location(type_token: str, urn: str, news: Mapping[str, Any], native: bool) -> None:
    """Check's failure for a `location` its type requires and no default gave (azure-native `validateType`; the
    bridge's `missingRequiredKey`): the engine fails the preview with `<type> resource '<name>' has a problem:`."""
    if _has(news, "location"):
        return
    if native and type_key(type_token) in REQUIRED_LOCATION:
        reason = ("missing required property 'location'. Either set it explicitly or configure it with "
                  f"'pulumi config set {LOCATION_CONFIG} <value>'.")
    elif type_token == CLASSIC_GROUP:
        reason = ("Missing required property 'location'. Either set it explicitly or configure it with "
                  f"'pulumi config set {CLASSIC_LOCATION_CONFIG} <value>'")
    else:
        return
    raise CheckError(f"{type_token} resource '{urn.rsplit('::', 1)[-1]}' has a problem: {reason}")


def _auto_located(type_token: str, native: bool) -> bool:
    names = input_names(type_token)
    if native:
        return "location" in names and type_key(type_token) not in AUTO_LOCATION_DISABLED
    return type_token.startswith("azure:") and "location" in names and "resourceGroupName" in names


def _default_location(news: Mapping[str, Any], olds: Mapping[str, Any], provider_location: Any,
                      group_location: GroupLocation, native: bool) -> Any:
    """getDefaultLocation's steps (1) to (4); None when it gives no location. A group that does not exist gives
    azure-native none (its ARM GET fails), the classic provider unknown (`defaultAzureLocation`: no state)."""
    if "location" in olds:
        return olds["location"]
    if provider_location is not None:
        return provider_location
    group = news.get("resourceGroupName")
    if group is None:
        return None
    if not isinstance(group, str) or group == rpc.UNKNOWN:
        return rpc.UNKNOWN
    found = group_location(group)
    return rpc.UNKNOWN if found is None and not native else found
