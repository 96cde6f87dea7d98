"""`extraFamilies`: extending or correcting the VM catalogue from the policy pack config, per rule."""

import contextlib
import datetime
import json
import re
from pathlib import Path

import jsonschema
import pytest

from amlkit.errors import ConfigError, UnknownVmSize
from amlkit.importer import AZ_ML_DEFAULT_SIZE
from amlkit.policies import ALL_RULES
from amlkit.policies.catalogue import SCHEMA, catalogue, successor_text
from amlkit.policies.rules import (
    aml_compute_approved_vm_family,
    aml_compute_isolated_size,
    aml_compute_retired_vm_series,
    aml_compute_vm_series_retiring,
    aml_gpu_cuda_compatible,
)
from amlkit.scaffold import DEFAULT_CLUSTER_SIZE
from amlkit.vmsizes import (
    all_families,
    all_sizes,
    default_approved_series,
    family_by_series,
    gpu_architecture,
    parse_vm_size,
)
from tests.policies.helpers import changed, cluster_props, messages

SIZE = "properties.properties.vmSize"
CLUSTER = "AmlCompute cluster 'cpu-cluster'"
DSV7 = {"series": "Dxsv9", "category": "general_purpose", "aml_supported": True,  # hypothetical: not packaged
        "source": "https://example.com/dxsv9-series",
        "sizes": [{"template": "Standard_D{n}xs_v9", "vcpus": [2, 4, 8, 16, 32, 48, 64, 96, 128, 192, 248]}]}
DDSV4_RETIRES = {"series": "ddsv4",  # any spelling of a known series: an override
                 "retired": {"date": "2027-01-15", "source": "https://example.com/notice", "successors": ["Ddsv5"]}}


def size(value):
    return changed(cluster_props(), SIZE, value)


def test_a_new_family_is_known_and_can_be_allowed():
    config = {"allowedSeries": [*default_approved_series(), "Dxsv9"], "extraFamilies": [DSV7]}
    assert messages(aml_compute_approved_vm_family.RULE, size("standard_d4xs_v9"), config) == []
    assert messages(aml_compute_approved_vm_family.RULE, size("Standard_D4xs_v9"), None) == [
        f"{CLUSTER} must use a known Azure VM size; found 'Standard_D4xs_v9', which is not a known Azure VM size name."]


def test_an_override_changes_a_date_and_the_rules_follow_it():
    config = {"extraFamilies": [DDSV4_RETIRES]}
    retiring = {**config, "asOf": "2026-06-01"}
    assert messages(aml_compute_vm_series_retiring.RULE, size("Standard_D4ds_v4"), retiring) == [
        f"{CLUSTER} must not use a VM series that retires within 365 days; found Standard_D4ds_v4 of series Ddsv4, "
        "which retires on 2027-01-15 (in 228 days); successors in the default allowedSeries: Ddsv5."]
    assert messages(aml_compute_retired_vm_series.RULE, size("Standard_D4ds_v4"), {**config, "asOf": "2027-01-15"}) == [
        f"{CLUSTER} must not use a VM series retired for Azure ML compute; found Standard_D4ds_v4 of series Ddsv4, "
        "retired on 2027-01-15; successors in the default allowedSeries: Ddsv5."]
    # allowedSeries is explicit config: Ddsv4 stays allowed until the platform team removes it
    assert messages(aml_compute_approved_vm_family.RULE, size("Standard_D4ds_v4"),
                    {**config, "allowedSeries": ["Ddsv4"]}) == []


def test_the_packaged_catalogue_is_untouched():
    catalogue({"extraFamilies": [DDSV4_RETIRES, DSV7]}, "rule")
    assert parse_vm_size("Standard_D4ds_v4").retirement is None
    assert catalogue({}, "rule").sizes.get("standard_d4xs_v9") is None


def test_the_same_list_gives_the_same_catalogue():
    first = catalogue({"extraFamilies": [DSV7]}, "rule")
    assert catalogue({"extraFamilies": json.loads(json.dumps([DSV7]))}, "rule") is first


