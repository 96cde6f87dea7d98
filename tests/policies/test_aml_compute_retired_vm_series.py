import datetime

import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from amlkit.errors import ConfigError
from amlkit.policies.framework import ResourceInput
from amlkit.policies.rules.aml_compute_retired_vm_series import RULE, as_of, findings
from tests.policies.compute_fixtures import attached_props, instance_props, with_unknown
from tests.policies.examples import Example
from tests.policies.helpers import COMPUTE_TYPE, DELETE, Public, changed, cluster_props, messages

PUBLIC = Public("AMLK-0005", "aml-compute-retired-vm-series", level="mandatory", kind="resource")

HAPPY = cluster_props()
SIZE = "properties.properties.vmSize"
CLUSTER = "AmlCompute cluster 'cpu-cluster'"
MUST = "must not use a VM series retired for Azure ML compute"
AS_OF = {"asOf": "2025-01-01"}

IN = "successors in the default allowedSeries: "
ADD = "successors to add to the default allowedSeries first: "
AMD = "AMD successors (no CUDA: aml-gpu-cuda-compatible refuses them once cudaVersion is set): "
NCV3 = f"{IN}NCads_H100_v5, NCasT4_v3, NVadsA10_v5; {AMD}NVads_V710_v5."
NVV3 = f"{IN}NVadsA10_v5, NCasT4_v3; {ADD}NC_RTXPRO6000BSE_v6; {AMD}NVads_V710_v5."
NV = NVV3  # NV's guide names NVv3 and NVv4, retired since: NVv3's successors
AV1 = f"{IN}Dsv5, Ddv5, Dasv5, Esv5, Edv5, Easv5, Dsv6, Ddsv6, Dasv6, Esv6, Edsv6, Easv6; {ADD}Bsv2, Basv2."


def size(value):
    return changed(HAPPY, SIZE, value)


