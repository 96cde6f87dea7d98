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
OFFERED = ("Standard_E96ias_v4, Standard_E80is_v4, Standard_E80ids_v4, Standard_E104i_v5, Standard_E104is_v5, "
           "Standard_E104id_v5, Standard_E104ids_v5, Standard_E112ias_v5, Standard_E112iads_v5, Standard_E112ibs_v5, "
           "Standard_E112ibds_v5, Standard_E192is_v6, Standard_E192ids_v6, Standard_M192is_v2, Standard_M192ims_v2, "
           "Standard_M192ids_v2, Standard_M192idms_v2, Standard_M832is_16_v3, Standard_M832ids_16_v3, "
           "Standard_M896ixds_32_v3, Standard_M1792ixds_32_v3, Standard_M896ixds_24_v3, "
           "Standard_HB120rs_v3, Standard_HB176rs_v4, Standard_HB368rs_v5, "
           "Standard_HX176rs, Standard_NC64as_T4_v3, Standard_NC96ads_A100_v4, Standard_NC80adis_H100_v5, "
           "Standard_ND96isr_H100_v5, Standard_ND96isr_H200_v5, Standard_ND96isr_MI300X_v5, Standard_NV72ads_A10_v5, "
           "Standard_EC96ias_v5, Standard_EC96iads_v5, Standard_NG32ads_V620_v1, Standard_NG32adms_V620_v1, "
           "Standard_ND128isr_NDR_GB200_v6, Standard_ND128isr_GB300_v6")  # isolation.md, mdsv3-vhm-series


def size(value):
    return changed(HAPPY, SIZE, value)


CASES = [
    ("off-by-default", size("Standard_D4ds_v5"), None, []),
    ("isolated-E-v5", HAPPY, ON, []),
    ("isolated-ND-H100", size("Standard_ND96isr_H100_v5"), ON, []),
    ("M128ms-no-longer-isolated", size("Standard_M128ms"), ON,
     [f"{CLUSTER} must use an isolated VM size; found Standard_M128ms, which shares its host; isolated sizes "
      f"offered: {OFFERED}."]),
    ("shared-host-size", size("Standard_D4ds_v5"), ON,
     [f"{CLUSTER} must use an isolated VM size; found Standard_D4ds_v5, which shares its host; isolated sizes "
      f"offered: {OFFERED}."]),
    ("isolated-until-its-retirement-M192-ids", size("Standard_M192ids_v2"), {"required": True, "asOf": "2027-03-31"},
     [f"{CLUSTER} must use an isolated VM size that is still offered; found Standard_M192ids_v2, retired on "
      "2027-03-31."]),
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


@pytest.mark.parametrize(("compute_type", "twin"), [("Managed", True), ("managed", True), ("Kubernetes", False)],
                         ids=["managed", "managed-lowercase", "kubernetes-instance-type-is-no-vm-size"])
def test_a_managed_online_deployment_is_judged_by_its_instance_type_like_a_cluster_of_that_size(compute_type, twin):
    from tests.policies.compute_fixtures import DEPLOYMENT_TYPE, deployment_props

    config = {"required": True, "asOf": "2026-11-24"}
    size = "Standard_D4ds_v4"
    cluster = messages(RULE, changed(cluster_props(), "properties.properties.vmSize", size), config, name="blue")
    deployment = messages(RULE, deployment_props(size, compute_type), config, name="blue", type_=DEPLOYMENT_TYPE)
    assert cluster, "the size must fail for a cluster"
    expected = [m.replace("AmlCompute cluster 'blue'", "Managed online deployment 'blue'") for m in cluster]
    assert deployment == (expected if twin else [])
