"""The VM catalogue (amlkit/data/vm_families.yaml, read by amlkit.vmsizes) agrees with its sources: supported
and approval-required series, retirements, successors, GPU generations, CUDA ranges, isolated sizes."""

import datetime
import re

import pytest

from amlkit.vmsizes import (
    all_families,
    all_sizes,
    catalogue_as_of,
    default_approved_series,
    default_online_series,
    family_by_series,
    gpu_architecture,
    instance_refusal,
    min_cuda,
    online_sizes,
    parse_vm_size,
    status,
)

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
    "DCsv2": ("2026-06-30", RETIREMENTS), "DCas_cc_v5": ("2026-09-01", RETIREMENTS),  # retired, not unknown
    **{s: ("2026-09-01", RETIREMENTS) for s in ("DCads_cc_v5", "ECas_cc_v5", "ECads_cc_v5")},
    # each series' own retirement page (issue 30; the migration guide's "August 31st 2023" is the NCv2 page's date
    # only: the NC and ND pages moved to 6 September 2023)
    **{s: ("2023-09-06", AD + "virtual-machines/nc-series-retirement.md") for s in ("NC", "NC Promo")},
    "NCv2": ("2023-08-31", AD + "virtual-machines/ncv2-series-retirement.md"),
    "ND": ("2023-09-06", CD + "lifecycle/retirement/nd-series-retirement.md"),
    **{s: ("2023-09-06", CD + "lifecycle/retirement/nv-series-retirement.md")  # "by September 6, 2023"
       for s in ("NV", "NV Promo")},
    "HB": ("2024-08-31", AML_RETIRING),
    **{s: ("2024-08-31", CD + "lifecycle/retirement/av1-series-retirement.md")
       for s in ("A", "Basic A")},
    "NCv3": ("2025-09-30", CD + "lifecycle/retirement/ncv3-retirement.md"),
}
RESTRICTED = {"F", "Fs", "Fsv2", "D", "DS", "Dv2", "DSv2", "Dv3", "Dsv3", "Ev3", "Esv3", "Ls", "Lsv2",
              "B", "Av2", "G", "GS"}  # the page's "Impacted VM series" table adds B, Bs, Av2, Amv2, G, Gs
