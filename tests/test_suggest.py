"""amlkit.suggest: the "did you mean" of every error (#31), and the messages that use it."""

from __future__ import annotations

from pathlib import Path

import pytest

from amlkit.errors import ComponentArgError, ConfigError
from amlkit.stackfile import load_stack_file
from amlkit.suggest import closest, size_problem, unknown_key

SIZE_ALLOWED = "a known Azure VM size name, e.g. Standard_D4ds_v5"
STACK = """\
config:
  azure-native:location: westeurope
  amlkit:resourceGroup: {name: rg-ml-test}
  amlkit:workspace:
    name: mlw-test
  amlkit:clusters:
  - name: cpu
    size: Standard_D4ds_v5
    max_instances: 2
    enable_node_public_ip: true
"""


@pytest.mark.parametrize(("value", "allowed", "expected"), [
    ("westeurop", ["westeurope", "northeurope"], "westeurope"),
    ("West Europe", ["westeurope"], "westeurope"),
    ("low-priority", ["dedicated", "low_priority"], "low_priority"),
    ("zzz", ["dedicated", "low_priority"], None),
    (3, ["dedicated"], None),
], ids=["typo", "spacing", "separator", "nothing-near", "not-text"])
def test_closest(value: object, allowed: list[str], expected: str | None) -> None:
    assert closest(value, allowed) == expected


def test_unknown_key_names_the_key_and_the_closest() -> None:
    assert unknown_key("min_instance", ["min_instances", "max_instances"]) == (
        "unknown key 'min_instance' (did you mean 'min_instances'?)")
    assert unknown_key("clusterz", ["clusters"], "amlkit:") == (
        "unknown key 'amlkit:clusterz' (did you mean 'amlkit:clusters'?)")
    assert unknown_key("zzz", ["clusters"]) == "unknown key 'zzz'"


@pytest.mark.parametrize(("value", "text"), [
    ("Standard_D4ds_v55", f"got 'Standard_D4ds_v55'; allowed: {SIZE_ALLOWED}; did you mean 'Standard_D4ds_v5'?"),
    ("Standard_DS3v2", f"got 'Standard_DS3v2'; allowed: {SIZE_ALLOWED}; did you mean 'Standard_DS3_v2'?"),
    ("D4ds_v5", f"got 'D4ds_v5'; allowed: {SIZE_ALLOWED}; did you mean 'Standard_D4ds_v5'?"),
    ("Standard_Foo", f"got 'Standard_Foo'; allowed: {SIZE_ALLOWED}"),
], ids=["extra-digit", "missing-underscore", "no-prefix", "nothing-near"])
def test_size_problem(value: str, text: str) -> None:
    problem = size_problem(value)
    assert problem is not None and problem.text == text
    assert size_problem("standard_d4ds_v5") is None  # names are case-insensitive


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "Pulumi.test.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("old", "new", "where", "message"), [
    ("    max_instances: 2", "    max_instance: 2", "9:5",
     "amlkit:clusters[0].max_instance: unknown key 'max_instance' (did you mean 'max_instances'?); allowed keys: "),
    ("    size: Standard_D4ds_v5", "    size: Standard_D4ds_v55", "8:5",
     f"amlkit:clusters[0].size: got 'Standard_D4ds_v55'; allowed: {SIZE_ALLOWED}; did you mean 'Standard_D4ds_v5'?"),
    ("    max_instances: 2", "    max_instances: 2\n    tier: dedicatd", "10:5",
     "amlkit:clusters[0].tier: got 'dedicatd'; allowed: dedicated | low_priority; did you mean 'dedicated'?"),
    ("  amlkit:clusters:", "  amlkit:cluster:", "6:3",
     "amlkit:cluster: unknown key 'amlkit:cluster' (did you mean 'amlkit:clusters'?); allowed keys: "),
    ("    size: Standard_D4ds_v5\n", "", "7:5", "amlkit:clusters[0].size: required key is missing"),
    ("  amlkit:resourceGroup: {name: rg-ml-test}\n", "", "1:1", "amlkit:resourceGroup: required key is missing"),
], ids=["key", "size", "choice", "top-level-key", "missing-key", "missing-top-level-key"])
def test_stack_file_errors_give_position_key_value_and_closest(tmp_path: Path, old: str, new: str, where: str,
                                                              message: str) -> None:
    path = write(tmp_path, STACK.replace(old, new))
    with pytest.raises(ConfigError) as caught:
        load_stack_file(path)
    assert str(caught.value).startswith(f"{path}:{where}: {message}")


@pytest.mark.parametrize(("old", "new", "where", "problem"), [
    ("    size: Standard_D4ds_v5", "    size Standard_D4ds_v5", "8:5",
     "a key without ':' (expected 'key: value')"),
    ("    name: mlw-test", "    name: mlw-test\n      kind: hub", "6:7",
     "this line is indented under 'name', which already has a value on its line (indent the key like its siblings)"),
    ("    name: mlw-test", "    name: a: b", "5:12", "an unquoted value containing ': ' (quote the value)"),
    ("  - name: cpu", "  - name: cpu\n   size: x", "8:4",
     "this line's indentation does not match the lines around it (YAML nests by indentation: indent a key like "
     "its siblings, with spaces)"),
    ("    name: mlw-test", "    name: 'mlw-test", "5:11", "a quote or bracket opened here is never closed"),
    ("    name: mlw-test", "\tname: mlw-test", "5:1",
     "a character that cannot start a value here (a tab? YAML indents with spaces; quote a value starting with @ "
     "or `)"),
], ids=["missing-colon", "over-indented", "colon-in-value", "under-indented", "open-quote", "tab"])
def test_yaml_syntax_errors_are_one_line_at_the_mistake(tmp_path: Path, old: str, new: str, where: str,
                                                        problem: str) -> None:
    path = write(tmp_path, STACK.replace(old, new))
    with pytest.raises(ConfigError) as caught:
        load_stack_file(path)
    assert str(caught.value) == f"{path}:{where}: not valid YAML: {problem}"


def test_a_component_refuses_a_misspelt_size_with_the_stack_files_words(tmp_path: Path) -> None:
    from tests.components.test_compute_cluster import build

    with pytest.raises(ComponentArgError) as caught:
        build(size="Standard_D4ds_v55")
    assert str(caught.value) == (f'ComputeCluster "cpu": size: got \'Standard_D4ds_v55\'; allowed: {SIZE_ALLOWED}; '
                                 "did you mean 'Standard_D4ds_v5'?")
    with pytest.raises(ConfigError) as stack_error:
        load_stack_file(write(tmp_path, STACK.replace("Standard_D4ds_v5", "Standard_D4ds_v55")))
    assert stack_error.value.problem == caught.value.problem
