import datetime

import pytest
import yaml

from amlkit.errors import ConfigError, UnknownVmSize
from amlkit.vmsizes import (
    all_families,
    all_sizes,
    build_catalogue,
    catalogue_as_of,
    default_approved_series,
    family_by_quota_family,
    family_by_series,
    gpu_architecture,
    min_cuda,
    parse_vm_size,
    status,
)

# (size name as Azure writes it, series, active vCPUs): real sizes across current and previous generations.
SIZES = [
    # A v1, Basic A, Av2
    ("Standard_A0", "A", 1), ("Standard_A4", "A", 8), ("Standard_A7", "A", 8),
    ("Standard_A9", "A8-A11", 16), ("Basic_A1", "Basic A", 1), ("Basic_A4", "Basic A", 8),
    ("Standard_A1_v2", "Av2", 1), ("Standard_A8m_v2", "Av2", 8),
    # B, Bsv2, Basv2, Bpsv2
    ("Standard_B1ls", "B", 1), ("Standard_B1s", "B", 1), ("Standard_B2ms", "B", 2),
    ("Standard_B20ms", "B", 20), ("Standard_B2ts_v2", "Bsv2", 2), ("Standard_B32s_v2", "Bsv2", 32),
    ("Standard_B4als_v2", "Basv2", 4), ("Standard_B16as_v2", "Basv2", 16), ("Standard_B8ps_v2", "Bpsv2", 8),
    # D v1, v2 (model numbers, not vCPU counts), promo, constrained
    ("Standard_D1", "D", 1), ("Standard_D14", "D", 16), ("Standard_DS3", "DS", 4),
    ("Standard_D1_v2", "Dv2", 1), ("Standard_D3_v2", "Dv2", 4), ("Standard_D15_v2", "Dv2", 20),
    ("Standard_DS1_v2", "DSv2", 1), ("Standard_DS3_v2", "DSv2", 4), ("Standard_DS5_v2", "DSv2", 16),
    ("Standard_DS12_v2", "DSv2", 4), ("Standard_DS11-1_v2", "DSv2", 1), ("Standard_DS13-4_v2", "DSv2", 4),
    ("Standard_DS14-8_v2", "DSv2", 8), ("Standard_D4_v2_Promo", "Dv2 Promo", 8),
    ("Standard_DS3_v2_Promo", "DSv2 Promo", 4),
    # D v3, v4
    ("Standard_D2_v3", "Dv3", 2), ("Standard_D64_v3", "Dv3", 64), ("Standard_D4s_v3", "Dsv3", 4),
    ("Standard_D48s_v3", "Dsv3", 48), ("Standard_D8a_v4", "Dav4", 8), ("Standard_D96as_v4", "Dasv4", 96),
    ("Standard_D16_v4", "Dv4", 16), ("Standard_D32s_v4", "Dsv4", 32), ("Standard_D2d_v4", "Ddv4", 2),
    ("Standard_D4ds_v4", "Ddsv4", 4), ("Standard_D64ds_v4", "Ddsv4", 64),
    # D v5
    ("Standard_D96_v5", "Dv5", 96), ("Standard_D4s_v5", "Dsv5", 4), ("Standard_D8d_v5", "Ddv5", 8),
    ("Standard_D16ds_v5", "Ddsv5", 16), ("Standard_D2as_v5", "Dasv5", 2), ("Standard_D48ads_v5", "Dadsv5", 48),
    ("Standard_D8ls_v5", "Dlsv5", 8), ("Standard_D32lds_v5", "Dldsv5", 32), ("Standard_D4ps_v5", "Dpsv5", 4),
    ("Standard_D8pds_v5", "Dpdsv5", 8), ("Standard_D16pls_v5", "Dplsv5", 16),
    ("Standard_D64plds_v5", "Dpldsv5", 64),
    # D v6
    ("Standard_D192s_v6", "Dsv6", 192), ("Standard_D4ds_v6", "Ddsv6", 4), ("Standard_D128ls_v6", "Dlsv6", 128),
    ("Standard_D2lds_v6", "Dldsv6", 2), ("Standard_D96as_v6", "Dasv6", 96), ("Standard_D4ads_v6", "Dadsv6", 4),
    ("Standard_D8als_v6", "Dalsv6", 8), ("Standard_D16alds_v6", "Daldsv6", 16),
    ("Standard_D2ps_v6", "Dpsv6", 2), ("Standard_D4pds_v6", "Dpdsv6", 4), ("Standard_D8pls_v6", "Dplsv6", 8),
    ("Standard_D96plds_v6", "Dpldsv6", 96),
    # E v3 - v6, constrained
    ("Standard_E2_v3", "Ev3", 2), ("Standard_E20_v3", "Ev3", 20), ("Standard_E4s_v3", "Esv3", 4),
    ("Standard_E4-2s_v3", "Esv3", 2), ("Standard_E64-16s_v3", "Esv3", 16), ("Standard_E8a_v4", "Eav4", 8),
    ("Standard_E96as_v4", "Easv4", 96), ("Standard_E96-24as_v4", "Easv4", 24), ("Standard_E16_v4", "Ev4", 16),
    ("Standard_E32-8s_v4", "Esv4", 8), ("Standard_E8d_v4", "Edv4", 8), ("Standard_E48ds_v4", "Edsv4", 48),
    ("Standard_E96_v5", "Ev5", 96), ("Standard_E16s_v5", "Esv5", 16), ("Standard_E96-48s_v5", "Esv5", 48),
    ("Standard_E20d_v5", "Edv5", 20), ("Standard_E8-2ds_v5", "Edsv5", 2), ("Standard_E64as_v5", "Easv5", 64),
    ("Standard_E32ads_v5", "Eadsv5", 32), ("Standard_E112bs_v5", "Ebsv5", 112),
    ("Standard_E8bds_v5", "Ebdsv5", 8), ("Standard_E4ps_v5", "Epsv5", 4), ("Standard_E32pds_v5", "Epdsv5", 32),
    ("Standard_E192s_v6", "Esv6", 192), ("Standard_E2ds_v6", "Edsv6", 2), ("Standard_E96as_v6", "Easv6", 96),
    ("Standard_E20ads_v6", "Eadsv6", 20),
    # F, Fs, Fsv2, FX, F v6
    ("Standard_F1", "F", 1), ("Standard_F16", "F", 16), ("Standard_F4s", "Fs", 4),
    ("Standard_F2s_v2", "Fsv2", 2), ("Standard_F72s_v2", "Fsv2", 72), ("Standard_FX4mds", "FX", 4),
    ("Standard_FX48mds", "FX", 48), ("Standard_F64as_v6", "Fasv6", 64), ("Standard_F2als_v6", "Falsv6", 2),
    ("Standard_F8ams_v6", "Famsv6", 8),
    # G, GS, M family
    ("Standard_G5", "G", 32), ("Standard_GS2", "GS", 4), ("Standard_GS5-16", "GS", 16),
    ("Standard_GS4-4", "GS", 4), ("Standard_M8ms", "M", 8), ("Standard_M8-2ms", "M", 2),
    ("Standard_M128ms", "M", 128), ("Standard_M128-64ms", "M", 64), ("Standard_M64s", "M", 64),
    ("Standard_M32ts", "M", 32), ("Standard_M64ls", "M", 64), ("Standard_M128", "M", 128),
    ("Standard_M208ms_v2", "Mv2", 208), ("Standard_M416s_v2", "Mv2", 416), ("Standard_M416-208ms_v2", "Mv2", 208),
    ("Standard_M32ms_v2", "Msv2", 32), ("Standard_M128s_v2", "Msv2", 128), ("Standard_M64dms_v2", "Mdsv2", 64),
    ("Standard_M128ds_v2", "Mdsv2", 128), ("Standard_M12s_v3", "Msv3", 12), ("Standard_M96s_2_v3", "Msv3", 96),
    ("Standard_M176ds_3_v3", "Mdsv3", 176), ("Standard_M48ds_1_v3", "Mdsv3", 48),
    # H, HB, HC, HX
    ("Standard_H8", "H", 8), ("Standard_H16mr", "H", 16), ("Standard_HB60rs", "HB", 60),
    ("Standard_HB120rs_v2", "HBv2", 120), ("Standard_HB120-32rs_v2", "HBv2", 32),
    ("Standard_HB120rs_v3", "HBv3", 120), ("Standard_HB120-16rs_v3", "HBv3", 16),
    ("Standard_HB176rs_v4", "HBv4", 176), ("Standard_HB176-144rs_v4", "HBv4", 144),
    ("Standard_HB368rs_v5", "HBv5", 368), ("Standard_HB368-48rs_v5", "HBv5", 48),
    ("Standard_HC44rs", "HC", 44), ("Standard_HC44-16rs", "HC", 16), ("Standard_HX176rs", "HX", 176),
    ("Standard_HX176-24rs", "HX", 24),
    # L
    ("Standard_L4s", "Ls", 4), ("Standard_L32s", "Ls", 32), ("Standard_L8s_v2", "Lsv2", 8),
    ("Standard_L80s_v2", "Lsv2", 80), ("Standard_L48s_v3", "Lsv3", 48), ("Standard_L64as_v3", "Lasv3", 64),
    # NC
    ("Standard_NC6", "NC", 6), ("Standard_NC24r", "NC", 24), ("Standard_NC6_Promo", "NC Promo", 6),
    ("Standard_NC24r_Promo", "NC Promo", 24), ("Standard_NC6s_v2", "NCv2", 6),
    ("Standard_NC24rs_v2", "NCv2", 24), ("Standard_NC6s_v3", "NCv3", 6), ("Standard_NC24s_v3", "NCv3", 24),
    ("Standard_NC24rs_v3", "NCv3", 24), ("Standard_NC4as_T4_v3", "NCasT4_v3", 4),
    ("Standard_NC64as_T4_v3", "NCasT4_v3", 64), ("Standard_NC24ads_A100_v4", "NC_A100_v4", 24),
    ("Standard_NC96ads_A100_v4", "NC_A100_v4", 96), ("Standard_NC40ads_H100_v5", "NCads_H100_v5", 40),
    ("Standard_NC80adis_H100_v5", "NCads_H100_v5", 80), ("Standard_NCC40ads_H100_v5", "NCCads_H100_v5", 40),
    # ND
    ("Standard_ND6s", "ND", 6), ("Standard_ND24rs", "ND", 24), ("Standard_ND40rs_v2", "NDv2", 40),
    ("Standard_ND96asr_v4", "NDasrA100_v4", 96), ("Standard_ND96amsr_A100_v4", "NDm_A100_v4", 96),
    ("Standard_ND96isr_H100_v5", "ND-H100-v5", 96), ("Standard_ND96isr_H200_v5", "ND-H200-v5", 96),
    ("Standard_ND96isr_MI300X_v5", "ND-MI300X-v5", 96),
    # NV, NP
    ("Standard_NV6", "NV", 6), ("Standard_NV24", "NV", 24), ("Standard_NV12_Promo", "NV Promo", 12),
    ("Standard_NV12s_v3", "NVv3", 12), ("Standard_NV48s_v3", "NVv3", 48), ("Standard_NV4as_v4", "NVv4", 4),
    ("Standard_NV32as_v4", "NVv4", 32), ("Standard_NV6ads_A10_v5", "NVadsA10_v5", 6),
    ("Standard_NV36adms_A10_v5", "NVadsA10_v5", 36), ("Standard_NV72ads_A10_v5", "NVadsA10_v5", 72),
    ("Standard_NP10s", "NP", 10), ("Standard_NP40s", "NP", 40),
    # added 2026-11 (each from its size page): NVv3's other sizes, isolated E and M v2 `i` sizes, DC/EC
    # confidential, AMD and Blackwell GPU series
    ("Standard_NV12hs_v3", "NVv3", 12), ("Standard_NV24ms_v3", "NVv3", 24), ("Standard_NV32ms_v3", "NVv3", 32),
    ("Standard_E192is_v6", "Esv6", 192), ("Standard_E104i_v5", "Ev5", 104), ("Standard_E80ids_v4", "Edsv4", 80),
    ("Standard_M192is_v2", "Msv2", 192), ("Standard_M192idms_v2", "Mdsv2", 192),
    ("Standard_DC4s_v3", "DCsv3", 4), ("Standard_DC48s_v3", "DCsv3", 48), ("Standard_DC96as_v5", "DCasv5", 96),
    ("Standard_EC20as_v5", "ECasv5", 20), ("Standard_EC8ads_v5", "ECadsv5", 8),
    ("Standard_NG8ads_V620_v1", "NGads_V620", 8), ("Standard_NG32adms_V620_v1", "NGads_V620", 32),
    ("Standard_NV4ads_V710_v5", "NVads_V710_v5", 4), ("Standard_NV28adms_V710_v5", "NVads_V710_v5", 28),
    ("Standard_ND128isr_NDR_GB200_v6", "ND_GB200_v6", 128), ("Standard_ND128isrG5_GB300_v6", "ND_GB300_v6", 128),
    ("Standard_NC320ds_xl_RTXPRO6000BSE_v6", "NC_RTXPRO6000BSE_v6", 320),
    ("Standard_NC128lds_xl_RTXPRO6000BSE_v6", "NC_RTXPRO6000BSE_v6", 128),
    # v7 and Lv4 series
    ("Standard_D372s_v7", "Dsv7", 372), ("Standard_D2ds_v7", "Ddsv7", 2), ("Standard_D160as_v7", "Dasv7", 160),
    ("Standard_D4ads_v7", "Dadsv7", 4), ("Standard_E20s_v7", "Esv7", 20), ("Standard_E372is_v7", "Esv7", 372),
    ("Standard_E372ids_v7", "Edsv7", 372), ("Standard_E248ds_v7", "Edsv7", 248), ("Standard_E160as_v7", "Easv7", 160),
    ("Standard_E2ads_v7", "Eadsv7", 2), ("Standard_F1as_v7", "Fasv7", 1), ("Standard_F80als_v7", "Falsv7", 80),
    ("Standard_F16ams_v7", "Famsv7", 16), ("Standard_L2s_v4", "Lsv4", 2), ("Standard_L96as_v4", "Lasv4", 96),
    # confidential v3 and v6
    ("Standard_DC1ds_v3", "DCdsv3", 1), ("Standard_DC96as_v6", "DCasv6", 96), ("Standard_DC2ads_v6", "DCadsv6", 2),
    ("Standard_DC128es_v6", "DCesv6", 128), ("Standard_DC8eds_v6", "DCedsv6", 8), ("Standard_EC4as_v6", "ECasv6", 4),
    ("Standard_EC96ads_v6", "ECadsv6", 96), ("Standard_EC64es_v6", "ECesv6", 64), ("Standard_EC2eds_v6", "ECedsv6", 2),
]


