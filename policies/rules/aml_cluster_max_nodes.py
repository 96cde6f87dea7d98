"""aml-cluster-max-nodes: a cluster's maxNodeCount is set, within the allowed cap and not below minNodeCount."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.policies.azure import CLUSTER, compute_of, compute_subject
from amlkit.policies.framework import Finding, ResourceInput, Rule, alz, must

__all__ = ["RULE", "check"]


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    compute = compute_of(resource.type, resource.props, CLUSTER)
    if compute is None:
        return
    subject = compute_subject(resource.name, compute)
    max_nodes = compute.max_nodes
    if max_nodes is None:
        yield Finding(must(subject, "set scaleSettings.maxNodeCount (Azure requires it)", "none"))
        return
    if max_nodes > config["maxNodes"]:
        yield Finding(must(subject, f"have maxNodeCount at most {config['maxNodes']}", str(max_nodes)))
    min_nodes = compute.min_nodes
    if max_nodes < min_nodes:
        yield Finding(must(subject, f"have maxNodeCount at least its minNodeCount ({min_nodes})", str(max_nodes)))


RULE = Rule(
    name="aml-cluster-max-nodes",
    ref="AMLK-0002",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="Cluster node cap",
    group="compute",
    equivalents=(
        alz("Deny-MachineLearning-ComputeCluster-Scale"),
    ),
    stack_key="max_instances",
    description="AmlCompute clusters must set maxNodeCount, no higher than the allowed cap (default 100, "
    "Azure's default per-cluster limit) and no lower than minNodeCount.",
    severity="medium",
    level="mandatory",
    tags=("cost", "reliability"),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-manage-quotas#azure-machine-learning-compute",
    remediation="Set scale_settings.max_node_count (stack: max_instances) to the largest size the workload "
    "needs, within maxNodes and at least min_node_count. The worst-case cost and core quota of a cluster is "
    "maxNodeCount x the VM size's vCPUs. Azure Landing Zones' Deny-MachineLearning-ComputeCluster-Scale "
    "policy caps clusters at 10 nodes; set maxNodes to 10 to match it.",
    check=check,
    config={
        "maxNodes": {
            "type": "integer",
            "minimum": 1,
            "default": 100,
            "description": "Largest maxNodeCount allowed per cluster (Azure's default limit is 100 nodes).",
        },
    },
)
