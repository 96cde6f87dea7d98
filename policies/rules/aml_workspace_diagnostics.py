"""aml-workspace-diagnostics: every workspace exports its resource logs through a diagnostic setting.

Facts (Azure Policy afe0c3be "Resource logs in Azure Machine Learning Workspaces should be enabled",
v1.0.1, Azure/azure-policy built-in-policies/policyDefinitions/Machine Learning/
MachineLearningServices_AuditDiagnosticLog_Audit.json): resource logs leave a workspace only through a
diagnostic setting whose `resourceUri` is the workspace's ARM id. azure-native 3.x declares it as
`monitor:DiagnosticSetting` (`insights:DiagnosticSetting` is its older alias; both count).

A setting that merely exists is not enough: a workspace passes when one of its settings has at least one
entry in `logs` with `enabled` true. The built-in also asks a setting that exports to a storage account for
a `retentionPolicy` of at least `requiredRetentionDays`; amlkit does not: diagnostic-settings storage
retention was closed to new rules on 2023-03-31 and disabled on 2025-09-30, and Azure Monitor's advice is
retention 0 in the setting and an Azure Storage lifecycle management policy on the account (for Log Analytics,
per-table retention) (MicrosoftDocs/azure-monitor-docs articles/azure-monitor/essentials/
migrate-to-azure-storage-lifecycle-policy.md). `requiredRetentionDays` is still accepted, and ignored.

A setting targets a workspace when its `resourceUri` was built from the workspace's outputs (a
property dependency, known even at preview) or parses to a `Microsoft.MachineLearningServices/
workspaces` id with the workspace's resource group and name (case-insensitive). A setting built from
another workspace's outputs is never read for this one, so its unknown id cannot hide a result.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from amlkit.policies.azure import (
    DiagnosticSettingView,
    diagnostic_setting_view,
    read_known,
    workspace_view,
)
from amlkit.policies.framework import Change, Finding, Rule, StackResource, azure_policy, cannot_tell, mcsb, must
from amlkit.policies.links import Stack

__all__ = ["EXPECTATION", "LOGS_EXPECTATION", "NAME", "RULE", "Settings", "check_stack"]

NAME = "aml-workspace-diagnostics"
EXPECTATION = "have a diagnostic setting (monitor:DiagnosticSetting whose resourceUri is the workspace's id)"


def check_stack(resources: Sequence[StackResource], config: Mapping[str, Any]) -> Iterator[Finding]:
    workspaces = [r for r in resources if workspace_view(r.type, r.props) is not None]
    if not workspaces:  # no setting is read when there is nothing to judge
        return
    stack = Stack(resources)
    settings = Settings([r for r in resources if diagnostic_setting_view(r.type, r.props) is not None],
                        {w.urn for w in workspaces})
    for workspace in workspaces:
        found, undecided = _what_is_missing(workspace, settings, stack)
        if found is None:
            continue
        expectation = EXPECTATION if not found else LOGS_EXPECTATION
        if undecided:
            yield cannot_tell(f"Workspace '{workspace.name}'", expectation, f"preview cannot tell whether diagnostic "
                              f"setting '{undecided[0]}' targets it", workspace.urn)
        else:
            yield Finding(must(f"Workspace '{workspace.name}'", expectation, found or None), workspace.urn)


class Settings:
    """The stack's diagnostic settings indexed once (#32: linear in the stack, not workspaces x settings): by the
    workspace their `resourceUri` was built from, and the others ("free") by the workspace name their known
    `resourceUri` parses to. A free setting whose id is unknown, or a workspace whose own name preview cannot
    know, is looked at the old way; a free setting indexed under another name never targets the workspace
    (`Stack.names_workspace` says False when both names are known and differ), nor one whose id is not a
    workspace's."""

    def __init__(self, listed: list[StackResource], workspace_urns: set[str]) -> None:
        self._by_workspace: dict[str, list[StackResource]] = {}
        self.free: list[StackResource] = []
        self._by_name: dict[str, list[int]] = {}
        self._unknown: list[int] = []
        for setting in listed:
            built_from = set(setting.property_dependencies.get(_setting(setting).target_input, ())) & workspace_urns
            for urn in sorted(built_from):
                self._by_workspace.setdefault(urn, []).append(setting)
            if not built_from:
                self._index_free(setting)

    def _index_free(self, setting: StackResource) -> None:
        position = len(self.free)
        self.free.append(setting)
        known, ref = read_known(lambda: Stack.parsed_ref(_setting(setting).target_id))
        if not known:
            self._unknown.append(position)
        elif ref is not None and ref.name.text is not None:
            self._by_name.setdefault(ref.name.text.lower(), []).append(position)

    def built_from(self, workspace: StackResource) -> list[StackResource]:
        """The settings whose target input was built from the workspace's outputs, in stack order."""
        return self._by_workspace.get(workspace.urn, [])

    def maybe_targeting(self, workspace: StackResource, stack: Stack) -> list[StackResource]:
        """The free settings that may target the workspace (the others never do), in stack order."""
        own = stack.workspace_ref(workspace).name
        if not own.known or own.text is None:
            return self.free
        positions = sorted(self._unknown + self._by_name.get(own.text.lower(), []))
        return [self.free[p] for p in positions]