SUCCESSORS = {
    "H": ("HBv3", "Dv4", "Dav4", "Ev4", "Eav4"),  # the guide's HC and HBv2 retire 2027-05-31
    "A": ("Bsv2", "Basv2", "Dsv5", "Ddv5", "Dasv5", "Esv5", "Edv5", "Easv5", "Dsv6", "Ddsv6", "Dasv6", "Esv6",
          "Edsv6", "Easv6"),  # the av1 guide's Av2 retires 2028-11-15: Av2's successors
    "NVv3": ("NVadsA10_v5", "NC_RTXPRO6000BSE_v6", "NCasT4_v3", "NVads_V710_v5"),
    "NVv4": ("NVads_V710_v5", "NVadsA10_v5", "NGads_V620"),
    "HC": ("HBv5", "HBv4", "HX", "HBv3"), "HBv2": ("HBv5", "HX", "HBv4", "HBv3"),
    "NP": ("NDv2", "NCads_H100_v5", "NCasT4_v3"),
    "Dsv3": ("Dv5", "Dsv5", "Ddv5", "Ddsv5", "Dasv5", "Dadsv5"),
    "Esv3": ("Ev5", "Esv5", "Edv5", "Edsv5", "Easv5", "Eadsv5"),
    "Lsv2": ("Lsv3", "Lasv3", "Lsv4", "Lasv4"),  # the guide: "Lsv3/Lasv3, Lasv4/Lasv4", Lsv4 for the repeat
    "DCsv3": ("DCasv6", "DCadsv6", "ECasv6", "ECadsv6", "DCesv6", "DCedsv6", "ECesv6", "ECedsv6"),
    "NV Promo": ("NVadsA10_v5", "NC_RTXPRO6000BSE_v6", "NCasT4_v3", "NVads_V710_v5"),  # the guide's NVv3 and
    # NVv4 retired on 2026-09-30: NVv3's successors
    "Ls": ("Lsv3", "Lasv3", "Lsv4", "Lasv4"),
    # dcsv2-series-retirement.md, in its order; its first option, DCdsv3, retires on 2029-10-31
    "DCsv2": ("DCasv5", "DCadsv5", "ECasv5", "ECadsv5", "DCasv6", "ECasv6", "DCesv6", "ECesv6"),
    # dcccv5-series-retirement.md and ecccv5-series-retirement.md, in their order
    **{s: ("Dasv5", "Dadsv5", "Easv5", "Eadsv5", "DCasv6", "ECasv6", "DCesv6")
       for s in ("DCas_cc_v5", "DCads_cc_v5", "ECas_cc_v5", "ECads_cc_v5")},
    "DSv2": ("Dsv5", "Ddsv5", "Dasv5", "Dadsv5", "Dasv6", "Dadsv6", "Dsv6", "Ddsv6", "Dasv7", "Dadsv7", "Esv6",
             "Edsv6", "Easv6", "Eadsv6", "Easv7", "Eadsv7"),
}
ISOLATED = {  # isolation.md (2026-04-28), and the sizes the Mdsv3 Very High Memory page calls isolated
    "Standard_M832is_16_v3", "Standard_M832ids_16_v3",  # msv3-hm-series, mdsv3-hm-series
    "Standard_M896ixds_32_v3", "Standard_M896ixds_24_v3", "Standard_M1792ixds_32_v3",  # mdsv3-vhm-series
    "Standard_E192is_v6", "Standard_E192ids_v6", "Standard_E104i_v5", "Standard_E104id_v5", "Standard_E104is_v5",
    "Standard_E104ids_v5", "Standard_E112ias_v5", "Standard_E112iads_v5", "Standard_E80is_v4", "Standard_E80ids_v4",
    "Standard_E96ias_v4", "Standard_E112ibs_v5", "Standard_E112ibds_v5", "Standard_EC96ias_v5", "Standard_EC96iads_v5",
    "Standard_HB120rs_v3", "Standard_HB176rs_v4", "Standard_HB368rs_v5", "Standard_HX176rs",
    "Standard_M192is_v2", "Standard_M192ids_v2", "Standard_M192ims_v2", "Standard_M192idms_v2",
    "Standard_NC64as_T4_v3", "Standard_NC96ads_A100_v4", "Standard_NC80adis_H100_v5",
    "Standard_ND128isr_NDR_GB200_v6", "Standard_ND128isr_GB300_v6",  # the page's ND128isr_NDR_GB300_v6: no such size
    "Standard_ND96isr_H100_v5", "Standard_ND96isr_H200_v5", "Standard_ND96isr_MI300X_v5",
    "Standard_NG32ads_V620_v1", "Standard_NG32adms_V620_v1", "Standard_NV72ads_A10_v5",
}
QUOTA_FAMILIES = {  # aks-vm-sizes (microsoft/aspire AksNodeVmSizes.Generated.cs: the Compute SKUs' `family`)
    "Msv3 High Memory": "standardMSHighMemoryv3Family", "Mdsv3 High Memory": "standardMDSHighMemoryv3Family",
    "HBv3": "standardHBv3Family", "ND-MI300X-v5": "standardNDISv5MI300XFamily", "DCsv3": "standardDCSv3Family",
    "DCasv5": "standardDCASv5Family", "DCadsv5": "standardDCADSv5Family", "ECasv5": "standardECASv5Family",
    "ECadsv5": "standardECADSv5Family", "NGads_V620": "StandardNGADSV620v1Family",
    "NVads_V710_v5": "StandardNVadsV710v5Family", "ND_GB200_v6": "standardNDISRGB200V6NDRFamily",
    "ND_GB300_v6": "standardNDISRGB300V6Family", "Dsv7": "StandardDsv7Family", "Ddsv7": "StandardDdsv7Family",
    "Dasv7": "StandardDasv7Family", "Dadsv7": "StandardDadsv7Family", "Esv7": "StandardEsv7Family",
    "Edsv7": "StandardEdsv7Family", "Easv7": "StandardEasv7Family", "Eadsv7": "StandardEadsv7Family",
    "Fasv7": "StandardFasv7Family", "Falsv7": "StandardFalsv7Family", "Famsv7": "StandardFamsv7Family",
    "Lsv4": "standardLsv4Family", "Lasv4": "standardLasv4Family", "DCdsv3": "standardDDCSv3Family",
    "DCasv6": "standardDCasv6Family", "DCadsv6": "standardDCadsv6Family", "DCesv6": "standardDCEV6Family",
    "DCedsv6": "standardDCEDV6Family", "ECasv6": "standardECasv6Family", "ECadsv6": "standardECadsv6Family",
    "ECesv6": "StandardECEV6Family", "ECedsv6": "StandardECEDV6Family", "Dlsv7": "StandardDlsv7Family",
    "Dldsv7": "StandardDldsv7Family", "Dalsv7": "StandardDalsv7Family", "DCsv2": "standardDCSv2Family",
    "DCas_cc_v5": "standardDCACCV5Family", "DCads_cc_v5": "standardDCADCCV5Family",
    "ECas_cc_v5": "standardECACCV5Family", "ECads_cc_v5": "standardECADCCV5Family",
    "Daldsv7": "StandardDaldsv7Family", "Fadsv7": "StandardFadsv7Family", "Faldsv7": "StandardFaldsv7Family",
    "Famdsv7": "StandardFamdsv7Family",
    "Mbsv3": "StandardMBSMediumMemoryv3Family", "Mbdsv3": "StandardMBDSMediumMemoryv3Family",
}
UNPUBLISHED_QUOTA = {"Mdsv3 Very High Memory", "NC_RTXPRO6000BSE_v6"}  # not in aks-vm-sizes: left out
GPU_GENERATIONS = {
    "NDasrA100_v4": "Ampere", "NCasT4_v3": "Turing", "NCv3": "Volta", "NDv2": "Volta", "NCv2": "Pascal",
    "ND": "Pascal", "NV": "Maxwell", "NVv3": "Maxwell", "NC": "Kepler", "ND-H100-v5": "Hopper",
    "ND_GB200_v6": "Blackwell", "ND_GB300_v6": "Blackwell", "NC_RTXPRO6000BSE_v6": "Blackwell",
}
# architecture -> (first CUDA, first CUDA without it): NVIDIA's CUDA toolkit / architecture matrix
CUDA = {"Kepler": ("6.0", "12.0"), "Maxwell": ("6.5", "13.0"), "Pascal": ("8.0", "13.0"), "Volta": ("9.0", "13.0"),
        "Turing": ("10.0", None), "Ampere": ("11.0", None), "Hopper": ("11.8", None), "Blackwell": ("12.8", None)}
