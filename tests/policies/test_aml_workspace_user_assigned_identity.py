import pytest

from amlkit.policies.rules.aml_workspace_user_assigned_identity import RULE
from tests.policies.helpers import DELETE, changed, messages
from tests.policies.workspace_fixtures import WORKSPACE_TYPE, workspace_props

HAPPY = workspace_props()
MESSAGE = ("Workspace 'mlw-prod' must use a user-assigned identity (identity type including UserAssigned and "
           "primaryUserAssignedIdentity set); found {}.")

CASES = [
    ("happy-path", HAPPY, []),
    ("system-assigned", changed(HAPPY, "identity.type", "SystemAssigned"),
     [MESSAGE.format("identity type SystemAssigned")]),
    ("none", changed(HAPPY, "identity.type", "None"), [MESSAGE.format("identity type None")]),
    ("identity-missing", changed(HAPPY, "identity", DELETE), [MESSAGE.format("no identity")]),
    ("primary-missing", changed(HAPPY, "primaryUserAssignedIdentity", DELETE),
     [MESSAGE.format("no primaryUserAssignedIdentity")]),
    ("primary-empty", changed(HAPPY, "primaryUserAssignedIdentity", ""),
     [MESSAGE.format("no primaryUserAssignedIdentity")]),
    ("system-and-user-assigned", changed(HAPPY, "identity.type", "SystemAssigned,UserAssigned"), []),
    ("type-case-and-spaces", changed(HAPPY, "identity.type", "SystemAssigned, userassigned"), []),
]


@pytest.mark.parametrize(("props", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_workspace_user_assigned_identity(props, expected):
    assert messages(RULE, props, name="mlw-prod", type_=WORKSPACE_TYPE) == expected


def test_other_resource_types_are_ignored():
    assert messages(RULE, changed(HAPPY, "identity", DELETE), type_="azure-native:storage:StorageAccount") == []
