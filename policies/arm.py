"""ARM resource ids and management locks: what a lock covers, and the resource groups it must not.

Facts (docs/azure-facts.md, "Resource locks"): a lock on the resource group that holds a workspace blocks
cluster scaling (clusters stall resizing 0 -> 0), and with a customer VNet the cluster's load
balancer, public IP and NSG live in the subnet's resource group, so a lock there breaks scaling and
deletion too. Locks are inherited downwards, which is where they hide:

- `authorization:ManagementLockAtResourceGroupLevel` locks the group named by `resourceGroupName`;
- `authorization:ManagementLockAtSubscriptionLevel` locks the provider's subscription, so every
  resource group in it (the subscription is not an input: it is always assumed to be the workspace's);
- `authorization:ManagementLockByScope` locks whatever `scope` names: a management group (every
  subscription below it), a subscription (`/subscriptions/<id>`), a resource group or one resource;
- `authorization:ManagementLockAtResourceLevel` locks one resource (`resourceName`), which is fine.

ARM names (subscriptions, groups, resources, path keywords) compare case-insensitively.

Values are read lazily: at preview an input can be unknown and reading it raises pulumi-policy's
`UnknownValueError`, which must propagate ("can't be known during preview"). So property
dependencies (`StackResource.depends_on`) are consulted before any value is read.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from amlkit.policies.azure import (
    CLASSIC,
    CLASSIC_LOCKS,
    NATIVE_LOCKS,
    ComputeView,
    WorkspaceView,
    compute_view,
    is_type,
    workspace_view,
)
from amlkit.policies.framework import StackResource

LOCK_TYPES = NATIVE_LOCKS
LOCK_AT_RESOURCE_GROUP, LOCK_AT_SUBSCRIPTION, LOCK_AT_RESOURCE, LOCK_BY_SCOPE = LOCK_TYPES

RESOURCE_GROUP = "resources:ResourceGroup"
CLASSIC_RESOURCE_GROUP = "azure:core/resourceGroup:ResourceGroup"
SUBNET_PARENTS = ("network:Subnet", "network:VirtualNetwork")
CLASSIC_SUBNET_PARENTS = ("azure:network/subnet:Subnet", "azure:network/virtualNetwork:VirtualNetwork")

ScopeKind = Literal["managementGroup", "subscription", "resourceGroup", "resource"]


# --- resource ids ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ArmId:
    """A parsed ARM id. `types`/`names` hold the resource path below the provider namespace(s)."""

    text: str
    management_group: str | None = None
    subscription: str | None = None
    resource_group: str | None = None
    namespace: str | None = None
    types: tuple[str, ...] = ()
    names: tuple[str, ...] = ()

    @property
    def kind(self) -> ScopeKind:
        if self.names:
            return "resource"
        if self.resource_group is not None:
            return "resourceGroup"
        if self.subscription is not None:
            return "subscription"
        return "managementGroup"

    @property
    def name(self) -> str:
        """The last name in the id: the resource, group, subscription or management group."""
        if self.names:
            return self.names[-1]
        return self.resource_group or self.subscription or self.management_group or ""

    def is_resource(self, namespace: str, type_path: str) -> bool:
        """True for a resource of `namespace` whose type path is e.g. `workspaces` (case-insensitive)."""
        return (
            self.kind == "resource"
            and (self.namespace or "").lower() == namespace.lower()
            and "/".join(self.types).lower() == type_path.lower()
        )


def parse_arm_id(text: Any) -> ArmId | None:
    """Parse an ARM id; None when `text` is not one (a trailing slash is tolerated).

    Accepted: `/providers/Microsoft.Management/managementGroups/<mg>`, `/subscriptions/<id>`,
    `.../resourceGroups/<rg>`, and resources below either (`.../providers/<ns>/<type>/<name>...`,
    extension resources with a second `providers` segment included).
    """
    if not isinstance(text, str) or not text.startswith("/"):
        return None
    parts = text.strip("/").split("/")
    if any(not part for part in parts):
        return None
    head = _parse_head(parts)
    if head is None:
        return None
    fields, rest = head
    tail = _parse_providers(rest)
    if tail is None:
        return None
    namespace, types, names = tail
    return ArmId(text, namespace=namespace, types=types, names=names, **fields)


def _parse_head(parts: list[str]) -> tuple[dict[str, str], list[str]] | None:
    lower = [part.lower() for part in parts]
    if lower[:3] == ["providers", "microsoft.management", "managementgroups"]:
        return ({"management_group": parts[3]}, parts[4:]) if len(parts) >= 4 else None
    if lower[0] != "subscriptions" or len(parts) < 2:
        return None
    fields = {"subscription": parts[1]}
    if len(parts) >= 3 and lower[2] == "resourcegroups":
        if len(parts) < 4:
            return None
        fields["resource_group"] = parts[3]
        return fields, parts[4:]
    return fields, parts[2:]


def _parse_providers(rest: list[str]) -> tuple[str | None, tuple[str, ...], tuple[str, ...]] | None:
    namespace: str | None = None
    types: list[str] = []
    names: list[str] = []
    index = 0
    while index < len(rest):
        if rest[index].lower() == "providers":
            if index + 1 >= len(rest):
                return None
            namespace, index = rest[index + 1], index + 2
            continue
        if namespace is None or index + 1 >= len(rest):
            return None
        types.append(rest[index])
        names.append(rest[index + 1])
        index += 2
    if namespace is not None and not names:
        return None
    return namespace, tuple(types), tuple(names)


def same_name(left: str | None, right: str | None) -> bool:
    """ARM names compare case-insensitively; a missing name matches nothing."""
    return left is not None and right is not None and left.lower() == right.lower()


# --- locks -----------------------------------------------------------------------------------------


def is_lock(resource: StackResource) -> bool:
    """A management lock of either provider."""
    return resource.type in CLASSIC_LOCKS or any(is_type(resource.type, kind) for kind in LOCK_TYPES)


def is_resource_group(type_token: str) -> bool:
    return type_token == CLASSIC_RESOURCE_GROUP or is_type(type_token, RESOURCE_GROUP)


def _is_subnet_parent(type_token: str) -> bool:
    return type_token in CLASSIC_SUBNET_PARENTS or any(is_type(type_token, kind) for kind in SUBNET_PARENTS)


@dataclass(frozen=True)
class LockTarget:
    """What a lock covers. `subscription` None means the provider's own subscription (not an input)."""

    kind: ScopeKind
    subscription: str | None = None
    resource_group: str | None = None
    resource_name: str | None = None
    scope: str | None = None

    def describe(self) -> str:
        return {
            "managementGroup": "a lock at management group scope (inherited by every resource group)",
            "subscription": "a lock at subscription scope (inherited by every resource group)",
            "resourceGroup": "a lock at resource group scope",
            "resource": "a lock on one resource",
        }[self.kind]


