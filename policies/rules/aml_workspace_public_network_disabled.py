"""aml-workspace-public-network-disabled: workspaces are reachable only through private endpoints.

Facts (docs/azure-facts.md, "Workspace settings"; Azure Policy 438c38d2 "Azure Machine Learning Workspaces should
disable public network access", Checkov CKV_AZURE_144, PSRule AZR-000406): `publicNetworkAccess`
omitted means Enabled, so only an explicit Disabled passes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.policies.azure import workspace_view
from amlkit.policies.framework import Finding, ResourceInput, Rule, azure_policy, checkov, mcsb, must, psrule


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    workspace = workspace_view(resource.type, resource.props)
    if workspace is None:
        return
    access = workspace.public_network_access
    if access.lower() != "disabled":
        yield Finding(must(f"Workspace '{resource.name}'", "have publicNetworkAccess Disabled", access))


RULE = Rule(
    name="aml-workspace-public-network-disabled",
    ref="AMLK-0018",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="Workspace public network access disabled",
    group="workspace",
    compliance=mcsb("NS-2", "Secure cloud services with network controls", "mcsb-network-security"),
    equivalents=(
        azure_policy("438c38d2-3772-465a-a9cc-7a6666a275ce",
            "Azure Machine Learning Workspaces should disable public network access"),
        psrule("AZR-000406", "Azure.ML.PublicAccess"),
        checkov("CKV_AZURE_144"),
        checkov("CKV2_AZURE_49"),
    ),
    stack_key="public_network_access",
    description="Workspaces must disable public network access (publicNetworkAccess = Disabled).",
    severity="high",
    level="advisory",
    tags=("security", "network"),
    url="https://learn.microsoft.com/azure/machine-learning/policy-reference",
    remediation="Set public_network_access to Disabled and reach the workspace through a private endpoint "
    "(or the managed network); omitting it leaves the workspace public.",
    check=check,
)
