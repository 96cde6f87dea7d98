import datetime

import pytest
import yaml

from amlkit.errors import ConfigError, UnknownVmSize
from amlkit.vmsizes import (
    all_families,
    build_catalogue,
    default_approved_series,
    family_by_quota_family,
    family_by_series,
    parse_vm_size,
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
    ("Standard_E32ads_v5", "Eadsv5", 32), ("Standard_E112ibs_v5", "Ebsv5", 112),
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
    # added for issue 21 (size pages): v7 l-series, retired confidential series
    ("Standard_D248ls_v7", "Dlsv7", 248), ("Standard_D2lds_v7", "Dldsv7", 2), ("Standard_D160als_v7", "Dalsv7", 160),
    ("Standard_DC1s_v2", "DCsv2", 1), ("Standard_DC8_v2", "DCsv2", 8), ("Standard_DC96as_cc_v5", "DCas_cc_v5", 96),
    ("Standard_DC4ads_cc_v5", "DCads_cc_v5", 4), ("Standard_EC20as_cc_v5", "ECas_cc_v5", 20),
    ("Standard_EC96ads_cc_v5", "ECads_cc_v5", 96),
    ("Standard_D160alds_v7", "Daldsv7", 160), ("Standard_F1ads_v7", "Fadsv7", 1),
    ("Standard_F80alds_v7", "Faldsv7", 80), ("Standard_F48amds_v7", "Famdsv7", 48),
    # M-series v3 (issue 21, size pages): medium memory's 4_v3 sizes, high memory, very high memory
    ("Standard_M176s_4_v3", "Msv3", 176), ("Standard_M176ds_4_v3", "Mdsv3", 176),
    ("Standard_M416s_6_v3", "Msv3 High Memory", 416), ("Standard_M624s_12_v3", "Msv3 High Memory", 624),
    ("Standard_M832is_16_v3", "Msv3 High Memory", 832), ("Standard_M416ds_8_v3", "Mdsv3 High Memory", 416),
    ("Standard_M832ds_12_v3", "Mdsv3 High Memory", 832), ("Standard_M832ids_16_v3", "Mdsv3 High Memory", 832),
    ("Standard_M896ixds_24_v3", "Mdsv3 Very High Memory", 896),
    ("Standard_M1792ixds_32_v3", "Mdsv3 Very High Memory", 1792),
    ("Standard_M16bs_v3", "Mbsv3", 16), ("Standard_M176bs_v3", "Mbsv3", 176), ("Standard_M48bds_v3", "Mbdsv3", 48),
    ("Standard_M64bds_1_v3", "Mbdsv3", 64), ("Standard_M176bds_4_v3", "Mbdsv3", 176),
    ("Standard_DC2ads_v5", "DCadsv5", 2), ("Standard_DC96ads_v5", "DCadsv5", 96),  # a DCsv2 successor
    # issue 30: sizes refused as unknown in 0.2.0, from their size pages (NCads_A10_v4: the Compute SKUs API's)
    ("Standard_FX4mds_v2", "FXmdsv2", 4), ("Standard_FX96mds_v2", "FXmdsv2", 96),
    ("Standard_FX48-12mds_v2", "FXmdsv2", 12), ("Standard_D2ns_v6", "Dnsv6", 2), ("Standard_D128ns_v6", "Dnsv6", 128),
    ("Standard_E2ns_v6", "Ensv6", 2), ("Standard_E128ns_v6", "Ensv6", 128),
    ("Standard_NC8ads_A10_v4", "NCads_A10_v4", 8),
    ("Standard_NC32ads_A10_v4", "NCads_A10_v4", 32), ("Standard_E16-4s_v6", "Esv6", 4),
    ("Standard_E128-64ds_v6", "Edsv6", 64), ("Standard_E96-24as_v7", "Easv7", 24), ("Standard_E8-2ads_v7", "Eadsv7", 2),
    ("Standard_F2-1amds_v7", "Famdsv7", 1), ("Standard_F64-32ams_v7", "Famsv7", 32),
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
    "Standard_M176s_2_v3",  # msv3-mm-series: the 176-vCPU sizes are M176s_3_v3 and M176s_4_v3
    "Standard_M176ds_2_v3",
    "Standard_M832s_16_v3",  # msv3-hm-series: the 16_v3 size is the isolated M832is_16_v3
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
    with pytest.raises(UnknownVmSize, match=r"^VM size must be a string such as 'Standard_D4ds_v5', got "):
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
        (), "NVIDIA V100",  # isolation.md no longer lists NCv3 sizes
    )
    assert ncv3.successors == ("NCads_H100_v5", "NCasT4_v3", "NVadsA10_v5", "NVads_V710_v5")
    dsv2 = family_by_series("DSv2")
    assert (dsv2.retired, dsv2.capacity_restricted.text, dsv2.aml_supported) == (
        datetime.date(2028, 5, 1), "2026-07", True)


