"""amlkit.review.proc.learned: the provider modules a project's stacks use, kept per project, and what the fork
server preloads from them (amlkit.review.proc.preload.program_preload)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from amlkit.review.proc import learned, preload

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def program(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the samples' program and a cache directory of its own."""
    monkeypatch.setenv("AMLKIT_CACHE_DIR", str(tmp_path / "cache"))
    directory = tmp_path / "project"
    directory.mkdir()
    (directory / "__main__.py").write_text((ROOT / "__main__.py").read_text())
    return directory


@pytest.mark.parametrize(("token", "modules"), [
    ("azure-native:network:PrivateEndpoint", {"pulumi_azure_native.network"}),
    ("azure-native:machinelearningservices/v20240401:Compute", {"pulumi_azure_native.machinelearningservices"}),
    ("azure-native:authorization:getClientConfig", {"pulumi_azure_native.authorization"}),
    ("azure:core/resourceGroup:ResourceGroup", {"pulumi_azure.core"}),
    ("azure:machinelearning/computeCluster:ComputeCluster", {"pulumi_azure.machinelearning"}),
    ("azuread:index/getClientConfig:getClientConfig", set()),
    ("amlkit:index:Environment", set()),
    ("pulumi:providers:azure-native", set()),
    ("pulumi:pulumi:Stack", set()),
])
def test_modules_of(token: str, modules: set[str]):
    assert learned.modules_of([token]) == modules


@pytest.mark.slow  # reading the program's imports imports amlkit.components (azure-native)
def test_what_a_review_used_is_preloaded_next_time(program: Path):
    static = preload.program_modules(program)
    assert "pulumi_azure_native.network" in static
    assert preload.program_preload(program) == static  # never reviewed: what its files import
    learned.note(program, ["azure-native:resources:ResourceGroup", "azure-native:storage:StorageAccount"])
    learned.note(program, ["azure-native:storage:BlobContainer", "pulumi:pulumi:Stack"])
    learned.keep(program)
    assert learned.load(program) == ["pulumi_azure_native.resources", "pulumi_azure_native.storage"]
    assert preload.program_preload(program) == [
        "pulumi_azure_native.resources", "pulumi_azure_native.storage",
        *(name for name in static if not name.startswith("pulumi_azure_native."))]


def test_a_later_review_adds_to_what_was_learned(program: Path):
    learned.note(program, ["azure-native:resources:ResourceGroup"])
    learned.keep(program)
    learned.note(program, ["azure-native:keyvault:Vault"])
    learned.keep(program)
    assert learned.load(program) == ["pulumi_azure_native.keyvault", "pulumi_azure_native.resources"]


def test_a_changed_program_file_forgets_what_was_learned(program: Path):
    learned.note(program, ["azure-native:resources:ResourceGroup"])
    learned.keep(program)
    assert learned.load(program) == ["pulumi_azure_native.resources"]
    helper = program / "helper.py"
    helper.write_text("X = 1\n")
    assert learned.load(program) is None
    learned.note(program, ["azure-native:resources:ResourceGroup"])
    learned.keep(program)
    stat = helper.stat()
    os.utime(helper, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert learned.load(program) is None


def test_a_name_that_is_no_installed_provider_module_is_ignored(program: Path):
    learned.note(program, ["azure-native:resources:ResourceGroup"])
    learned.keep(program)
    cache = learned.cache_file(program)
    data = json.loads(cache.read_text())
    data["modules"] += ["os", "pulumi_azure_native.no_such_module", "pulumi_azure_native.resources.v1", "subprocess"]
    cache.write_text(json.dumps(data))
    assert learned.load(program) == ["pulumi_azure_native.resources"]


def test_an_unreadable_or_foreign_cache_file_is_no_list(program: Path):
    cache = learned.cache_file(program)
    cache.parent.mkdir(parents=True)
    for text in ("not json", "[]", json.dumps({"fingerprint": "other", "modules": ["pulumi_azure_native.storage"]})):
        cache.write_text(text)
        assert learned.load(program) is None


def test_the_types_used_are_kept_for_the_fork_server_to_warm(program: Path):
    learned.note(program, ["azure-native:storage:StorageAccount", "amlkit:index:Workspace", "pulumi:pulumi:Stack",
                           "azure-native:authorization:getClientConfig", "", "not a token"])
    learned.keep(program)
    assert learned.load_types(program) == ["azure-native:authorization:getClientConfig",
                                           "azure-native:storage:StorageAccount"]
    learned.note(program, ["azure-native:storage:StorageAccount", "azure-native:keyvault:Vault"])
    learned.keep(program)  # the modules are known already: the new type is still kept
    assert learned.load_types(program) == ["azure-native:authorization:getClientConfig",
                                           "azure-native:keyvault:Vault", "azure-native:storage:StorageAccount"]
    (program / "helper.py").write_text("X = 1\n")
    assert learned.load_types(program) == []


def test_a_type_of_no_installed_provider_module_or_no_token_is_not_warmed(program: Path):
    learned.note(program, ["azure-native:resources:ResourceGroup"])
    learned.keep(program)
    cache = learned.cache_file(program)
    data = json.loads(cache.read_text())
    data["types"] += ["azure-native:no_such_module:Thing", "os:system:call", 7, "import os; os.system('x')"]
    cache.write_text(json.dumps(data))
    assert learned.load_types(program) == ["azure-native:resources:ResourceGroup"]
    del data["types"]  # a file from before 0.3.0's warm caches: modules only
    cache.write_text(json.dumps(data))
    assert (learned.load(program), learned.load_types(program)) == (["pulumi_azure_native.resources"], [])


def test_the_providers_are_the_pulumi_packages_pkgutil_lists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """learned._providers reads sys.path's directories by name; pkgutil.iter_modules lists the same packages."""
    import pkgutil

    packages = {"pulumi_a": ["__init__.py"], "pulumi_b": ["core.py"], "pulumi_d": ["__init__.pyc"],
                "pulumi_policy": ["__init__.py"], "pulumi_c": ["__init__.py"], "other": ["__init__.py"]}
    for name, files in packages.items():
        (tmp_path / "first" / name).mkdir(parents=True)
        for file in files:
            (tmp_path / "first" / name / file).write_text("")
    (tmp_path / "first" / "pulumi_e.py").write_text("")  # a module, not a package
    (tmp_path / "second" / "pulumi_e").mkdir(parents=True)  # shadowed by the module before it on sys.path
    (tmp_path / "second" / "pulumi_e" / "__init__.py").write_text("")
    (tmp_path / "second" / "pulumi_f").mkdir()
    (tmp_path / "second" / "pulumi_f" / "__init__.py").write_text("")
    path = [str(tmp_path / "first"), str(tmp_path / "missing.zip"), str(tmp_path / "second")]
    monkeypatch.setattr(sys, "path", path)
    listed = sorted(m.name for m in pkgutil.iter_modules(path) if m.ispkg and m.name.startswith("pulumi_")
                    and m.name != "pulumi_policy")
    assert learned._providers() == listed == ["pulumi_a", "pulumi_c", "pulumi_d", "pulumi_f"]