def test_gpu_facts_of_a_new_family_reach_the_cuda_rule():
    gpu = {"series": "NDfuture", "category": "gpu", "gpu_generation": "Blackwell", "gpu_model": "NVIDIA B300",
           "source": "https://example.com/nd", "sizes": [{"template": "Standard_ND{n}isr_B300_v7", "vcpus": [96],
                                                          "gpus": {"96": 8}, "gpu_memory_gb_total": {"96": 2304}}],
           "gpu_memory_gb_per_gpu": 288}
    config = {"cudaVersion": "12.4", "extraFamilies": [gpu]}
    assert messages(aml_gpu_cuda_compatible.RULE, size("Standard_ND96isr_B300_v7"), config) == [
        f"{CLUSTER} must use a GPU that CUDA 12.4 supports; found Standard_ND96isr_B300_v7 (NVIDIA B300, Blackwell, "
        "which needs CUDA 12.8 or later)."]
    extended = catalogue(config, "rule")
    found = parse_vm_size("Standard_ND96isr_B300_v7", extended)
    assert (found.gpus, found.gpu_memory_gb_total, found.gpu_memory_gb_per_gpu) == ("8", 2304, 288)


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
        "which retires on 2030-06-30 (in 180 days); successors in the default allowedSeries: Ddsv5."]


# --- invariants over the whole catalogue: the rules' advice agrees with the pack's defaults ---------------

PACKAGED = catalogue({}, "rule")
DEFAULT = {family_by_series(name) for name in default_approved_series()}
RECOMMENDING = [f for f in all_families() if f.successors]
IN_DEFAULT = "successors in the default allowedSeries: "
TO_ADD = "successors to add to the default allowedSeries first: "
AMD = "AMD successors (no CUDA: aml-gpu-cuda-compatible refuses them once cudaVersion is set): "


def _groups(text):
    """successor_text's groups -> {prefix: [series]}."""
    found = {}
    for part in text.removeprefix("; ").split("; "):
        prefix = next(p for p in (IN_DEFAULT, TO_ADD, AMD) if part.startswith(p))
        found[prefix] = part.removeprefix(prefix).split(", ")
    return found


@pytest.mark.parametrize("family", RECOMMENDING, ids=[f.series for f in RECOMMENDING])
def test_no_successor_is_retired_retiring_or_restricted(family):
    for name in family.successors:
        successor = family_by_series(name)
        assert (successor.retirement, successor.capacity_restricted) == (None, None), (family.series, name)


@pytest.mark.parametrize("family", RECOMMENDING, ids=[f.series for f in RECOMMENDING])
def test_every_recommended_successor_is_allowed_by_default_or_said_to_be_added(family):
    groups = _groups(successor_text(family, PACKAGED))
    assert sorted(sum(groups.values(), [])) == sorted(family.successors)  # each named once
    assert all(family_by_series(name) in DEFAULT for name in groups.get(IN_DEFAULT, []))
    assert not any(family_by_series(name) in DEFAULT for name in groups.get(TO_ADD, []))


@pytest.mark.parametrize("family", RECOMMENDING, ids=[f.series for f in RECOMMENDING])
def test_no_amd_successor_is_recommended_for_a_cuda_series_without_saying_so(family):
    """The CUDA rule refuses AMD GPUs once cudaVersion is set: for an NVIDIA series (NCv3, NVv3, NV, NV Promo
    today) its AMD successors are named apart, with that reason."""
    groups = _groups(successor_text(family, PACKAGED))
    cuda = family.gpu_generation is not None and min_cuda_of(family) is not None
    amd = [name for name in family.successors
           if family_by_series(name).gpu_generation and min_cuda_of(family_by_series(name)) is None]
    if cuda:
        assert groups.get(AMD, []) == amd
    else:
        assert AMD not in groups


