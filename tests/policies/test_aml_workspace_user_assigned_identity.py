import pytest

from amlkit.policies.rules.aml_workspace_user_assigned_identity import RULE
from tests.policies.examples import Example
from tests.policies.helpers import DELETE, Public, changed, messages
from tests.policies.workspace_fixtures import IDENTITY_ID, WORKSPACE_TYPE, workspace_props

PUBLIC = Public("AMLK-0024", "aml-workspace-user-assigned-identity", level="advisory", kind="resource")

HAPPY = workspace_props()
MESSAGE = ("Workspace 'mlw-prod' must use a user-assigned identity (identity type including UserAssigned and "
           "primaryUserAssignedIdentity set to one of identity.userAssignedIdentities); found {}.")
OTHER_ID = IDENTITY_ID.replace("id-mlw-prod", "id-other")

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
    # primaryUserAssignedIdentity must be one of the listed identities (ARM ids compare case-insensitively)
    ("primary-not-listed", changed(HAPPY, "primaryUserAssignedIdentity", OTHER_ID),
     [MESSAGE.format(f"primaryUserAssignedIdentity {OTHER_ID}, which is not one of "
                     "identity.userAssignedIdentities (1 listed)")]),
    ("primary-not-among-two", changed(HAPPY, "identity.userAssignedIdentities", [OTHER_ID, OTHER_ID + "2"]),
     [MESSAGE.format(f"primaryUserAssignedIdentity {IDENTITY_ID}, which is not one of "
                     "identity.userAssignedIdentities (2 listed)")]),
    ("primary-second-of-two", changed(HAPPY, "identity.userAssignedIdentities", [OTHER_ID, IDENTITY_ID]), []),
    ("primary-other-case", changed(HAPPY, "primaryUserAssignedIdentity", IDENTITY_ID.upper()), []),
    ("identities-map-form", changed(HAPPY, "identity.userAssignedIdentities", {IDENTITY_ID: {}}), []),
    ("identities-missing", changed(HAPPY, "identity.userAssignedIdentities", DELETE),
     [MESSAGE.format(f"primaryUserAssignedIdentity {IDENTITY_ID} but no identity.userAssignedIdentities")]),
    ("identities-empty", changed(HAPPY, "identity.userAssignedIdentities", []),
     [MESSAGE.format(f"primaryUserAssignedIdentity {IDENTITY_ID} but no identity.userAssignedIdentities")]),
]

EXAMPLE = Example.of_cases(CASES, fails="system-assigned", passes="happy-path", type_=WORKSPACE_TYPE)


@pytest.mark.parametrize(("props", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_workspace_user_assigned_identity(props, expected):
    assert messages(RULE, props, name="mlw-prod", type_=WORKSPACE_TYPE) == expected


def test_other_resource_types_are_ignored():
    assert messages(RULE, changed(HAPPY, "identity", DELETE), type_="azure-native:storage:StorageAccount") == []