CASES = [
    ("happy-path", HAPPY, AS_OF, []),
    ("current-gpu", size("Standard_NC4as_T4_v3"), AS_OF, []),
    ("NC-retired", size("Standard_NC6"), AS_OF,
     [f"{CLUSTER} {MUST}; found Standard_NC6 of series NC, retired on 2023-09-06; {IN}NCasT4_v3."]),
    ("NC-promo-retired", size("standard_nc24r_promo"), AS_OF,
     [f"{CLUSTER} {MUST}; found Standard_NC24r_Promo of series NC Promo, retired on 2023-09-06; "
      f"{IN}NCasT4_v3."]),
    ("NCv2-retired", size("Standard_NC12s_v2"), AS_OF,
     [f"{CLUSTER} {MUST}; found Standard_NC12s_v2 of series NCv2, retired on 2023-08-31; "
      f"{IN}NC_A100_v4."]),
    ("ND-retired", size("Standard_ND24rs"), AS_OF,
     [f"{CLUSTER} {MUST}; found Standard_ND24rs of series ND, retired on 2023-09-06; "
      f"{IN}NCasT4_v3, NDm_A100_v4."]),
    ("NV-promo-retired", size("Standard_NV6_Promo"), AS_OF,
     [f"{CLUSTER} {MUST}; found Standard_NV6_Promo of series NV Promo, retired on 2023-09-06; "
      f"{NV}"]),
    ("Av1-retired", size("Standard_A4"), AS_OF,
     [f"{CLUSTER} {MUST}; found Standard_A4 of series A, retired on 2024-08-31; "
      f"{AV1}"]),
    ("Basic-A-retired", size("Basic_A2"), AS_OF,
     [f"{CLUSTER} {MUST}; found Basic_A2 of series Basic A, retired on 2024-08-31; "
      f"{AV1}"]),
    ("HB-retired-no-published-successor", size("Standard_HB60rs"), AS_OF,
     [f"{CLUSTER} {MUST}; found Standard_HB60rs of series HB, retired on 2024-08-31."]),
    ("H-retired-2022", size("Standard_H16r"), AS_OF,
     [f"{CLUSTER} {MUST}; found Standard_H16r of series H, retired on 2022-08-31; "
      f"{ADD}HBv3, Dv4, Dav4, Ev4, Eav4."]),
    ("A8-A11-retired-march-2021", size("Standard_A9"), AS_OF,
     [f"{CLUSTER} {MUST}; found Standard_A9 of series A8-A11, retired on 2021-03."]),
    ("NCv3-before-its-date-is-the-retiring-rules", size("Standard_NC24rs_v3"), AS_OF, []),
    ("NCv3-on-the-day", size("Standard_NC24rs_v3"), {"asOf": "2025-09-30"},
     [f"{CLUSTER} {MUST}; found Standard_NC24rs_v3 of series NCv3, retired on 2025-09-30; "
      f"{NCV3}"]),
    ("NCv3-day-before", size("Standard_NC6s_v3"), {"asOf": "2025-09-29"}, []),
    ("NVv3-retired-2026-09-30", size("Standard_NV24ms_v3"), {"asOf": "2026-10-01"},
     [f"{CLUSTER} {MUST}; found Standard_NV24ms_v3 of series NVv3, retired on 2026-09-30; "
      f"{NVV3}"]),
    ("NVv4-retired-2026-09-30", size("Standard_NV8as_v4"), {"asOf": "2026-09-30"},
     [f"{CLUSTER} {MUST}; found Standard_NV8as_v4 of series NVv4, retired on 2026-09-30; "
      f"{IN}NVadsA10_v5; {ADD}NVads_V710_v5, NGads_V620."]),
    ("size-retiring-apart-from-its-series", size("Standard_M192ids_v2"), {"asOf": "2027-04-01"},
     [f"{CLUSTER} {MUST}; found Standard_M192ids_v2 of series Mdsv2, retired on 2027-03-31."]),
    ("default-asOf-is-the-review-date-and-past-dates-are-retired", size("Standard_NC6"), None,
     [f"{CLUSTER} {MUST}; found Standard_NC6 of series NC, retired on 2023-09-06; {IN}NCasT4_v3."]),
    ("DCsv2-retired-2026-06-30", size("Standard_DC8_v2"), {"asOf": "2026-06-30"},  # dcsv2-series-retirement
     [f"{CLUSTER} {MUST}; found Standard_DC8_v2 of series DCsv2, retired on 2026-06-30; "
      f"{ADD}DCasv5, DCadsv5, ECasv5, ECadsv5, DCasv6, ECasv6, DCesv6, ECesv6."]),
    ("ECas_cc_v5-retired-2026-09-01", size("Standard_EC20as_cc_v5"), {"asOf": "2026-09-01"},  # ecccv5 guide
     [f"{CLUSTER} {MUST}; found Standard_EC20as_cc_v5 of series ECas_cc_v5, retired on 2026-09-01; "
      f"{IN}Dasv5, Dadsv5, Easv5, Eadsv5; {ADD}DCasv6, ECasv6, DCesv6."]),
    ("DCads_cc_v5-day-before", size("Standard_DC4ads_cc_v5"), {"asOf": "2026-08-31"}, []),
    ("HBv2-announced-not-retired", size("Standard_HB120-32rs_v2"), AS_OF, []),
    ("missing-size-left-to-approved-family-rule", size(DELETE), AS_OF, []),
    ("unknown-size-left-to-approved-family-rule", size("Standard_NC6_v9"), AS_OF, []),
    ("instance-retired", instance_props(vmSize="Standard_NV12"), AS_OF,
     [f"Compute instance 'cpu-cluster' {MUST}; found Standard_NV12 of series NV, retired on 2023-09-06; "
      f"{NV}"]),
    ("instance-happy", instance_props(), AS_OF, []),
    ("attached-ignored", attached_props(), AS_OF, []),
]

EXAMPLE = Example.of_cases(CASES, fails="NC-retired", passes="happy-path")


