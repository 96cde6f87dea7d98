import pytest

from amlkit.policies.rules.aml_cluster_min_nodes_zero import RULE
from tests.policies.examples import Example
from tests.policies.helpers import DELETE, Public, changed, cluster_props, messages

PUBLIC = Public("AMLK-0001", "aml-cluster-min-nodes-zero", level="mandatory", kind="resource")

HAPPY = cluster_props()

CASES = [
    ("happy-path", HAPPY, []),
    ("min-2", changed(HAPPY, "properties.properties.scaleSettings.minNodeCount", 2.0),
     ["AmlCompute cluster 'cpu-cluster' must have minNodeCount 0; found 2."]),
    ("min-missing-defaults-to-0",
     changed(HAPPY, "properties.properties.scaleSettings.minNodeCount", DELETE), []),
    ("instance-ignored", changed(HAPPY, "properties.computeType", "ComputeInstance"), []),
]

EXAMPLE = Example.of_cases(CASES, fails="min-2", passes="happy-path")


@pytest.mark.parametrize(("props", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_cluster_min_nodes_zero(props, expected):
    assert messages(RULE, props) == expected


def test_other_resource_types_are_ignored():
    props = changed(HAPPY, "properties.properties.scaleSettings.minNodeCount", 3.0)
    assert messages(RULE, props, type_="azure-native:storage:StorageAccount") == []