def test_default_approved_series_are_derived_from_the_catalogues_facts():
    assert default_approved_series() == (
        "Dv5", "Dsv5", "Ddv5", "Ddsv5", "Dasv5", "Dadsv5", "Dlsv5", "Dldsv5",
        "Dsv6", "Ddsv6", "Dlsv6", "Dldsv6", "Dasv6", "Dadsv6", "Dalsv6", "Daldsv6",
        "Ev5", "Esv5", "Edv5", "Edsv5", "Easv5", "Eadsv5", "Ebsv5", "Ebdsv5",
        "Esv6", "Edsv6", "Easv6", "Eadsv6", "Fasv6", "Falsv6", "Famsv6",
        "NCasT4_v3", "NC_A100_v4", "NCads_H100_v5", "NDasrA100_v4", "NDm_A100_v4", "ND-H100-v5", "ND-H200-v5",
        "NVadsA10_v5",  # ND_GB200_v6 and ND_GB300_v6 run on Arm64 (NVIDIA Grace): out (issue 30)
        "Dasv7", "Dadsv7", "Easv7", "Eadsv7", "Fasv7", "Falsv7", "Famsv7", "Dalsv7",
        "Daldsv7", "Fadsv7", "Faldsv7", "Famdsv7",
    )


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
        (_with(skip_online_reserve={"sizes": ["Standard_X8"], "source": "page"}),
         "x.yaml: families[0].skip_online_reserve.sizes: 'Standard_X8' is not a size of this family"),
        (_with(skip_online_reserve=["Standard_X4"]),
         "x.yaml: families[0].skip_online_reserve: expected {sizes: [size names], source: <id or URL>}"),
        (_with(skip_online_reserve={"sizes": ["Standard_X4"], "source": "nowhere"}),
         "x.yaml: families[0].skip_online_reserve.source: 'nowhere' is not a source id from `sources` or an https URL"),
        (_with(size_quota_families={"sizes": {"Standard_X8": "standardXIv1Family"}, "source": "page"}),
         "x.yaml: families[0].size_quota_families.sizes: 'Standard_X8' is not a size of this family"),
        (_with(size_quota_families={"sizes": ["Standard_X4"], "source": "page"}),
         "x.yaml: families[0].size_quota_families: expected {sizes: {size name: quota family}, source: <id or URL>}"),
        (_with(size_quota_families={"sizes": {"Standard_X4": ""}, "source": "page"}),
         "x.yaml: families[0].size_quota_families.sizes: 'Standard_X4': '' is not a size name and a quota family"),
        (_with(size_quota_families={"sizes": {"Standard_X4": "standardXIv1Family"}, "source": "nowhere"}),
         "x.yaml: families[0].size_quota_families.source: 'nowhere' is not a source id from `sources` or an https "
         "URL"),
        (_families(GOOD, {**GOOD, "series": "Xv2", "quota_family": "standardXv2Family",
                          "sizes": [{"template": "Standard_X{n}_v2", "vcpus": [4]}],
                          "size_quota_families": {"sizes": {"Standard_X4_v2": "Standard Xv1 Family"},
                                                  "source": "page"}}),
         "x.yaml: families[1].size_quota_families.sizes.Standard_X4_v2: 'Standard Xv1 Family' is the quota family of "
         "series Xv1"),
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


def test_a_family_without_a_source_is_rejected():
    data = {**_DATA, "families": [{k: v for k, v in GOOD.items() if k != "source"}]}
    with pytest.raises(ConfigError, match=r"^x.yaml: families\[0\].source: required: the page that documents"):
        build_catalogue(data, file="x.yaml")