def test_the_size_table_covers_every_family():
    assert len(SIZES) >= 100
    assert {series for _, series, _ in SIZES} == {f.series for f in all_families()}


@pytest.mark.parametrize(("name", "series", "vcpus"), SIZES, ids=[s[0] for s in SIZES])
def test_parse_vm_size(name, series, vcpus):
    size = parse_vm_size(name)
    assert (size.name, size.family.series, size.vcpus) == (name, series, vcpus)


@pytest.mark.parametrize("spelling", ["STANDARD_DS3_V2", "standard_ds3_v2", "Standard_Ds3_V2"])
def test_names_are_case_insensitive_and_canonicalised(spelling):
    assert parse_vm_size(spelling) == parse_vm_size("Standard_DS3_v2")
    assert parse_vm_size(spelling).name == "Standard_DS3_v2"


def test_accelerator_names_canonicalise_their_suffix():
    assert parse_vm_size("standard_nd96isr_h100_v5").name == "Standard_ND96isr_H100_v5"
    assert parse_vm_size("STANDARD_NC6_PROMO").name == "Standard_NC6_Promo"
    assert parse_vm_size("basic_a2").name == "Basic_A2"


UNKNOWN = [
    "Standard_Foo9",
    "Standard_DS3_v9",  # DSv2 never had a v9
    "Standard_DS3_v3",  # nor a DS v3 size
    "Standard_D3s_v3",  # Dsv3 has no 3-vCPU size
    "Standard_D4s_v7_",  # trailing junk
    "Standard_M8-3ms",  # M8ms is constrained to 2 or 4 active vCPUs only
    "Standard_E2-1s_v3",  # Esv3 has no constrained E2
    "Standard_NC4as_T4_v4",  # the T4 series is v3 only
    "Standard_ND96isr_H100_v4",
    "Premium_DS3_v2",
    "DS3_v2",  # the tier prefix is part of the name
    " Standard_DS3_v2",
    "Standard_DS3_v2 ",
    "",
]


