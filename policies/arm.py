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
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from amlkit.policies.arm_ids import (
    ArmId,
    ScopeKind,
    is_resource_group,
    network_parent,
    parse_arm_id,
    same_name,
)
from amlkit.policies.azure import (
    CLASSIC_LOCKS,
    NATIVE_LOCKS,
    compute_view,
    is_type,
)
from amlkit.policies.framework import StackResource

if TYPE_CHECKING:
    from amlkit.policies.links import Name, Stack

LOCK_TYPES = NATIVE_LOCKS
LOCK_AT_RESOURCE_GROUP, LOCK_AT_SUBSCRIPTION, LOCK_AT_RESOURCE, LOCK_BY_SCOPE = LOCK_TYPES

# --- locks -----------------------------------------------------------------------------------------


def is_lock(resource: StackResource) -> bool:
    """A management lock of either provider."""
    return resource.type in CLASSIC_LOCKS or any(is_type(resource.type, kind) for kind in LOCK_TYPES)


@dataclass(frozen=True)
class LockTarget:
    """What a lock covers. `subscription` None means the provider's own subscription (not an input)."""

    kind: ScopeKind
    subscription: str | None = None
    resource_group: str | None = None
    resource_name: str | None = None
    scope: str | None = None
    group: Name | None = None
    """A resource-group target's name as preview knows it (`resolved` only)."""

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

    def resolved(self, stack: Stack | None = None) -> LockTarget | None:
        """`target` on what preview knows: a resource group's name followed through the graph (a
        `resourceGroupName` built from a ResourceGroup resource is its name input), and an unknown `scope` built
        from one ResourceGroup resource (`scope=rg.id`) is that group, one built from any other resource of the
        stack a lock on that resource. `CannotLink` when an unknown scope names nothing of the stack."""
        from amlkit.policies.azure import read_known
        from amlkit.policies.links import CannotLink, Name, Stack, is_group

        stack = stack if stack is not None else Stack([self.resource])
        if self.is_type(LOCK_AT_SUBSCRIPTION):
            return LockTarget("subscription")
        if self.is_type(LOCK_AT_RESOURCE_GROUP):
            return LockTarget("resourceGroup", group=stack.name_at(self.resource, "resourceGroupName", is_group))
        if self.is_type(LOCK_AT_RESOURCE):
            return LockTarget("resource")
        known, _ = read_known(self.scope_text)
        if known:
            target = self.target()
            if target is not None and target.kind == "resourceGroup":
                return LockTarget(target.kind, target.subscription, target.resource_group, scope=target.scope,
                                  group=Name(target.resource_group))
            return target
        sources = [stack.by_urn[urn] for urn in self.resource.property_dependencies.get("scope", ())
                   if urn in stack.by_urn]
        if any(not is_group(source) for source in sources):
            return LockTarget("resource")
        if len(sources) == 1:
            return LockTarget("resourceGroup", group=stack.own_name(sources[0]))
        raise CannotLink("its scope is unknown until deployment and built from no resource of this stack")

    def scope_text(self) -> str | None:
        """The raw `scope` input of a ByScope lock (reads it)."""
        return _text(self.resource.props, "scope")


def _text(props: Mapping[str, Any], key: str) -> str | None:
    value = props.get(key)
    return None if value is None else str(value)


# --- resource groups that must stay unlocked --------------------------------------------------------