# size -> (GPU model, count, memory GB) as the size pages publish them
GPUS = {  # size -> (GPU model, count, total GB, GB per GPU) from the size pages
    "Standard_NC4as_T4_v3": ("NVIDIA T4", "1", 16, 16), "Standard_NC64as_T4_v3": ("NVIDIA T4", "4", 64, 16),
    "Standard_NC48ads_A100_v4": ("NVIDIA A100 PCIe", "2", 160, 80),
    "Standard_NC80adis_H100_v5": ("NVIDIA H100 NVL", "2", 188, 94),
    "Standard_ND96asr_v4": ("NVIDIA A100", "8", 320, 40), "Standard_ND96isr_H200_v5": ("NVIDIA H200", "8", 1128, 141),
    "Standard_ND96amsr_A100_v4": (None, "8", 640, 80),  # ndma100v4-series: 8 GPUs, 80 GB each
    "Standard_ND40rs_v2": (None, "8", 256, 32),  # ndv2-series: 256 GB; nd-family: 8 V100 32 GB
    "Standard_ND96isr_MI300X_v5": (None, "8", 1535, None),  # ndmi300xv5-series: only the total is published
    "Standard_NV6ads_A10_v5": ("NVIDIA A10", "1/6", 4, 24), "Standard_NV24s_v3": ("NVIDIA Tesla M60", "2", 16, 8),
    "Standard_NV12ads_V710_v5": ("AMD Radeon Pro V710", "1/2", 12, 24),
    "Standard_NG16ads_V620_v1": ("AMD Radeon PRO V620", "1/2", 16, 32),
    "Standard_ND128isr_NDR_GB200_v6": ("NVIDIA GB200", "4", 768, 192),  # the page's 192 GB is per GPU
    "Standard_ND128isr_GB300_v6": ("NVIDIA GB300", "4", 1152, 288),  # the page's 288 GB is per GPU
    "Standard_NC256ds_xl_RTXPRO6000BSE_v6": ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "2", 192, 96),
    "Standard_NV12hs_v3": ("NVIDIA Tesla M60", None, None, 8),  # the retirement page names it, no GPU count
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
    unsourced = {"A8-A11", "HB"}  # no migration guidance found
    for family in all_families():
        if (family.retirement or family.capacity_restricted) and family.series not in unsourced:
            assert family.successors, family.series


