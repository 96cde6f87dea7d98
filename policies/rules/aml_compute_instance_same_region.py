"""aml-compute-instance-same-region: a compute instance runs in its workspace's region.

Fact (azure-ai-docs articles/machine-learning/how-to-create-attach-compute-cluster.md, "Limitations"): "Compute
clusters can be created in a different region than your workspace. This functionality is only available for
compute clusters, not compute instances." So an instance whose `computeLocation` (else `location`) is another
region than its workspace's cannot be created: mandatory, with or without a managed network (under one,
aml-managed-network-limits judges clusters only, so one cause gets one finding). Checked when the workspace is in
the stack; 'West Europe' equals 'westeurope'.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from amlkit.policies.azure import (
    INSTANCE,
    compute_of,
    compute_subject,
    same_region,
    workspace_props,
)
from amlkit.policies.framework import Finding, Rule, StackResource, must
from amlkit.policies.links import workspace_of, workspaces_by_key

__all__ = ["RULE", "SENTENCE", "SOURCE", "check_stack"]

SOURCE = "how-to-create-attach-compute-cluster.md, Limitations"
SENTENCE = ("Compute clusters can be created in a different region than your workspace. This functionality is only "
            "available for compute clusters, not compute instances.")


def check_stack(resources: Sequence[StackResource], config: Mapping[str, Any]) -> Iterator[Finding]:
    workspaces = workspaces_by_key(resources)
    for resource in resources:
        compute = compute_of(resource.type, resource.props, INSTANCE)
        workspace = workspace_of(resource, workspaces) if compute is not None else None
        if compute is None or workspace is None:
            continue
        region = workspace_props(workspace).location
        location = compute.location
        if region and location and not same_region(region, location):
            expectation = f"run in its workspace's region {region} (workspace '{workspace.name}')"
            found = f"{location} (\"{SENTENCE}\", {SOURCE})"
            yield Finding(must(compute_subject(resource.name, compute), expectation, found), resource.urn)


RULE = Rule(
    name="aml-compute-instance-same-region",
    ref="AMLK-0038",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.3.0",
    display_name="Compute instance in its workspace's region",
    group="compute",
    stack_key="location",
    description="Compute instances must run in the region of their workspace (computeLocation, else location; "
    "'West Europe' equals 'westeurope'): Azure creates only compute clusters in another region "
    f"(\"{SENTENCE}\", {SOURCE}). Checked when the workspace is in the same stack.",
    severity="high",
    level="mandatory",
    tags=("reliability",),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-create-attach-compute-cluster#limitations",
    remediation="Create the instance in its workspace's region (omit computeLocation or set it to the workspace's "
    "location). Where a VM size or quota exists only in another region, use a compute cluster there (not under a "
    "managed network) or a workspace in that region.",
    check_stack=check_stack,
)
