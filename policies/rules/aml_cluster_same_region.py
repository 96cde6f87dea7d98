"""aml-cluster-same-region: a cluster runs in its workspace's region."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from amlkit.policies.azure import CLUSTER, compute_of, compute_subject, same_region, workspace_props
from amlkit.policies.framework import Finding, Rule, StackResource, cannot_tell, must
from amlkit.policies.links import linked, workspaces_by_key

__all__ = ["RULE", "check_stack"]


def check_stack(resources: Sequence[StackResource], config: Mapping[str, Any]) -> Iterator[Finding]:
    workspaces = workspaces_by_key(resources)
    for resource in resources:
        compute = compute_of(resource.type, resource.props, CLUSTER)
        if compute is None:
            continue
        workspace, unknown = linked(resource, workspaces)
        if unknown is not None and compute.location:
            yield cannot_tell(compute_subject(resource.name, compute), "run in its workspace's region", unknown,
                              resource.urn)
        if workspace is None:
            continue  # the workspace is defined elsewhere: its region is not known here
        region = workspace_props(workspace).location
        location = compute.location
        if region and location and not same_region(region, location):
            expectation = f"run in its workspace's region {region} (workspace '{workspace.name}')"
            yield Finding(must(compute_subject(resource.name, compute), expectation, location), resource.urn)


RULE = Rule(
    name="aml-cluster-same-region",
    ref="AMLK-0012",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="Cluster in its workspace's region",
    group="compute",
    stack_key="location",
    description="AmlCompute clusters must run in the region of their workspace (computeLocation, else "
    "location; 'West Europe' equals 'westeurope'). Checked only when the workspace is in the same stack.",
    severity="low",
    level="advisory",
    tags=("cost", "network", "reliability"),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-create-attach-compute-cluster",
    remediation="Create the cluster in the workspace's region (omit compute_location or set it to the "
    "workspace's location). A cluster in another region adds latency and cross-region data-transfer cost "
    "and needs network plumbing (VNet peering, private DNS, storage firewall rules); keep it only when the "
    "VM size or quota exists only elsewhere, and waive this rule for that cluster with the reason.",
    check_stack=check_stack,
)