@pytest.mark.parametrize(("props", "config", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_compute_retired_vm_series(props, config, expected):
    assert messages(RULE, props, config) == expected


def test_findings_is_pure_in_today():
    resource = ResourceInput(COMPUTE_TYPE, "gpu", "urn", size("Standard_NC6s_v3"))
    before = [f.message for f in findings(resource, datetime.date(2020, 1, 1))]
    after = [f.message for f in findings(resource, datetime.date(2030, 1, 1))]
    assert before == []
    assert after == ["AmlCompute cluster 'gpu' must not use a VM series retired for Azure ML compute; "
                     "found Standard_NC6s_v3 of series NCv3, retired on 2025-09-30; "
                     f"{NCV3}"]


@pytest.mark.parametrize(("day", "expected"), [
    ("2025-09-29", []),
    ("2025-09-30", [f"{CLUSTER} {MUST}; found Standard_NC6s_v3 of series NCv3, retired on 2025-09-30; "
                    f"{NCV3}"]),
])
def test_without_as_of_the_review_date_decides(monkeypatch, day, expected):
    monkeypatch.setenv("AMLKIT_REVIEW_DATE", day)
    assert messages(RULE, size("Standard_NC6s_v3")) == expected


def test_as_of_reads_config():
    assert as_of({"asOf": "2024-02-29"}) == datetime.date(2024, 2, 29)


@pytest.mark.parametrize("bad", ["2024-02-30", "next week", 20240101])
def test_bad_as_of_fails_closed(bad):
    with pytest.raises(ConfigError) as caught:
        messages(RULE, HAPPY, {"asOf": bad})
    assert (caught.value.key_path, caught.value.problem) == (
        "aml-compute-retired-vm-series.asOf", "expected a date as YYYY-MM-DD")


def test_other_resource_types_are_ignored():
    assert messages(RULE, size("Standard_NC6"), AS_OF, type_="azure-native:storage:StorageAccount") == []


def test_unknown_size_is_unknown_not_a_pass():
    props = with_unknown(HAPPY, SIZE, UNKNOWN_STRING_VALUE)
    with pytest.raises(UnknownValueError):
        RULE.evaluate(ResourceInput(COMPUTE_TYPE, "cpu-cluster", "urn", props), AS_OF)


@pytest.mark.parametrize(("compute_type", "twin"), [("Managed", True), ("managed", True), ("Kubernetes", False)],
                         ids=["managed", "managed-lowercase", "kubernetes-instance-type-is-no-vm-size"])
def test_a_managed_online_deployment_is_judged_by_its_instance_type_like_a_cluster_of_that_size(compute_type, twin):
    from tests.policies.compute_fixtures import DEPLOYMENT_TYPE, deployment_props

    config = {"asOf": "2026-01-01"}
    size = "Standard_NC24s_v3"
    cluster = messages(RULE, changed(cluster_props(), "properties.properties.vmSize", size), config, name="blue")
    deployment = messages(RULE, deployment_props(size, compute_type), config, name="blue", type_=DEPLOYMENT_TYPE)
    assert cluster == [f"AmlCompute cluster 'blue' {MUST}; found Standard_NC24s_v3 of series NCv3, retired on "
                       "2025-09-30; successors in the default allowedSeries: NCads_H100_v5, NCasT4_v3, NVadsA10_v5; "
                       "AMD successors (no CUDA: aml-gpu-cuda-compatible refuses them once cudaVersion is set): "
                       "NVads_V710_v5."]
    # a deployment is told only the successors managed online endpoints accept (NVads_V710_v5 is not listed)
    expected = [f"Managed online deployment 'blue' {MUST}; found Standard_NC24s_v3 of series NCv3, retired on "
                "2025-09-30; successors in the default allowedOnlineSeries: NCads_H100_v5, NCasT4_v3, NVadsA10_v5."]
    assert deployment == (expected if twin else [])
