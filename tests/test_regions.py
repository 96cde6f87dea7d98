"""amlkit.regions: Azure's public regions as sourced data, checked wherever amlkit takes a region (#31)."""

from __future__ import annotations

from pathlib import Path

import pytest

from amlkit import regions
from amlkit.errors import ComponentArgError, ConfigError
from amlkit.stackfile import load_stack_file
from policies.rules.aml_quota_budget import read_budget

ALLOWED = "an Azure public region name such as westeurope, or a name listed in amlkit:extraRegions"
STACK = """\
config:
  azure-native:location: {location}
  amlkit:resourceGroup: {{name: rg-ml-test}}
  amlkit:workspace: {{name: mlw-test}}
"""


def test_the_data_names_its_source_and_lists_every_region_once() -> None:
    assert regions.source()["path"] == "articles/reliability/regions-list.md"
    assert regions.source()["repo"] == "MicrosoftDocs/reliability-docs"
    names = [region.name for region in regions.public_regions()]
    assert len(names) == len(set(names)) == 56
    assert regions.Region("westeurope", "West Europe") in regions.public_regions()
    assert regions.Region("germanynorth", "Germany North", "restricted") in regions.public_regions()


@pytest.mark.parametrize(("value", "problem"), [
    ("westeurope", None),
    ("westeurop", f"got 'westeurop'; allowed: {ALLOWED}; did you mean 'westeurope'?"),
    ("West Europe", f"got 'West Europe'; allowed: {ALLOWED}; did you mean 'westeurope'?"),
    ("germanywestcentrl", f"got 'germanywestcentrl'; allowed: {ALLOWED}; did you mean 'germanywestcentral'?"),
    ("usgovvirginia", f"got 'usgovvirginia'; allowed: {ALLOWED}"),
    (4, f"got a int value; allowed: {ALLOWED}"),
], ids=["public", "typo", "display-name", "typo-long", "sovereign", "number"])
def test_region_problem(value: object, problem: str | None) -> None:
    assert regions.region_problem(value) == problem


def test_extra_regions_add_names() -> None:
    assert regions.region_problem("usgovvirginia", ["usgovvirginia"]) is None
    assert regions.region_problem("usgovvirgina", ["usgovvirginia"]) == (
        f"got 'usgovvirgina'; allowed: {ALLOWED}; did you mean 'usgovvirginia'?")


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "Pulumi.test.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_misspelt_stack_location_is_refused_at_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, STACK.format(location="westeurop"))
    with pytest.raises(ConfigError) as caught:
        load_stack_file(path)
    assert str(caught.value) == (f"{path}:2:3: azure-native:location: got 'westeurop'; allowed: {ALLOWED}; "
                                 "did you mean 'westeurope'?")
    assert (caught.value.line, caught.value.column) == (2, 3)


def test_extra_regions_admit_a_sovereign_cloud_region(tmp_path: Path) -> None:
    text = STACK.format(location="usgovvirginia") + "  amlkit:extraRegions: [usgovvirginia]\n"
    assert load_stack_file(write(tmp_path, text)).location == "usgovvirginia"


def test_extra_regions_must_be_region_shaped(tmp_path: Path) -> None:
    path = write(tmp_path, STACK.format(location="westeurope") + "  amlkit:extraRegions: [US Gov Virginia]\n")
    with pytest.raises(ConfigError) as caught:
        load_stack_file(path)
    assert str(caught.value) == (f"{path}:5:25: amlkit:extraRegions[0]: got 'US Gov Virginia'; allowed: an Azure "
                                 "region name in lowercase, e.g. westeurope")


def test_a_cluster_location_is_checked_too(tmp_path: Path) -> None:
    text = STACK.format(location="westeurope") + (
        "  amlkit:clusters:\n  - {name: cpu, size: Standard_D4ds_v5, max_instances: 2, location: northeurop,\n"
        "     enable_node_public_ip: true}\n")
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_stack_file(path)
    assert str(caught.value) == (f"{path}:6:59: amlkit:clusters[0].location: got 'northeurop'; allowed: {ALLOWED}; "
                                 "did you mean 'northeurope'?")


@pytest.mark.parametrize(("config", "key_path", "problem"), [
    ({"coreQuota": {"westeurop": {"DSv2": 10}}}, "aml-quota-budget.coreQuota.westeurop",
     "got 'westeurop'; allowed: an Azure public region name such as westeurope, or a name listed in "
     "aml-quota-budget.extraRegions; did you mean 'westeurope'?"),
    ({"lowPriorityCoreQuota": {"eastu2": 10}}, "aml-quota-budget.lowPriorityCoreQuota.eastu2",
     "got 'eastu2'; allowed: an Azure public region name such as westeurope, or a name listed in "
     "aml-quota-budget.extraRegions; did you mean 'eastus2'?"),
    ({"extraRegions": ["US Gov"]}, "aml-quota-budget.extraRegions[0]",
     "got 'US Gov'; allowed: an Azure region name in lowercase, e.g. westeurope"),
], ids=["core-quota", "low-priority", "extra-not-a-name"])
def test_quota_config_region_keys_are_checked(config: dict[str, object], key_path: str, problem: str) -> None:
    with pytest.raises(ConfigError) as caught:
        read_budget(config)
    assert (caught.value.key_path, caught.value.problem) == (key_path, problem)


def test_quota_config_accepts_display_names_and_extra_regions() -> None:
    budget = read_budget({"coreQuota": {"West Europe": {"DSv2": 10}, "usgovvirginia": {"DSv2": 4}},
                          "extraRegions": ["usgovvirginia"]})
    assert sorted(budget.core_quota) == ["usgovvirginia", "westeurope"]


def test_a_component_refuses_a_misspelt_location() -> None:
    from tests.components.test_compute_cluster import build

    with pytest.raises(ComponentArgError) as caught:
        build(workspace_location="westeurop")
    assert str(caught.value) == (f'ComputeCluster "cpu": workspace_location: got \'westeurop\'; allowed: {ALLOWED}; '
                                 "did you mean 'westeurope'?")
