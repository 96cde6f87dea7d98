import pytest
from pulumi_policy.proxy import UNKNOWN_BOOLEAN_VALUE, UnknownValueError

from amlkit.policies.framework import ResourceInput
from amlkit.policies.rules.aml_compute_no_public_ip import RULE
from tests.policies.compute_fixtures import attached_props, instance_props, with_unknown
from tests.policies.examples import Example
from tests.policies.helpers import COMPUTE_TYPE, DELETE, Public, changed, cluster_props, messages

PUBLIC = Public("AMLK-0009", "aml-compute-no-public-ip", level="advisory", kind="resource")

HAPPY = cluster_props()
FIELD = "properties.properties.enableNodePublicIp"
CLUSTER = "AmlCompute cluster 'cpu-cluster'"
INSTANCE = "Compute instance 'cpu-cluster'"

CASES = [
    ("happy-path", HAPPY, []),
    ("cluster-public-ip", changed(HAPPY, FIELD, True),
     [f"{CLUSTER} must set enableNodePublicIp to false; found true."]),
    ("cluster-omitted-is-true", changed(HAPPY, FIELD, DELETE),
     [f"{CLUSTER} must set enableNodePublicIp to false; found none (Azure then uses true)."]),
    ("instance-happy", instance_props(), []),
    ("instance-public-ip", changed(instance_props(), FIELD, True),
     [f"{INSTANCE} must set enableNodePublicIp to false; found true."]),
    ("instance-omitted-is-true", changed(instance_props(), FIELD, DELETE),
     [f"{INSTANCE} must set enableNodePublicIp to false; found none (Azure then uses true)."]),
    ("attached-ignored", attached_props(), []),
]

EXAMPLE = Example.of_cases(CASES, fails="cluster-public-ip", passes="happy-path")


@pytest.mark.parametrize(("props", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_compute_no_public_ip(props, expected):
    assert messages(RULE, props) == expected


def test_other_resource_types_are_ignored():
    assert messages(RULE, changed(HAPPY, FIELD, True), type_="azure-native:storage:StorageAccount") == []


def test_unknown_public_ip_is_unknown_not_a_pass():
    props = with_unknown(HAPPY, FIELD, UNKNOWN_BOOLEAN_VALUE)
    with pytest.raises(UnknownValueError):
        RULE.evaluate(ResourceInput(COMPUTE_TYPE, "cpu-cluster", "urn", props))
