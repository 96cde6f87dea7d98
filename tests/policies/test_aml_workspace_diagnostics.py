import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, unknown_checking_proxy

from amlkit.policies.framework import StackResource
from amlkit.policies.rules.aml_workspace_diagnostics import RULE
from tests.policies import preview_fixtures as preview
from tests.policies.examples import Example
from tests.policies.helpers import Public
from tests.policies.workspace_fixtures import (
    DIAGNOSTIC_TYPE,
    LEGACY_DIAGNOSTIC_TYPE,
    OTHER_SUB,
    WORKSPACE_TYPE,
    diagnostic_props,
    res,
    rg_id,
    stack_messages,
    workspace_id,
    workspace_props,
)

PUBLIC = Public("AMLK-0025", "aml-workspace-diagnostics", level="advisory", kind="stack")

PROD = res(WORKSPACE_TYPE, "mlw-prod", workspace_props())
DEV = res(WORKSPACE_TYPE, "mlw-dev", workspace_props(resourceGroupName="rg-ml-dev", workspaceName="mlw-dev"))
PROD_DIAG = res(DIAGNOSTIC_TYPE, "diag-prod", diagnostic_props(workspace_id()))
DEV_DIAG = res(DIAGNOSTIC_TYPE, "diag-dev", diagnostic_props(workspace_id("rg-ml-dev", "mlw-dev")))


def missing(name: str) -> tuple[str, str]:
    return name, (f"Workspace '{name}' must have a diagnostic setting (monitor:DiagnosticSetting whose "
                  "resourceUri is the workspace's id).")


def storage_id() -> str:
    return f"{rg_id('rg-ml-prod')}/providers/Microsoft.Storage/storageAccounts/stmlprod"


LOGS_EXPECTATION = "must export its resource logs: a diagnostic setting with a log entry enabled (logs[].enabled true)"


def gap(found: str, name: str = "mlw-prod") -> tuple[str, str]:
    return name, f"Workspace '{name}' {LOGS_EXPECTATION}; found {found}."


def setting(name: str = "diag-prod", **changes) -> StackResource:
    """PROD_DIAG (every log to Log Analytics) with top-level keys changed; None removes a key."""
    props = diagnostic_props(workspace_id())
    for key, value in changes.items():
        if value is None:
            props.pop(key, None)
        else:
            props[key] = value
    return res(DIAGNOSTIC_TYPE, name, props)


def log(enabled: bool = True, days: int | None = None, retention: bool = True) -> dict:
    entry: dict = {"categoryGroup": "allLogs", "enabled": enabled}
    if days is not None:
        entry["retentionPolicy"] = {"enabled": retention, "days": float(days)}
    return entry


TO_STORAGE = {"storageAccountId": storage_id()}


