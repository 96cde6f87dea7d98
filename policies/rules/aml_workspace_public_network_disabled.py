"""aml-workspace-public-network-disabled: workspaces are reachable only through private endpoints.

Facts (docs/azure-facts.md, "Workspace settings"; Azure Policy 438c38d2 "Azure Machine Learning Workspaces should
disable public network access", Checkov CKV_AZURE_144, PSRule AZR-000406): `publicNetworkAccess`
omitted means Enabled, so only an explicit Disabled passes.

A project workspace takes public network access from its hub (`amlkit.policies.hubs`): it is judged by its hub when
the hub is in the stack, and cannot be told otherwise.
"""

from __future__ import annotations

from amlkit.policies.framework import Rule, azure_policy, checkov, mcsb, psrule
from amlkit.policies.hubs import JUDGED_BY_HUB
from amlkit.policies.value_check import ValueCheck, workspace_stack_check

__all__ = ["RULE", "check_stack"]

check_stack = workspace_stack_check("public network access", ValueCheck(
    read=lambda workspace: workspace.public_network_access, equals="Disabled",
    expectation="have publicNetworkAccess Disabled"))


RULE = Rule(
    name="aml-workspace-public-network-disabled",
    ref="AMLK-0018",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    display_name="Workspace public network access disabled",
    group="workspace",
    since="0.1.0",
    changed=(JUDGED_BY_HUB,),
    compliance=mcsb("NS-2", "Secure cloud services with network controls", "mcsb-network-security"),
    equivalents=(
        azure_policy("438c38d2-3772-465a-a9cc-7a6666a275ce",
            "Azure Machine Learning Workspaces should disable public network access"),
        psrule("AZR-000406", "Azure.ML.PublicAccess"),
        checkov("CKV_AZURE_144"),
        checkov("CKV2_AZURE_49"),
    ),
    stack_key="public_network_access",
    description="Workspaces must disable public network access (publicNetworkAccess = Disabled). A project "
    "workspace takes it from its hub: the hub in the stack is judged for both, and without it the project cannot "
    "be told (unknown).",
    severity="high",
    level="advisory",
    tags=("security", "network"),
    url="https://learn.microsoft.com/azure/machine-learning/policy-reference",
    remediation="Set public_network_access to Disabled (stack: public_network_access: disabled) and reach the "
    "workspace through a private endpoint (or the managed network); omitting it leaves the workspace "
    "public.",
    check_stack=check_stack,
)
