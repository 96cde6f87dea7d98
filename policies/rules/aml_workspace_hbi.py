"""aml-workspace-hbi: workspaces are flagged high business impact.

Facts (docs/azure-facts.md, "Workspace settings"; ALZ custom policy Deny-MachineLearning-HbiWorkspace): `hbiWorkspace`
true reduces the diagnostic data Microsoft collects and adds encryption; omitted means false.

A project workspace takes its security and encryption settings, HBI among them, from its hub
(`amlkit.policies.hubs`): it is judged by its hub when the hub is in the stack, and cannot be told otherwise.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from amlkit.policies.azure import workspace_props
from amlkit.policies.framework import Change, Finding, Rule, StackResource, alz, must
from amlkit.policies.hubs import deciding_workspaces

EXPECTATION = "have hbiWorkspace true"


def check_stack(resources: Sequence[StackResource], config: Mapping[str, Any]) -> Iterator[Finding]:
    for workspace, unknown in deciding_workspaces(resources, "HBI setting", EXPECTATION):
        if unknown is not None:
            yield unknown
        elif not workspace_props(workspace).hbi_workspace:
            yield Finding(must(f"Workspace '{workspace.name}'", EXPECTATION, "false"), workspace.urn)


RULE = Rule(
    name="aml-workspace-hbi",
    ref="AMLK-0023",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    display_name="High business impact workspace",
    group="workspace",
    since="0.1.0",
    changed=(
        Change("0.2.0", "a Project workspace is judged by its hub when the hub is in the stack, and unknown otherwise "
               "(concept-hub-workspace.md: projects obtain the hub's security settings)"),
    ),
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
    remediation="Set hbi_workspace to true. It can only be set when the workspace is created.",
    check_stack=check_stack,
)
