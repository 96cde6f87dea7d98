import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from amlkit.policies.framework import ResourceInput
from amlkit.policies.rules.aml_cluster_vm_priority import RULE
from tests.policies.compute_fixtures import instance_props, with_unknown
from tests.policies.examples import Example
from tests.policies.helpers import COMPUTE_TYPE, DELETE, Public, changed, cluster_props, messages

PUBLIC = Public("AMLK-0006", "aml-cluster-vm-priority", level="mandatory", kind="resource")

HAPPY = cluster_props()
PRIORITY = "properties.properties.vmPriority"
SUBJECT = "AmlCompute cluster 'cpu-cluster'"
DEDICATED_ONLY = {"allowedPriorities": ["Dedicated"]}
LOW_ONLY = {"allowedPriorities": ["LowPriority"]}

CASES = [
    ("happy-path-dedicated", HAPPY, None, []),
    ("low-priority-allowed-by-default", changed(HAPPY, PRIORITY, "LowPriority"), None, []),
    ("unknown-priority-value", changed(HAPPY, PRIORITY, "Spot"), None,
     [f"{SUBJECT} must have vmPriority one of Dedicated, LowPriority; found Spot."]),
    ("dedicated-only-rejects-low", changed(HAPPY, PRIORITY, "LowPriority"), DEDICATED_ONLY,
     [f"{SUBJECT} must have vmPriority Dedicated; found LowPriority."]),
    ("dedicated-only-accepts-dedicated", HAPPY, DEDICATED_ONLY, []),
    ("case-insensitive", changed(HAPPY, PRIORITY, "lowpriority"), LOW_ONLY, []),
    ("omitted-is-dedicated-allowed", changed(HAPPY, PRIORITY, DELETE), DEDICATED_ONLY, []),
    ("omitted-is-dedicated-rejected", changed(HAPPY, PRIORITY, DELETE), LOW_ONLY,
     [f"{SUBJECT} must have vmPriority LowPriority; found Dedicated."]),
    ("empty-allow-list-fails-closed", HAPPY, {"allowedPriorities": []},
     [f"{SUBJECT} must have an allowed vmPriority (allowedPriorities is empty); found Dedicated."]),
    ("instance-ignored", instance_props(), LOW_ONLY, []),
]

EXAMPLE = Example.of_cases(CASES, fails="dedicated-only-rejects-low", passes="dedicated-only-accepts-dedicated")


@pytest.mark.parametrize(("props", "config", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_cluster_vm_priority(props, config, expected):
    assert messages(RULE, props, config) == expected


def test_other_resource_types_are_ignored():
    assert messages(RULE, HAPPY, LOW_ONLY, type_="azure-native:storage:StorageAccount") == []


def test_unknown_priority_is_unknown_not_a_pass():
    props = with_unknown(HAPPY, PRIORITY, UNKNOWN_STRING_VALUE)
    with pytest.raises(UnknownValueError):
        RULE.evaluate(ResourceInput(COMPUTE_TYPE, "cpu-cluster", "urn", props), DEDICATED_ONLY)
