import pytest

from amlkit.errors import ConfigError
from amlkit.policies.rules.aml_compute_isolated_size import RULE
from tests.policies.compute_fixtures import attached_props, instance_props
from tests.policies.examples import Example
from tests.policies.helpers import DELETE, Public, changed, cluster_props, messages

PUBLIC = Public("AMLK-0030", "aml-compute-isolated-size", level="mandatory", kind="resource")

HAPPY = changed(cluster_props(), "properties.properties.vmSize", "Standard_E104is_v5")
SIZE = "properties.properties.vmSize"
CLUSTER = "AmlCompute cluster 'cpu-cluster'"
ON = {"required": True, "asOf": "2026-11-24"}
OFFERED = ("Standard_E80is_v4, Standard_E80ids_v4, Standard_E104i_v5, Standard_E104is_v5, Standard_E104id_v5, "
           "Standard_E104ids_v5, Standard_E192is_v6, Standard_E192ids_v6, Standard_F72s_v2, Standard_M128ms, "
           "Standard_M192is_v2, Standard_M192ims_v2, Standard_M192ids_v2, Standard_M192idms_v2")


def size(value):
    return changed(HAPPY, SIZE, value)


CASES = [
    ("off-by-default", size("Standard_D4ds_v5"), None, []),
    ("isolated-E-v5", HAPPY, ON, []),
    ("isolated-M128ms", size("Standard_M128ms"), ON, []),
    ("shared-host-size", size("Standard_D4ds_v5"), ON,
     [f"{CLUSTER} must use an isolated VM size; found Standard_D4ds_v5, which shares its host; isolated sizes "
      f"offered: {OFFERED}."]),
    ("isolated-but-retired-NCv3", size("Standard_NC24rs_v3"), ON,
     [f"{CLUSTER} must use an isolated VM size that is still offered; found Standard_NC24rs_v3, retired on "
      "2025-09-30."]),
    ("isolated-M192-before-its-retirement", size("Standard_M192is_v2"), ON, []),
    ("isolated-M192-after-its-retirement", size("Standard_M192is_v2"), {"required": True, "asOf": "2027-04-01"},
     [f"{CLUSTER} must use an isolated VM size that is still offered; found Standard_M192is_v2, retired on "
      "2027-03-31."]),
    ("required-false", size("Standard_D4ds_v5"), {"required": False}, []),
    ("missing-size", size(DELETE), ON, []),
    ("unknown-size", size("Standard_Foo9"), ON, []),
    ("instance-shared", instance_props(), ON,
     [f"Compute instance 'cpu-cluster' must use an isolated VM size; found Standard_D4ds_v5, which shares its host; "
      f"isolated sizes offered: {OFFERED}."]),
    ("attached-ignored", attached_props(), ON, []),
]

EXAMPLE = Example.of_cases(CASES, fails="shared-host-size", passes="isolated-E-v5")


@pytest.mark.parametrize(("props", "config", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_compute_isolated_size(props, config, expected):
    assert messages(RULE, props, config) == expected


def test_defaults():
    assert RULE.defaults() == {"required": False}


def test_bad_required_fails_closed():
    with pytest.raises(ConfigError) as caught:
        messages(RULE, HAPPY, {"required": "yes"})
    assert (caught.value.key_path, caught.value.problem) == (
        "aml-compute-isolated-size.required", "expected true or false")
