"""ARM resource ids (`parse_arm_id`; ARM names compare case-insensitively: `same_name`), and the resources an id
or a subnet input points at: resource groups and a compute's subnet parent.

Below the lock checks (amlkit.policies.arm, which re-exports these names) and the links between resources
(amlkit.policies.links), which both read ids.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from amlkit.policies.framework import StackResource
from amlkit.policies.view_base import CLASSIC, is_type

if TYPE_CHECKING:
    from amlkit.policies.compute_views import ComputeView

__all__ = [
    "CLASSIC_RESOURCE_GROUP", "CLASSIC_SUBNET_PARENTS", "RESOURCE_GROUP", "SUBNET_PARENTS", "ArmId", "ScopeKind",
    "is_resource_group", "network_parent", "parse_arm_id", "same_name",
]

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


# --- resource groups and subnet parents ---------------------------------------------------------------


def is_resource_group(type_token: str) -> bool:
    return type_token == CLASSIC_RESOURCE_GROUP or is_type(type_token, RESOURCE_GROUP)


def _is_subnet_parent(type_token: str) -> bool:
    return type_token in CLASSIC_SUBNET_PARENTS or any(is_type(type_token, kind) for kind in SUBNET_PARENTS)


def network_parent(resource: StackResource, compute: ComputeView,
                   by_urn: Mapping[str, StackResource]) -> StackResource | None:
    """The stack's Subnet or VirtualNetwork resource a compute's subnet input was built from, if any."""
    subnet_input = "subnetResourceId" if compute.provider == CLASSIC else "properties"
    for urn in resource.property_dependencies.get(subnet_input, ()):
        candidate = by_urn.get(urn)
        if candidate is not None and _is_subnet_parent(candidate.type):
            return candidate
    return None
