"""aml-workspace-hbi: workspaces are flagged high business impact.

Facts (docs/azure-facts.md, "Workspace settings"; ALZ custom policy Deny-MachineLearning-HbiWorkspace): `hbiWorkspace`
true reduces the diagnostic data Microsoft collects and adds encryption; omitted means false.

A project workspace takes its security and encryption settings, HBI among them, from its hub
(`amlkit.policies.hubs`): it is judged by its hub when the hub is in the stack, and cannot be told otherwise.
"""

from __future__ import annotations

from amlkit.policies.framework import Rule, alz
from amlkit.policies.hubs import JUDGED_BY_HUB
from amlkit.policies.value_check import ValueCheck, workspace_stack_check

__all__ = ["RULE", "check_stack"]

check_stack = workspace_stack_check("HBI setting", ValueCheck(
    read=lambda workspace: workspace.hbi_workspace, equals=True, expectation="have hbiWorkspace true"))


RULE = Rule(
    name="aml-workspace-hbi",
    ref="AMLK-0023",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    display_name="High business impact workspace",
    group="workspace",
    since="0.1.0",
    changed=(JUDGED_BY_HUB,),
    equivalents=(
        alz("Deny-MachineLearning-HbiWorkspace"),
    ),
    stack_key="hbi_workspace",
    description="Workspaces must be high business impact workspaces (hbiWorkspace = true). A project workspace "
    "takes it from its hub: the hub in the stack is judged for both, and without it the project cannot be told "
    "(unknown).",
    severity="low",
    level="advisory",
    tags=("security", "governance"),
    url="https://github.com/Azure/Enterprise-Scale/blob/main/src/resources/Microsoft.Authorization/"
    "policyDefinitions/Deny-MachineLearning-HbiWorkspace.json",
    remediation="Set hbi_workspace to true (stack: hbi_workspace: true). It can only be set when the workspace is "
    "created.",
    check_stack=check_stack,
)
