import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from amlkit.errors import ConfigError
from amlkit.policies.framework import ResourceInput
from amlkit.policies.rules.aml_compute_approved_vm_family import RULE
from amlkit.vmsizes import default_approved_series, default_online_series
from tests.policies.compute_fixtures import attached_props, instance_props, with_unknown
from tests.policies.examples import Example
from tests.policies.helpers import COMPUTE_TYPE, DELETE, Public, changed, cluster_props, messages

PUBLIC = Public("AMLK-0004", "aml-compute-approved-vm-family", level="mandatory", kind="resource")

HAPPY = cluster_props()
SIZE = "properties.properties.vmSize"
CLUSTER = "AmlCompute cluster 'cpu-cluster'"


def size(value):
    return changed(HAPPY, SIZE, value)


NOT_V4 = "not in allowedSeries: v4: Azure recommends v5, v6 and v7 series for new deployments (retirements page), so " \
    "allowed only by config"
D_SUCCESSORS = ("Dsv5, Ddsv5, Dasv5, Dadsv5, Dasv6, Dadsv6, Dsv6, Ddsv6, Dasv7, Dadsv7, Esv6, Edsv6, Easv6, Eadsv6, "
                "Easv7, Eadsv7")

CASES = [
    ("happy-path-Ddsv5", HAPPY, None, []),
    ("upper-case-name", size("STANDARD_D4DS_V5"), None, []),
    # today's common sizes pass the default list (issue 21)
    ("D4s_v5", size("Standard_D4s_v5"), None, []),
    ("E8s_v5", size("Standard_E8s_v5"), None, []),
    ("E4ds_v5", size("Standard_E4ds_v5"), None, []),
    ("F-v6", size("Standard_F8as_v6"), None, []),
    ("gpu-T4-allowed", size("Standard_NC4as_T4_v3"), None, []),
    ("A100-v4-single-GPU", size("Standard_NC24ads_A100_v4"), None, []),
    ("H100-NC", size("Standard_NC40ads_H100_v5"), None, []),
    ("A10-NV", size("Standard_NV36ads_A10_v5"), None, []),
    ("h100-8-GPU-in-default", size("Standard_ND96isr_H100_v5"), None, []),
    # left out of the default, with the reason and the successors
    ("restricted-and-retiring-DSv2", size("Standard_DS3_v2"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_DS3_v2 of series DSv2 (not in "
      "allowedSeries: retiring on 2028-05-01, capacity-restricted since 2026-07: new subscriptions cannot deploy it); "
      f"successors in allowedSeries: {D_SUCCESSORS}."]),
    ("constrained-Esv3-retiring", size("Standard_E4-2s_v3"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_E4-2s_v3 of series Esv3 (not in "
      "allowedSeries: retiring on 2029-11-15, capacity-restricted since 2026-07: new subscriptions cannot deploy it); "
      "successors in allowedSeries: Ev5, Esv5, Edv5, Edsv5, Easv5, Eadsv5."]),
    ("v4-out-of-default", size("Standard_D4ds_v4"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_D4ds_v4 of series Ddsv4 ({NOT_V4})."]),
    ("previous-gen-Eav4", size("Standard_E8a_v4"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_E8a_v4 of series Eav4 (not in "
      "allowedSeries: previous generation)."]),
    ("hpc-by-config-only", size("Standard_HB120rs_v3"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_HB120rs_v3 of series HBv3 (not in "
      "allowedSeries: hpc series are allowed only by config)."]),
    ("arm64-by-config-only", size("Standard_D4ps_v5"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_D4ps_v5 of series Dpsv5 (not in "
      "allowedSeries: Arm64 processor: allowed only by config)."]),
    ("amd-gpu-by-config-only", size("Standard_NV24ads_V710_v5"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_NV24ads_V710_v5 of series NVads_V710_v5 "
      "(not in allowedSeries: AMD GPU (no CUDA): allowed only by config)."]),
    ("preview-by-config-only", size("Standard_D4s_v7"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_D4s_v7 of series Dsv7 (not in "
      "allowedSeries: preview: allowed only by config)."]),
    # one finding per cause: a retired size is aml-compute-retired-vm-series' finding only
    ("retired-H-left-to-the-retired-rule", size("Standard_H16mr"), None, []),
    ("retired-NC-left-to-the-retired-rule", size("Standard_NC6"), None, []),
    ("retired-NCv3-left-to-the-retired-rule", size("standard_nc24s_v3"), None, []),
    ("asOf-before-the-retirement-it-is-this-rules", size("Standard_NC24s_v3"), {"asOf": "2025-09-29"},
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_NC24s_v3 of series NCv3 (not in "
      "allowedSeries: retiring on 2025-09-30); successors in allowedSeries: NCads_H100_v5, NCasT4_v3, NVadsA10_v5; "
      "AMD successors (no CUDA: aml-gpu-cuda-compatible refuses them once cudaVersion is set): NVads_V710_v5."]),
    ("asOf-on-the-retirement-day-defers", size("Standard_NC24s_v3"), {"asOf": "2025-09-30"}, []),
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
    ("approval-required-M", size("Standard_M8-2ms"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_M8-2ms of series M "
      "(not in allowedSeries: approval-required: allowed only by config)."]),
    ("retiring-and-restricted-DCsv3", size("Standard_DC4s_v3"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_DC4s_v3 of series DCsv3 (not in "
      "allowedSeries: retiring on 2029-10-31, capacity-restricted since 2026-11-01: new subscriptions cannot deploy "
      "it); successors to add to allowedSeries first: DCasv6, DCadsv6, ECasv6, ECadsv6, DCesv6, DCedsv6, ECesv6, "
      "ECedsv6."]),
    ("current-confidential-by-config-only", size("Standard_DC4as_v6"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_DC4as_v6 of series DCasv6 "
      "(not in allowedSeries: confidential VM series: allowed only by config)."]),
    # ND GB200/GB300 run on NVIDIA Grace (Arm) CPUs: out of the default (issue 30)
    ("GB200-Arm64-out-of-default", size("Standard_ND128isr_NDR_GB200_v6"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_ND128isr_NDR_GB200_v6 of series "
      "ND_GB200_v6 (not in allowedSeries: Arm64 processor: allowed only by config)."]),
    ("GB300-Arm64-out-of-default", size("Standard_ND128isr_GB300_v6"), None,
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_ND128isr_GB300_v6 of series "
      "ND_GB300_v6 (not in allowedSeries: Arm64 processor: allowed only by config)."]),
    ("GB200-cluster-listed", size("Standard_ND128isr_NDR_GB200_v6"), {"allowedSeries": ["ND_GB200_v6"]}, []),
    # config knobs
    ("M-listed-explicitly", size("Standard_M8-2ms"), {"allowedSeries": ["Ddsv5", "M"]}, []),
    ("retired-listed-is-still-the-retired-rules", size("Standard_NC6"), {"allowedSeries": ["NC"]}, []),
    ("alias-NCasT4-listed", size("Standard_NC4as_T4_v3"), {"allowedSeries": ["ncas_t4_v3"]}, []),
    ("narrow-list-excludes-Ddsv5", HAPPY, {"allowedSeries": ["NCasT4_v3"]},
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_D4ds_v5 of series Ddsv5 "
      "(not in allowedSeries)."]),
    ("narrow-list-names-successors-to-add", size("Standard_DS3_v2"), {"allowedSeries": ["Ddsv5", "Dsv6"]},
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_DS3_v2 of series DSv2 (not in "
      "allowedSeries: retiring on 2028-05-01, capacity-restricted since 2026-07: new subscriptions cannot deploy it); "
      "successors in allowedSeries: Ddsv5, Dsv6; successors to add to allowedSeries first: Dsv5, Dasv5, Dadsv5, "
      "Dasv6, Dadsv6, Ddsv6, Dasv7, Dadsv7, Esv6, Edsv6, Easv6, Eadsv6, Easv7, Eadsv7."]),
    ("empty-list-allows-nothing", HAPPY, {"allowedSeries": []},
     [f"{CLUSTER} must use a VM size from an allowed series; found Standard_D4ds_v5 of series Ddsv5 "
      "(not in allowedSeries)."]),
    ("listing-does-not-make-unknown-known", size("Standard_Foo9"), {"allowedSeries": ["Ddsv5"]},
     [f"{CLUSTER} must use a known Azure VM size; found 'Standard_Foo9', which is not a known Azure VM size name."]),
    # instances
    ("instance-happy", instance_props(), None, []),
    ("instance-missing-size-gets-azure-default", changed(instance_props(), SIZE, DELETE), None, []),
    ("instance-retired-NVv3-left-to-the-retired-rule", instance_props(vmSize="Standard_NV12s_v3"), None, []),
    ("instance-approval-NDv2", instance_props(vmSize="Standard_ND40rs_v2"), None,
     ["Compute instance 'cpu-cluster' must use a VM size from an allowed series; found Standard_ND40rs_v2 of "
      "series NDv2 (not in allowedSeries: approval-required: allowed only by config)."]),
    ("instance-FX-clusters-only", instance_props(vmSize="Standard_FX4mds"), {"allowedSeries": ["FX"]},
     ["Compute instance 'cpu-cluster' must use a VM size that compute instances support; found Standard_FX4mds of "
      "series FX, which Azure ML runs on clusters only."]),
    ("cluster-FX-listed", size("Standard_FX4mds"), {"allowedSeries": ["FX"]}, []),
    # Arm64 is never allowed on a compute instance, even when listed (issue 30)
    ("instance-GB200-Arm64-even-listed", instance_props(vmSize="Standard_ND128isr_NDR_GB200_v6"),
     {"allowedSeries": ["ND_GB200_v6"]},
     ["Compute instance 'cpu-cluster' must use a VM size that compute instances support; found "
      "Standard_ND128isr_NDR_GB200_v6 of series ND_GB200_v6, an Arm64 series: Azure ML's supported series for "
      "compute instances (concept-compute-target.md) are all x64."]),
    ("instance-Dpsv6-Arm64-even-listed", instance_props(vmSize="Standard_D4ps_v6"), {"allowedSeries": ["Dpsv6"]},
     ["Compute instance 'cpu-cluster' must use a VM size that compute instances support; found Standard_D4ps_v6 "
      "of series Dpsv6, an Arm64 series: Azure ML's supported series for compute instances "
      "(concept-compute-target.md) are all x64."]),
    # A10: the known issue (still open) says compute instances do not support A10 SKUs (issue 30)
    ("instance-A10-known-issue", instance_props(vmSize="Standard_NV36ads_A10_v5"), None,
     ["Compute instance 'cpu-cluster' must use a VM size that compute instances support; found "
      "Standard_NV36ads_A10_v5 of series NVadsA10_v5, A10 SKUs aren't supported for compute instances (known "
      "issue, status open) (https://learn.microsoft.com/azure/machine-learning/known-issues/"
      "compute-a10-sku-not-supported)."]),
    ("cluster-A10-allowed", size("Standard_NV36ads_A10_v5"), None, []),
    ("attached-kubernetes-ignored", attached_props(), None, []),
]

EXAMPLE = Example.of_cases(CASES, fails="restricted-and-retiring-DSv2", passes="happy-path-Ddsv5")


@pytest.mark.parametrize(("props", "config", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_compute_approved_vm_family(props, config, expected):
    assert messages(RULE, props, config) == expected


def test_default_config_is_the_catalogue_default():
    assert RULE.defaults() == {"allowedSeries": list(default_approved_series()),
                               "allowedOnlineSeries": list(default_online_series())}


def test_the_default_online_series_are_the_sku_lists_minus_retired():
    # reference-managed-online-endpoints-vm-sku-list.md: NCv2 (2023-08-31) and NCv3 (2025-09-30) are retired
    assert default_online_series() == (
        "DSv2", "Dav4", "Dasv4", "Esv3", "Fsv2", "FX", "Lsv2", "Lsv3", "Lasv3", "NCasT4_v3", "NC_A100_v4",
        "NCads_H100_v5", "NDv2", "NDasrA100_v4", "NDm_A100_v4", "ND-H100-v5", "NVadsA10_v5")


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


ONLINE = "Managed online deployment 'blue' must use a VM size from an allowed online series; found "
CPU_SERIES = ("Standard_D4as_v4", "Standard_D4a_v4", "Standard_DS3_v2", "Standard_E8s_v3", "Standard_F8s_v2",
              "Standard_FX12mds", "Standard_L8as_v3", "Standard_L8s_v2", "Standard_L8s_v3")


@pytest.mark.parametrize("size", CPU_SERIES)
def test_each_cpu_series_of_the_online_list_passes_by_default(size):
    from tests.policies.compute_fixtures import DEPLOYMENT_TYPE, deployment_props

    assert messages(RULE, deployment_props(size), None, name="blue", type_=DEPLOYMENT_TYPE) == []


@pytest.mark.parametrize(
    ("size", "config", "expected"),
    [
        # not on the SKU list: aml-online-deployment-supported-size's finding, not this rule's
        ("Standard_D4ds_v5", None, []),
        ("Standard_ND96isr_H200_v5", None, []),
        ("Standard_DS3_v2", {"allowedOnlineSeries": ["Fsv2"]},
         [ONLINE + "Standard_DS3_v2 of series DSv2 (not in allowedOnlineSeries: retiring on 2028-05-01, "
          "capacity-restricted since 2026-07: new subscriptions cannot deploy it)."]),
        ("Standard_NC4as_T4_v3", {"allowedOnlineSeries": []},
         [ONLINE + "Standard_NC4as_T4_v3 of series NCasT4_v3 (not in allowedOnlineSeries)."]),
        # the training list does not decide deployments
        ("Standard_DS3_v2", {"allowedSeries": []}, []),
    ],
    ids=["D4ds_v5-left-to-the-sku-rule", "H200-left-to-the-sku-rule", "listed-but-not-allowed",
         "empty-online-list", "allowedSeries-is-for-computes"],
)
def test_a_managed_online_deployment_is_judged_against_allowed_online_series(size, config, expected):
    from tests.policies.compute_fixtures import DEPLOYMENT_TYPE, deployment_props

    assert messages(RULE, deployment_props(size), config, name="blue", type_=DEPLOYMENT_TYPE) == expected
    assert messages(RULE, deployment_props(size, "Kubernetes"), config, name="blue", type_=DEPLOYMENT_TYPE) == []