def test_a_size_can_retire_apart_from_its_series():
    size = parse_vm_size("Standard_M192ims_v2")
    assert (size.retirement.text, size.family.retirement, size.isolated) == ("2027-03-31", None, True)
    assert status(size, datetime.date(2027, 3, 30)) == "retiring"
    assert status(size, datetime.date(2027, 3, 31)) == "retired"
    assert status(parse_vm_size("Standard_M128s_v2"), datetime.date(2030, 1, 1)) == "current"


SIZE_QUOTA_FAMILIES = {  # aks-vm-sizes: every catalogue size whose Resource SKUs `family` is not its series'
    "Standard_E96ias_v4": "standardEIASv4Family", "Standard_E80is_v4": "standardXEISv4Family",
    "Standard_E80ids_v4": "standardXEIDSv4Family", "Standard_E104i_v5": "standardEIv5Family",
    "Standard_E104is_v5": "standardEISv5Family", "Standard_E104id_v5": "standardEIDv5Family",
    "Standard_E104ids_v5": "standardEIDSv5Family", "Standard_E112ias_v5": "standardEIASv5Family",
    "Standard_E112iads_v5": "standardEIADSv5Family", "Standard_E112ibs_v5": "standardEIBSv5Family",
    "Standard_E112ibds_v5": "standardEIBDSv5Family",
    "Standard_M192is_v2": "standardMISMediumMemoryv2Family", "Standard_M192ims_v2": "standardMISMediumMemoryv2Family",
    "Standard_M192ids_v2": "standardMIDSMediumMemoryv2Family",
    "Standard_M192idms_v2": "standardMIDSMediumMemoryv2Family",
    "Standard_M832is_16_v3": "standardMISHighMemoryv3Family",
    "Standard_M832ids_16_v3": "standardMIDSHighMemoryv3Family",
    "Standard_EC96ias_v5": "standardECIASv5Family", "Standard_EC96iads_v5": "standardECIADSv5Family",
}


def test_sizes_with_their_own_quota_family_match_the_source():
    own = {s.name: s.quota_family for s in all_sizes() if s.quota_family != s.family.quota_family}
    assert own == SIZE_QUOTA_FAMILIES
    assert {s.family.size_quota_families.source.file for s in all_sizes() if s.name in own} == {
        "microsoft/aspire src/Aspire.Hosting.Azure.Kubernetes/AksNodeVmSizes.Generated.cs"}


@pytest.mark.parametrize(("name", "quota"), [
    ("Standard_E104i_v5", "standardEIv5Family"),  # isolated: its own family
    ("Standard_E96_v5", "standardEv5Family"),  # the series' family
    ("Standard_M832is_16_v3", "standardMISHighMemoryv3Family"),
    ("Standard_M416s_8_v3", "standardMSHighMemoryv3Family"),
])
def test_a_size_s_quota_family(name, quota):
    assert parse_vm_size(name).quota_family == quota


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
    assert (size.family.gpu_model, size.gpus, size.gpu_memory_gb_total, size.gpu_memory_gb_per_gpu) == gpu


def test_whole_gpu_sizes_total_is_count_times_per_gpu():
    """gpu_memory_gb_total and gpu_memory_gb_per_gpu are both explicit and agree where both are published."""
    for size in all_sizes():
        if size.gpus and "/" not in size.gpus and size.gpu_memory_gb_total and size.gpu_memory_gb_per_gpu:
            assert size.gpu_memory_gb_total == int(size.gpus) * size.gpu_memory_gb_per_gpu, size.name


@pytest.mark.parametrize(("name", "cuda"), [
    ("Standard_NC24ads_A100_v4", "11.0"),  # A100, sm_80
    ("Standard_NV36ads_A10_v5", "11.1"),  # A10, sm_86
    ("Standard_ND128isr_NDR_GB200_v6", "12.8"),  # sm_100
    ("Standard_ND128isr_GB300_v6", "12.9"),  # sm_103
])
def test_min_cuda_per_gpu(name, cuda):
    assert min_cuda(parse_vm_size(name)) == cuda


