import pytest
from pulumi_policy.proxy import UNKNOWN_BOOLEAN_VALUE, UnknownValueError

from amlkit.policies.framework import ResourceInput
from amlkit.policies.rules.aml_compute_local_auth_disabled import RULE
from tests.policies.compute_fixtures import attached_props, instance_props, with_unknown
from tests.policies.helpers import COMPUTE_TYPE, DELETE, changed, cluster_props, messages

HAPPY = cluster_props()
FIELD = "properties.disableLocalAuth"

CASES = [
    ("happy-path", HAPPY, []),
    ("cluster-local-auth-on", changed(HAPPY, FIELD, False),
     ["AmlCompute cluster 'cpu-cluster' must set disableLocalAuth to true; found false."]),
    ("cluster-omitted-is-false", changed(HAPPY, FIELD, DELETE),
     ["AmlCompute cluster 'cpu-cluster' must set disableLocalAuth to true; found none (Azure then defaults to "
      "false)."]),
    ("instance-happy", instance_props(), []),
    ("instance-local-auth-on", changed(instance_props(), FIELD, False),
     ["Compute instance 'cpu-cluster' must set disableLocalAuth to true; found false."]),
    ("attached-happy", attached_props(), []),
    ("attached-omitted", changed(attached_props("AKS"), FIELD, DELETE),
     ["AKS compute 'cpu-cluster' must set disableLocalAuth to true; found none (Azure then defaults to false)."]),
]


@pytest.mark.parametrize(("props", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_compute_local_auth_disabled(props, expected):
    assert messages(RULE, props) == expected


def test_other_resource_types_are_ignored():
    assert messages(RULE, changed(HAPPY, FIELD, False), type_="azure-native:storage:StorageAccount") == []


def test_unknown_local_auth_is_unknown_not_a_pass():
    props = with_unknown(HAPPY, FIELD, UNKNOWN_BOOLEAN_VALUE)
    with pytest.raises(UnknownValueError):
        RULE.evaluate(ResourceInput(COMPUTE_TYPE, "cpu-cluster", "urn", props))
