"""aml-workspace-managed-network: workspaces isolate outbound traffic with a managed network.

Facts (docs/azure-facts.md, "Workspace settings"; Azure Policy 6ddb1705 "Azure Machine Learning Workspaces should
use a managed virtual network with approved outbound only"): `managedNetwork.isolationMode` is
Disabled, AllowInternetOutbound or AllowOnlyApprovedOutbound; omitted means Disabled (no managed
network). Once enabled it cannot be disabled. Modes compare case-insensitively.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit import azure_facts as facts
from amlkit.policies.azure import workspace_view
from amlkit.policies.framework import Finding, ResourceInput, Rule, azure_policy, mcsb, must

MODES = list(facts.MANAGED_NETWORK_ISOLATION_MODES)


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    workspace = workspace_view(resource.type, resource.props)
    if workspace is None:
        return
    allowed = list(config["allowedIsolationModes"])
    mode = workspace.managed_network_isolation_mode
    if mode.lower() not in {value.lower() for value in allowed}:
        expectation = f"have managedNetwork.isolationMode {' or '.join(allowed) or '(none allowed)'}"
        yield Finding(must(f"Workspace '{resource.name}'", expectation, mode))


RULE = Rule(
    name="aml-workspace-managed-network",
    ref="AMLK-0020",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="Workspace managed network isolation",
    group="workspace",
    compliance=mcsb("NS-1", "Establish network segmentation boundaries", "mcsb-network-security"),
    equivalents=(
        azure_policy("6ddb1705-c8cf-450e-aa4b-19ad6703c440",
            "Azure Machine Learning and AI Studio should use Allow Only Approved Outbound managed VNet mode"),
    ),
    stack_key="managed_network",
    description="Workspaces must use a managed network with an allowed isolation mode "
    "(default: AllowOnlyApprovedOutbound).",
    severity="medium",
    level="advisory",
    tags=("security", "network"),
    url="https://learn.microsoft.com/azure/machine-learning/policy-reference",
    remediation="Set managed_network.isolation_mode to AllowOnlyApprovedOutbound and declare the outbound "
    "rules the workspace needs. The mode cannot be turned off once enabled.",
    check=check,
    config={
        "allowedIsolationModes": {
            "type": "array",
            "items": {"type": "string", "enum": MODES},
            "description": "Isolation modes that pass.",
            "default": ["AllowOnlyApprovedOutbound"],
        }
    },
)
