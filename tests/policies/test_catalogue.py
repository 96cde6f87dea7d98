"""`extraFamilies`: extending or correcting the VM catalogue from the policy pack config, per rule."""

import json

import jsonschema
import pytest

from amlkit.errors import ConfigError
from amlkit.policies.catalogue import SCHEMA, catalogue
from amlkit.policies.rules import (
    aml_compute_approved_vm_family,
    aml_compute_isolated_size,
    aml_compute_retired_vm_series,
    aml_compute_vm_series_retiring,
    aml_gpu_cuda_compatible,
)
from amlkit.vmsizes import default_approved_series, parse_vm_size
from tests.policies.helpers import changed, cluster_props, messages

SIZE = "properties.properties.vmSize"
CLUSTER = "AmlCompute cluster 'cpu-cluster'"
DSV7 = {"series": "Dlsv7", "category": "general_purpose", "aml_supported": True,  # not in the packaged catalogue
        "source": "https://learn.microsoft.com/azure/virtual-machines/sizes/general-purpose/dlsv7-series",
        "sizes": [{"template": "Standard_D{n}ls_v7", "vcpus": [2, 4, 8, 16, 32, 48, 64, 96, 128, 192, 248]}]}
DDSV4_RETIRES = {"series": "ddsv4",  # any spelling of a known series: an override
                 "retired": {"date": "2027-01-15", "source": "https://example.com/notice", "successors": ["Ddsv5"]}}


def size(value):
    return changed(cluster_props(), SIZE, value)


def test_a_new_family_is_known_and_can_be_allowed():
    config = {"allowedSeries": [*default_approved_series(), "Dlsv7"], "extraFamilies": [DSV7]}
    assert messages(aml_compute_approved_vm_family.RULE, size("standard_d4ls_v7"), config) == []
    assert messages(aml_compute_approved_vm_family.RULE, size("Standard_D4ls_v7"), None) == [
        f"{CLUSTER} must use a known Azure VM size; found 'Standard_D4ls_v7', which is not a known Azure VM size name."]


def test_an_override_changes_a_date_and_the_rules_follow_it():
    config = {"extraFamilies": [DDSV4_RETIRES]}
    retiring = {**config, "asOf": "2026-06-01"}
    assert messages(aml_compute_vm_series_retiring.RULE, size("Standard_D4ds_v4"), retiring) == [
        f"{CLUSTER} must not use a VM series that retires within 365 days; found Standard_D4ds_v4 of series Ddsv4, "
        "which retires on 2027-01-15 (in 228 days); successors: Ddsv5."]
    assert messages(aml_compute_retired_vm_series.RULE, size("Standard_D4ds_v4"), {**config, "asOf": "2027-01-15"}) == [
        f"{CLUSTER} must not use a VM series retired for Azure ML compute; found Standard_D4ds_v4 of series Ddsv4, "
        "retired on 2027-01-15; successors: Ddsv5."]
    # allowedSeries is explicit config: Ddsv4 stays allowed until the platform team removes it
    assert messages(aml_compute_approved_vm_family.RULE, size("Standard_D4ds_v4"), config) == []


def test_the_packaged_catalogue_is_untouched():
    catalogue({"extraFamilies": [DDSV4_RETIRES, DSV7]}, "rule")
    assert parse_vm_size("Standard_D4ds_v4").retirement is None
    assert catalogue({}, "rule").sizes.get("standard_d4ls_v7") is None


def test_the_same_list_gives_the_same_catalogue():
    first = catalogue({"extraFamilies": [DSV7]}, "rule")
    assert catalogue({"extraFamilies": json.loads(json.dumps([DSV7]))}, "rule") is first


def test_gpu_facts_of_a_new_family_reach_the_cuda_rule():
    gpu = {"series": "NDfuture", "category": "gpu", "gpu_generation": "Blackwell", "gpu_model": "NVIDIA B300",
           "source": "https://example.com/nd", "sizes": [{"template": "Standard_ND{n}isr_B300_v7", "vcpus": [96],
                                                          "gpus": {"96": 8}, "gpu_memory_gb": {"96": 2304}}]}
    config = {"cudaVersion": "12.4", "extraFamilies": [gpu]}
    assert messages(aml_gpu_cuda_compatible.RULE, size("Standard_ND96isr_B300_v7"), config) == [
        f"{CLUSTER} must use a GPU that CUDA 12.4 supports; found Standard_ND96isr_B300_v7 (NVIDIA B300, Blackwell, "
        "which needs CUDA 12.8 or later)."]
    extended = catalogue(config, "rule")
    found = parse_vm_size("Standard_ND96isr_B300_v7", extended)
    assert (found.gpus, found.gpu_memory_gb) == ("8", 2304)


