"""aml-managed-network-limits: computes of a managed-network workspace stay within what the managed network supports.

Facts (azure-ai-docs articles/machine-learning/how-to-managed-network.md, "Limitations", read 2026-11-25):
- "Creating a compute cluster in a different region than the workspace isn't supported when using a managed
  virtual network." (clusters only: a compute instance never runs outside its workspace's region, with or without a
  managed network, which is aml-compute-instance-same-region's finding, quoting the instance sentence);
- "When using Managed virtual network, you can't deploy compute resources inside your custom virtual network.
  Compute resources can only be created inside the managed virtual network." (a cluster or instance with a
  `subnet`);
- "Kubernetes and attached VMs aren't supported in an Azure Machine Learning managed virtual network."
  (attached `Kubernetes`, `AKS` and `VirtualMachine` computes).

A workspace has a managed network when `managedNetwork.isolationMode` is AllowInternetOutbound or
AllowOnlyApprovedOutbound; a `Project` workspace has its hub's (the hub in the stack that `hubResourceId` was
built from or names). Checked only for computes whose workspace is in the stack; a project whose hub is not in the
stack is not judged here (its network is not known).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from amlkit.policies.azure import (
    MANAGED,
    ComputeView,
    compute_subject,
    compute_view,
    same_region,
    workspace_props,
)
from amlkit.policies.framework import Finding, Rule, StackResource, cannot_tell, must
from amlkit.policies.hubs import hub_of, hub_text, is_project, kind_unknown, managed_network_of
from amlkit.policies.links import CannotLink, Stack, linked, workspaces_by_key

__all__ = ["ATTACHED", "EXPECTATION", "REGION", "RULE", "SOURCE", "SUBNET", "UNSUPPORTED_ATTACHED", "check_stack"]

SOURCE = "how-to-managed-network.md, Limitations"
REGION = "Creating a compute cluster in a different region than the workspace isn't supported when using a managed " \
         "virtual network"
SUBNET = "When using Managed virtual network, you can't deploy compute resources inside your custom virtual network"
ATTACHED = "Kubernetes and attached VMs aren't supported in an Azure Machine Learning managed virtual network"
UNSUPPORTED_ATTACHED = ("Kubernetes", "AKS", "VirtualMachine")


def check_stack(resources: Sequence[StackResource], config: Mapping[str, Any]) -> Iterator[Finding]:
    workspaces = workspaces_by_key(resources)
    for resource in resources:
        compute = compute_view(resource.type, resource.props)
        if compute is None:
            continue
        workspace, unknown = linked(resource, workspaces)
        if unknown is not None and _could_breach(resource, compute, workspaces.stack):
            yield cannot_tell(compute_subject(resource.name, compute), EXPECTATION, unknown, resource.urn)
        if workspace is None:
            continue
        # a project shares its hub's network: with its kind unknown or its hub elsewhere, unknown where the compute
        # would breach one
        reason = kind_unknown(workspace)
        network = managed_network_of(workspace, resources) if reason is None else None
        if network is not None:
            yield from (Finding(message, resource.urn)
                        for message in _breaches(resource, compute, workspace, network, workspaces.stack))
            continue
        if reason is None and is_project(workspace) and hub_of(workspace, resources) is None:
            reason = (f"its workspace '{workspace.name}' is a project, which shares its hub's managed network, and "
                      f"its hub {hub_text(workspace)} is not in this stack")
        if reason is not None and any(True for _ in _breaches(resource, compute, workspace, workspace,
                                                              workspaces.stack)):
            yield cannot_tell(compute_subject(resource.name, compute), EXPECTATION, reason, resource.urn)


EXPECTATION = ("stay within what a managed network supports (its workspace's region, no subnet, no attached "
               "Kubernetes or VM)")


def _could_breach(resource: StackResource, compute: ComputeView, stack: Stack) -> bool:
    """Whether the compute could breach some managed network (its workspace, so its region, being unknown)."""
    if compute.compute_type in UNSUPPORTED_ATTACHED:
        return True
    return compute.compute_type in MANAGED and (stack.subnet(resource)[0] is not False or bool(compute.location))


def _breaches(resource: StackResource, compute: ComputeView, workspace: StackResource,
              network: StackResource, stack: Stack) -> Iterator[str]:
    subject = compute_subject(resource.name, compute)
    under = (f"under the managed network of workspace '{network.name}'" if network is workspace else
             f"under the managed network of hub '{network.name}' (workspace '{workspace.name}' is its project)")
    if compute.compute_type in UNSUPPORTED_ATTACHED:
        yield must(subject, f"not be attached {under}", f"computeType {compute.compute_type} (\"{ATTACHED}\", "
                   f"{SOURCE})")
        return
    if compute.compute_type not in MANAGED:
        return
    region = workspace_props(workspace).location
    if not compute.is_instance and region and compute.location and not same_region(region, compute.location):
        yield must(subject, f"run in its workspace's region {region} {under}",
                   f"{compute.location} (\"{REGION}\", {SOURCE})")
    subnet, shown = stack.subnet(resource)
    if subnet is None:
        raise CannotLink(f"the subnet of compute '{resource.name}' is unknown until deployment and built from no "
                         "subnet of this stack")
    if subnet:
        yield must(subject, f"have no subnet {under}", f"subnet {shown} (\"{SUBNET}\", {SOURCE})")


RULE = Rule(
    name="aml-managed-network-limits",
    ref="AMLK-0036",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.2.0",
    display_name="Computes within managed network limits",
    group="compute",
    stack_key="network_settings",
    description="Under a workspace's managed network (a project's: its hub's), compute clusters must run in the "
    "workspace's region (an instance in another region is aml-compute-instance-same-region's finding), clusters "
    "and instances must have no subnet of a customer virtual network, and no Kubernetes or virtual "
    "machine may be attached: Azure does not support these (how-to-managed-network.md, Limitations).",
    severity="high",
    level="mandatory",
    tags=("network", "reliability"),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-managed-network#limitations",
    remediation="Under a managed network, create clusters and instances in the workspace's region without a "
    "subnet (the managed network isolates them), and attach Kubernetes or virtual machines only to a workspace "
    "in a customer virtual network (managed_network isolation_mode disabled, computes in your subnets). A managed "
    "network cannot be turned off once enabled: such a workspace is replaced.",
    check_stack=check_stack,
)