@pytest.mark.parametrize("name", UNKNOWN, ids=[repr(n) for n in UNKNOWN])
def test_unknown_names_raise(name):
    with pytest.raises(UnknownVmSize) as caught:
        parse_vm_size(name)
    assert str(caught.value) == f"unknown VM size {name!r}: not a known Azure VM size name"


@pytest.mark.parametrize("value", [None, 4, 3.5, ["Standard_DS3_v2"], {"name": "Standard_DS3_v2"}])
def test_non_strings_are_a_clear_error(value):
    with pytest.raises(UnknownVmSize, match=r"^VM size must be a string such as 'Standard_D4ds_v4', got "):
        parse_vm_size(value)


def test_unknown_vm_size_is_a_value_error_with_usage_exit_code():
    with pytest.raises(ValueError):
        parse_vm_size("Standard_Foo9")
    assert UnknownVmSize.exit_code == 2


# --- families ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lookup", "series"),
    [("DSv2", "DSv2"), ("dsv2", "DSv2"), ("DSv2-series", "DSv2"), ("NCsv3", "NCv3"), ("ncsv2", "NCv2"),
     ("HCS", "HC"), ("NDs", "ND"), ("DDSv4", "Ddsv4"), ("EAv4", "Eav4"), ("FSv2", "Fsv2"), ("LSv2", "Lsv2"),
     ("Fx", "FX"), ("ND H100 v5", "ND-H100-v5"), ("nc promo", "NC Promo"), ("Av1", "A")],
)
def test_family_by_series_accepts_docs_spellings(lookup, series):
    assert family_by_series(lookup).series == series