@dataclass(frozen=True)
class GroupRef:
    """A resource group some resource needs unlocked.

    `holder` says why ("workspace 'mlw'"). `group` is the group's name as preview knows it (`links.Name`: known,
    or the stack's ResourceGroup resource it was built from, known even when the name is not); `subscription` is
    the one an ARM id gives, else None (the provider's). `label` is how messages name the group: the Pulumi name
    of the ResourceGroup resource it comes from, else its Azure name.
    """

    holder: str
    group: Name
    subscription: str | None = None
    stack: Stack | None = None

    @property
    def sources(self) -> tuple[str, ...]:
        """The stack's ResourceGroup resources the group's name was built from."""
        return tuple(sorted(self.group.sources))

    def locate(self) -> tuple[str | None, str | None]:
        """(subscription, name); `CannotLink` when preview cannot know the name."""
        if not self.group.known:
            from amlkit.policies.links import CannotLink

            raise CannotLink(f"the resource group of {self.holder} is unknown until deployment")
        return self.subscription, self.group.text

    def label(self) -> str | None:
        if self.sources:
            return self.sources[0].rsplit("::", 1)[-1]
        return self.group.text if self.group.known else "<unknown>"

    def covered_by(self, lock: LockView) -> LockTarget | None:
        """The lock's target when it covers this group (or everything above it), else None; `CannotLink` (an
        unknown) when preview cannot tell, never None."""
        if lock.is_type(LOCK_AT_RESOURCE):
            return None
        target = lock.resolved(self.stack)
        if target is None or target.kind == "resource":
            return None
        if target.kind == "managementGroup" or (target.kind == "subscription" and target.subscription is None):
            return target
        if target.subscription is not None and self.subscription is not None and not same_name(
            target.subscription, self.subscription
        ):
            return None
        if target.kind == "subscription":
            return target
        assert target.group is not None
        verdict = target.group.same(self.group)
        if verdict is None:
            from amlkit.policies.links import CannotLink

            raise CannotLink(f"preview cannot tell whether it locks resource group {target.group.shown()} or "
                             f"{self.group.shown()}, which holds {self.holder}")
        return target if verdict else None


def _stack(resources: list[StackResource], stack: Stack | None) -> Stack:
    from amlkit.policies.links import Stack

    return stack if stack is not None else Stack(resources)


def workspace_groups(resources: list[StackResource], stack: Stack | None = None) -> Iterator[GroupRef]:
    """The resource group of every workspace in the stack."""
    from amlkit.policies.links import is_group

    stack = _stack(resources, stack)
    for resource in stack.workspaces:
        yield GroupRef(f"workspace '{resource.name}'", stack.name_at(resource, "resourceGroupName", is_group),
                       None, stack)


def compute_groups(resources: list[StackResource], stack: Stack | None = None) -> Iterator[GroupRef]:
    """The resource group of the workspace of every compute whose workspace is not a workspace of the stack (a
    literal ARM id of a workspace in another stack, common in platform repos): its group holds the compute all the
    same. A compute whose workspace preview cannot link is included too (its own inputs name the group)."""
    from amlkit.policies.links import CannotLink, is_compute

    stack = _stack(resources, stack)
    for resource in resources:
        if not is_compute(resource):
            continue
        try:
            if stack.workspace_of(resource) is not None:
                continue  # its workspace's group is one of `workspace_groups`
        except CannotLink:
            pass
        ref = stack.compute_ref(resource)
        if ref.group.known and ref.group.text is None:
            continue  # no workspace id (another policy reports the compute)
        yield GroupRef(f"workspace '{ref.name.shown()}' of compute '{resource.name}'", ref.group, ref.subscription,
                       stack)


def subnet_groups(resources: list[StackResource], stack: Stack | None = None) -> Iterator[GroupRef]:
    """The resource group of every compute's subnet (clusters and instances put their NSG, load
    balancer and public IP there). A subnet built from a Subnet/VirtualNetwork resource in the stack
    is located through that resource, so its id need not be known at preview."""
    from amlkit.policies.azure import read_known
    from amlkit.policies.links import UNKNOWN_NAME, Name, is_group

    stack = _stack(resources, stack)
    for resource in resources:
        compute = compute_view(resource.type, resource.props)
        if compute is None:
            continue
        holder = f"the subnet of compute '{resource.name}'"
        network = network_parent(resource, compute, stack.by_urn)
        if network is not None:
            yield GroupRef(holder, stack.name_at(network, "resourceGroupName", is_group), None, stack)
            continue
        known, subnet = read_known(functools.partial(getattr, compute, "subnet_id"))
        if known and subnet is None:
            continue
        parsed = parse_arm_id(subnet) if known else None
        if parsed is None:
            yield GroupRef(holder, UNKNOWN_NAME if not known else Name(None), None, stack)
        else:
            yield GroupRef(holder, Name(parsed.resource_group), parsed.subscription, stack)


__all__ = [
    "LOCK_AT_RESOURCE",
    "LOCK_AT_RESOURCE_GROUP",
    "LOCK_AT_SUBSCRIPTION",
    "LOCK_BY_SCOPE",
    "LOCK_TYPES",
    "ArmId",
    "GroupRef",
    "compute_groups",
    "LockTarget",
    "LockView",
    "is_resource_group",
    "network_parent",
    "is_lock",
    "parse_arm_id",
    "same_name",
    "subnet_groups",
    "workspace_groups",
]
