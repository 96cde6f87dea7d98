"""aml-compute-network-isolated: every cluster and instance runs in a subnet or a workspace managed network."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from amlkit import azure_facts as facts
from amlkit.policies.azure import (
    MANAGED,
    compute_of,
    compute_subject,
    same_value,
    workspace_props,
)
from amlkit.policies.framework import (
    Finding,
    Rule,
    StackResource,
    alz,
    azure_policy,
    cannot_tell,
    mcsb,
    must,
    psrule,
)
from amlkit.policies.hubs import JUDGED_BY_HUB, hub_of, hub_text, is_project, kind_unknown
from amlkit.policies.links import linked, workspaces_by_key

__all__ = ["EXPECTATION", "ISOLATED_MODES", "RULE", "check_stack"]

ISOLATED_MODES = tuple(m for m in facts.MANAGED_NETWORK_ISOLATION_MODES if m != facts.MANAGED_NETWORK_ISOLATION_DEFAULT)
EXPECTATION = ("have a subnet or belong to a workspace whose managed network is isolated (isolationMode "
               f"{' or '.join(ISOLATED_MODES)})")


def check_stack(resources: Sequence[StackResource], config: Mapping[str, Any]) -> Iterator[Finding]:
    workspaces = workspaces_by_key(resources)
    for resource in resources:
        compute = compute_of(resource.type, resource.props, MANAGED)
        if compute is None:
            continue
        subject = compute_subject(resource.name, compute)
        subnet, _ = workspaces.stack.subnet(resource)
        if subnet:
            continue
        workspace, unknown = linked(resource, workspaces)
        if subnet is None or unknown is not None:
            reason = unknown or "its subnet id is unknown until deployment and built from no subnet of this stack"
            yield cannot_tell(subject, EXPECTATION, reason, resource.urn)
        elif workspace is None:
            name = workspaces.stack.compute_ref(resource).name.shown()
            found = f"no subnet, and its workspace '{name}' is not in this stack"
            yield Finding(must(subject, EXPECTATION, found), resource.urn)
        elif (kind := kind_unknown(workspace)) is not None:
            yield cannot_tell(subject, EXPECTATION, kind, resource.urn)
        elif not is_project(workspace):
            mode = _mode(workspace)
            if mode is not None:
                found = f"no subnet, and workspace '{workspace.name}' has isolationMode {mode}"
                yield Finding(must(subject, EXPECTATION, found), resource.urn)
        else:
            yield from _in_project(subject, resource, workspace, resources)


def _in_project(subject: str, resource: StackResource, project: StackResource,
                resources: Sequence[StackResource]) -> Iterator[Finding]:
    """A project's computes sit in its hub's managed network: judged by the hub, unknown without it."""
    hub = hub_of(project, resources)
    if hub is None:
        reason = (f"its workspace '{project.name}' is a project, which shares its hub's managed network, and its hub "
                  f"{hub_text(project)} is not in this stack")
        yield cannot_tell(subject, EXPECTATION, reason, resource.urn)
        return
    mode = _mode(hub)
    if mode is not None:
        found = (f"no subnet, and workspace '{project.name}' is a project of hub '{hub.name}', which has "
                 f"isolationMode {mode}")
        yield Finding(must(subject, EXPECTATION, found), resource.urn)


def _mode(workspace: StackResource) -> str | None:
    """None when the workspace's managed network isolates its computes, else its isolation mode."""
    mode = workspace_props(workspace).managed_network_isolation_mode
    return None if any(same_value(mode, isolated) for isolated in ISOLATED_MODES) else mode


RULE = Rule(
    name="aml-compute-network-isolated",
    ref="AMLK-0011",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    display_name="Compute network isolation",
    group="compute",
    since="0.1.0",
    changed=(JUDGED_BY_HUB,),
    compliance=mcsb("NS-1", "Establish network segmentation boundaries", "mcsb-network-security"),
    equivalents=(
        azure_policy("7804b5c7-01dc-4723-969b-ae300cc07ff1",
            "Azure Machine Learning Computes should be in a virtual network"),
        psrule("AZR-000405", "Azure.ML.ComputeVnet"),
        alz("Deny-MachineLearning-Compute-SubnetId"),
    ),
    stack_key="network_settings",
    description="AmlCompute clusters and compute instances must be network-isolated: deployed into a subnet, "
    "or in a workspace of this stack whose managed network is enabled (AllowInternetOutbound or "
    "AllowOnlyApprovedOutbound). Azure Policy 7804b5c7, ALZ Deny-MachineLearning-Compute-SubnetId, "
    "PSRule Azure.ML.ComputeVnet (AZR-000405); unlike them, a workspace managed network also counts. Covers "
    "clusters and instances only: an attached compute (Kubernetes, VirtualMachine, SynapseSpark) runs in its own "
    "resource's network, which its compute inputs do not show. A compute of a project workspace sits in its hub's "
    "managed network (concept-hub-workspace.md): judged by the hub when it is in the stack, unknown otherwise.",
    severity="medium",
    level="advisory",
    tags=("network", "security"),
    url="https://github.com/Azure/azure-policy/blob/master/built-in-policies/policyDefinitions/"
    "Machine%20Learning/MachineLearningServices_Vnet_Audit.json",
    remediation="Either enable the workspace managed network (managed_network.isolation_mode "
    "AllowOnlyApprovedOutbound, or AllowInternetOutbound) in the same stack, or set properties.subnet.id on the "
    "compute to a subnet of your VNet (then also set enable_node_public_ip to false). A compute whose workspace "
    "is defined elsewhere cannot be checked against it here and needs a subnet.",
    check_stack=check_stack,
)
