import pytest
from pulumi_policy.proxy import UNKNOWN_NUMBER_VALUE, UnknownValueError

from amlkit.policies.framework import ResourceInput
from amlkit.policies.rules.aml_cluster_max_nodes import RULE
from tests.policies.compute_fixtures import instance_props, with_unknown
from tests.policies.examples import Example
from tests.policies.helpers import COMPUTE_TYPE, DELETE, Public, changed, cluster_props, messages

PUBLIC = Public("AMLK-0002", "aml-cluster-max-nodes", level="mandatory", kind="resource")

HAPPY = cluster_props()
SCALE = "properties.properties.scaleSettings"

CASES = [
    ("happy-path", HAPPY, None, []),
    ("max-at-default-cap", changed(HAPPY, f"{SCALE}.maxNodeCount", 100.0), None, []),
    ("max-above-default-cap", changed(HAPPY, f"{SCALE}.maxNodeCount", 101.0), None,
     ["AmlCompute cluster 'cpu-cluster' must have maxNodeCount at most 100; found 101."]),
    ("max-missing-is-required", changed(HAPPY, f"{SCALE}.maxNodeCount", DELETE), None,
     ["AmlCompute cluster 'cpu-cluster' must set scaleSettings.maxNodeCount (Azure requires it); found none."]),
    ("scale-settings-missing", changed(HAPPY, SCALE, DELETE), None,
     ["AmlCompute cluster 'cpu-cluster' must set scaleSettings.maxNodeCount (Azure requires it); found none."]),
    ("max-below-min", changed(changed(HAPPY, f"{SCALE}.minNodeCount", 3.0), f"{SCALE}.maxNodeCount", 2.0),
     None, ["AmlCompute cluster 'cpu-cluster' must have maxNodeCount at least its minNodeCount (3); found 2."]),
    ("max-equals-min", changed(changed(HAPPY, f"{SCALE}.minNodeCount", 4.0), f"{SCALE}.maxNodeCount", 4.0),
     None, []),
    ("config-cap-10-exceeded", HAPPY, {"maxNodes": 3.0},
     ["AmlCompute cluster 'cpu-cluster' must have maxNodeCount at most 3; found 4."]),
    ("config-cap-10-met", HAPPY, {"maxNodes": 10}, []),
    ("both-violations", changed(changed(HAPPY, f"{SCALE}.minNodeCount", 300.0), f"{SCALE}.maxNodeCount", 200.0),
     None, ["AmlCompute cluster 'cpu-cluster' must have maxNodeCount at most 100; found 200.",
            "AmlCompute cluster 'cpu-cluster' must have maxNodeCount at least its minNodeCount (300); found 200."]),
    ("instance-ignored", instance_props(), None, []),
]

EXAMPLE = Example.of_cases(CASES, fails="max-above-default-cap", passes="happy-path")


@pytest.mark.parametrize(("props", "config", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_cluster_max_nodes(props, config, expected):
    assert messages(RULE, props, config) == expected


def test_other_resource_types_are_ignored():
    props = changed(HAPPY, f"{SCALE}.maxNodeCount", 1000.0)
    assert messages(RULE, props, type_="azure-native:storage:StorageAccount") == []


def test_unknown_max_nodes_is_unknown_not_a_pass():
    props = with_unknown(HAPPY, f"{SCALE}.maxNodeCount", UNKNOWN_NUMBER_VALUE)
    with pytest.raises(UnknownValueError):
        RULE.evaluate(ResourceInput(COMPUTE_TYPE, "cpu-cluster", "urn", props))