class LockView:
    """A management lock of either provider: azure-native's four lock types, and the classic provider's
    locks (`CLASSIC_LOCKS`), which lock `scope` as a ByScope lock does."""

    def __init__(self, resource: StackResource) -> None:
        self.resource = resource

    @property
    def name(self) -> str:
        return self.resource.name

    @property
    def classic(self) -> bool:
        return self.resource.type in CLASSIC_LOCKS

    def is_type(self, kind: str) -> bool:
        """The azure-native lock type `kind`; a classic lock counts as LOCK_BY_SCOPE."""
        if self.classic:
            return kind == LOCK_BY_SCOPE
        return is_type(self.resource.type, kind)

    @property
    def level(self) -> str | None:
        """CanNotDelete or ReadOnly (`level`; classic `lockLevel`)."""
        return _text(self.resource.props, "lockLevel" if self.classic else "level")

    def target(self) -> LockTarget | None:
        """What the lock covers; None for a ByScope lock whose scope is not an ARM id. Reads inputs."""
        props = self.resource.props
        if self.is_type(LOCK_AT_SUBSCRIPTION):
            return LockTarget("subscription")
        if self.is_type(LOCK_AT_RESOURCE_GROUP):
            return LockTarget("resourceGroup", resource_group=_text(props, "resourceGroupName"))
        if self.is_type(LOCK_AT_RESOURCE):
            return LockTarget(
                "resource",
                resource_group=_text(props, "resourceGroupName"),
                resource_name=_text(props, "resourceName"),
            )
        scope = _text(props, "scope")
        parsed = parse_arm_id(scope)
        if parsed is None:
            return None
        return LockTarget(
            parsed.kind,
            subscription=parsed.subscription,
            resource_group=parsed.resource_group,
            resource_name=parsed.name if parsed.kind == "resource" else None,
            scope=scope,
        )

    def scope_text(self) -> str | None:
        """The raw `scope` input of a ByScope lock (reads it)."""
        return _text(self.resource.props, "scope")

    def group_from(self, urns: Iterable[str]) -> bool:
        """True for a resource-group lock whose `resourceGroupName` was built from one of `urns`."""
        return self.is_type(LOCK_AT_RESOURCE_GROUP) and any(
            self.resource.depends_on("resourceGroupName", urn) for urn in urns
        )


