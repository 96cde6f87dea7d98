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

from amlkit.policies.azure import (
    MANAGED,
    compute_view,
    registry_view,
    workspace_of,
    workspace_props,
    workspaces_by_key,
)
from amlkit.policies.framework import Finding, Rule, StackResource, cannot_tell, must

SOURCE = "how-to-managed-network.md, Configure image builds"
EXPECTATION = "name a compute cluster or instance of the workspace in imageBuildCompute"


def check_stack(resources: Sequence[StackResource], config: Mapping[str, Any]) -> Iterator[Finding]:
    workspaces = workspaces_by_key(resources)
    registries = [r for r in resources if registry_view(r.type, r.props) is not None]
    for workspace in workspaces.values():
        view = workspace_props(workspace)
        if view.kind.lower() == "project":
            continue
        subject = f"Workspace '{workspace.name}'"
        name = view.image_build_compute
        if name:
            computes = _computes_of(workspace, resources, workspaces)
            if name.lower() not in computes:
                found = f"{name}, which names no compute cluster or instance of the workspace in the stack"
                known = f" (computes: {', '.join(sorted(computes.values()))})" if computes else ""
                yield Finding(must(subject, EXPECTATION, found + known), workspace.urn)
            continue
        privacy = _registry_privacy(workspace, registries)
        if privacy is None:
            continue
        if privacy == "unknown":
            yield cannot_tell(subject, f"{EXPECTATION} when its container registry is private",
                              "its container registry is not in this stack", workspace.urn)
        else:
            yield Finding(must(subject, EXPECTATION, f"none, and its container registry '{privacy}' is private "
                               f"(\"it can't be used to directly build Docker images\", {SOURCE})"), workspace.urn)


def _computes_of(workspace: StackResource, resources: Sequence[StackResource],
                 workspaces: Mapping[tuple[str, str], StackResource]) -> dict[str, str]:
    """The workspace's clusters and instances in the stack: lower-case name -> name."""
    found = {}
    for resource in resources:
        compute = compute_view(resource.type, resource.props)
        if compute is None or compute.compute_type not in MANAGED or compute.compute_name is None:
            continue
        if workspace_of(resource, workspaces) is workspace:
            found[compute.compute_name.lower()] = compute.compute_name
    return found


def _registry_privacy(workspace: StackResource, registries: list[StackResource]) -> str | None:
    """The name of the workspace's registry when it is private; None when it has none or a public one;
    "unknown" when it names a registry outside the stack."""
    view = workspace_props(workspace)
    given = view.container_registry
    for registry in registries:
        registry_props = registry_view(registry.type, registry.props)
        assert registry_props is not None
        if workspace.depends_on(view.container_registry_input, registry.urn) or registry_props.has_id(given):
            return registry.name if registry_props.is_private else None
    return None if not given else "unknown"


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
    remediation="Set image_build_compute to a compute cluster (or instance) of the workspace, e.g. the CPU "
    "cluster; under an approved-outbound managed network also allow the package repositories the builds need.",
    check_stack=check_stack,
)
