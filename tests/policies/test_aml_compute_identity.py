import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from amlkit.policies.framework import ResourceInput
from amlkit.policies.rules.aml_compute_identity import RULE
from tests.policies.compute_fixtures import USER_IDENTITY_ID, attached_props, instance_props, with_unknown
from tests.policies.helpers import COMPUTE_TYPE, DELETE, changed, cluster_props, messages

HAPPY = cluster_props()
CLUSTER = "AmlCompute cluster 'cpu-cluster'"
INSTANCE = "Compute instance 'cpu-cluster'"
NOT_BOTH = "must have either a system-assigned or user-assigned identity, not both"
NONE = "must have a managed identity, either SystemAssigned or UserAssigned"


def identity(value, props=HAPPY):
    return changed(props, "identity", value)


CASES = [
    ("happy-path-system", HAPPY, []),
    ("user-assigned-with-id", identity({"type": "UserAssigned", "userAssignedIdentities": [USER_IDENTITY_ID]}), []),
    ("user-assigned-map-form", identity({"type": "UserAssigned", "userAssignedIdentities": {USER_IDENTITY_ID: {}}}),
     []),
    ("both-rejected", identity({"type": "SystemAssigned,UserAssigned", "userAssignedIdentities": [USER_IDENTITY_ID]}),
     [f"{CLUSTER} {NOT_BOTH}; found SystemAssigned,UserAssigned."]),
    ("both-with-space-and-case", identity({"type": "systemassigned, UserAssigned",
                                           "userAssignedIdentities": [USER_IDENTITY_ID]}),
     [f"{CLUSTER} {NOT_BOTH}; found systemassigned, UserAssigned."]),
    ("both-reversed", identity({"type": "UserAssigned , SystemAssigned"}),
     [f"{CLUSTER} {NOT_BOTH}; found UserAssigned , SystemAssigned."]),
    ("user-assigned-without-ids", identity({"type": "UserAssigned"}),
     [f"{CLUSTER} must list at least one user-assigned identity id when the identity type is UserAssigned; "
      "found none."]),
    ("user-assigned-empty-list", identity({"type": "UserAssigned", "userAssignedIdentities": []}),
     [f"{CLUSTER} must list at least one user-assigned identity id when the identity type is UserAssigned; "
      "found none."]),
    ("system-with-user-ids", identity({"type": "SystemAssigned", "userAssignedIdentities": [USER_IDENTITY_ID]}),
     [f"{CLUSTER} must not list user-assigned identities when the identity type is SystemAssigned "
      "(one kind of identity only); found 1 listed."]),
    ("type-none-string", identity({"type": "None"}), [f"{CLUSTER} {NONE}; found None."]),
    ("identity-missing", identity(DELETE), [f"{CLUSTER} {NONE}; found none."]),
    ("type-missing", identity({}), [f"{CLUSTER} {NONE}; found none."]),
    ("type-unknown-word", identity({"type": "Managed"}), [f"{CLUSTER} {NONE}; found Managed."]),
    ("system-lower-case", identity({"type": "systemassigned"}), []),
    ("instance-missing", identity(DELETE, instance_props()), [f"{INSTANCE} {NONE}; found none."]),
    ("instance-both", identity({"type": "SystemAssigned,UserAssigned"}, instance_props()),
     [f"{INSTANCE} {NOT_BOTH}; found SystemAssigned,UserAssigned."]),
    ("instance-happy", instance_props(), []),
    ("attached-ignored", attached_props(), []),
]


@pytest.mark.parametrize(("props", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_compute_identity(props, expected):
    assert messages(RULE, props) == expected


def test_other_resource_types_are_ignored():
    assert messages(RULE, identity(DELETE), type_="azure-native:storage:StorageAccount") == []


def test_unknown_identity_type_is_unknown_not_a_pass():
    props = with_unknown(HAPPY, "identity.type", UNKNOWN_STRING_VALUE)
    with pytest.raises(UnknownValueError):
        RULE.evaluate(ResourceInput(COMPUTE_TYPE, "cpu-cluster", "urn", props))