def test_isolated_sizes_can_be_added():
    dc = {"series": "DCsv3", "isolated_sizes": ["Standard_DC48s_v3"]}
    config = {"required": True, "asOf": "2026-11-24", "extraFamilies": [dc]}
    assert messages(aml_compute_isolated_size.RULE, size("Standard_DC48s_v3"), config) == []


@pytest.mark.parametrize(("entry", "key_path", "problem"), [
    ({**DSV7, "source": None}, "rule.extraFamilies[0].source",
     "None is not a source id from `sources` or an https URL"),
    ({k: v for k, v in DSV7.items() if k != "source"}, "rule.extraFamilies[0].source",
     "required: the page that documents this series"),
    ({**DSV7, "sizes": [{"template": "Standard_D{n}ds_v4", "vcpus": [4]}]}, "rule.extraFamilies[0].sizes",
     "size 'Standard_D4ds_v4' is defined twice"),
    ({"series": "Ddsv4", "retired": {"date": "someday", "source": "https://example.com"}},
     "rule.extraFamilies[0].retired.date", "'someday' is not a date (YYYY-MM-DD or YYYY-MM)"),
    ({"series": "Ddsv4", "retired": {"date": "2027-01-01", "source": "https://e.com", "successors": ["Zv9"]}},
     "rule.extraFamilies[0].retired.successors", "'Zv9' is not a series here"),
    ("Dsv7", "rule.extraFamilies[0]", "expected an object with a series name"),
])
def test_bad_entries_name_the_rule_key_and_problem(entry, key_path, problem):
    with pytest.raises(ConfigError) as caught:
        catalogue({"extraFamilies": [DSV7 if entry is None else entry]}, "rule")
    assert (caught.value.key_path, caught.value.problem) == (key_path, problem)


def test_not_a_list_is_a_config_error():
    with pytest.raises(ConfigError) as caught:
        catalogue({"extraFamilies": {"series": "X"}}, "aml-gpu-cuda-compatible")
    assert (caught.value.key_path, caught.value.problem) == (
        "aml-gpu-cuda-compatible.extraFamilies", "expected a list of VM family entries")


@pytest.mark.parametrize("entry", [
    {"series": "X", "colour": "red"},
    {"category": "gpu"},
    {"series": "X", "category": "cheap"},
    {"series": "X", "retired": {"date": "2027/01/01", "source": "https://e.com"}},
    {"series": "X", "sizes": [{"template": "Standard_X4", "vcpus": [4]}]},
])
def test_the_json_schema_rejects_bad_shapes(entry):
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate([entry], SCHEMA)


def test_the_json_schema_accepts_the_documented_examples():
    jsonschema.validate([DSV7, DDSV4_RETIRES], SCHEMA)


def test_every_size_reading_rule_takes_extra_families():
    rules = [aml_compute_approved_vm_family, aml_compute_retired_vm_series, aml_compute_vm_series_retiring,
             aml_gpu_cuda_compatible, aml_compute_isolated_size]
    assert all(module.RULE.config["extraFamilies"] is SCHEMA for module in rules)


def test_the_pack_validates_extra_families_against_the_schema(tmp_path):
    from amlkit.review.engine import pack_info

    config = tmp_path / "pack.json"
    config.write_text(json.dumps({"aml-compute-retired-vm-series": {"extraFamilies": [{"series": "X", "colour": 1}]}}))
    with pytest.raises(ConfigError) as caught:
        pack_info(None, config)
    assert caught.value.key_path.startswith("aml-compute-retired-vm-series")
    assert "colour" in str(caught.value)


def test_the_documented_example_is_valid_and_works(tmp_path):
    from pathlib import Path

    from amlkit.review.engine import pack_info

    page = (Path(__file__).resolve().parents[2] / "docs" / "vm-catalogue.md").read_text()
    section = page.split("## Extending the catalogue without a release: `extraFamilies`", 1)[1]
    example = json.loads(section.split("```json\n", 1)[1].split("```", 1)[0])
    path = tmp_path / "pack.json"
    path.write_text(json.dumps(example))
    levels = {policy.name: policy.level for policy in pack_info(None, path).policies}
    assert levels["aml-compute-vm-series-retiring"] == "advisory"
    approved = example["aml-compute-approved-vm-family"]
    assert messages(aml_compute_approved_vm_family.RULE, size("Standard_D16ls_v7"), approved) == []
    retiring = {**example["aml-compute-vm-series-retiring"], "asOf": "2030-01-01"}
    assert messages(aml_compute_vm_series_retiring.RULE, size("Standard_D4ds_v4"), retiring) == [
        f"{CLUSTER} must not use a VM series that retires within 365 days; found Standard_D4ds_v4 of series Ddsv4, "
        "which retires on 2030-06-30 (in 180 days); successors: Ddsv5."]