def test_fx_is_for_clusters_only():
    assert [f.series for f in all_families() if f.clusters_only] == ["FX"]


def test_every_family_has_a_source():
    missing = [f.series for f in all_families() if f.source is None or not f.source.url.startswith("https://")]
    assert missing == []


def test_every_date_has_a_source():
    for family in all_families():
        for dated in (family.retirement, family.capacity_restricted):
            assert dated is None or dated.source.url.startswith("https://"), family.series
    for size in all_sizes():
        assert size.own_retirement is None or size.own_retirement.source.url.startswith("https://")


def test_catalogue_as_of():
    assert catalogue_as_of() == datetime.date(2026, 9, 24)


def test_catalogue_size_counts():
    # before issue 11: 116 families, 877 sizes; Standard_ND96is_H100_v5 is from the online endpoint SKU list;
    # issue 30: FXmdsv2 (26 sizes), Dnsv6, Ensv6 (9 each), NCads_A10_v4 (3), constrained E v6/v7 and F v7 (74)
    assert (len(all_families()), len(all_sizes())) == (169, 1421)


def test_every_gpu_family_has_a_generation_and_no_other_does():
    for family in all_families():
        assert (family.gpu_generation is not None) == (family.category == "gpu"), family.series


def test_quota_families_match_the_sku_family_source():
    assert {f.series: f.quota_family for f in all_families() if f.series in QUOTA_FAMILIES} == QUOTA_FAMILIES
    assert {f.series for f in all_families() if not f.quota_family} == UNPUBLISHED_QUOTA


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


# --- issue 30 ---------------------------------------------------------------------------------------------------

ONLINE_SKUS = {  # reference-managed-online-endpoints-vm-sku-list.md, the table's 85 rows (VM Size Name)
    *(f"Standard_D{n}as_v4" for n in (2, 4, 8, 16, 32, 48, 64, 96)),
    *(f"Standard_D{n}a_v4" for n in (2, 4, 8, 16, 32, 48, 64, 96)),
    *(f"Standard_DS{n}_v2" for n in (1, 2, 3, 4, 5)),
    *(f"Standard_E{n}s_v3" for n in (2, 4, 8, 16, 32, 48, 64)),
    *(f"Standard_F{n}s_v2" for n in (2, 4, 8, 16, 32, 48, 64, 72)),
    *(f"Standard_FX{n}mds" for n in (4, 12, 24, 36, 48)),
    *(f"Standard_L{n}as_v3" for n in (8, 16, 32, 48, 64, 80)),
    *(f"Standard_L{n}s_v2" for n in (8, 16, 32, 48, 64, 80)),
    *(f"Standard_L{n}s_v3" for n in (8, 16, 32, 48, 64, 80)),
    *(f"Standard_NC{n}ads_A100_v4" for n in (24, 48, 96)),
    *(f"Standard_NC{n}as_T4_v3" for n in (4, 8, 16, 64)),
    *(f"Standard_NC{n}s_v2" for n in (6, 12, 24)), *(f"Standard_NC{n}s_v3" for n in (6, 12, 24)),
    "Standard_NC40ads_H100_v5", "Standard_NC80adis_H100_v5", "Standard_ND96amsr_A100_v4", "Standard_ND96asr_v4",
    "Standard_ND40rs_v2", "Standard_ND96is_H100_v5", "Standard_ND96isr_H100_v5",
    *(f"Standard_NV{n}ads_A10_v5" for n in (6, 12, 18, 36, 72)), "Standard_NV36adms_A10_v5",
}


def test_the_online_view_is_the_sku_list_exactly():
    assert len(ONLINE_SKUS) == 85
    assert {size.name for size in online_sizes()} == ONLINE_SKUS
    for size in online_sizes():
        assert size.family.online_sizes.source.file == (
            "MicrosoftDocs/azure-ai-docs articles/machine-learning/reference-managed-online-endpoints-vm-sku-list.md")


def test_not_offered_for_managed_online_endpoints():
    assert not parse_vm_size("Standard_D4ds_v5").online_deployable
    assert not parse_vm_size("Standard_ND96isr_H200_v5").online_deployable