CASES = [
    ("happy-path", [PROD, DEV, PROD_DIAG, DEV_DIAG], []),
    ("no-settings", [PROD, DEV], [missing("mlw-prod"), missing("mlw-dev")]),
    ("one-workspace-without", [PROD, DEV, PROD_DIAG], [missing("mlw-dev")]),
    ("case-insensitive-id", [PROD, res(DIAGNOSTIC_TYPE, "d", diagnostic_props(
        workspace_id().upper().replace("/SUBSCRIPTIONS/", "/subscriptions/")))], []),
    ("legacy-insights-type", [PROD, res(LEGACY_DIAGNOSTIC_TYPE, "d", diagnostic_props(workspace_id()))], []),
    ("explicit-version-type", [PROD, res("azure-native:monitor/v20210501preview:DiagnosticSetting", "d",
                                         diagnostic_props(workspace_id()))], []),
    ("setting-on-storage-account", [PROD, res(DIAGNOSTIC_TYPE, "d", diagnostic_props(storage_id()))],
     [missing("mlw-prod")]),
    ("setting-on-workspace-in-other-group", [PROD, res(DIAGNOSTIC_TYPE, "d", diagnostic_props(
        workspace_id("rg-other")))], [missing("mlw-prod")]),
    ("setting-on-workspace-with-other-name", [PROD, res(DIAGNOSTIC_TYPE, "d", diagnostic_props(
        workspace_id(name="mlw-other")))], [missing("mlw-prod")]),
    ("other-subscription-same-names-counts", [PROD, res(DIAGNOSTIC_TYPE, "d", diagnostic_props(
        workspace_id(sub=OTHER_SUB)))], []),
    ("resource-uri-not-an-id", [PROD, res(DIAGNOSTIC_TYPE, "d", diagnostic_props("mlw-prod"))],
     [missing("mlw-prod")]),
    ("no-workspaces", [PROD_DIAG], []),
    # afe0c3be: at least one log enabled; no storage retention asked for (Azure Monitor disabled it on 2025-09-30)
    ("log-disabled", [PROD, setting(logs=[log(enabled=False)])],
     [gap("setting 'diag-prod' enables no log (logs[].enabled true)")]),
    ("logs-missing", [PROD, setting(logs=None)], [gap("setting 'diag-prod' lists no logs")]),
    ("logs-empty-metrics-only", [PROD, setting(logs=[], metrics=[{"category": "AllMetrics", "enabled": True}])],
     [gap("setting 'diag-prod' lists no logs")]),
    ("one-of-two-logs-enabled", [PROD, setting(logs=[log(enabled=False), log()])], []),
    ("storage-no-retention-policy", [PROD, setting(**TO_STORAGE, logs=[log()])], []),
    ("storage-retention-disabled", [PROD, setting(**TO_STORAGE, logs=[log(days=30, retention=False)])], []),
    ("storage-retention-forever", [PROD, setting(**TO_STORAGE, logs=[log(days=0)])], []),
    ("storage-retention-365", [PROD, setting(**TO_STORAGE, logs=[log(days=365)])], []),
    ("storage-retention-364-retired-feature-not-required", [PROD, setting(**TO_STORAGE, logs=[log(days=364)])], []),
    ("storage-retention-30-and-90-not-required", [PROD, setting(**TO_STORAGE, logs=[log(days=90), log(days=30)])],
     []),
    ("short-retention-without-storage", [PROD, setting(logs=[log(days=30)])], []),
    ("disabled-log-with-long-retention", [PROD, setting(**TO_STORAGE, logs=[log(enabled=False, days=400)])],
     [gap("setting 'diag-prod' enables no log (logs[].enabled true)")]),
    ("second-setting-exports", [PROD, setting(logs=[log(enabled=False)]), setting("diag-la")], []),
    ("two-settings-one-exports-to-storage", [PROD, setting(logs=[log(enabled=False)]),
                                             setting("diag-st", **TO_STORAGE, logs=[log(days=7)])], []),
    ("two-settings-neither-enables-a-log", [PROD, setting(logs=[log(enabled=False)]),
                                            setting("diag-st", **TO_STORAGE, logs=[log(enabled=False, days=7)])],
     [gap("setting 'diag-prod' enables no log (logs[].enabled true); setting 'diag-st' enables no log "
          "(logs[].enabled true)")]),
]


