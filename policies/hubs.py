"""Hub and project workspaces: a project takes its network, public access and HBI from its hub.

Facts (MicrosoftDocs/azure-ai-docs articles/machine-learning/concept-hub-workspace.md): "Project workspaces that are
created using a hub obtain the hub's security settings and shared resource configuration": "One managed virtual
network is shared between hub and project workspaces", "if public network access is disabled on the hub, it is
also disabled on new workspace that is created", "Encryption settings pass down from hub to project" (HBI is one).
A project names its hub with `hubResourceId` (kinds compare case-insensitively; a missing kind is Default).

So a workspace rule judges a project by its hub: when the hub is in the stack, the hub's own finding (or pass)
stands for both, and the project gets none (one finding per cause); when it is not, the rule cannot tell, never
"found Disabled" from the project's own, unused, inputs. A compute of a project sits in its hub's managed network.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from amlkit import azure_facts as facts
from amlkit.policies.azure import read_known, same_value, workspace_props, workspace_view
from amlkit.policies.framework import Change, Finding, StackResource, cannot_tell

__all__ = [
    "JUDGED_BY_HUB", "deciding_workspaces", "hub_of", "hub_text", "is_project", "kind_unknown", "managed_network_of",
]

JUDGED_BY_HUB = Change("0.2.0", "a Project workspace is judged by its hub when the hub is in the stack, and unknown "
                       "otherwise (concept-hub-workspace.md: projects obtain the hub's security settings)")
"""The release note of every workspace rule that judges a project by its hub (its `Rule.changed`)."""


def is_project(workspace: StackResource) -> bool:
    return same_value(workspace_props(workspace).kind, "Project")


def kind_unknown(workspace: StackResource) -> str | None:
    """Why preview cannot tell whether `workspace` is a project (its `kind` is unknown: a created workspace's omitted
    kind is an output Azure decides), else None. A rule then reports that workspace's verdict as unknown, never the
    whole rule's: the other workspaces are judged."""
    known, _ = read_known(lambda: workspace_props(workspace).kind)
    return None if known else f"workspace '{workspace.name}': kind can't be known during preview"


def hub_of(project: StackResource, resources: Sequence[StackResource]) -> StackResource | None:
    """The stack's workspace a project's `hubResourceId` names: built from its outputs (known even at preview),
    else the same resource group and name in the ARM id (the hub's group followed through the graph when unknown).
    None when the hub is not in the stack, or preview cannot tell which workspace the id names (the callers then
    report the project as unknown, never as passing)."""
    from amlkit.policies.links import CannotLink, stack_of

    stack = stack_of(resources)
    ref = stack.id_ref(project, "hubResourceId", lambda: workspace_props(project).hub_resource_id)
    if ref is None:
        return None
    try:
        return stack.find(ref, f"project '{project.name}'", exclude=project)
    except CannotLink:
        return None


def managed_network_of(workspace: StackResource, resources: Sequence[StackResource]) -> StackResource | None:
    """The workspace whose managed network `workspace` runs in: itself, or a project's hub (in the stack); None
    without a managed network or when a project's hub is not in the stack (see `hub_of`). A workspace whose `kind`
    is unknown (`kind_unknown`) stands for its own network: the callers report its verdict as unknown."""
    if kind_unknown(workspace) is not None:
        return workspace
    if is_project(workspace):
        hub = hub_of(workspace, resources)
        if hub is None:
            return None
        workspace = hub
    mode = workspace_props(workspace).managed_network_isolation_mode
    return None if same_value(mode, facts.MANAGED_NETWORK_ISOLATION_DEFAULT) else workspace


def hub_text(project: StackResource) -> str:
    """How a message names a project's hub: its ARM id, or that it is unknown or missing."""
    known, hub_id = read_known(lambda: workspace_props(project).hub_resource_id)
    if not known:
        return "(hubResourceId unknown until deployment)"
    return f"'{hub_id}'" if hub_id else "(no hubResourceId)"


def deciding_workspaces(resources: Sequence[StackResource], setting: str,
                        expectation: str) -> Iterator[tuple[StackResource, Finding | None]]:
    """The workspaces whose own `setting` a workspace rule judges, as (workspace, None); a project whose hub is
    not in the stack as (project, a cannot-tell finding); a project whose hub is in the stack is left out (the
    hub is judged, for both)."""
    for workspace in resources:
        if workspace_view(workspace.type, workspace.props) is None:
            continue
        unknown = kind_unknown(workspace)
        if unknown is not None:
            yield workspace, cannot_tell(f"Workspace '{workspace.name}'", expectation, unknown, workspace.urn)
        elif not is_project(workspace):
            yield workspace, None
        elif hub_of(workspace, resources) is None:
            reason = (f"a project workspace takes its {setting} from its hub {hub_text(workspace)}, which is not "
                      "in this stack")
            yield workspace, cannot_tell(f"Workspace '{workspace.name}'", expectation, reason,
                                         workspace.urn)