@pytest.mark.parametrize("lookup", ["DSv9", "standardDSv2Family", "", None, 3])
def test_family_by_series_raises_for_unknown_series(lookup):
    with pytest.raises(UnknownVmSize, match=r"^unknown VM series .*: not a series in the amlkit VM catalogue$"):
        family_by_series(lookup)


@pytest.mark.parametrize(
    ("lookup", "series"),
    [("standardDSv2Family", "DSv2"), ("STANDARDDSV2FAMILY", "DSv2"), ("Standard NCASv3_T4 Family", "NCasT4_v3"),
     ("standardNCASv3_T4Family", "NCasT4_v3"), ("StandardNCADSA100v4Family", "NC_A100_v4")],
)
def test_family_by_quota_family(lookup, series):
    assert family_by_quota_family(lookup).series == series


@pytest.mark.parametrize("lookup", ["DSv2", "standardDSv9Family", None])
def test_family_by_quota_family_raises_for_unknown_names(lookup):
    with pytest.raises(UnknownVmSize, match=r"^unknown quota family .*: not a quota family in the amlkit VM"):
        family_by_quota_family(lookup)


def test_family_facts_for_a_few_series():
    ncv3 = family_by_series("NCv3")
    assert (ncv3.series, ncv3.category, ncv3.quota_family, ncv3.aml_supported, ncv3.gpu_generation, ncv3.retired,
            ncv3.approval_required, ncv3.isolated_sizes, ncv3.gpu_model) == (
        "NCv3", "gpu", "standardNCSv3Family", True, "Volta", datetime.date(2025, 9, 30), True,
        ("Standard_NC24s_v3", "Standard_NC24rs_v3"), "NVIDIA V100",
    )
    assert ncv3.successors == ("NCads_H100_v5", "NCasT4_v3", "NVadsA10_v5", "NVads_V710_v5")
    dsv2 = family_by_series("DSv2")
    assert (dsv2.retired, dsv2.capacity_restricted.text, dsv2.aml_supported) == (
        datetime.date(2028, 5, 1), "2026-07", True)