def test_no_arm64_series_is_in_any_default_and_every_default_names_an_x64_processor():
    defaults = set(default_approved_series()) | set(default_online_series())
    for family in all_families():
        if family.series in defaults:
            assert family.cpu_architecture is not None and family.cpu_architecture.name == "x64", family.series
            assert family.cpu_architecture.source.file, family.series
        if family.is_arm64:
            assert family.series not in defaults
            assert instance_refusal(family).startswith("an Arm64 series"), family.series


ARM64 = {"Bpsv2", "Dpsv5", "Dpdsv5", "Dplsv5", "Dpldsv5", "Dpsv6", "Dpdsv6", "Dplsv6", "Dpldsv6", "Epsv5", "Epdsv5",
         "ND_GB200_v6", "ND_GB300_v6"}  # "Ampere Altra [Arm64]", "Azure Cobalt 100 [Arm64]", "Nvidia Grace CPU"


def test_arm64_series_are_the_ones_their_size_pages_say():
    assert {f.series for f in all_families() if f.is_arm64} == ARM64


# Series whose processor no page read names: no "Host specifications" include found for them in azure-compute-docs
# (older and retired series, Promo sizes, M v1/v2/v3 memory series but Mv2/Mbsv3/Mbdsv3, the HPC series but HBv5,
# L v1/v4, some confidential series; NCads_A10_v4 has no size page). They are never in a default (test above).
UNRECORDED = {"A", "A8-A11", "Basic A", "D", "DS", "Dv2 Promo", "DSv2 Promo", "F", "Fs", "G", "GS", "M", "Msv2",
              "Mdsv2", "Msv3", "Mdsv3", "Msv3 High Memory", "Mdsv3 High Memory", "Mdsv3 Very High Memory", "H",
              "HB", "HBv2", "HBv3", "HBv4", "HC", "HX", "Ls", "NC", "NC Promo", "NCv2", "NV Promo", "NP", "ECasv5",
              "ECadsv5", "Lsv4", "Lasv4", "DCedsv6", "ECesv6", "ECedsv6", "ECas_cc_v5", "ECads_cc_v5", "NCads_A10_v4"}


@pytest.mark.parametrize("family", all_families(), ids=lambda f: f.series)
def test_every_recorded_processor_cites_its_series_size_page(family):
    if family.series in UNRECORDED:
        assert family.cpu_architecture is None
        return
    assert family.cpu_architecture is not None, family.series
    page = family.cpu_architecture.source.file
    assert page.startswith("MicrosoftDocs/azure-compute-docs articles/virtual-machines/sizes/"), page
    assert page.endswith("-series-specs.md") or page.endswith("/ev3-esv3-series.md"), page


def test_constrained_sizes_keep_active_and_quota_vcpus():
    constrained = [size for size in all_sizes() if size.base_vcpus is not None]
    assert len(constrained) == 220  # 130 in 0.2.0; constrained-vcpu.md adds E v6/v7, F v7 and FXmdsv2 ones
    for size in constrained:  # Standard_E8-2s_v5 is charged its base size's, Standard_E8s_v5's, vCPUs
        base = parse_vm_size(re.sub(r"-\d+", "", size.name, count=1))
        assert size.vcpus < size.quota_vcpus == base.vcpus == base.quota_vcpus, size.name
    assert (parse_vm_size("Standard_E8-2s_v5").vcpus, parse_vm_size("Standard_E8-2s_v5").quota_vcpus) == (2, 8)
    assert parse_vm_size("Standard_HB120-16rs_v3").quota_vcpus == 120
    assert parse_vm_size("Standard_DS11-1_v2").quota_vcpus == 2  # DS11_v2 has 2 vCPUs
    assert parse_vm_size("Standard_D4ds_v5").quota_vcpus == 4


def test_a10_series_are_refused_on_compute_instances_with_the_known_issue():
    issue = "MicrosoftDocs/azure-docs articles/machine-learning/known-issues/compute-a10-sku-not-supported.md"
    for series in ("NVadsA10_v5", "NCads_A10_v4"):
        family = family_by_series(series)
        assert family.instance_unsupported is not None and family.instance_unsupported.source.file == issue
