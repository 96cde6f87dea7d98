import pytest
from pulumi_policy.proxy import UNKNOWN_BOOLEAN_VALUE, UnknownValueError

from amlkit.policies.framework import ResourceInput
from amlkit.policies.rules.aml_compute_local_auth_disabled import RULE
from tests.policies.compute_fixtures import attached_props, instance_props, with_unknown
from tests.policies.examples import Example
from tests.policies.helpers import COMPUTE_TYPE, DELETE, Public, changed, cluster_props, messages

PUBLIC = Public("AMLK-0010", "aml-compute-local-auth-disabled", level="advisory", kind="resource")

HAPPY = cluster_props()
FIELD = "properties.disableLocalAuth"

CASES = [
    ("happy-path", HAPPY, []),
    ("cluster-local-auth-on", changed(HAPPY, FIELD, False),
     ["AmlCompute cluster 'cpu-cluster' must set disableLocalAuth to true; found false."]),
    ("cluster-omitted-is-false", changed(HAPPY, FIELD, DELETE),
     ["AmlCompute cluster 'cpu-cluster' must set disableLocalAuth to true; found none (Azure then uses "
      "false)."]),
    ("instance-happy", instance_props(), []),
    ("instance-local-auth-on", changed(instance_props(), FIELD, False),
     ["Compute instance 'cpu-cluster' must set disableLocalAuth to true; found false."]),
    ("instance-omitted-is-false", changed(instance_props(), FIELD, DELETE),
     ["Compute instance 'cpu-cluster' must set disableLocalAuth to true; found none (Azure then uses "
      "false)."]),
    # built-in e96a9a5f v2.1.0 audits ComputeInstance and AmlCompute only: attached computes are out of scope
    ("attached-happy", attached_props(), []),
    ("attached-aks-omitted-not-checked", changed(attached_props("AKS"), FIELD, DELETE), []),
    ("attached-kubernetes-local-auth-on-not-checked", changed(attached_props("Kubernetes"), FIELD, False), []),
    ("attached-vm-local-auth-on-not-checked", changed(attached_props("VirtualMachine"), FIELD, False), []),
]

EXAMPLE = Example.of_cases(CASES, fails="cluster-local-auth-on", passes="happy-path")


@pytest.mark.parametrize(("props", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_compute_local_auth_disabled(props, expected):
    assert messages(RULE, props) == expected


def test_other_resource_types_are_ignored():
    assert messages(RULE, changed(HAPPY, FIELD, False), type_="azure-native:storage:StorageAccount") == []


def test_unknown_local_auth_is_unknown_not_a_pass():
    props = with_unknown(HAPPY, FIELD, UNKNOWN_BOOLEAN_VALUE)
    with pytest.raises(UnknownValueError):
        RULE.evaluate(ResourceInput(COMPUTE_TYPE, "cpu-cluster", "urn", props))
