import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from amlkit.errors import ConfigError
from amlkit.policies.framework import ResourceInput
from amlkit.policies.rules.aml_compute_approved_vm_family import RULE
from amlkit.vmsizes import default_approved_series
from tests.policies.compute_fixtures import attached_props, instance_props, with_unknown
from tests.policies.examples import Example
from tests.policies.helpers import COMPUTE_TYPE, DELETE, Public, changed, cluster_props, messages

PUBLIC = Public("AMLK-0004", "aml-compute-approved-vm-family", level="mandatory", kind="resource")

HAPPY = cluster_props()
SIZE = "properties.properties.vmSize"
CLUSTER = "AmlCompute cluster 'cpu-cluster'"


def size(value):
    return changed(HAPPY, SIZE, value)


CASES = [
    ("happy-path-Ddsv4", HAPPY, None, []),
    ("upper-case-name", size("STANDARD_D4DS_V4"), None, []),
    ("gpu-T4-allowed", size("Standard_NC4as_T4_v3"), None, []),
    ("h100-allowed", size("Standard_ND96isr_H100_v5"), None, []),
    ("restricted-and-retiring-DSv2", size("Standard_DS3_v2"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_DS3_v2 of series DSv2 (retired or "
      "retiring on 2028-05-01; successors: Dsv5, Ddsv5, Dasv5, Dadsv5, Dasv6, Dadsv6, Dsv6, Ddsv6, Dasv7, Dadsv7, "
      "Esv6, Edsv6, Easv6, Eadsv6, Easv7, Eadsv7)."]),
    ("constrained-Esv3-retiring", size("Standard_E4-2s_v3"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_E4-2s_v3 of series Esv3 (retired or "
      "retiring on 2029-11-15; successors: Ev5, Esv5, Edv5, Edsv5, Easv5, Eadsv5)."]),
    ("retired-H-no-longer-default", size("Standard_H16mr"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_H16mr of series H (retired or "
      "retiring on 2022-08-31; successors: HC, HBv2, HBv3, Dv4, Dav4, Ev4, Eav4)."]),
    ("restricted-without-retirement-Esv3-listed-passes", size("Standard_E4-2s_v3"), {"allowedSeries": ["Esv3"]},
     []),
    ("missing-vmSize", size(DELETE), None,
     [f"{CLUSTER} must set vmSize to a size from an allowed series; found none."]),
    ("unknown-size", size("Standard_Foo9"), None,
     [f"{CLUSTER} must use a known Azure VM size; found 'Standard_Foo9', which is not a known Azure VM size name."]),
    ("version-the-family-never-had", size("Standard_DS3_v9"), None,
     [f"{CLUSTER} must use a known Azure VM size; found 'Standard_DS3_v9', which is not a known Azure VM size name."]),
    ("non-string-size", size(4.0), None,
     [f"{CLUSTER} must use a known Azure VM size; found 4.0, which is not a known Azure VM size name."]),
    ("not-supported-by-aml", size("Standard_D4s_v5"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_D4s_v5 of series Dsv5 "
      "(not a supported series for Azure ML managed compute)."]),
    ("approval-required-M", size("Standard_M8-2ms"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_M8-2ms of series M "
      "(approval-required, so allowed only when listed in allowedSeries)."]),
    ("retired-NC-not-in-default", size("Standard_NC6"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_NC6 of series NC "
      "(retired or retiring on 2023-08-31; successors: NCasT4_v3)."]),
    ("retired-approval-NCv3", size("standard_nc24s_v3"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_NC24s_v3 of series NCv3 "
      "(retired or retiring on 2025-09-30; successors: NCads_H100_v5, NCasT4_v3, NVadsA10_v5, NVads_V710_v5)."]),
    ("retiring-and-restricted-DCsv3", size("Standard_DC4s_v3"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_DC4s_v3 of series DCsv3 "
      "(retired or retiring on 2029-10-31; successors: DCasv6, DCadsv6, ECasv6, ECadsv6, DCesv6, DCedsv6, ECesv6, "
      "ECedsv6)."]),
    ("current-confidential-not-aml-supported", size("Standard_DC4as_v6"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_DC4as_v6 of series DCasv6 "
      "(not a supported series for Azure ML managed compute)."]),
    ("current-not-aml-supported-GB200", size("Standard_ND128isr_NDR_GB200_v6"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_ND128isr_NDR_GB200_v6 of series "
      "ND_GB200_v6 (not a supported series for Azure ML managed compute)."]),
    # config knobs
    ("M-listed-explicitly", size("Standard_M8-2ms"), {"allowedSeries": ["Ddsv4", "M"]}, []),
    ("retired-listed-passes-here", size("Standard_NC6"), {"allowedSeries": ["NC"]}, []),
    ("alias-NCsv3-listed", size("Standard_NC6s_v3"), {"allowedSeries": ["ncsv3"]}, []),
    ("narrow-list-excludes-Ddsv4", HAPPY, {"allowedSeries": ["NCasT4_v3"]},
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_D4ds_v4 of series Ddsv4 "
      "(not in allowedSeries)."]),
    ("empty-list-allows-nothing", HAPPY, {"allowedSeries": []},
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_D4ds_v4 of series Ddsv4 "
      "(not in allowedSeries)."]),
    ("listing-does-not-make-unknown-known", size("Standard_Foo9"), {"allowedSeries": ["Ddsv4"]},
     [f"{CLUSTER} must use a known Azure VM size; found 'Standard_Foo9', which is not a known Azure VM size name."]),
    # instances
    ("instance-happy", instance_props(), None, []),
    ("instance-missing-size-gets-azure-default", changed(instance_props(), SIZE, DELETE), None, []),
    ("instance-unapproved", instance_props(vmSize="Standard_NV12s_v3"), None,
     ["Compute instance 'cpu-cluster' must use a VM size from an allowed series; found Standard_NV12s_v3 of "
      "series NVv3 (retired or retiring on 2026-09-30; successors: NVadsA10_v5, NC_RTXPRO6000BSE_v6, NCasT4_v3, "
      "NVads_V710_v5)."]),
    ("instance-approval-NDv2", instance_props(vmSize="Standard_ND40rs_v2"), None,
     ["Compute instance 'cpu-cluster' must use a VM size from an allowed series; found Standard_ND40rs_v2 of "
      "series NDv2 (approval-required, so allowed only when listed in allowedSeries)."]),
    ("attached-kubernetes-ignored", attached_props(), None, []),
]

EXAMPLE = Example.of_cases(CASES, fails="restricted-and-retiring-DSv2", passes="happy-path-Ddsv4")


@pytest.mark.parametrize(("props", "config", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_compute_approved_vm_family(props, config, expected):
    assert messages(RULE, props, config) == expected


def test_default_config_is_the_catalogue_default():
    assert RULE.defaults() == {"allowedSeries": list(default_approved_series())}


def test_other_resource_types_are_ignored():
    assert messages(RULE, size("Standard_Foo9"), type_="azure-native:storage:StorageAccount") == []


def test_explicit_api_version_types_are_checked():
    type_ = "azure-native:machinelearningservices/v20240401preview:Compute"
    assert len(messages(RULE, size("Standard_Foo9"), type_=type_)) == 1


@pytest.mark.parametrize(
    ("config", "key_path", "problem"),
    [
        ({"allowedSeries": ["DSv2", "DSv9"]}, "aml-compute-approved-vm-family.allowedSeries[1]",
         "unknown VM series 'DSv9'; use series names such as DSv2, Esv3, NCasT4_v3"),
        ({"allowedSeries": "DSv2"}, "aml-compute-approved-vm-family.allowedSeries",
         "expected a list of VM series names"),
        ({"allowedSeries": [7]}, "aml-compute-approved-vm-family.allowedSeries[0]",
         "unknown VM series 7; use series names such as DSv2, Esv3, NCasT4_v3"),
    ],
)
def test_bad_config_fails_closed(config, key_path, problem):
    with pytest.raises(ConfigError) as caught:
        messages(RULE, HAPPY, config)
    assert (caught.value.key_path, caught.value.problem) == (key_path, problem)


def test_unknown_size_is_unknown_not_a_pass():
    props = with_unknown(HAPPY, SIZE, UNKNOWN_STRING_VALUE)
    with pytest.raises(UnknownValueError):
        RULE.evaluate(ResourceInput(COMPUTE_TYPE, "cpu-cluster", "urn", props))