def _what_is_missing(workspace: StackResource, settings: Settings, stack: Stack) -> tuple[str | None, list[str]]:
    """None when a setting exports the workspace's logs; "" when no setting targets it; else each setting's gap;
    with the settings preview cannot tell from this workspace's (their target id is known, the workspace's group
    is not).

    Settings built from the workspace's outputs are judged first; ids are parsed only when none of them
    exports the logs, so an unrelated setting's unknown id cannot turn a pass into an unknown. A setting built
    from another workspace's outputs is never read for this one.
    """
    problems = [(s, _problem(s)) for s in settings.built_from(workspace)]
    if any(problem is None for _, problem in problems):
        return None, []
    verdicts = [(s, _targets(s, workspace, stack)) for s in settings.maybe_targeting(workspace, stack)]
    problems += [(s, _problem(s)) for s, verdict in verdicts if verdict]
    if any(problem is None for _, problem in problems):
        return None, []
    undecided = [s.name for s, verdict in verdicts if verdict is None]
    return "; ".join(f"setting '{setting.name}' {problem}" for setting, problem in problems), undecided


LOGS_EXPECTATION = "export its resource logs: a diagnostic setting with a log entry enabled (logs[].enabled true)"


def _targets(setting: StackResource, workspace: StackResource, stack: Stack) -> bool | None:
    """Whether the setting's `resourceUri` is the workspace's id; None when preview cannot tell."""
    known, verdict = read_known(lambda: stack.names_workspace(_setting(setting).target_id, workspace))
    return verdict if known else None


def _problem(setting: StackResource) -> str | None:
    """None when one of the setting's logs is enabled, else what is wrong."""
    logs = _setting(setting).logs
    if any(logs):
        return None
    return "enables no log (logs[].enabled true)" if logs else "lists no logs"


def _setting(resource: StackResource) -> DiagnosticSettingView:
    view = diagnostic_setting_view(resource.type, resource.props)
    assert view is not None
    return view


RULE = Rule(
    name=NAME,
    ref="AMLK-0025",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    changed=(
        Change("0.2.0", "no diagnostic-settings storage retention required any more (requiredRetentionDays "
               "ignored): Azure Monitor disabled it on 2025-09-30 (migrate-to-azure-storage-lifecycle-policy.md)",
               config={"requiredRetentionDays": 365}),
    ),
    display_name="Workspace diagnostic logs",
    group="workspace",
    compliance=mcsb("LT-3", "Enable logging for security investigation", "mcsb-logging-threat-detection"),
    equivalents=(
        azure_policy("afe0c3be-ba3b-4544-ba52-0c99672a8ad6",
            "Resource logs in Azure Machine Learning Workspaces should be enabled"),
    ),
    description="Every workspace must export its resource logs: a diagnostic setting on the workspace with at "
    "least one log enabled (Azure Policy afe0c3be). Unlike the built-in, no diagnostic-settings storage retention "
    "is asked for: Azure Monitor disabled that feature on 2025-09-30 (retention belongs to an Azure Storage "
    "lifecycle management policy, or to the Log Analytics tables).",
    severity="medium",
    level="advisory",
    tags=("security", "governance"),
    url="https://github.com/Azure/azure-policy/blob/master/built-in-policies/policyDefinitions/"
    "Machine%20Learning/MachineLearningServices_AuditDiagnosticLog_Audit.json",
    remediation="Add a monitor.DiagnosticSetting with resource_uri = workspace.id and logs = [{category_group: "
    "allLogs, enabled: true}] sending to a Log Analytics workspace (or event hub). Keep logs as long as your "
    "policy asks with per-table retention in Log Analytics, or, for a storage account, an Azure Storage lifecycle "
    "management policy on the account with the setting's retention_policy at 0 days (Azure Monitor's migration "
    "guide: https://learn.microsoft.com/azure/azure-monitor/essentials/migrate-to-azure-storage-lifecycle-policy); "
    "diagnostic-settings retention itself no longer works.",
    check_stack=check_stack,
    config={
        "requiredRetentionDays": {
            "type": "integer",
            "minimum": 1,
            "description": "Ignored since amlkit 0.2.0, still accepted so configs keep loading: diagnostic-settings "
            "storage retention was disabled by Azure Monitor on 2025-09-30 (use an Azure Storage lifecycle "
            "management policy instead).",
        },
    },
)
