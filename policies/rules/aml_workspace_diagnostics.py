"""aml-workspace-diagnostics: every workspace in the stack has a diagnostic setting.

Facts (domain.md, rules table; Azure Policy afe0c3be "Resource logs in Azure Machine Learning
Workspaces should be enabled"): resource logs leave a workspace only through a diagnostic setting
whose `resourceUri` is the workspace's ARM id. azure-native 3.x declares it as
`monitor:DiagnosticSetting` (`insights:DiagnosticSetting` is its older alias; both count).

A setting targets a workspace when its `resourceUri` was built from the workspace's outputs (a
property dependency, known even at preview) or parses to a `Microsoft.MachineLearningServices/
workspaces` id with the workspace's resource group and name (case-insensitive). A setting built from
another workspace's outputs is never read for this one, so its unknown id cannot hide a result.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from amlkit.policies.arm import parse_arm_id, same_name
from amlkit.policies.azure import WORKSPACE, WorkspaceView, is_type
from amlkit.policies.framework import Finding, Rule, StackResource, must

DIAGNOSTIC_SETTINGS = ("monitor:DiagnosticSetting", "insights:DiagnosticSetting")
EXPECTATION = "have a diagnostic setting (monitor:DiagnosticSetting whose resourceUri is the workspace's id)"


def check_stack(resources: Sequence[StackResource], config: Mapping[str, Any]) -> Iterator[Finding]:
    workspaces = [r for r in resources if is_type(r.type, WORKSPACE)]
    settings = [r for r in resources if any(is_type(r.type, kind) for kind in DIAGNOSTIC_SETTINGS)]
    workspace_urns = {w.urn for w in workspaces}
    for workspace in workspaces:
        if not _has_setting(workspace, settings, workspace_urns):
            yield Finding(must(f"Workspace '{workspace.name}'", EXPECTATION), workspace.urn)


def _has_setting(workspace: StackResource, settings: list[StackResource], workspace_urns: set[str]) -> bool:
    if any(s.depends_on("resourceUri", workspace.urn) for s in settings):
        return True
    others = workspace_urns - {workspace.urn}
    candidates = [s for s in settings if not any(s.depends_on("resourceUri", urn) for urn in others)]
    return any(_targets(s, workspace) for s in candidates)


def _targets(setting: StackResource, workspace: StackResource) -> bool:
    parsed = parse_arm_id(setting.props.get("resourceUri"))
    if parsed is None or not parsed.is_resource("Microsoft.MachineLearningServices", "workspaces"):
        return False
    view = WorkspaceView(workspace.props)
    return same_name(parsed.resource_group, view.resource_group_name) and same_name(parsed.name, view.name)


RULE = Rule(
    name="aml-workspace-diagnostics",
    description="Every workspace must have a diagnostic setting that exports its resource logs.",
    severity="medium",
    level="advisory",
    tags=("security", "governance"),
    url="https://learn.microsoft.com/azure/machine-learning/policy-reference",
    remediation="Add a monitor.DiagnosticSetting with resource_uri = workspace.id sending the allLogs "
    "category group to a Log Analytics workspace (or storage / event hub).",
    check_stack=check_stack,
)
