import pytest

from amlkit.policies.rules.aml_workspace_hbi import RULE
from tests.policies.examples import Example
from tests.policies.helpers import DELETE, Public, changed, messages
from tests.policies.workspace_fixtures import WORKSPACE_TYPE, workspace_props

PUBLIC = Public("AMLK-0023", "aml-workspace-hbi", level="advisory", kind="stack")

HAPPY = workspace_props()
MESSAGE = "Workspace 'mlw-prod' must have hbiWorkspace true; found false."

CASES = [
    ("happy-path", HAPPY, []),
    ("false", changed(HAPPY, "hbiWorkspace", False), [MESSAGE]),
    ("missing-defaults-to-false", changed(HAPPY, "hbiWorkspace", DELETE), [MESSAGE]),
]

EXAMPLE = Example.of_cases(CASES, fails="false", passes="happy-path", type_=WORKSPACE_TYPE)


@pytest.mark.parametrize(("props", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_workspace_hbi(props, expected):
    assert messages(RULE, props, name="mlw-prod", type_=WORKSPACE_TYPE) == expected


def test_other_resource_types_are_ignored():
    assert messages(RULE, changed(HAPPY, "hbiWorkspace", DELETE), type_="azure-native:storage:StorageAccount") == []