def _text(props: Mapping[str, Any], key: str) -> str | None:
    value = props.get(key)
    return None if value is None else str(value)


# --- resource groups that must stay unlocked --------------------------------------------------------


@dataclass(frozen=True)
class GroupRef:
    """A resource group some resource needs unlocked.

    `holder` says why ("workspace 'mlw'"). `sources` are the stack's ResourceGroup resources its name
    was built from (known at preview even when the name is not); `locate` reads (subscription, name)
    only when needed. `label` is how messages name the group: the Pulumi name of the ResourceGroup
    resource it comes from, else its Azure name.
    """

    holder: str
    sources: tuple[str, ...]
    locate: Callable[[], tuple[str | None, str | None]]

    def label(self) -> str | None:
        if self.sources:
            return self.sources[0].rsplit("::", 1)[-1]
        return self.locate()[1]

    def covered_by(self, lock: LockView) -> LockTarget | None:
        """The lock's target when it covers this group (or everything above it), else None."""
        if lock.is_type(LOCK_AT_RESOURCE):
            return None
        if lock.group_from(self.sources):
            return LockTarget("resourceGroup")
        target = lock.target()
        if target is None or target.kind == "resource":
            return None
        if target.kind == "managementGroup" or (target.kind == "subscription" and target.subscription is None):
            return target
        subscription, name = self.locate()
        if target.subscription is not None and subscription is not None and not same_name(
            target.subscription, subscription
        ):
            return None
        if target.kind == "subscription":
            return target
        return target if same_name(target.resource_group, name) else None


def workspace_groups(resources: list[StackResource]) -> Iterator[GroupRef]:
    """The resource group of every workspace in the stack."""
    groups = {r.urn for r in resources if is_resource_group(r.type)}
    for resource in resources:
        view = workspace_view(resource.type, resource.props)
        if view is not None:
            yield GroupRef(
                f"workspace '{resource.name}'",
                _sources(resource, "resourceGroupName", groups),
                functools.partial(_view_group, view),
            )


def subnet_groups(resources: list[StackResource]) -> Iterator[GroupRef]:
    """The resource group of every compute's subnet (clusters and instances put their NSG, load
    balancer and public IP there). A subnet built from a Subnet/VirtualNetwork resource in the stack
    is located through that resource, so its id need not be known at preview."""
    by_urn = {r.urn: r for r in resources}
    groups = {urn for urn, r in by_urn.items() if is_resource_group(r.type)}
    for resource in resources:
        compute = compute_view(resource.type, resource.props)
        if compute is None:
            continue
        holder = f"the subnet of compute '{resource.name}'"
        network = _network_parent(resource, compute, by_urn)
        if network is not None:
            yield GroupRef(
                holder,
                _sources(network, "resourceGroupName", groups),
                functools.partial(_resource_group_input, network),
            )
            continue
        subnet = compute.subnet_id
        if subnet is None:
            continue
        parsed = parse_arm_id(subnet)
        located = (parsed.subscription, parsed.resource_group) if parsed else (None, None)
        yield GroupRef(holder, (), functools.partial(_located, located))


def _view_group(view: WorkspaceView) -> tuple[str | None, str | None]:
    return None, view.resource_group_name


def _resource_group_input(resource: StackResource) -> tuple[str | None, str | None]:
    return None, _text(resource.props, "resourceGroupName")


def _located(located: tuple[str | None, str | None]) -> tuple[str | None, str | None]:
    return located


def _network_parent(resource: StackResource, compute: ComputeView,
                    by_urn: Mapping[str, StackResource]) -> StackResource | None:
    subnet_input = "subnetResourceId" if compute.provider == CLASSIC else "properties"
    for urn in resource.property_dependencies.get(subnet_input, ()):
        candidate = by_urn.get(urn)
        if candidate is not None and _is_subnet_parent(candidate.type):
            return candidate
    return None


def _sources(resource: StackResource, prop: str, groups: set[str]) -> tuple[str, ...]:
    return tuple(urn for urn in resource.property_dependencies.get(prop, ()) if urn in groups)


__all__ = [
    "LOCK_AT_RESOURCE",
    "LOCK_AT_RESOURCE_GROUP",
    "LOCK_AT_SUBSCRIPTION",
    "LOCK_BY_SCOPE",
    "LOCK_TYPES",
    "ArmId",
    "GroupRef",
    "LockTarget",
    "LockView",
    "is_lock",
    "parse_arm_id",
    "same_name",
    "subnet_groups",
    "workspace_groups",
]