def test_default_approved_series_are_current_supported_and_unrestricted():
    assert default_approved_series() == (
        "Ddsv4", "Eav4", "FX", "HBv3", "NCasT4_v3", "NDasrA100_v4", "ND-H100-v5", "ND-H200-v5",
    )


# --- the catalogue agrees with its sources ----------------------------------------------------------------

AML_SUPPORTED = {  # concept-compute-target#supported-vm-series-and-sizes (ND-H100-v5, ND-H200-v5 included)
    "Ddsv4", "Dv2", "Dv3", "DSv2", "Dsv3", "Eav4", "Ev3", "Esv3", "M", "Fsv2", "FX", "H", "HB", "HBv2",
    "HBv3", "HC", "Lsv2", "NC", "NC Promo", "NCv2", "NCv3", "ND", "NDv2", "NV", "NVv3", "NCasT4_v3",
    "NDasrA100_v4", "ND-H100-v5", "ND-H200-v5",
}
APPROVAL = {"HB", "HBv2", "HC", "M", "NCv2", "NCv3", "ND", "NDv2", "NVv3"}  # NCsv2, NCsv3, NDs, HCS
CD = "MicrosoftDocs/azure-compute-docs articles/virtual-machines/sizes/"
AD = "MicrosoftDocs/azure-docs articles/"
AML_RETIRING = "MicrosoftDocs/azure-ai-docs articles/machine-learning/includes/retiring-vms.md"
RETIREMENTS = CD + "lifecycle/retirements-and-capacity-restrictions.md"
# series -> (date as published, source file): every retired or retiring series
RETIRED = {
    "H": ("2022-08-31", AD + "virtual-machines/h-series-retirement.md"),
    "A8-A11": ("2021-03", AD + "advisor/advisor-reference-operational-excellence-recommendations.md"),
    "NVv3": ("2026-09-30", CD + "gpu-accelerated/nvv3-series-retirement.md"),
    "NVv4": ("2026-09-30", CD + "lifecycle/retirement/nvv4-retirement.md"),
    "HC": ("2027-05-31", CD + "lifecycle/retirement/hc-series-retirement.md"),
    "HBv2": ("2027-05-31", RETIREMENTS), "NP": ("2027-05-31", RETIREMENTS),
    **{s: ("2028-05-01", RETIREMENTS) for s in ("D", "DS", "Dv2", "DSv2", "Ls")},
    **{s: ("2028-11-15", RETIREMENTS) for s in ("Av2", "B", "F", "Fs", "Fsv2", "G", "GS", "Lsv2")},
    **{s: ("2029-11-15", RETIREMENTS) for s in ("Dv3", "Dsv3", "Ev3", "Esv3")},
    "DCsv3": ("2029-10-31", RETIREMENTS), "DCdsv3": ("2029-10-31", RETIREMENTS),
    **{s: ("2023-08-31", CD + "lifecycle/retirement/n-series-migration.md")
       for s in ("NC", "NC Promo", "NCv2", "ND")},
    **{s: ("2023-08-31", AML_RETIRING)
       for s in ("NV", "NV Promo")},
    "HB": ("2024-08-31", AML_RETIRING),
    **{s: ("2024-08-31", CD + "lifecycle/retirement/av1-series-retirement.md")
       for s in ("A", "Basic A")},
    "NCv3": ("2025-09-30", CD + "lifecycle/retirement/ncv3-retirement.md"),
}
RESTRICTED = {"F", "Fs", "Fsv2", "D", "DS", "Dv2", "DSv2", "Dv3", "Dsv3", "Ev3", "Esv3", "Ls", "Lsv2",
              "B", "Av2", "G", "GS"}  # the page's "Impacted VM series" table adds B, Bs, Av2, Amv2, G, Gs
