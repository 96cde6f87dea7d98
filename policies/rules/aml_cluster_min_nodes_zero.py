"""aml-cluster-min-nodes-zero: clusters scale to zero when idle."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit import azure_facts as facts
from amlkit.policies.azure import CLUSTER, compute_of
from amlkit.policies.fixes import Fix, compute_fix
from amlkit.policies.framework import ResourceInput, Rule, alz, checkov
from amlkit.policies.value_check import ValueCheck, compute_check

__all__ = ["RULE", "check"]

check = compute_check(CLUSTER, ValueCheck(
    read=lambda compute: compute.min_nodes, equals=0, expectation="have minNodeCount 0"))


def fix(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Fix]:
    """minNodeCount 0: the cluster keeps its maximum and scales to zero when idle."""
    compute = compute_of(resource.type, resource.props, CLUSTER)
    change = compute and compute_fix(compute, facts.MIN_NODE_COUNT, 0, "scaleSettings.minNodeCount")
    if change:
        yield change


RULE = Rule(
    name="aml-cluster-min-nodes-zero",
    ref="AMLK-0001",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="Clusters scale to zero",
    group="compute",
    equivalents=(
        checkov("CKV_AZURE_150"),
        alz("Deny-MachineLearning-ComputeCluster-Scale"),
    ),
    stack_key="min_instances",
    description="AmlCompute clusters must scale to zero nodes when idle (minNodeCount = 0).",
    severity="medium",
    level="mandatory",
    tags=("cost",),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-manage-optimize-cost#configure-training-clusters-for-autoscaling",
    remediation="Set scale_settings.min_node_count (stack: min_instances) to 0. Idle nodes are released "
    "after node_idle_time_before_scale_down; a cluster with min > 0 bills those nodes around the clock.",
    check=check,
    fix=fix,
)
