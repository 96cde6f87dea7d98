"""aml-workspace-hbi: workspaces are flagged high business impact.

Facts (docs/azure-facts.md, "Workspace settings"; ALZ custom policy Deny-MachineLearning-HbiWorkspace): `hbiWorkspace`
true reduces the diagnostic data Microsoft collects and adds encryption; omitted means false.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.policies.azure import workspace_view
from amlkit.policies.framework import Finding, ResourceInput, Rule, alz, must


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    workspace = workspace_view(resource.type, resource.props)
    if workspace is None:
        return
    if not workspace.hbi_workspace:
        yield Finding(must(f"Workspace '{resource.name}'", "have hbiWorkspace true", "false"))


RULE = Rule(
    name="aml-workspace-hbi",
    ref="AMLK-0023",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="High business impact workspace",
    group="workspace",
    equivalents=(
        alz("Deny-MachineLearning-HbiWorkspace"),
    ),
    stack_key="hbi_workspace",
    description="Workspaces must be high business impact workspaces (hbiWorkspace = true).",
    severity="low",
    level="advisory",
    tags=("security", "governance"),
    url="https://github.com/Azure/Enterprise-Scale/blob/main/src/resources/Microsoft.Authorization/"
    "policyDefinitions/Deny-MachineLearning-HbiWorkspace.json",
    remediation="Set hbi_workspace to true. It can only be set when the workspace is created.",
    check=check,
)