SUCCESSORS = {
    "H": ("HC", "HBv2", "HBv3", "Dv4", "Dav4", "Ev4", "Eav4"),
    "NVv3": ("NVadsA10_v5", "NC_RTXPRO6000BSE_v6", "NCasT4_v3", "NVads_V710_v5"),
    "NVv4": ("NVads_V710_v5", "NVadsA10_v5", "NGads_V620"),
    "HC": ("HBv5", "HBv4", "HX", "HBv3"), "HBv2": ("HBv5", "HX", "HBv4", "HBv3"),
    "NP": ("NDv2", "NCads_H100_v5", "NCasT4_v3"),
    "Dsv3": ("Dv5", "Dsv5", "Ddv5", "Ddsv5", "Dasv5", "Dadsv5"),
    "Esv3": ("Ev5", "Esv5", "Edv5", "Edsv5", "Easv5", "Eadsv5"),
    "Lsv2": ("Lsv3", "Lasv3", "Lasv4"),  # the guide: "Lsv3/Lasv3, Lasv4/Lasv4"
    "DCsv3": ("DCasv6", "DCadsv6", "ECasv6", "ECadsv6", "DCesv6", "DCedsv6", "ECesv6", "ECedsv6"),
    "NV Promo": ("NVv3", "NVv4"),  # the NV modernization guide; both targets have retired since
    "Ls": ("Lsv3", "Lasv3", "Lsv4", "Lasv4"),
    "DSv2": ("Dsv5", "Ddsv5", "Dasv5", "Dadsv5", "Dasv6", "Dadsv6", "Dsv6", "Ddsv6", "Dasv7", "Dadsv7", "Esv6",
             "Edsv6", "Easv6", "Eadsv6", "Easv7", "Eadsv7"),
}
ISOLATED = {
    "Standard_M128ms", "Standard_F72s_v2", "Standard_NC24s_v3", "Standard_NC24rs_v3",  # aml-compute-target
    "Standard_E192is_v6", "Standard_E192ids_v6", "Standard_E104i_v5", "Standard_E104id_v5",  # modernization
    "Standard_E104is_v5", "Standard_E104ids_v5", "Standard_E80is_v4", "Standard_E80ids_v4",
    "Standard_M192is_v2", "Standard_M192ims_v2", "Standard_M192ids_v2", "Standard_M192idms_v2",  # end-of-life
}
GPU_GENERATIONS = {
    "NDasrA100_v4": "Ampere", "NCasT4_v3": "Turing", "NCv3": "Volta", "NDv2": "Volta", "NCv2": "Pascal",
    "ND": "Pascal", "NV": "Maxwell", "NVv3": "Maxwell", "NC": "Kepler", "ND-H100-v5": "Hopper",
    "ND_GB200_v6": "Blackwell", "ND_GB300_v6": "Blackwell", "NC_RTXPRO6000BSE_v6": "Blackwell",
}
# architecture -> (first CUDA, first CUDA without it): NVIDIA's CUDA toolkit / architecture matrix
CUDA = {"Kepler": ("6.0", "12.0"), "Maxwell": ("6.5", "13.0"), "Pascal": ("8.0", "13.0"), "Volta": ("9.0", "13.0"),
        "Turing": ("10.0", None), "Ampere": ("11.0", None), "Hopper": ("11.8", None), "Blackwell": ("12.8", None)}
# size -> (GPU model, count, memory GB) as the size pages publish them
GPUS = {
    "Standard_NC4as_T4_v3": ("NVIDIA T4", "1", 16), "Standard_NC64as_T4_v3": ("NVIDIA T4", "4", 64),
    "Standard_NC48ads_A100_v4": ("NVIDIA A100 PCIe", "2", 160),
    "Standard_NC80adis_H100_v5": ("NVIDIA H100 NVL", "2", 188),
    "Standard_ND96asr_v4": ("NVIDIA A100", "8", 320), "Standard_ND96isr_H200_v5": ("NVIDIA H200", "8", 1128),
    "Standard_NV6ads_A10_v5": ("NVIDIA A10", "1/6", 4), "Standard_NV24s_v3": ("NVIDIA Tesla M60", "2", 16),
    "Standard_NV12ads_V710_v5": ("AMD Radeon Pro V710", "1/2", 12),
    "Standard_NG16ads_V620_v1": ("AMD Radeon PRO V620", "1/2", 16),
    "Standard_ND128isr_NDR_GB200_v6": ("NVIDIA GB200", "4", 192),
    "Standard_ND128isr_GB300_v6": ("NVIDIA GB300", "4", 288),
    "Standard_NC256ds_xl_RTXPRO6000BSE_v6": ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "2", 192),
    "Standard_NV12hs_v3": ("NVIDIA Tesla M60", None, None),  # the retirement page names it, no GPU facts
}


