import pytest

from amlkit.policies.rules.aml_workspace_no_public_access_behind_vnet import RULE
from tests.policies.examples import Example
from tests.policies.helpers import DELETE, Public, changed, messages
from tests.policies.workspace_fixtures import WORKSPACE_TYPE, workspace_props

PUBLIC = Public("AMLK-0019", "aml-workspace-no-public-access-behind-vnet", level="advisory", kind="resource")

HAPPY = workspace_props()

CASES = [
    ("happy-path", HAPPY, []),
    ("true", changed(HAPPY, "allowPublicAccessWhenBehindVnet", True),
     ["Workspace 'mlw-prod' must have allowPublicAccessWhenBehindVnet false; found true."]),
    ("missing-defaults-to-false", changed(HAPPY, "allowPublicAccessWhenBehindVnet", DELETE), []),
]

EXAMPLE = Example.of_cases(CASES, fails="true", passes="happy-path", type_=WORKSPACE_TYPE)


@pytest.mark.parametrize(("props", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_workspace_no_public_access_behind_vnet(props, expected):
    assert messages(RULE, props, name="mlw-prod", type_=WORKSPACE_TYPE) == expected


def test_other_resource_types_are_ignored():
    props = changed(HAPPY, "allowPublicAccessWhenBehindVnet", True)
    assert messages(RULE, props, type_="azure-native:storage:StorageAccount") == []
