"""aml-online-deployment-network-provisioned: a managed network is provisioned before an online deployment needs it.

Fact (azure-ai-docs articles/machine-learning/how-to-managed-network.md, "Manually provision a managed VNet", ms.date
2025-05-23): "The managed virtual network is automatically provisioned when you create a compute instance" and "To
create an online deployment, you must manually provision the managed network, or create a compute instance first
which will automatically provision it." The workspace's `provisionNetworkNow` ("Set to trigger the provisioning of
the managed VNet with the default Options when creating a Workspace with the managed VNet enabled",
pulumi-azure-native Workspace) provisions it with the workspace.

So a managed online deployment under a managed network (its workspace's, or a project's hub's) passes when the
network's workspace sets `provisionNetworkNow: true`, or when one of the deployment's inputs was built from a compute
instance in that network (Pulumi then creates the instance first). Anything else is advisory: a manual
`az ml workspace provision-network` outside the program may have done it, which a review cannot see. Checked when
the deployment's workspace is in the stack.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from amlkit.policies.azure import (
    INSTANCE,
    compute_of,
    deployment_view,
    workspace_props,
)
from amlkit.policies.framework import Finding, Rule, StackResource, cannot_tell, must
from amlkit.policies.hubs import kind_unknown, managed_network_of
from amlkit.policies.links import Workspaces, workspace_key, workspace_of, workspaces_by_key

__all__ = ["RULE", "SENTENCE", "SOURCE", "check_stack"]

SOURCE = "how-to-managed-network.md, Manually provision a managed VNet"
SENTENCE = ("To create an online deployment, you must manually provision the managed network, or create a compute "
            "instance first which will automatically provision it.")


def check_stack(resources: Sequence[StackResource], config: Mapping[str, Any]) -> Iterator[Finding]:
    workspaces = workspaces_by_key(resources)
    for resource in resources:
        deployment = deployment_view(resource.type, resource.props)
        if deployment is None or not deployment.is_managed:
            continue
        workspace = _workspace(resource, workspaces)
        kind = kind_unknown(workspace) if workspace is not None else None
        network = managed_network_of(workspace, resources) if workspace is not None else None
        if network is None or workspace_props(network).provision_network_now:
            continue
        if _after_an_instance(resource, network, resources, workspaces):
            continue
        expectation = (f"be created after its managed network is provisioned (workspace '{network.name}' sets "
                       "provisionNetworkNow: true, or the deployment is built from a compute instance in it)")
        if kind is not None:  # a project's network is its hub's
            yield cannot_tell(f"Managed online deployment '{resource.name}'", expectation, kind, resource.urn)
            continue
        found = f"neither (\"{SENTENCE}\", {SOURCE})"
        yield Finding(must(f"Managed online deployment '{resource.name}'", expectation, found), resource.urn)


def _workspace(resource: StackResource, workspaces: Mapping[tuple[str, str], StackResource]) -> StackResource | None:
    for workspace in workspaces.values():
        if resource.depends_on("workspaceName", workspace.urn):
            return workspace
    view = deployment_view(resource.type, resource.props)
    assert view is not None
    return workspaces.get(workspace_key(view.resource_group_name, view.workspace_name))


def _after_an_instance(resource: StackResource, network: StackResource, resources: Sequence[StackResource],
                       workspaces: Workspaces) -> bool:
    """True when an input of the deployment was built from a compute instance under `network`."""
    built_from = {urn for urns in resource.property_dependencies.values() for urn in urns}
    for candidate in resources:
        if candidate.urn not in built_from or compute_of(candidate.type, candidate.props, INSTANCE) is None:
            continue
        owner = workspace_of(candidate, workspaces)
        if owner is not None and managed_network_of(owner, resources) is network:
            return True
    return False


RULE = Rule(
    name="aml-online-deployment-network-provisioned",
    ref="AMLK-0040",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.3.0",
    display_name="Managed network provisioned before online deployments",
    group="compute",
    stack_key="network_settings",
    description="A managed online deployment under a managed network (its workspace's, or a project's hub's) "
    "should be created after the network is provisioned: the network's workspace sets provisionNetworkNow: true, "
    f"or the deployment is built from a compute instance in that network (\"{SENTENCE}\", {SOURCE}). Advisory: a "
    "manual `az ml workspace provision-network` is invisible to a review. Checked when the workspace is in the stack.",
    severity="medium",
    level="advisory",
    tags=("reliability", "network"),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-managed-network#manually-provision-a-managed-vnet",
    remediation="Set provisionNetworkNow: true on the workspace that owns the managed network (it takes effect when "
    "the workspace is created; for an existing workspace run `az ml workspace provision-network -g <rg> -n "
    "<workspace>` once), or create a compute instance first and make the deployment depend on it.",
    check_stack=check_stack,
)
