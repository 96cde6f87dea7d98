"""aml-workspace-no-public-access-behind-vnet: a workspace behind a VNet is not also public.

Facts (docs/azure-facts.md, "Workspace settings"; ALZ custom policy Deny-MachineLearning-PublicAccessWhenBehindVnet,
PSRule AZR-000406): `allowPublicAccessWhenBehindVnet` true re-opens a private-link workspace to the
internet; omitted means false.
"""

from __future__ import annotations

from amlkit.policies.framework import Rule, alz, mcsb, psrule
from amlkit.policies.value_check import ValueCheck, workspace_check

__all__ = ["RULE", "check"]

check = workspace_check(ValueCheck(
    read=lambda workspace: workspace.allow_public_access_when_behind_vnet, equals=False,
    expectation="have allowPublicAccessWhenBehindVnet false"))


RULE = Rule(
    name="aml-workspace-no-public-access-behind-vnet",
    ref="AMLK-0019",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="No public access behind a VNet",
    group="workspace",
    compliance=mcsb("NS-2", "Secure cloud services with network controls", "mcsb-network-security"),
    equivalents=(
        psrule("AZR-000406", "Azure.ML.PublicAccess"),
        alz("Deny-MachineLearning-PublicAccessWhenBehindVnet"),
    ),
    stack_key="public_network_access",
    description="Workspaces must not allow public access when behind a VNet "
    "(allowPublicAccessWhenBehindVnet not true).",
    severity="high",
    level="advisory",
    tags=("security", "network"),
    url="https://github.com/Azure/Enterprise-Scale/blob/main/src/resources/Microsoft.Authorization/"
    "policyDefinitions/Deny-MachineLearning-PublicAccessWhenBehindVnet.json",
    remediation="Remove allow_public_access_when_behind_vnet (or set it to false); use public_network_access Disabled"
    " (stack: public_network_access: disabled) with a private endpoint.",
    check=check,
)