def test_the_series_whose_amd_successors_are_named_apart():
    named_apart = {f.series for f in RECOMMENDING if AMD in _groups(successor_text(f, PACKAGED))}
    assert named_apart == {"NCv3", "NVv3", "NV", "NV Promo"}


def min_cuda_of(family):
    return gpu_architecture(family.gpu_generation).cuda_min


LIFECYCLE_RULES = (aml_compute_approved_vm_family.RULE, aml_compute_retired_vm_series.RULE,
                   aml_compute_vm_series_retiring.RULE)


def _sizes_in(path):
    return set(re.findall(r"\bStandard_[A-Za-z0-9_-]+", path.read_text()))


def _used_sizes():
    """Every known size `amlkit init`, the sample stacks, the platform-repo example, the docs and az ml's own
    defaults use (unknown names in the docs are there on purpose, as errors)."""
    root = Path(__file__).resolve().parents[2]
    files = [*root.glob("stacks/*.yaml"), *root.glob("examples/platform-repo/stacks/*.yaml"), root / "README.md",
             *root.glob("docs/*.md")]
    names = set().union(*(_sizes_in(f) for f in files)) | {DEFAULT_CLUSTER_SIZE, AZ_ML_DEFAULT_SIZE}
    known = set()
    for name in names:
        with contextlib.suppress(UnknownVmSize):
            known.add(parse_vm_size(name).name)
    return sorted(known)


USED = _used_sizes()


@pytest.mark.parametrize("name", USED)
def test_every_size_init_samples_docs_and_az_ml_use_passes_or_gets_one_finding_naming_the_replacement(name):
    found = [m for rule in LIFECYCLE_RULES for m in messages(rule, size(name))]
    assert len(found) <= 1, found
    if found:
        assert IN_DEFAULT in found[0] or "successors in allowedSeries: " in found[0], found


def test_the_used_sizes_include_init_samples_and_az_ml_defaults():
    assert {DEFAULT_CLUSTER_SIZE, "Standard_NC4as_T4_v3", AZ_ML_DEFAULT_SIZE} <= set(USED)
    assert DEFAULT_CLUSTER_SIZE == "Standard_D4ds_v5"


def test_az_ml_default_size_gets_exactly_one_finding_naming_the_replacement():
    found = [m for rule in LIFECYCLE_RULES for m in messages(rule, size(AZ_ML_DEFAULT_SIZE))]
    assert found == [
        f"{CLUSTER} must use a VM size from an allowed series; found Standard_DS3_v2 of series DSv2 (not in "
        "allowedSeries: retiring on 2028-05-01, capacity-restricted since 2026-07: new subscriptions cannot deploy "
        "it); successors in allowedSeries: Dsv5, Ddsv5, Dasv5, Dadsv5, Dasv6, Dadsv6, Dsv6, Ddsv6, Dasv7, Dadsv7, "
        "Esv6, Edsv6, Easv6, Eadsv6, Easv7, Eadsv7."]


REVIEW_DAY = datetime.date(2026, 11, 24)  # tests/conftest.py's AMLKIT_REVIEW_DATE
RETIRED_SIZES = sorted({s.name for s in all_sizes() if s.retirement and s.retirement.date <= REVIEW_DAY})


@pytest.mark.parametrize("name", RETIRED_SIZES)
def test_a_retired_size_gets_one_finding_from_the_retired_rule_only(name):
    """One finding per cause: under the pack's defaults, only aml-compute-retired-vm-series reports it."""
    found = {rule.name: messages(rule, size(name)) for rule in LIFECYCLE_RULES}
    assert {rule: len(texts) for rule, texts in found.items()} == {
        "aml-compute-approved-vm-family": 0, "aml-compute-retired-vm-series": 1, "aml-compute-vm-series-retiring": 0}


# --- rule texts agree with the catalogue (issue 30) ---------------------------------------------------------------

DATE = r"\d{4}-\d{2}(?:-\d{2})?"