def test_supported_series_match_sources():
    assert {f.series for f in all_families() if f.aml_supported} == AML_SUPPORTED


def test_approval_required_series_match_sources():
    assert {f.series for f in all_families() if f.approval_required} == APPROVAL


def test_retirement_dates_and_their_sources():
    found = {f.series: (f.retirement.text, f.retirement.source.file) for f in all_families() if f.retirement}
    assert found == RETIRED


def test_month_precision_dates_compare_from_the_first_of_the_month():
    assert family_by_series("A8-A11").retired == datetime.date(2021, 3, 1)


def test_capacity_restrictions():
    found = {f.series: (f.capacity_restricted.text, f.capacity_restricted.source.file)
             for f in all_families() if f.capacity_restricted}
    dcsv3 = ("2026-11-01", CD + "retirement/dcsv3-series-retirement.md")  # "Starting November 1, 2026"
    assert found == {**{series: ("2026-07", RETIREMENTS) for series in RESTRICTED}, "DCsv3": dcsv3, "DCdsv3": dcsv3}


@pytest.mark.parametrize(("series", "successors"), SUCCESSORS.items(), ids=list(SUCCESSORS))
def test_successors_follow_microsofts_migration_guidance(series, successors):
    assert family_by_series(series).successors == successors


def test_every_retiring_or_restricted_series_names_successors_unless_unsourced():
    unsourced = {"A8-A11", "HB"}
    for family in all_families():
        if (family.retirement or family.capacity_restricted) and family.series not in unsourced:
            assert family.successors, family.series


def test_a_size_can_retire_apart_from_its_series():
    size = parse_vm_size("Standard_M192ims_v2")
    assert (size.retirement.text, size.family.retirement, size.isolated) == ("2027-03-31", None, True)
    assert status(size, datetime.date(2027, 3, 30)) == "retiring"
    assert status(size, datetime.date(2027, 3, 31)) == "retired"
    assert status(parse_vm_size("Standard_M128s_v2"), datetime.date(2030, 1, 1)) == "current"


def test_isolated_sizes_match_sources():
    assert {name for f in all_families() for name in f.isolated_sizes} == ISOLATED


def test_gpu_generations_match_sources():
    assert {s: family_by_series(s).gpu_generation for s in GPU_GENERATIONS} == GPU_GENERATIONS


@pytest.mark.parametrize(("architecture", "cuda"), CUDA.items(), ids=list(CUDA))
def test_cuda_range_per_architecture(architecture, cuda):
    facts = gpu_architecture(architecture)
    assert (facts.vendor, facts.cuda_min, facts.cuda_dropped_in) == ("NVIDIA", *cuda)
    assert facts.source.url == ("https://docs.nvidia.com/datacenter/tesla/drivers/"
                                "cuda-toolkit-driver-and-architecture-matrix.html")


def test_amd_gpus_have_no_cuda():
    for name in ("Vega", "CDNA3", "Radeon Pro"):
        assert (gpu_architecture(name).vendor, gpu_architecture(name).cuda_min) == ("AMD", None)
    assert min_cuda(parse_vm_size("Standard_NV24ads_V710_v5")) is None
    assert min_cuda(parse_vm_size("Standard_ND96asr_v4")) == "11.0"
    assert min_cuda(parse_vm_size("Standard_D4ds_v4")) is None


@pytest.mark.parametrize(("name", "gpu"), GPUS.items(), ids=list(GPUS))
def test_gpu_model_count_and_memory_per_size(name, gpu):
    size = parse_vm_size(name)
    assert (size.family.gpu_model, size.gpus, size.gpu_memory_gb) == gpu


def test_every_family_has_a_source():
    missing = [f.series for f in all_families() if f.source is None or not f.source.url.startswith("https://")]
    assert missing == []


def test_a_family_without_a_source_is_rejected():
    data = {**_DATA, "families": [{k: v for k, v in GOOD.items() if k != "source"}]}
    with pytest.raises(ConfigError, match=r"^x.yaml: families\[0\].source: required: the page that documents"):
        build_catalogue(data, file="x.yaml")


