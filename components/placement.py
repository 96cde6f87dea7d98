"""Where a compute goes: the workspace arguments every compute component takes, declared once.

`WorkspaceRefArgs` (the workspace, as the `Workspace` component or by resource group and name) is the
base of the attached computes' Args; `WorkspacePlacementArgs` adds the workspace's region and managed
network, which clusters and instances read. `amlkit.components.args` reads inherited fields like own
ones (strict checks, closest-name hints, help() and docs/components.md), so each field's type, doc,
default and ARM input is written here only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

import pulumi

from amlkit.components.args import ArgInfo
from amlkit.components.workspace import Workspace
from amlkit.errors import ConfigError

__all__ = [
    "PLACEMENT_ARGS", "REF_ARGS", "WorkspacePlacementArgs", "WorkspaceRefArgs", "with_workspace",
    "with_workspace_names",
]


class WorkspaceRefArgs(TypedDict, total=False):
    """The workspace a compute belongs to: the `Workspace` component or its resource group and name."""

    workspace: Workspace
    """The `Workspace` component the compute belongs to (Python only): gives the resource group, workspace
    name and region, and to a cluster or instance whether the workspace has a managed network; explicit
    arguments win."""
    resource_group_name: pulumi.Input[str]
    """Resource group of the ML workspace (required without `workspace`)."""
    workspace_name: pulumi.Input[str]
    """Name of the ML workspace the compute belongs to (required without `workspace`)."""


class WorkspacePlacementArgs(WorkspaceRefArgs, total=False):
    """The workspace of a cluster or instance, with its region and network."""

    workspace_location: pulumi.Input[str]
    """Region of the workspace: where the compute resource lives (Azure's default region of a compute)."""
    workspace_managed_network: bool
    """True when the workspace uses a managed network (then the compute needs no public IP)."""


REF_ARGS: dict[str, ArgInfo] = {
    "workspace": ArgInfo("none", "(resourceGroupName, workspaceName, location)"),
    "resource_group_name": ArgInfo("the workspace's", "resourceGroupName"),
    "workspace_name": ArgInfo("the workspace's", "workspaceName"),
}
"""Default and ARM input of `WorkspaceRefArgs`' fields."""
PLACEMENT_ARGS: dict[str, ArgInfo] = {
    **REF_ARGS,
    "workspace_location": ArgInfo("the workspace's; without `workspace`: `location`", "location"),
    "workspace_managed_network": ArgInfo("the workspace's; without `workspace`: False", ""),
}
"""Default and ARM input of `WorkspacePlacementArgs`' fields."""


def with_workspace(args: Mapping[str, Any]) -> dict[str, Any]:
    """The args with what `workspace` gives filled in (explicit args win); None values dropped; a region
    required (the workspace's or `location`)."""
    present = with_workspace_names(args)
    if "workspace_location" not in present and "location" not in present:
        raise ConfigError(
            None, "location",
            "is required without workspace or workspace_location (Azure puts a compute in its workspace's "
            "region, which the component cannot see)",
        )
    return present


def with_workspace_names(args: Mapping[str, Any]) -> dict[str, Any]:
    """The args with what `workspace` gives filled in (explicit args win); None values dropped;
    `resource_group_name` and `workspace_name` required."""
    present = {key: value for key, value in args.items() if value is not None}
    workspace = present.pop("workspace", None)
    if workspace is not None:
        present = {
            "resource_group_name": workspace.resource_group_name,
            "workspace_name": workspace.workspace_name,
            "workspace_location": workspace.location,
            "workspace_managed_network": workspace.has_managed_network,
            **present,
        }
    for key in ("resource_group_name", "workspace_name"):
        if key not in present:
            raise ConfigError(None, key, "is required without workspace (the Workspace component)")
    return present
