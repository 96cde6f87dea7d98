import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError, unknown_checking_proxy

from amlkit.policies.rules.aml_workspace_diagnostics import RULE
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

PROD = res(WORKSPACE_TYPE, "mlw-prod", workspace_props())
DEV = res(WORKSPACE_TYPE, "mlw-dev", workspace_props(resourceGroupName="rg-ml-dev", workspaceName="mlw-dev"))
PROD_DIAG = res(DIAGNOSTIC_TYPE, "diag-prod", diagnostic_props(workspace_id()))
DEV_DIAG = res(DIAGNOSTIC_TYPE, "diag-dev", diagnostic_props(workspace_id("rg-ml-dev", "mlw-dev")))


def missing(name: str) -> tuple[str, str]:
    return name, (f"Workspace '{name}' must have a diagnostic setting (monitor:DiagnosticSetting whose "
                  "resourceUri is the workspace's id).")


def storage_id() -> str:
    return f"{rg_id('rg-ml-prod')}/providers/Microsoft.Storage/storageAccounts/stmlprod"


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
]


@pytest.mark.parametrize(("resources", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_workspace_diagnostics(resources, expected):
    assert stack_messages(RULE, resources) == expected


def unknown_setting(name: str, **deps: str):
    return res(DIAGNOSTIC_TYPE, name, unknown_checking_proxy(diagnostic_props(UNKNOWN_STRING_VALUE)), **deps)


def test_setting_built_from_the_workspace_counts_while_unknown():
    assert stack_messages(RULE, [PROD, unknown_setting("d", resourceUri=PROD.urn)]) == []


def test_setting_of_another_workspace_is_not_read():
    resources = [PROD, DEV, unknown_setting("d", resourceUri=DEV.urn)]
    assert stack_messages(RULE, resources) == [missing("mlw-prod")]


def test_unrelated_unknown_setting_is_unknown_not_a_violation():
    with pytest.raises(UnknownValueError):
        RULE.evaluate_stack([PROD, unknown_setting("d")])


def test_is_an_advisory_stack_rule():
    assert RULE.is_stack_rule
    assert (RULE.name, RULE.level) == ("aml-workspace-diagnostics", "advisory")
