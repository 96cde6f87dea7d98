"""aml-workspace-managed-network: workspaces isolate outbound traffic with a managed network.

Facts (docs/azure-facts.md, "Workspace settings"; Azure Policy 6ddb1705 "Azure Machine Learning Workspaces should
use a managed virtual network with approved outbound only"): `managedNetwork.isolationMode` is
Disabled, AllowInternetOutbound or AllowOnlyApprovedOutbound; omitted means Disabled (no managed
network). Once enabled it cannot be disabled. Modes compare case-insensitively.

A project workspace shares its hub's managed network (`amlkit.policies.hubs`): it is judged by its hub when the
hub is in the stack, and cannot be told otherwise.
"""

from __future__ import annotations

from amlkit import azure_facts as facts
from amlkit.policies.framework import Rule, azure_policy, mcsb
from amlkit.policies.hubs import JUDGED_BY_HUB
from amlkit.policies.value_check import ValueCheck, workspace_stack_check

__all__ = ["MODES", "RULE", "check_stack"]

MODES = list(facts.MANAGED_NETWORK_ISOLATION_MODES)
check_stack = workspace_stack_check("managed network", ValueCheck(
    read=lambda workspace: workspace.managed_network_isolation_mode, one_of="allowedIsolationModes",
    expectation=lambda allowed: f"have managedNetwork.isolationMode {' or '.join(allowed) or '(none allowed)'}"))


RULE = Rule(
    name="aml-workspace-managed-network",
    ref="AMLK-0020",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    display_name="Workspace managed network isolation",
    group="workspace",
    since="0.1.0",
    changed=(JUDGED_BY_HUB,),
    compliance=mcsb("NS-1", "Establish network segmentation boundaries", "mcsb-network-security"),
    equivalents=(
        azure_policy("6ddb1705-c8cf-450e-aa4b-19ad6703c440",
            "Azure Machine Learning and AI Studio should use Allow Only Approved Outbound managed VNet mode"),
    ),
    stack_key="managed_network",
    description="Workspaces must use a managed network with an allowed isolation mode "
    "(default: AllowOnlyApprovedOutbound). A project workspace shares its hub's managed network: the hub in the "
    "stack is judged for both, and without it the project cannot be told (unknown, never 'found Disabled').",
    severity="medium",
    level="advisory",
    tags=("security", "network"),
    url="https://learn.microsoft.com/azure/machine-learning/policy-reference",
    remediation="Set managed_network.isolation_mode to AllowOnlyApprovedOutbound (stack: "
    "managed_network.isolation_mode: allow_only_approved_outbound) and declare the outbound rules the "
    "workspace needs. The mode cannot be turned off once enabled.",
    check_stack=check_stack,
    config={
        "allowedIsolationModes": {
            "type": "array",
            "items": {"type": "string", "enum": MODES},
            "description": "Isolation modes that pass.",
            "default": ["AllowOnlyApprovedOutbound"],
        }
    },
)
