"""What the classic provider's `Check` adds to an omitted `name` and a resource group's omitted `location`.

The classic `pulumi-azure` provider is the Terraform bridge over azurerm. Its `Check` applies the overlay defaults
before the engine's Analyze, Diff and Create see the inputs (pulumi/pulumi-terraform-bridge v3.136.0
`pkg/tfbridge/provider.go` `Check` -> `makeTerraformInputsWithOptions` -> `pkg/tfbridge/schema.go` `applyDefaults`):
an omitted input with an overlay default takes, in order, (3a) the old inputs' value (when the old inputs list it
as a default, or list no defaults at all), (3c) the provider config the overlay names, (3e) the overlay's function.

- **`name`** (pulumi/pulumi-azure v6.39.0 `provider/resources.go`: `prov.SetAutonaming(24, "")`, after every
  resource's own `Fields`): every resource with a string `name` input gets `AutoName("name", 24, "")`: the URN's
  name plus 7 hex characters, no separator, at most 24 characters (`pkg/tfbridge/info/autonaming.go`
  `ComputeAutoNameDefault` -> pulumi/pulumi `resource.NewUniqueName`). The provider's own entries win
  (`OVERRIDES`: maximum length, 8 random characters, a lower-casing transform; e.g. a resource group 90, a storage
  account 24 with only lower-case letters and digits), and a few suppress it (`NOT_AUTONAMED`: azurerm names a role
  assignment with a GUID itself). A name longer than the maximum fails Check (`NewUniqueName`: "name '%s' plus %d
  random chars is longer than maximum length %d", wrapped as "could not make instance of '%v'"), so the whole
  preview fails. The engine's seed is random per preview; offline the suffix derives from the URN
  (`suffix`), so every run of the review gives the same bytes and the CLI's suffix differs.
- **A resource group's `location`** (`azurerm_resource_group`'s `Default: &tfbridge.DefaultInfo{Config: "location"}`):
  the provider's `location` config, i.e. the stack's `azure:location` or an explicit `azure.Provider`'s own
  `location`. Every other classic resource's `location` defaults to its group's (amlkit.review.run.check).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from amlkit.review.run.sdk import input_names

__all__ = ["DEFAULT", "GROUP", "LOCATION_CONFIG", "NOT_AUTONAMED", "OVERRIDES", "AutoName", "CheckError",
           "classic_defaults", "suffix"]

LOCATION_CONFIG = "azure:location"
GROUP = "azure:core/resourceGroup:ResourceGroup"


def suffix(urn: str, length: int) -> str:
    """`length` hex characters derived from the URN: the offline stand-in for the engine's random seed, which both
    providers' auto-naming draws on (amlkit.review.run.check re-exports it)."""
    return hashlib.sha256(f"amlkit-autoname/{urn}".encode()).hexdigest()[:length]


class CheckError(Exception):
    """A provider's Check refused a resource: the engine fails the preview with this message."""

    __module__ = "builtins"  # a program error shows `CheckError: ...`, not the module path


def _lower_alnum(name: str) -> str:
    return re.sub("[^a-z0-9]", "", name.lower())


class AutoName(NamedTuple):
    maxlen: int
    randlen: int
    transform: Callable[[str], str] | None = None


DEFAULT = AutoName(24, 7)
"""`SetAutonaming(24, "")` -> `AutoName(name, 24, "")`: Randlen 7."""

