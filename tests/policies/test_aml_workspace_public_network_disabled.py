import pytest

from amlkit.policies.rules.aml_workspace_public_network_disabled import RULE
from tests.policies.examples import Example
from tests.policies.helpers import DELETE, Public, changed, messages
from tests.policies.workspace_fixtures import WORKSPACE_TYPE, workspace_props

PUBLIC = Public("AMLK-0018", "aml-workspace-public-network-disabled", level="advisory", kind="stack")

HAPPY = workspace_props()
MESSAGE = "Workspace 'mlw-prod' must have publicNetworkAccess Disabled; found {}."

CASES = [
    ("happy-path", HAPPY, []),
    ("enabled", changed(HAPPY, "publicNetworkAccess", "Enabled"), [MESSAGE.format("Enabled")]),
    ("missing-defaults-to-enabled", changed(HAPPY, "publicNetworkAccess", DELETE), [MESSAGE.format("Enabled")]),
    ("null-defaults-to-enabled", changed(HAPPY, "publicNetworkAccess", None), [MESSAGE.format("Enabled")]),
    ("disabled-lowercase", changed(HAPPY, "publicNetworkAccess", "disabled"), []),
]

EXAMPLE = Example.of_cases(CASES, fails="enabled", passes="happy-path", type_=WORKSPACE_TYPE)


@pytest.mark.parametrize(("props", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_workspace_public_network_disabled(props, expected):
    assert messages(RULE, props, name="mlw-prod", type_=WORKSPACE_TYPE) == expected


def test_explicit_api_version_is_checked():
    props = changed(HAPPY, "publicNetworkAccess", "Enabled")
    type_ = "azure-native:machinelearningservices/v20240401:Workspace"
    assert messages(RULE, props, name="mlw-prod", type_=type_) == [MESSAGE.format("Enabled")]


def test_other_resource_types_are_ignored():
    props = changed(HAPPY, "publicNetworkAccess", "Enabled")
    assert messages(RULE, props, type_="azure-native:storage:StorageAccount") == []
