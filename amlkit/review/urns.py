"""Every URN the review builds or reads, formed as the Pulumi engine forms them (pulumi/pulumi
`sdk/go/common/resource/urn.go`): `urn:pulumi:<stack>::<project>::<qualified type>::<name>`, where the
qualified type is the parent's type chain joined by `$`, without the root Stack's type.

The one home of the root Stack's URN (findings of stack policies, plans, audits) and of alias URNs (the
analyzer's options and the plan's match of a renamed or retyped resource both resolve them here).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["STACK_TYPE", "alias_urns", "engine_urn", "stack_urn", "urn_name", "urn_owner", "urn_type"]

STACK_TYPE = "pulumi:pulumi:Stack"


def stack_urn(project: str, stack: str) -> str:
    """The root Stack's URN, as `pulumi up` names it."""
    return f"urn:pulumi:{stack}::{project}::{STACK_TYPE}::{project}-{stack}"


def engine_urn(stack: str, project: str, parent: str, type_: str, name: str) -> str:
    """The URN the engine builds for a registration: the parent's full type chain, never the root Stack type."""
    if parent:
        parent_type = parent.split("::")[2]
        if parent_type != STACK_TYPE:
            type_ = f"{parent_type}${type_}"
    return f"urn:pulumi:{stack}::{project}::{type_}::{name}"


def alias_urns(record: Mapping[str, Any], stack: str, project: str) -> list[str]:
    """The URNs a registration's aliases name, resolved as the engine resolves alias specs: a field left
    unset is the resource's own, an empty `parentUrn` keeps its parent, `noParent` means none."""
    urns = []
    for alias in (record.get("options") or {}).get("aliases") or []:
        if "urn" in alias:
            urns.append(alias["urn"])
            continue
        parent = "" if alias.get("noParent") else (alias.get("parentUrn") or record.get("parent") or "")
        urns.append(engine_urn(alias.get("stack") or stack, alias.get("project") or project, parent,
                               alias.get("type") or record["type"], alias.get("name") or record["name"]))
    return urns


def urn_owner(urn: str) -> tuple[str, str]:
    """`urn:pulumi:<stack>::<project>::...` -> (project, stack)."""
    head, project = urn.split("::", 2)[:2]
    return project, head.removeprefix("urn:pulumi:")


def urn_name(urn: str) -> str:
    """The resource's name: everything after the third `::` (a name may hold `::` itself)."""
    return urn.split("::", 3)[-1]


def urn_type(urn: str) -> str:
    """The resource's own type (the last of its qualified type chain); "" for a malformed URN."""
    parts = urn.split("::", 3)
    return parts[2].split("$")[-1] if len(parts) == 4 else ""
