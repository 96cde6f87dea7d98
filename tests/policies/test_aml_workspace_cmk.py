import pytest

from amlkit.policies.rules.aml_workspace_cmk import RULE
from tests.policies.examples import Example
from tests.policies.helpers import DELETE, Public, changed, messages
from tests.policies.workspace_fixtures import WORKSPACE_TYPE, workspace_props

PUBLIC = Public("AMLK-0022", "aml-workspace-cmk", level="advisory", kind="resource")

HAPPY = workspace_props()
MESSAGE = "Workspace 'mlw-prod' must be encrypted with a customer-managed key; found {}."
NO_KEY = MESSAGE.format("no encryption.keyVaultProperties.keyIdentifier")

CASES = [
    ("happy-path", HAPPY, []),
    ("encryption-missing-means-microsoft-keys", changed(HAPPY, "encryption", DELETE), [NO_KEY]),
    ("key-identifier-missing", changed(HAPPY, "encryption.keyVaultProperties.keyIdentifier", DELETE), [NO_KEY]),
    ("key-identifier-empty", changed(HAPPY, "encryption.keyVaultProperties.keyIdentifier", ""), [NO_KEY]),
    ("status-disabled", changed(HAPPY, "encryption.status", "Disabled"),
     [MESSAGE.format("encryption.status Disabled")]),
    ("status-missing", changed(HAPPY, "encryption.status", DELETE), [MESSAGE.format("encryption.status none")]),
    ("status-lowercase", changed(HAPPY, "encryption.status", "enabled"), []),
    # built-in ba769a63 v1.1.0 skips kind Project; a Hub is checked like any workspace
    ("project-without-encryption-not-checked", changed(changed(HAPPY, "kind", "Project"), "encryption", DELETE), []),
    ("project-lowercase-not-checked", changed(changed(HAPPY, "kind", "project"), "encryption", DELETE), []),
    ("hub-without-encryption", changed(changed(HAPPY, "kind", "Hub"), "encryption", DELETE), [NO_KEY]),
    ("feature-store-without-encryption", changed(changed(HAPPY, "kind", "FeatureStore"), "encryption", DELETE),
     [NO_KEY]),
    ("kind-missing-is-default", changed(changed(HAPPY, "kind", DELETE), "encryption", DELETE), [NO_KEY]),
]

EXAMPLE = Example.of_cases(CASES, fails="encryption-missing-means-microsoft-keys", passes="happy-path",
                           type_=WORKSPACE_TYPE)


@pytest.mark.parametrize(("props", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_workspace_cmk(props, expected):
    assert messages(RULE, props, name="mlw-prod", type_=WORKSPACE_TYPE) == expected


def test_other_resource_types_are_ignored():
    assert messages(RULE, changed(HAPPY, "encryption", DELETE), type_="azure-native:storage:StorageAccount") == []
