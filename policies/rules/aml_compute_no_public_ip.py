"""aml-compute-no-public-ip: cluster and instance nodes get no public IP address."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit import azure_facts as facts
from amlkit.policies.azure import MANAGED, compute_of
from amlkit.policies.fixes import Fix, compute_fix
from amlkit.policies.framework import ResourceInput, Rule
from amlkit.policies.value_check import ValueCheck, compute_check

__all__ = ["RULE", "check"]

check = compute_check(MANAGED, ValueCheck(
    read=lambda compute: compute.enable_node_public_ip_given, equals=False,
    expectation="set enableNodePublicIp to false", default=facts.NODE_PUBLIC_IP_DEFAULT))


def fix(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Fix]:
    """enableNodePublicIp false (the classic provider's nodePublicIpEnabled false)."""
    compute = compute_of(resource.type, resource.props, MANAGED)
    change = compute and compute_fix(compute, facts.ENABLE_NODE_PUBLIC_IP, False, "nodePublicIpEnabled")
    if change:
        yield change


RULE = Rule(
    name="aml-compute-no-public-ip",
    ref="AMLK-0009",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="No public IP on compute nodes",
    group="compute",
    stack_key="enable_node_public_ip",
    description="AmlCompute clusters and compute instances must set enableNodePublicIp to false (omitted "
    "means true: every node gets a public IP). Covers clusters and instances only: an attached compute's public "
    "addresses belong to its own resource (an attached VM even needs one), outside the compute's inputs.",
    severity="medium",
    level="advisory",
    tags=("network", "security"),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-secure-training-vnet",
    remediation="Set properties.enable_node_public_ip to false and place the compute in a subnet (or a "
    "workspace managed network) with outbound access to the Azure ML dependencies. With a public IP, Azure "
    "creates a public IP and load balancer per cluster and opens inbound TCP 44224 from the "
    "AzureMachineLearning service tag. The Azure ML docs publish a custom Azure Policy sample for this check.",
    check=check,
    fix=fix,
)