_LOWER = str.lower
OVERRIDES: dict[str, AutoName] = {
    # provider/resources.go: the resources whose `name` has its own AutoNameWithCustomOptions (Separator "" in all)
    "azure:apimanagement/service:Service": AutoName(50, 8),
    "azure:apimanagement/api:Api": AutoName(256, 8),
    "azure:appinsights/insights:Insights": AutoName(255, 8, _LOWER),
    "azure:appservice/appService:AppService": AutoName(60, 8, _LOWER),
    "azure:appservice/plan:Plan": AutoName(40, 8, _LOWER),
    "azure:appservice/functionApp:FunctionApp": AutoName(60, 8, _LOWER),
    "azure:containerservice/registry:Registry": AutoName(50, 8, _LOWER),
    "azure:containerservice/group:Group": AutoName(63, 8, _LOWER),
    "azure:core/resourceGroup:ResourceGroup": AutoName(90, 8, _LOWER),
    "azure:cdn/profile:Profile": AutoName(260, 8),
    "azure:compute/availabilitySet:AvailabilitySet": AutoName(80, 8, _LOWER),
    "azure:compute/virtualMachine:VirtualMachine": AutoName(64, 8, _LOWER),
    "azure:compute/linuxVirtualMachine:LinuxVirtualMachine": AutoName(80, 8, _LOWER),
    "azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet": AutoName(80, 8, _LOWER),
    "azure:lb/loadBalancer:LoadBalancer": AutoName(80, 8, _LOWER),
    "azure:cosmosdb/account:Account": AutoName(44, 8, _LOWER),
    "azure:monitoring/actionGroup:ActionGroup": AutoName(260, 8, _LOWER),
    "azure:monitoring/autoscaleSetting:AutoscaleSetting": AutoName(255, 8, _LOWER),
    "azure:network/virtualNetwork:VirtualNetwork": AutoName(64, 8, _LOWER),
    "azure:network/applicationGateway:ApplicationGateway": AutoName(80, 8, _LOWER),
    "azure:network/networkInterface:NetworkInterface": AutoName(80, 8, _LOWER),
    "azure:network/networkSecurityGroup:NetworkSecurityGroup": AutoName(80, 8, _LOWER),
    "azure:network/networkSecurityRule:NetworkSecurityRule": AutoName(80, 8, _LOWER),
    "azure:network/publicIp:PublicIp": AutoName(80, 8, _LOWER),
    "azure:network/subnet:Subnet": AutoName(80, 8, _LOWER),
    "azure:network/trafficManagerProfile:TrafficManagerProfile": AutoName(80, 8, _LOWER),
    "azure:servicebus/namespace:Namespace": AutoName(50, 8, _LOWER),
    "azure:servicebus/queue:Queue": AutoName(260, 8, _LOWER),
    "azure:servicebus/topic:Topic": AutoName(260, 8, _LOWER),
    "azure:storage/account:Account": AutoName(24, 8, _lower_alnum),
    "azure:storage/blob:Blob": AutoName(1024, 8, _LOWER),
    "azure:storage/zipBlob:ZipBlob": AutoName(1024, 8, _LOWER),
    "azure:storage/container:Container": AutoName(63, 8, _LOWER),
    "azure:storage/queue:Queue": AutoName(63, 8, _LOWER),
    "azure:storage/table:Table": AutoName(63, 8, _LOWER),
}
NOT_AUTONAMED = frozenset({
    "azure:authorization/assignment:Assignment",  # "It is autonamed to a GUID in the underlying provider."
    "azure:postgresql/configuration:Configuration",  # `"name": {Name: "name"}`
})
"""Classic types whose `name` has a plain field entry, which SetAutonaming skips: no auto-name."""


def _uses_old(key: str, olds: Mapping[str, Any]) -> bool:
    """schema.go step 3a: an old value is reused when the old inputs list it among their `__defaults`, or list none."""
    defaults = olds.get("__defaults")
    return key in olds and (not isinstance(defaults, list) or key in defaults)


def auto_name(type_token: str, urn: str) -> str:
    """`ComputeAutoNameDefault` for a classic type's `name`, offline: the URN's name, transformed, plus the random
    part (URN-derived). Raises CheckError where the bridge's Check fails (too long for the type's maximum)."""
    rule = OVERRIDES.get(type_token, DEFAULT)
    prefix = urn.rsplit("::", 1)[-1]
    if rule.transform is not None:
        prefix = rule.transform(prefix)
    if len(prefix) + rule.randlen > rule.maxlen:
        raise CheckError(f"could not make instance of '{type_token}': name '{prefix}' plus {rule.randlen} random "
                         f"chars is longer than maximum length {rule.maxlen}")
    return prefix + suffix(urn, rule.randlen)


def classic_defaults(type_token: str, urn: str, news: dict[str, Any], olds: Mapping[str, Any],
                     provider_location: Any) -> None:
    """The classic provider's `name` and resource-group `location` defaults, on `news` in place (wire form)."""
    if news.get("name") is None and type_token not in NOT_AUTONAMED and "name" in input_names(type_token):
        news["name"] = olds["name"] if _uses_old("name", olds) else auto_name(type_token, urn)
    if type_token == GROUP and news.get("location") is None:
        if _uses_old("location", olds):
            news["location"] = olds["location"]
        elif provider_location is not None:
            news["location"] = provider_location