def test_every_date_has_a_source():
    for family in all_families():
        for dated in (family.retirement, family.capacity_restricted):
            assert dated is None or dated.source.url.startswith("https://"), family.series
    for size in all_sizes():
        assert size.own_retirement is None or size.own_retirement.source.url.startswith("https://")


def test_catalogue_as_of():
    assert catalogue_as_of() == datetime.date(2026, 9, 24)


def test_catalogue_size_counts():
    assert (len(all_families()), len(all_sizes())) == (147, 1151)  # before issue 11: 116 families, 877 sizes


def test_every_gpu_family_has_a_generation_and_no_other_does():
    for family in all_families():
        assert (family.gpu_generation is not None) == (family.category == "gpu"), family.series


def test_series_and_quota_families_are_unique():
    families = all_families()
    assert len({f.series.casefold() for f in families}) == len(families)
    quotas = [f.quota_family.casefold() for f in families if f.quota_family]
    assert len(set(quotas)) == len(quotas)


def test_every_family_has_sizes_and_every_size_parses_back():
    sizes = all_sizes()
    assert {s.family for s in sizes} == set(all_families())
    for size in sizes:
        assert parse_vm_size(size.name.upper()) == size


# --- the data file is validated --------------------------------------------------------------------------

GOOD = {"series": "Xv1", "category": "general_purpose", "quota_family": "standardXv1Family", "source": "page",
        "sizes": [{"template": "Standard_X{n}", "vcpus": [4]}]}
_DATA = {"as_of": datetime.date(2026, 1, 1), "sources": {"page": {"url": "https://learn.microsoft.com/x"}}}


def _with(**changes):
    return {**_DATA, "families": [{**GOOD, **changes}]}


def _families(*entries):
    return {**_DATA, "families": list(entries)}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (_DATA, "x.yaml: families: expected a non-empty list of VM families"),
        (_with(retired="soon"), "x.yaml: families[0].retired: expected {date: YYYY-MM-DD or YYYY-MM, source"),
        (_with(retired={"date": "soon", "source": "page"}),
         "x.yaml: families[0].retired.date: 'soon' is not a date (YYYY-MM-DD or YYYY-MM)"),
        (_with(retired={"date": datetime.date(2027, 1, 1), "source": "nowhere"}),
         "x.yaml: families[0].retired.source: 'nowhere' is not a source id from `sources` or an https URL"),
        (_with(retired={"date": datetime.date(2027, 1, 1), "source": "page", "successors": ["Zv9"]}),
         "x.yaml: families[0].retired.successors: 'Zv9' is not a series here"),
        (_with(gpu_generation="Fermi"), "x.yaml: families[0].gpu_generation: 'Fermi' is not in gpu_architectures"),
        ({**_with(), "as_of": "today"}, "x.yaml: as_of: 'today' is not a date (YYYY-MM-DD)"),
        (_with(colour="red"), "x.yaml: families[0]: unknown key(s) colour; allowed: "),
        (_with(category="cheap"), "x.yaml: families[0].category: 'cheap'; allowed: general_purpose"),
        (_with(aml_supported="yes"), "x.yaml: families[0].aml_supported: 'yes' is not true or false"),
        (_with(sizes=[{"template": "Standard_X4", "vcpus": [4]}]),
         "x.yaml: families[0].sizes[0].template: 'Standard_X4' must contain {n} exactly once"),
        (_with(sizes=[{"template": "Standard_X{n}", "vcpus": [4], "constrained": {4: [4]}}]),
         "x.yaml: families[0].sizes[0].constrained.4: 4 is not below 4"),
        (_with(isolated_sizes=["Standard_X8"]),
         "x.yaml: families[0].isolated_sizes: 'Standard_X8' is not a size of this family"),
        (_families(GOOD, {**GOOD, "series": "Xv2", "quota_family": "standardXv2Family"}),
         "x.yaml: families[1].sizes: size 'Standard_X4' is defined twice"),
        (_families(GOOD, {**GOOD, "series": "xv1", "quota_family": "standardXv2Family"}),
         "x.yaml: families[1].aliases: series name 'xv1' is defined twice"),
        (_families(GOOD, {**GOOD, "series": "Xv2", "quota_family": "Standard Xv1 Family"}),
         "x.yaml: families[1].quota_family: quota family 'Standard Xv1 Family' is defined twice"),
    ],
)
def test_bad_catalogue_data_is_a_config_error(data, message):
    with pytest.raises(ConfigError) as caught:
        build_catalogue(data, file="x.yaml")
    assert str(caught.value).startswith(message)


def test_packaged_data_file_is_plain_yaml_with_dates():
    from importlib import resources

    raw = yaml.safe_load(resources.files("amlkit").joinpath("data/vm_families.yaml").read_text())
    retired = [entry["retired"]["date"] for entry in raw["families"] if "retired" in entry]
    assert retired and all(isinstance(value, (datetime.date, str)) for value in retired)
