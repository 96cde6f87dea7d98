"""aml-workspace-image-build-compute: a workspace whose container registry is private builds images on its own compute.

Facts (azure-ai-docs articles/machine-learning/how-to-managed-network.md, "Configure image builds";
how-to-secure-workspace-vnet.md, "Enable Azure Container Registry"): "When the Azure Container Registry for your
workspace is behind a virtual network, it can't be used to directly build Docker images. Instead, configure your
workspace to use a compute cluster or compute instance to build images" (`imageBuildCompute`, az ml's
`image_build_compute`, the compute's name). Without it, every environment image build of the workspace fails.

A registry is private when `publicNetworkAccess` is Disabled or its network rule set denies by default
(`networkRuleSet.defaultAction` Deny); Azure's defaults are Enabled and Allow. The workspace's registry is the
`containerregistry:Registry` of the stack its `containerRegistry` was built from (a property dependency) or names
(resource group and name). A workspace without a registry gets a public one from Azure on its first build, so it
needs nothing. `imageBuildCompute` must name a compute cluster or instance of the workspace in the stack; a name
that matches none is dangling whatever the registry. *Cannot tell* when the registry is not in the stack. A
`Project` workspace builds with its hub's registry and settings, so only hubs and default workspaces are checked.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from amlkit.policies.arm import parse_arm_id
from amlkit.policies.azure import MANAGED, compute_view, read_known, registry_view, workspace_props
from amlkit.policies.framework import Finding, Rule, StackResource, cannot_tell, must
from amlkit.policies.hubs import is_project, kind_unknown
from amlkit.policies.links import Name, Stack, Workspaces, both, is_compute, is_group, linked, workspaces_by_key

__all__ = ["EXPECTATION", "RULE", "SOURCE", "check_stack"]

SOURCE = "how-to-managed-network.md, Configure image builds"
EXPECTATION = "name a compute cluster or instance of the workspace in imageBuildCompute"


def check_stack(resources: Sequence[StackResource], config: Mapping[str, Any]) -> Iterator[Finding]:
    workspaces = workspaces_by_key(resources)
    registries = [r for r in resources if registry_view(r.type, r.props) is not None]
    for workspace in workspaces.values():
        kind = kind_unknown(workspace)
        if kind is None and is_project(workspace):
            continue  # a project builds its images with its hub's settings
        found = list(_judged(workspace, resources, registries, workspaces))
        if kind is not None and found:  # judged as a workspace of its own, unless it is a project
            yield cannot_tell(f"Workspace '{workspace.name}'", EXPECTATION, kind, workspace.urn)
        elif kind is None:
            yield from found


def _judged(workspace: StackResource, resources: Sequence[StackResource], registries: list[StackResource],
            workspaces: Workspaces) -> Iterator[Finding]:
    """The findings of a workspace that is not a project."""
    view = workspace_props(workspace)
    subject = f"Workspace '{workspace.name}'"
    name = workspaces.stack.name_at(workspace, type(view).image_build_compute.path, is_compute)
    if not name.known or name.text:
        yield from _dangling(subject, workspace, name, resources, workspaces)
        return
    privacy = _registry_privacy(workspace, registries, workspaces.stack)
    if privacy is None:
        return
    if privacy == "unknown":
        yield cannot_tell(subject, f"{EXPECTATION} when its container registry is private",
                          "its container registry is not in this stack", workspace.urn)
    else:
        yield Finding(must(subject, EXPECTATION, f"none, and its container registry '{privacy}' is private "
                           f"(\"it can't be used to directly build Docker images\", {SOURCE})"), workspace.urn)


def _dangling(subject: str, workspace: StackResource, name: Name, resources: Sequence[StackResource],
              workspaces: Workspaces) -> Iterator[Finding]:
    """A finding when `imageBuildCompute` names no cluster or instance of the workspace in the stack (built from a
    compute's output: that compute); unknown when preview cannot tell."""
    computes, undecided = _computes_of(workspace, resources, workspaces)
    if any(urn in name.sources for urn, _ in computes):
        return
    if name.known and name.text and name.text.lower() in {text.lower() for _, text in computes if text}:
        return
    unnamed = [urn.rsplit("::", 1)[-1] for urn, text in computes if text is None]
    if not name.known or undecided or unnamed:
        why = ("imageBuildCompute is unknown until deployment" if not name.known else
               f"preview cannot tell which workspace compute {undecided[0]!r} belongs to" if undecided else
               f"the name of its compute {unnamed[0]!r} is unknown until deployment")
        yield cannot_tell(subject, EXPECTATION, why, workspace.urn)
        return
    found = f"{name.text}, which names no compute cluster or instance of the workspace in the stack"
    known = f" (computes: {', '.join(sorted(text for _, text in computes if text))})" if computes else ""
    yield Finding(must(subject, EXPECTATION, found + known), workspace.urn)


def _computes_of(workspace: StackResource, resources: Sequence[StackResource],
                 workspaces: Workspaces) -> tuple[list[tuple[str, str | None]], list[str]]:
    """The workspace's clusters and instances in the stack as (URN, Azure name; None while unknown: a compute being
    created, whose outputs' `name` is), and the names of the computes preview cannot link to a workspace."""
    found, undecided = [], []
    for resource in resources:
        compute = compute_view(resource.type, resource.props)
        if compute is None or compute.compute_type not in MANAGED:
            continue
        own = workspaces.stack.own_name(resource)
        linked_to, unknown = linked(resource, workspaces)
        if unknown is not None:
            undecided.append(own.shown())
        elif linked_to is workspace:
            found.append((resource.urn, own.text if own.known else None))
    return found, undecided


def _registry_privacy(workspace: StackResource, registries: list[StackResource], stack: Stack) -> str | None:
    """The name of the workspace's registry when it is private; None when it has none or a public one;
    "unknown" when it names a registry outside the stack, or preview cannot tell which."""
    view = workspace_props(workspace)
    for registry in registries:
        if workspace.depends_on(view.container_registry_input, registry.urn):
            return _privacy(registry)
    known, given = read_known(lambda: view.container_registry)
    if known and not given:
        return None
    for registry in registries:
        if known and _names_registry(given, registry, stack):
            return _privacy(registry)
    return "unknown"


def _privacy(registry: StackResource) -> str | None:
    registry_props = registry_view(registry.type, registry.props)
    assert registry_props is not None
    return registry.name if registry_props.is_private else None


def _names_registry(arm_id: Any, registry: StackResource, stack: Stack) -> bool | None:
    """Whether a known ARM id names the stack's `registry` (its group followed through the graph); None: cannot
    tell."""
    parsed = parse_arm_id(arm_id)
    if parsed is None or not parsed.is_resource("Microsoft.ContainerRegistry", "registries"):
        return False
    group = stack.name_at(registry, "resourceGroupName", is_group)
    return both(Name(parsed.name).same(stack.own_name(registry)), Name(parsed.resource_group).same(group))


RULE = Rule(
    name="aml-workspace-image-build-compute",
    ref="AMLK-0035",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.2.0",
    display_name="Image builds behind a private registry",
    group="workspace",
    stack_key="image_build_compute",
    description="A workspace whose container registry is private (public network access disabled or denied by "
    "default) must name a compute cluster or instance of the workspace in imageBuildCompute; a name that matches "
    "no compute of the workspace in the stack is refused.",
    severity="high",
    level="mandatory",
    tags=("reliability", "network"),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-managed-network#configure-image-builds",
    remediation="Set image_build_compute (stack: image_build_compute: the cluster's name) to a compute cluster (or "
    "instance) of the workspace, e.g. the CPU cluster; under an approved-outbound managed network also "
    "allow the package repositories the builds need.",
    check_stack=check_stack,
)