def contradictions(text: str) -> list[str]:
    """What `text` says that the catalogue contradicts: a size it does not know, or a series or size followed by a
    date, "NC, ND and NV (2023-09-06)", that is not its retirement date."""
    problems = [f"{name}: not a known size" for name in re.findall(r"Standard_\w+", text)
                if _size(name) is None]
    for match in re.finditer(rf"([^():;]*?) \(({DATE})\)", text):
        parts = (re.sub(r"^(e\.g\.|such as|including)\s+", "", part.strip())
                 for part in re.split(r", | and ", match[1]))
        for name in filter(None, parts):
            size, family = _size(name), _family(name)
            retirement = size.retirement if size else family.retirement if family else None
            if (size or family) and (retirement is None or retirement.text != match[2]):
                problems.append(f"{name} ({match[2]}): the catalogue says {retirement.text if retirement else 'none'}")
    for match in re.finditer(r"([A-Z][a-z]+) (\d+\.\d+)\b", text):
        architecture = gpu_architectures().get(match[1])
        if architecture is not None and architecture.cuda_min != match[2]:
            problems.append(f"{match[1]} {match[2]}: the catalogue says CUDA {architecture.cuda_min} first")
    for match in re.finditer(r"((?:[A-Z][a-z]+(?:, )?)+) in (\d+\.\d+)", text):
        for name in match[1].split(", "):
            architecture = gpu_architectures().get(name)
            if architecture is not None and architecture.cuda_dropped_in != match[2]:
                problems.append(f"{name} in {match[2]}: the catalogue says dropped in {architecture.cuda_dropped_in}")
    return problems


def gpu_architectures():
    return catalogue({}, "rule").architectures


def _size(name):
    with contextlib.suppress(UnknownVmSize):
        return parse_vm_size(name)
    return None


def _family(name):
    with contextlib.suppress(UnknownVmSize):
        return family_by_series(name)
    return None


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.name)
def test_no_rule_text_contradicts_the_catalogue(rule):
    assert contradictions(f"{rule.description} {rule.remediation}") == []


@pytest.mark.parametrize(("text", "expected"), [
    ("e.g. NC, NCv2, ND, NV (2023-08-31), Av1 and HB (2024-08-31)",  # 0.2.0's text
     ["NC (2023-08-31): the catalogue says 2023-09-06", "ND (2023-08-31): the catalogue says 2023-09-06",
      "NV (2023-08-31): the catalogue says 2023-09-06"]),
    ("Azure ML's list (Standard_M128ms, Standard_F72s_v2; NC24s_v3 and NC24rs_v3 retired 2025-09-30)", []),
    ("offered: Standard_M192is_v2 (2027-03-31), Standard_Foo9", ["Standard_Foo9: not a known size"]),
    ("Dsv5 (2028-05-01)", ["Dsv5 (2028-05-01): the catalogue says none"]),
    ("(e.g. Hopper 11.0, Blackwell 12.8), not dropped by it (Kepler in 12.0; Maxwell, Pascal in 12.0)",
     ["Hopper 11.0: the catalogue says CUDA 11.8 first", "Maxwell in 12.0: the catalogue says dropped in 13.0",
      "Pascal in 12.0: the catalogue says dropped in 13.0"]),
], ids=["dates", "sizes-without-dates", "unknown-size", "not-retiring", "cuda"])
def test_the_contradiction_check_can_fail(text, expected):
    assert contradictions(text) == expected


def test_the_isolated_sizes_a_rule_text_offers_are_isolated_and_the_examples_are_approved():
    offered = re.findall(r"Standard_\w+", aml_compute_isolated_size.RULE.description)
    assert offered and all(parse_vm_size(name).isolated for name in offered)
    for name in (aml_compute_approved_vm_family.EXAMPLE_CPU, aml_compute_approved_vm_family.EXAMPLE_GPU):
        assert parse_vm_size(name).family.series in default_approved_series()
    assert "M, NDv2 among the current ones" in aml_compute_approved_vm_family.RULE.remediation
