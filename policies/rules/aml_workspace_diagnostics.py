"""aml-workspace-diagnostics: every workspace exports its resource logs through a diagnostic setting.

Facts (Azure Policy afe0c3be "Resource logs in Azure Machine Learning Workspaces should be enabled",
v1.0.1, Azure/azure-policy built-in-policies/policyDefinitions/Machine Learning/
MachineLearningServices_AuditDiagnosticLog_Audit.json): resource logs leave a workspace only through a
diagnostic setting whose `resourceUri` is the workspace's ARM id. azure-native 3.x declares it as
`monitor:DiagnosticSetting` (`insights:DiagnosticSetting` is its older alias; both count).

A setting that merely exists is not enough. Like the built-in's existence condition, a workspace
passes when one of its settings has at least one entry in `logs` with `enabled` true and, when the
setting exports to a storage account (`storageAccountId`), a retention that keeps the logs long enough:
`retentionPolicy` not enabled, or `days` 0 (forever), or at least `requiredRetentionDays` (the
built-in's parameter, default 365). Settings without a storage account need no retention.

A setting targets a workspace when its `resourceUri` was built from the workspace's outputs (a
property dependency, known even at preview) or parses to a `Microsoft.MachineLearningServices/
workspaces` id with the workspace's resource group and name (case-insensitive). A setting built from
another workspace's outputs is never read for this one, so its unknown id cannot hide a result.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from amlkit.policies.arm import parse_arm_id, same_name
from amlkit.policies.azure import DiagnosticSettingView, diagnostic_setting_view, workspace_props, workspace_view
from amlkit.policies.framework import Finding, Rule, StackResource, azure_policy, mcsb, must

NAME = "aml-workspace-diagnostics"
DEFAULT_RETENTION_DAYS = 365
EXPECTATION = "have a diagnostic setting (monitor:DiagnosticSetting whose resourceUri is the workspace's id)"


def check_stack(resources: Sequence[StackResource], config: Mapping[str, Any]) -> Iterator[Finding]:
    required = int(config.get("requiredRetentionDays", DEFAULT_RETENTION_DAYS))
    workspaces = [r for r in resources if workspace_view(r.type, r.props) is not None]
    settings = [r for r in resources if diagnostic_setting_view(r.type, r.props) is not None]
    workspace_urns = {w.urn for w in workspaces}
    for workspace in workspaces:
        found = _what_is_missing(workspace, settings, workspace_urns, required)
        if found is not None:
            expectation = EXPECTATION if not found else _logs_expectation(required)
            yield Finding(must(f"Workspace '{workspace.name}'", expectation, found or None), workspace.urn)


def _what_is_missing(workspace: StackResource, settings: list[StackResource], workspace_urns: set[str],
                     required: int) -> str | None:
    """None when a setting exports the workspace's logs; "" when no setting targets it; else each setting's gap.

    Settings built from the workspace's outputs are judged first; ids are parsed only when none of them
    exports the logs, so an unrelated setting's unknown id cannot turn a pass into an unknown.
    """
    dependent = [s for s in settings if s.depends_on(_setting(s).target_input, workspace.urn)]
    problems = [(s, _problem(s, required)) for s in dependent]
    if any(problem is None for _, problem in problems):
        return None
    others = workspace_urns - {workspace.urn}
    literal = [s for s in settings if s not in dependent
               and not any(s.depends_on(_setting(s).target_input, urn) for urn in others) and _targets(s, workspace)]
    problems += [(s, _problem(s, required)) for s in literal]
    if any(problem is None for _, problem in problems):
        return None
    return "; ".join(f"setting '{setting.name}' {problem}" for setting, problem in problems)


def _logs_expectation(required: int) -> str:
    return ("export its resource logs: a diagnostic setting with a log entry enabled (logs[].enabled true) and, "
            f"when it exports to a storage account, retentionPolicy disabled, 0 days or at least {required} days")


def _targets(setting: StackResource, workspace: StackResource) -> bool:
    parsed = parse_arm_id(_setting(setting).target_id)
    if parsed is None or not parsed.is_resource("Microsoft.MachineLearningServices", "workspaces"):
        return False
    view = workspace_props(workspace)
    return same_name(parsed.resource_group, view.resource_group_name) and same_name(parsed.name, view.name)


def _problem(setting: StackResource, required: int) -> str | None:
    """None when one of the setting's logs meets afe0c3be's existence condition, else what is wrong."""
    view = _setting(setting)
    logs = view.logs
    kept = [days for enabled, days in logs if enabled]
    if not kept:
        return "enables no log (logs[].enabled true)" if logs else "lists no logs"
    if not view.exports_to_storage:
        return None
    if any(days is None or days == 0 or days >= required for days in kept):
        return None
    listed = " or ".join(str(days) for days in sorted({days for days in kept if days}))
    return f"exports to a storage account and keeps its enabled logs {listed} days"


def _setting(resource: StackResource) -> DiagnosticSettingView:
    view = diagnostic_setting_view(resource.type, resource.props)
    assert view is not None
    return view


RULE = Rule(
    name=NAME,
    ref="AMLK-0025",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="Workspace diagnostic logs",
    group="workspace",
    compliance=mcsb("LT-3", "Enable logging for security investigation", "mcsb-logging-threat-detection"),
    equivalents=(
        azure_policy("afe0c3be-ba3b-4544-ba52-0c99672a8ad6",
            "Resource logs in Azure Machine Learning Workspaces should be enabled"),
    ),
    description="Every workspace must export its resource logs: a diagnostic setting on the workspace with at "
    "least one log enabled and, when it exports to a storage account, a retention of at least "
    "requiredRetentionDays (or none, or 0 = forever), as Azure Policy afe0c3be requires.",
    severity="medium",
    level="advisory",
    tags=("security", "governance"),
    url="https://github.com/Azure/azure-policy/blob/master/built-in-policies/policyDefinitions/"
    "Machine%20Learning/MachineLearningServices_AuditDiagnosticLog_Audit.json",
    remediation="Add a monitor.DiagnosticSetting with resource_uri = workspace.id and logs = [{category_group: "
    "allLogs, enabled: true}] sending to a Log Analytics workspace (or event hub). When it also exports to a "
    "storage account, give each enabled log a retention_policy of 0 days (forever) or at least "
    "requiredRetentionDays, or none.",
    check_stack=check_stack,
    config={
        "requiredRetentionDays": {
            "type": "integer",
            "minimum": 1,
            "default": DEFAULT_RETENTION_DAYS,
            "description": "Minimum retention in days of the enabled logs of a setting that exports to a storage "
            "account (Azure Policy afe0c3be's requiredRetentionDays, default 365). Ignored for settings "
            "without a storage account, for a disabled retentionPolicy and for 0 days (kept forever).",
        },
    },
)
