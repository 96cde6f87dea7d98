import jsonschema
import pytest

from amlkit.policies.rules.aml_workspace_managed_network import RULE
from tests.policies.examples import Example
from tests.policies.helpers import DELETE, Public, changed, messages
from tests.policies.workspace_fixtures import WORKSPACE_TYPE, workspace_props

PUBLIC = Public("AMLK-0020", "aml-workspace-managed-network", level="advisory", kind="stack")

HAPPY = workspace_props()
APPROVED_ONLY = "Workspace 'mlw-prod' must have managedNetwork.isolationMode AllowOnlyApprovedOutbound; found {}."
EITHER = ("Workspace 'mlw-prod' must have managedNetwork.isolationMode AllowInternetOutbound or "
          "AllowOnlyApprovedOutbound; found {}.")
BOTH_MODES = {"allowedIsolationModes": ["AllowInternetOutbound", "AllowOnlyApprovedOutbound"]}

CASES = [
    ("happy-path", HAPPY, None, []),
    ("internet-outbound", changed(HAPPY, "managedNetwork.isolationMode", "AllowInternetOutbound"), None,
     [APPROVED_ONLY.format("AllowInternetOutbound")]),
    ("disabled", changed(HAPPY, "managedNetwork.isolationMode", "Disabled"), None,
     [APPROVED_ONLY.format("Disabled")]),
    ("mode-missing-defaults-to-disabled", changed(HAPPY, "managedNetwork.isolationMode", DELETE), None,
     [APPROVED_ONLY.format("Disabled")]),
    ("managed-network-missing-defaults-to-disabled", changed(HAPPY, "managedNetwork", DELETE), None,
     [APPROVED_ONLY.format("Disabled")]),
    ("mode-case-insensitive", changed(HAPPY, "managedNetwork.isolationMode", "allowonlyapprovedoutbound"), None, []),
    ("config-allows-internet-outbound", changed(HAPPY, "managedNetwork.isolationMode", "AllowInternetOutbound"),
     BOTH_MODES, []),
    ("config-still-rejects-disabled", changed(HAPPY, "managedNetwork", DELETE), BOTH_MODES,
     [EITHER.format("Disabled")]),
]

EXAMPLE = Example.of_cases(CASES, fails="internet-outbound", passes="happy-path", type_=WORKSPACE_TYPE)


@pytest.mark.parametrize(("props", "config", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_workspace_managed_network(props, config, expected):
    assert messages(RULE, props, config, name="mlw-prod", type_=WORKSPACE_TYPE) == expected


def test_config_schema_default_and_enum():
    schema = {"type": "object", "properties": dict(RULE.config)}
    assert RULE.defaults() == {"allowedIsolationModes": ["AllowOnlyApprovedOutbound"]}
    jsonschema.validate(BOTH_MODES, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"allowedIsolationModes": ["Open"]}, schema)


def test_other_resource_types_are_ignored():
    props = changed(HAPPY, "managedNetwork", DELETE)
    assert messages(RULE, props, type_="azure-native:storage:StorageAccount") == []
