import json

import pytest
from typer.testing import CliRunner

from amlkit.cli import app
from amlkit.sizes_cmd import render_table
from amlkit.vmsizes import default_approved_series

runner = CliRunner()
AS_OF = ["--as-of", "2026-11-24"]


def run(*args):
    return runner.invoke(app, ["sizes", *args])


def as_json(*args):
    result = run(*args, *AS_OF, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_one_size_as_json_carries_every_fact():
    data = as_json("standard_nc80adis_h100_v5")
    assert (data["asOf"], data["catalogueAsOf"]) == ("2026-11-24", "2026-09-24")
    assert data["sizes"] == [{
        "name": "Standard_NC80adis_H100_v5", "series": "NCads_H100_v5", "status": "current", "retires": None,
        "retirementSource": None, "successors": [], "approved": True, "amlSupported": False,
        "capacityRestrictedSince": None, "isolated": True, "vcpus": 80, "quotaVcpus": 80, "cpuArchitecture": "x64",
        "onlineDeployable": True, "gpuModel": "NVIDIA H100 NVL",
        "gpuArchitecture": "Hopper", "gpus": "2", "gpuMemoryGb": 188, "gpuMemoryGbPerGpu": 94, "minCuda": "11.8",
        "quotaFamily": "StandardNCadsH100v5Family",
        "source": "https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/ncadsh100v5-series",
    }]


def test_retired_restricted_and_isolated_facts():
    rows = {row["name"]: row for row in as_json("Standard_DS3_v2", "Standard_NV12s_v3", "Standard_F72s_v2")["sizes"]}
    assert (rows["Standard_DS3_v2"]["status"], rows["Standard_DS3_v2"]["retires"],
            rows["Standard_DS3_v2"]["capacityRestrictedSince"]) == ("retiring", "2028-05-01", "2026-07")
    assert (rows["Standard_NV12s_v3"]["status"], rows["Standard_NV12s_v3"]["successors"]) == (
        "retired", ["NVadsA10_v5", "NC_RTXPRO6000BSE_v6", "NCasT4_v3", "NVads_V710_v5"])
    assert (rows["Standard_F72s_v2"]["isolated"], rows["Standard_F72s_v2"]["approved"]) == (False, False)  # isolation


def test_quota_family_is_the_size_s_own():  # aks-vm-sizes: the isolated E104i_v5 has its own quota family
    rows = {row["name"]: row["quotaFamily"] for row in as_json("Standard_E104i_v5", "Standard_E96_v5")["sizes"]}
    assert rows == {"Standard_E104i_v5": "standardEIv5Family", "Standard_E96_v5": "standardEv5Family"}


@pytest.mark.parametrize(("day", "expected"), [("2026-09-29", "retiring"), ("2026-09-30", "retired")])
def test_status_depends_on_as_of_only(day, expected):
    result = run("Standard_NV12s_v3", "--as-of", day, "--format", "json")
    assert json.loads(result.stdout)["sizes"][0]["status"] == expected


def test_table_output():
    result = run("Standard_D4ds_v5", "Standard_NV6ads_A10_v5", *AS_OF)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["SIZE", "SERIES", "STATUS", "RETIRES", "SUCCESSORS", "APPROVED", "RESTRICTED",
                                "ISOLATED", "VCPUS", "QUOTA_VCPUS", "CPU", "ONLINE", "GPU", "GPUS", "GPU_GB",
                                "MIN_CUDA", "QUOTA_FAMILY"]
    assert lines[1].split() == ["Standard_D4ds_v5", "Ddsv5", "current", "-", "-", "yes", "-", "no", "4", "4", "x64",
                                "no", "-", "-", "-", "-", "standardDDSv5Family"]
    assert lines[2].split() == ["Standard_NV6ads_A10_v5", "NVadsA10_v5", "current", "-", "-", "yes", "-", "no", "6",
                                "6", "x64", "yes", "NVIDIA", "A10", "1/6", "4", "11.1", "StandardNVADSA10v5Family"]


def test_a_constrained_size_shows_both_vcpu_figures():
    # constrained-vcpu.md: E8-2s_v5 has 2 active vCPUs; quota counts its base size's 8
    # (VirtualMachineSize.numberOfCores)
    rows = {row["name"]: (row["vcpus"], row["quotaVcpus"]) for row in
            as_json("Standard_E8-2s_v5", "Standard_HB120-16rs_v3", "Standard_E16-4s_v6")["sizes"]}
    assert rows == {"Standard_E8-2s_v5": (2, 8), "Standard_HB120-16rs_v3": (16, 120), "Standard_E16-4s_v6": (4, 16)}


def test_online_lists_the_managed_online_endpoints_sku_list():
    rows = as_json("--online")["sizes"]
    assert len(rows) == 85  # the rows of reference-managed-online-endpoints-vm-sku-list.md
    assert {row["series"] for row in rows} == {
        "Dasv4", "Dav4", "DSv2", "Esv3", "Fsv2", "FX", "Lasv3", "Lsv2", "Lsv3", "NC_A100_v4", "NCasT4_v3", "NCv2",
        "NCv3", "NCads_H100_v5", "NDm_A100_v4", "NDasrA100_v4", "NDv2", "ND-H100-v5", "NVadsA10_v5"}


def test_filters_combine():
    names = [row["name"] for row in as_json("--gpu", "--aml-supported", "--approved", "--status", "current")["sizes"]]
    assert names == ["Standard_NC4as_T4_v3", "Standard_NC8as_T4_v3", "Standard_NC16as_T4_v3",
                     "Standard_NC64as_T4_v3", "Standard_ND96asr_v4", "Standard_ND96isr_H100_v5",
                     "Standard_ND96is_H100_v5", "Standard_ND96isr_H200_v5"]


def test_approved_lists_the_packs_default_allowed_series():
    series = {row["series"] for row in as_json("--approved")["sizes"]}
    assert series == set(default_approved_series())
    assert {"Dsv5", "Ddsv5", "Esv5", "Fasv6", "NC_A100_v4", "NCads_H100_v5", "NVadsA10_v5", "ND-H100-v5"} <= series
    assert not series & {"Ddsv4", "Eav4", "FX", "HBv3", "DSv2", "Dsv3"}


def test_family_filter_and_status_retiring():
    names = [row["name"] for row in as_json("--family", "HBv2", "--status", "retiring")["sizes"]]
    assert names == ["Standard_HB120rs_v2", "Standard_HB120-16rs_v2", "Standard_HB120-32rs_v2",
                     "Standard_HB120-64rs_v2", "Standard_HB120-96rs_v2"]
    assert as_json("--family", "HBv2", "--status", "retired")["sizes"] == []


def test_approved_against_a_policy_pack_config(tmp_path):
    config = tmp_path / "pack.json"
    config.write_text(json.dumps({"aml-compute-approved-vm-family": {"allowedSeries": ["M"]}}))
    rows = as_json("Standard_M128ms", "Standard_D4ds_v5", "--policy-pack-config", str(config))["sizes"]
    assert [(row["name"], row["approved"]) for row in rows] == [("Standard_M128ms", True), ("Standard_D4ds_v5", False)]
    approved = as_json("--approved", "--policy-pack-config", str(config))["sizes"]
    assert {row["series"] for row in approved} == {"M"}


def test_unknown_name_exits_2_with_the_closest_names():
    result = run("Standard_DS3_v9", *AS_OF)
    assert result.exit_code == 2
    assert result.stderr == ("amlkit: error: unknown VM size 'Standard_DS3_v9'; closest known: Standard_DS3_v2, "
                             "Standard_DS13_v2, Standard_D3_v2\n")


def test_unknown_name_without_close_matches():
    result = run("zzz", *AS_OF)
    assert (result.exit_code, result.stderr) == (2, "amlkit: error: unknown VM size 'zzz'\n")


@pytest.mark.parametrize(("args", "message"), [
    (["--as-of", "tomorrow"], "amlkit: error: --as-of: 'tomorrow' is not a date as YYYY-MM-DD\n"),
    (["--family", "Zv9"], "amlkit: error: unknown VM series 'Zv9': not a series in the amlkit VM catalogue\n"),
])
def test_bad_options_exit_2(args, message):
    result = run(*args)
    assert (result.exit_code, result.stderr) == (2, message)


def test_bad_policy_pack_config_exits_2(tmp_path):
    config = tmp_path / "pack.json"
    config.write_text(json.dumps({"aml-compute-approved-vm-family": {"allowedSeries": ["Zv9"]}}))
    result = run("--approved", "--policy-pack-config", str(config), *AS_OF)
    assert result.exit_code == 2
    assert result.stderr == ("amlkit: error: aml-compute-approved-vm-family.allowedSeries[0]: unknown VM series "
                             "'Zv9'; use series names such as DSv2, Esv3, NCasT4_v3\n")


def test_no_match_says_so():
    result = run("--family", "NVv3", "--status", "current", *AS_OF)
    assert (result.exit_code, result.stdout) == (0, "no VM size matches\n")


def test_render_table_never_truncates():
    row = {key: None for key in ("name", "series", "status", "retires", "successors", "approved",
                                 "capacityRestrictedSince", "isolated", "vcpus", "quotaVcpus", "cpuArchitecture",
                                 "onlineDeployable", "gpuModel", "gpus", "gpuMemoryGb", "minCuda", "quotaFamily")}
    text = render_table([{**row, "name": "X" * 200}])
    assert "X" * 200 in text.splitlines()[1]


def test_extra_families_of_the_policy_pack_config_are_shown(tmp_path):
    config = tmp_path / "pack.json"
    config.write_text(json.dumps({"aml-compute-approved-vm-family": {
        "allowedSeries": ["Dlsv7"],
        "extraFamilies": [{"series": "Dlsv7", "category": "general_purpose", "source": "https://example.com/dlsv7",
                           "sizes": [{"template": "Standard_D{n}ls_v7", "vcpus": [2, 4]}]}],
    }}))
    rows = as_json("--approved", "--policy-pack-config", str(config))["sizes"]
    assert [(row["name"], row["series"], row["approved"], row["source"]) for row in rows] == [
        ("Standard_D2ls_v7", "Dlsv7", True, "https://example.com/dlsv7"),
        ("Standard_D4ls_v7", "Dlsv7", True, "https://example.com/dlsv7"),
    ]