@pytest.mark.parametrize(("resources", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_workspace_diagnostics(resources, expected):
    assert stack_messages(RULE, resources) == expected


@pytest.mark.parametrize("days", [30, 90, 365])
def test_required_retention_days_is_still_accepted_and_ignored(days):
    resources = [PROD, setting(**TO_STORAGE, logs=[log(days=7)])]
    assert stack_messages(RULE, resources, {"requiredRetentionDays": float(days)}) == []


def test_no_default_retention_and_the_old_default_is_recorded_for_baselines():
    assert RULE.defaults() == {}
    assert [(c.version, dict(c.config)) for c in RULE.changed] == [("0.2.0", {"requiredRetentionDays": 365})]


def unknown_setting(name: str, **deps: str):
    return res(DIAGNOSTIC_TYPE, name, unknown_checking_proxy(diagnostic_props(UNKNOWN_STRING_VALUE)), **deps)


def test_setting_built_from_the_workspace_counts_while_unknown():
    assert stack_messages(RULE, [PROD, unknown_setting("d", resourceUri=PROD.urn)]) == []


def test_setting_of_another_workspace_is_not_read():
    resources = [PROD, DEV, unknown_setting("d", resourceUri=DEV.urn)]
    assert stack_messages(RULE, resources) == [missing("mlw-prod")]


def test_unrelated_unknown_setting_is_unknown_not_a_violation():
    (finding,) = RULE.evaluate_stack([PROD, unknown_setting("d")])
    assert (finding.urn, finding.unknown) == (PROD.urn, True)
    assert finding.message == ("Workspace 'mlw-prod' must have a diagnostic setting (monitor:DiagnosticSetting whose "
                               "resourceUri is the workspace's id); cannot tell: preview cannot tell whether "
                               "diagnostic setting 'd' targets it.")


def test_is_an_advisory_stack_rule():
    assert RULE.is_stack_rule
    assert (RULE.name, RULE.level) == ("aml-workspace-diagnostics", "advisory")


EXAMPLE = Example.of_stacks(CASES, fails="no-settings", passes="happy-path")


# --- what a real preview knows: the workspace's id is unknown, its group's name comes from the graph ----------

CLASSIC_DIAGNOSTIC = "azure:monitoring/diagnosticSetting:DiagnosticSetting"
IN_RG_ML = workspace_id("rg-ml", "mlw-prod")


def preview_setting(provider, target, built_from=None):
    """A diagnostic setting exporting every log, its target `target` (built from `built_from` when given)."""
    if provider == "native":
        props, key, type_ = diagnostic_props(target), "resourceUri", DIAGNOSTIC_TYPE
    else:
        props = {"name": "diag", "targetResourceId": target, "enabledLogs": [{"categoryGroup": "allLogs"}]}
        key, type_ = "targetResourceId", CLASSIC_DIAGNOSTIC
    deps = {key: built_from.urn} if built_from is not None else {}
    return res(type_, "diag", unknown_checking_proxy(props), **deps)


PREVIEW_CASES = [
    ("built-from-the-workspace-id", "graph", []),
    ("literal-id-meets-the-group-resource-name", "literal", []),
    ("literal-id-of-another-group", "other", [("mlw", "must have a diagnostic setting", False)]),
    ("literal-id-while-the-group-name-is-unknown", "nameless-group",
     [("mlw", "must have a diagnostic setting", True)]),
]


@pytest.mark.parametrize("provider", ["native", "classic"])
@pytest.mark.parametrize(("shape", "expected"), [c[1:] for c in PREVIEW_CASES], ids=[c[0] for c in PREVIEW_CASES])
def test_preview_knowledge(provider, shape, expected):
    rg = preview.group(provider)
    if shape == "nameless-group":
        rg = res(rg.type, rg.name, {"location": "westeurope"})
    ws = preview.workspace(provider, rg)
    target = {"graph": preview.U, "other": workspace_id("rg-other", "mlw-prod")}.get(shape, IN_RG_ML)
    found = preview.verdicts(RULE, [rg, ws, preview_setting(provider, target, ws if shape == "graph" else None)])
    assert [(name, message.split(" (")[0].replace("Workspace 'mlw' ", ""), unknown)
            for name, message, unknown in found] == expected
    if shape == "nameless-group":
        assert found[0][1].endswith("cannot tell: preview cannot tell whether diagnostic setting 'diag' targets it.")



# --- the settings are indexed once per stack (#32): the verdicts of a mixed stack are pinned ----------------------

QA = res(WORKSPACE_TYPE, "mlw-qa", workspace_props(resourceGroupName="rg-ml-qa", workspaceName="mlw-qa"))
UAT = res(WORKSPACE_TYPE, "mlw-uat", workspace_props(resourceGroupName="rg-ml-uat", workspaceName="mlw-uat"))
NAMELESS = res(WORKSPACE_TYPE, "mlw-nameless", {k: v for k, v in workspace_props(resourceGroupName="rg-ml-uat").items()
                                                 if k != "workspaceName"})
OFF = [log(enabled=False)]


def as_preview(r: StackResource) -> StackResource:
    """The resource as preview shows it: reading an unknown input raises."""
    return StackResource(r.type, r.name, r.urn, unknown_checking_proxy(dict(r.props)), None, r.property_dependencies)


def built_from(name: str, *workspaces: StackResource, logs=None) -> StackResource:
    """A setting whose resourceUri was built from `workspaces` (unknown at preview)."""
    props = diagnostic_props(UNKNOWN_STRING_VALUE)
    if logs is not None:
        props["logs"] = logs
    return res(DIAGNOSTIC_TYPE, name, props, resourceUri=tuple(w.urn for w in workspaces))


def mixed(with_unknown_id: bool) -> list[StackResource]:
    listed = [
        setting("s-prod-literal-off", logs=OFF),
        PROD,
        built_from("s-dev-graph", DEV),
        setting("s-other-name", resourceUri=workspace_id(name="mlw-other")),
        setting("s-unknown-id", resourceUri=UNKNOWN_STRING_VALUE) if with_unknown_id else None,
        QA,
        built_from("s-uat-graph-off", UAT, logs=OFF),
        NAMELESS,
        setting("s-storage", resourceUri=storage_id()),
        DEV,
        built_from("s-qa-and-prod-off", QA, PROD, logs=OFF),
        UAT,
        setting("s-uat-literal-upper", resourceUri=workspace_id("RG-ML-UAT", "MLW-UAT")),
        setting("s-uat-literal-other-group", resourceUri=workspace_id("rg-ml-prod", "mlw-uat"), logs=[]),
    ]
    return [as_preview(r) for r in listed if r is not None]


NO_LOG = "enables no log (logs[].enabled true)"
PROD_GAP = ("mlw-prod", f"Workspace 'mlw-prod' {LOGS_EXPECTATION}; found setting 's-qa-and-prod-off' {NO_LOG}; "
            f"setting 's-prod-literal-off' {NO_LOG}.", False)
QA_GAP = ("mlw-qa", f"Workspace 'mlw-qa' {LOGS_EXPECTATION}; found setting 's-qa-and-prod-off' {NO_LOG}.", False)


def undecided(workspace: str, setting_name: str, logs: bool = False) -> tuple[str, str, bool]:
    expectation = LOGS_EXPECTATION if logs else ("must have a diagnostic setting (monitor:DiagnosticSetting whose "
                                                 "resourceUri is the workspace's id)")
    return workspace, (f"Workspace '{workspace}' {expectation}; cannot tell: preview cannot tell whether diagnostic "
                       f"setting '{setting_name}' targets it."), True


NAMELESS_UNDECIDED = undecided("mlw-nameless", "s-uat-literal-upper")
MIXED_CASES = [  # the findings before the index, as they were (each workspace scanned every setting)
    ("decided", mixed(False), [PROD_GAP, QA_GAP, NAMELESS_UNDECIDED]),
    ("with-an-unknown-id", mixed(True), [undecided("mlw-prod", "s-unknown-id", logs=True),
                                         undecided("mlw-qa", "s-unknown-id", logs=True),
                                         undecided("mlw-nameless", "s-unknown-id")]),
    ("decided-reversed", mixed(False)[::-1], [NAMELESS_UNDECIDED, QA_GAP, PROD_GAP]),
    ("with-an-unknown-id-reversed", mixed(True)[::-1], [NAMELESS_UNDECIDED,
                                                        undecided("mlw-qa", "s-unknown-id", logs=True),
                                                        undecided("mlw-prod", "s-unknown-id", logs=True)]),
]


@pytest.mark.parametrize(("resources", "expected"), [c[1:] for c in MIXED_CASES], ids=[c[0] for c in MIXED_CASES])
def test_a_mixed_stack_keeps_its_exact_findings(resources, expected):
    assert [(f.urn.rsplit("::", 1)[-1], f.message, f.unknown) for f in RULE.evaluate_stack(resources)] == expected
