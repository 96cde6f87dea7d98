import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from amlkit.policies.framework import ResourceInput
from amlkit.policies.rules.aml_compute_identity import RULE
from tests.policies.compute_fixtures import (
    USER_IDENTITY_ID,
    attached_props,
    instance_props,
    resource,
    with_unknown,
    workspace,
)
from tests.policies.examples import Example
from tests.policies.helpers import DELETE, Public, changed, cluster_props

PUBLIC = Public("AMLK-0007", "aml-compute-identity", level="mandatory", kind="resource")

HAPPY = cluster_props()
CLUSTER = "AmlCompute cluster 'cpu-cluster'"
INSTANCE = "Compute instance 'ci-alice'"
NOT_BOTH = "must have either a system-assigned or user-assigned identity, not both"
NONE = "must have a managed identity, either SystemAssigned or UserAssigned"
WS = workspace()


def identity(value, props=HAPPY):
    return changed(props, "identity", value)


def findings(resources):
    """Each resource judged on its own inputs (a resource rule), in stack order."""
    return [(f.urn.rsplit("::", 1)[-1], f.message, f.unknown) for r in resources
            for f in RULE.evaluate(ResourceInput(r.type, r.name, r.urn, r.props))]


def decided(name, message):
    return name, message, False


# --- one kind of identity, on clusters and instances (an instance here has its Contributor grant) -----------

IDENTITY_CASES = [
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
    ("kubernetes-without-identity", attached_props(), [f"Kubernetes compute 'cpu-cluster' {NONE}; found none."]),
    ("kubernetes-system", identity({"type": "SystemAssigned"}, attached_props()), []),
    ("kubernetes-both", identity({"type": "SystemAssigned,UserAssigned"}, attached_props()),
     [f"Kubernetes compute 'cpu-cluster' {NOT_BOTH}; found SystemAssigned,UserAssigned."]),
    ("synapse-without-identity", changed(attached_props(), "properties.computeType", "SynapseSpark"),
     [f"SynapseSpark compute 'cpu-cluster' {NONE}; found none."]),
    ("virtual-machine-ignored", changed(attached_props(), "properties.computeType", "VirtualMachine"), []),
    ("aks-ignored", attached_props("AKS"), []),
]


@pytest.mark.parametrize(("props", "expected"), [c[1:] for c in IDENTITY_CASES], ids=[c[0] for c in IDENTITY_CASES])
def test_aml_compute_identity(props, expected):
    assert findings([WS, resource("cpu-cluster", props)]) == [decided("cpu-cluster", m) for m in expected]


INSTANCE_CASES = [
    ("instance-happy", instance_props(), []),
    ("instance-without-identity-passes", identity(DELETE, instance_props()), []),  # optional on an instance
    ("instance-both", identity({"type": "SystemAssigned,UserAssigned"}, instance_props()),
     [f"{INSTANCE} {NOT_BOTH}; found SystemAssigned,UserAssigned."]),
]


@pytest.mark.parametrize(("props", "expected"), [c[1:] for c in INSTANCE_CASES], ids=[c[0] for c in INSTANCE_CASES])
def test_instance_identity(props, expected):
    assert findings([WS, resource("ci-alice", props)]) == [decided("ci-alice", m) for m in expected]


def test_unknown_identity_type_is_unknown_not_a_pass():
    props = with_unknown(HAPPY, "identity.type", UNKNOWN_STRING_VALUE)
    cluster = resource("cpu-cluster", props)
    with pytest.raises(UnknownValueError):
        RULE.evaluate(ResourceInput(cluster.type, cluster.name, cluster.urn, cluster.props))


def test_other_resource_types_are_ignored():
    assert findings([resource("sa", identity(DELETE), "azure-native:storage:StorageAccount")]) == []


def test_is_a_mandatory_resource_rule():
    """Judged on inputs: AnalyzeStack's outputs of a compute being created leave unlisted identity fields unknown."""
    assert (RULE.is_stack_rule, RULE.level) == (False, "mandatory")


STACK_CASES = [
    ("cluster-and-instance-each-one-kind", [WS, resource("cpu-cluster", HAPPY), resource("ci-alice", instance_props())],
     []),
    ("cluster-with-both-kinds", [WS, resource("cpu-cluster", identity({"type": "SystemAssigned,UserAssigned"}))],
     [decided("cpu-cluster", f"{CLUSTER} {NOT_BOTH}; found SystemAssigned,UserAssigned.")]),
]


@pytest.mark.parametrize(("resources", "expected"), [c[1:] for c in STACK_CASES], ids=[c[0] for c in STACK_CASES])
def test_stacks(resources, expected):
    assert findings(resources) == expected


CASE_PROPS = {c[0]: c[1] for c in IDENTITY_CASES}
EXAMPLE = Example((resource("cpu-cluster", CASE_PROPS["both-rejected"]),),
                  (resource("cpu-cluster", CASE_PROPS["happy-path-system"]),), "both-rejected", "happy-path-system")
