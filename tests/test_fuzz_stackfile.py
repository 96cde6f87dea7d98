"""Fuzzing the stack-file loader and the environment schema (`amlkit.stackfile`, `amlkit.schema`).

The property: whatever bytes a stack file holds, `load_stack_file` returns an `EnvironmentSpec` or
raises ONE `ConfigError` naming the file (and the key path where one applies); never another
exception, never a hang. Values Azure could never accept are schema errors at the mutated key; one
valid change keeps a sample valid; plain-text credentials are refused without echoing them. The CLI
turns bad stack files into exit code 2 without a traceback.

Bugs this fuzzing found are pinned by regression tests: the loader's in test_stackfile_fuzz_findings.py,
the CLI's (its reading of stack files now goes through the same safe reader) at the end of this file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from amlkit.cli import app
from amlkit.errors import ConfigError
from amlkit.schema import EnvironmentSpec, validate_environment
from amlkit.stackfile import MAX_DEPTH, MAX_NODES
from tests.fuzz_strategies import (
    ARM_ID_TYPES,
    BASES,
    CANARIES,
    CREDENTIAL_KEYS,
    CROSS_REFERENCED_IDS,
    INTEGER_RANGES,
    MAX_FUZZ_DEPTH,
    SIZE_KEYS,
    SIZE_NAMES,
    Path_,
    arm,
    assert_secret_advice,
    bad_value,
    base_document,
    config_error,
    constrained_fields,
    dump,
    expected_key_path,
    field_name,
    get_at,
    leaves,
    load,
    mappings,
    set_at,
    stack_file_bytes,
    write,
)

# Examples per property (about 470 in all), tuned so the whole file runs in about 8 s on a quiet machine
# (each example parses YAML in pure Python: 10-30 ms; the CLI examples start the runner and the pack).
# AMLKIT_FUZZ_SCALE=20 multiplies them for a long run.
# deadline=None: a first example pays for loading the VM size catalogue and CLI examples start processes.
SCALE = int(os.environ.get("AMLKIT_FUZZ_SCALE", "1"))


def examples(count: int) -> settings:
    return settings(max_examples=count * SCALE, deadline=None)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One directory per module: hypothesis re-runs a test body many times, function fixtures once."""
    return tmp_path_factory.mktemp("fuzz")


# --- the bases and the field tables ------------------------------------------------------------------


@pytest.mark.parametrize("base", BASES)
def test_every_base_is_valid(workdir, base):
    assert isinstance(load(write(workdir, dump(base_document(base)))), EnvironmentSpec)


@pytest.mark.parametrize("base", BASES)
def test_field_tables_cover_every_number_size_and_id(base):
    """Every integer, `size`, GUID-looking and ARM-id-looking leaf of a base is a mutation target."""
    document = base_document(base)
    targets = {path for path, _ in constrained_fields(document)}
    for path, value in leaves(document["config"], ("config",)):
        looks_constrained = (
            (isinstance(value, int) and not isinstance(value, bool))
            or (isinstance(value, str) and (value.startswith("/subscriptions/")
                                            or re.fullmatch(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", value)))
            or field_name(path) in SIZE_KEYS
        )
        assert not looks_constrained or path in targets, path


def test_every_table_entry_is_exercised_by_some_base():
    names = {field_name(path) for base in BASES for path, _ in constrained_fields(base_document(base))}
    assert names == set(INTEGER_RANGES) | SIZE_KEYS | {"object_id", "tenant_id"} | set(ARM_ID_TYPES)


# --- any bytes: a spec or one ConfigError --------------------------------------------------------------


@examples(150)
@given(data=stack_file_bytes)
@pytest.mark.slow
def test_any_stack_file_gives_a_spec_or_one_config_error(workdir, data):
    load(write(workdir, data))


@examples(15)
@given(depth=st.integers(MAX_DEPTH + 1, MAX_FUZZ_DEPTH), flow=st.booleans())
def test_deep_nesting_is_refused(workdir, depth, flow):
    nested = "[" * depth + "]" * depth if flow else "{a: " * depth + "x" + "}" * depth
    error = config_error(write(workdir, f"config:\n  amlkit:workspace: {nested}\n"))
    assert error.problem == f"nested more than {MAX_DEPTH} levels deep"
    assert error.key_path.startswith("amlkit:workspace")


@st.composite
def duplicated_key_line(draw: st.DrawFn) -> tuple[str, int]:
    """(text, line number): a base with one `key: value` line written twice, the copy on the next line."""
    lines = dump(base_document(draw(st.sampled_from(BASES)))).splitlines()
    keyed = [i for i, line in enumerate(lines) if re.match(r"\s*[^-\s#][^:]*:( |$)", line)]
    index = draw(st.sampled_from(keyed))
    return "\n".join([*lines[: index + 1], lines[index], *lines[index + 1:]]) + "\n", index + 1


@examples(30)
@given(case=duplicated_key_line())
def test_duplicate_keys_are_refused(workdir, case):
    text, line = case
    error = config_error(write(workdir, text))
    assert error.problem == f"duplicate key (lines {line} and {line + 1}); allowed: each key once"


def _bomb(width: int, levels: int, merge: bool) -> str:
    """`levels` anchors, each `width` aliases of the previous one: width**levels leaves once expanded.

    With `merge`, the levels are mappings built with merge keys (`<<: [*b0, *b0, ...]`).
    """
    if merge:
        lines = ["b0: &b0 {" + ", ".join(f"k{i}: x" for i in range(width)) + "}"]
        lines += [f"b{n}: &b{n} {{<<: [{', '.join([f'*b{n - 1}'] * width)}]}}" for n in range(1, levels + 1)]
    else:
        lines = [f"b0: &b0 [{', '.join(['x'] * width)}]"]
        lines += [f"b{n}: &b{n} [{', '.join([f'*b{n - 1}'] * width)}]" for n in range(1, levels + 1)]
    return "config:\n  azure-native:location: westeurope\n  other:bomb:\n" + "".join(
        f"    {line}\n" for line in lines)


@examples(15)
@given(width=st.integers(2, 12), levels=st.integers(1, 30), merge=st.booleans())
def test_alias_bombs_are_refused_without_expanding(workdir, width, levels, merge):
    """Up to 12**30 values if expanded: only the refusal can come back."""
    text = _bomb(width, levels, merge)
    outcome = load(write(workdir, text))
    if width ** (levels + 1) > MAX_NODES:  # the leaves alone, once expanded
        assert isinstance(outcome, ConfigError)
        assert outcome.problem == (f"the YAML expands to more than {MAX_NODES} values (alias bomb?); allowed: a "
                                   "plain stack file")


# --- values Azure could never accept ---------------------------------------------------------------------


@st.composite
def bad_field(draw: st.DrawFn) -> tuple[dict[str, Any], Path_, Any]:
    """(document, path, value): one constrained field of a valid base set to a value Azure refuses."""
    document = base_document(draw(st.sampled_from(BASES)))
    path, kind = draw(st.sampled_from(constrained_fields(document)))
    value = draw(bad_value(path, kind))
    return set_at(document, path, value), path, value


@examples(60)
@given(case=bad_field())
@pytest.mark.slow
def test_value_azure_cannot_accept_is_an_error_at_that_key(workdir, case):
    document, path, _ = case
    error = config_error(write(workdir, dump(document)))
    assert error.key_path == expected_key_path(path)
    assert "allowed:" in error.problem or "holds a secret" in error.problem


@pytest.mark.parametrize(("field", "value", "problem"), [
    ("min_instances", 65_001, "got 65001; allowed: an integer from 0 to 65000"),
    ("max_instances", 10**12, "got 1000000000000; allowed: an integer from 1 to 65000"),
    ("idle_time_before_scale_down", -1, "got -1; allowed: a whole number of seconds of at least 0"),
    ("idle_time_before_scale_down", 1.5, "got 1.5; allowed: a whole number of seconds of at least 0"),
    ("size", 3, "got 3; allowed: a known Azure VM size name, e.g. Standard_D4ds_v5"),
    ("size", ["Standard_DS3_v2"], "got a list; allowed: a known Azure VM size name, e.g. Standard_D4ds_v5"),
], ids=lambda v: str(v)[:20])
def test_named_bad_values(workdir, field, value, problem):
    """The property above, pinned on named cases with their exact messages."""
    document = set_at(base_document("dev"), ("config", "amlkit:clusters", 0, field), value)
    error = config_error(write(workdir, dump(document)))
    assert (error.key_path, error.problem) == (f"amlkit:clusters[0].{field}", problem)


# --- one valid change keeps a sample valid -------------------------------------------------------------


def _spec_value(spec: EnvironmentSpec, path: Path_) -> Any:
    """The spec's value at a document path: `(config, amlkit:resourceGroup, name)` -> spec.resource_group.name."""
    key = str(path[1])
    attribute = "location" if key == "azure-native:location" else re.sub(
        r"[A-Z]", lambda m: "_" + m[0].lower(), key.removeprefix("amlkit:"))
    value: Any = getattr(spec, attribute)
    for part in path[2:]:
        value = value[part] if isinstance(part, int) or isinstance(value, dict) else getattr(value, part)
    return value


def _valid_integer(draw: st.DrawFn, document: dict[str, Any], path: Path_) -> int:
    low, high = INTEGER_RANGES[field_name(path)]
    parent = get_at(document, path[:-1])
    if path[-1] == "min_instances":
        high = parent.get("max_instances", 1)
    elif path[-1] == "max_instances":
        low = max(parent.get("min_instances", 0), 1)
    return draw(st.integers(low, high if high is not None else 10**9))


_NAME = st.from_regex(r"[a-z][a-z0-9-]{0,18}[a-z0-9]", fullmatch=True)
_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="="), max_size=300)
_TIERS = {"dedicated": "dedicated", "Dedicated": "dedicated", "low_priority": "low_priority",
          "LowPriority": "low_priority", "low-priority": "low_priority"}


@st.composite
def valid_change(draw: st.DrawFn) -> tuple[dict[str, Any], Path_, Any, Any]:
    """(document, path, new value written, value the spec must hold) for one valid change of a base."""
    document = base_document(draw(st.sampled_from(BASES)))
    candidates = [
        (path, value) for path, value in leaves(document)
        if path[0] == "config" and (
            field_name(path) in INTEGER_RANGES or field_name(path) in SIZE_KEYS
            or path[-1] in ("description", "tier") or "tags" in path[:-1]
            or (field_name(path) in ARM_ID_TYPES and isinstance(value, str)
                and field_name(path) not in CROSS_REFERENCED_IDS)
        )
    ]
    path, _ = draw(st.sampled_from(candidates))
    name = field_name(path)
    if name in INTEGER_RANGES:
        new = _valid_integer(draw, document, path)
        return set_at(document, path, new), path, new, new
    if name in SIZE_KEYS:
        new = draw(st.sampled_from(SIZE_NAMES))
        return set_at(document, path, new), path, new, new
    if name == "tier":
        new = draw(st.sampled_from(sorted(_TIERS)))
        return set_at(document, path, new), path, new, _TIERS[new]
    if name in ARM_ID_TYPES:
        provider, kind = ARM_ID_TYPES[name]
        new = arm(provider, kind, draw(_NAME), rg=draw(_NAME))
        return set_at(document, path, new), path, new, new
    new = draw(_TEXT.map(lambda text: text[:256]))  # descriptions and tag values
    return set_at(document, path, new), path, new, new


@examples(40)
@given(change=valid_change())
@pytest.mark.slow
def test_one_valid_change_keeps_a_sample_valid(workdir, change):
    document, path, _, expected = change
    spec = load(write(workdir, dump(document)))
    assert isinstance(spec, EnvironmentSpec), spec
    assert _spec_value(spec, path) == expected


# --- plain-text credentials --------------------------------------------------------------------------------


@st.composite
def planted_credential(draw: st.DrawFn) -> tuple[dict[str, Any], Path_, str]:
    """(document, path, canary): a canary under a credential-like key in some mapping of a base's config."""
    document = base_document(draw(st.sampled_from(BASES)))
    inside = [path for path in mappings(document) if len(path) >= 2 and path[0] == "config"]
    where = draw(st.sampled_from(inside))
    if draw(st.booleans()):  # one level further down, under a new key
        where = (*where, "extra")
        get_at(document, where[:-1])[where[-1]] = {}
    key, canary = draw(CREDENTIAL_KEYS), draw(CANARIES)
    get_at(document, where)[key] = canary
    return document, (*where, key), canary


@examples(40)
@given(case=planted_credential())
@pytest.mark.slow
def test_plain_credential_is_refused_without_echoing_it(workdir, case):
    document, path, canary = case
    error = config_error(write(workdir, dump(document)))
    assert_secret_advice(error, expected_key_path(path), canary)


@examples(20)
@given(base=st.sampled_from(BASES), data=st.data(), canary=CANARIES,
       marker=st.sampled_from(("AccountKey=", "SharedAccessSignature=", "SharedAccessKey=",
                               "-----BEGIN RSA PRIVATE KEY-----")))
def test_credential_text_in_any_value_is_refused_without_echoing_it(workdir, base, data, canary, marker):
    document = base_document(base)
    strings = [path for path, value in leaves(document) if path[0] == "config" and isinstance(value, str)]
    path = data.draw(st.sampled_from(strings))
    error = config_error(write(workdir, dump(set_at(document, path, f"DefaultEndpoints;{marker}{canary}"))))
    assert_secret_advice(error, expected_key_path(path), canary)


_FIELD_KEYS = st.one_of(st.sampled_from(("name", "size", "max_instances", "min_instances", "type", "tags", "kind",
                                          "identity", "subnet", "network_settings", "expression")),
                        st.text(max_size=4))
_SECRET_VALUES = st.recursive(
    st.one_of(CANARIES, st.integers(), st.booleans(), st.none()),
    lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(_FIELD_KEYS, children, max_size=3)),
    max_leaves=10,
)


def _raw(document: dict[str, Any]) -> dict[str, Any]:
    """A document's config as validate_environment takes it: `amlkit:` stripped, location as `location`."""
    return {"location" if key == "azure-native:location" else key.removeprefix("amlkit:"): value
            for key, value in document["config"].items()}


@examples(100)
@given(base=st.sampled_from(BASES), data=st.data())
def test_values_of_secret_keys_never_appear_in_messages(base, data):
    """The engine path: top-level keys flagged secret are decrypted plaintext; a message never shows them."""
    raw = _raw(base_document(base))
    secret_keys = data.draw(st.lists(st.sampled_from(sorted(raw)), min_size=1, max_size=2, unique=True))
    for key in secret_keys:
        raw[key] = data.draw(_SECRET_VALUES)
    canaries = [value for key in secret_keys for _, value in leaves(raw[key])
                if isinstance(value, str) and value.startswith("CANARY-")]
    try:
        validate_environment(raw, "Pulumi.fuzz.yaml", secret_keys)
    except ConfigError as error:
        message = str(error)
        assert error.file == "Pulumi.fuzz.yaml" and message.startswith("Pulumi.fuzz.yaml")
        assert "\n" not in message
        assert not [canary for canary in canaries if canary in message or canary in repr(error.value)]


# --- the CLI ------------------------------------------------------------------------------------------------


def make_project(root: Path) -> Path:
    """A Pulumi project running amlkit's program, with its stack files under stacks/."""
    (root / "stacks").mkdir(parents=True, exist_ok=True)
    (root / "Pulumi.yaml").write_text("name: amlkit\nruntime: python\nstackConfigDir: stacks\n", encoding="utf-8")
    (root / "__main__.py").write_text("from amlkit.program import run\n\nrun()\n", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("project"))


def check(project: Path, data: bytes | str, stack: str = "fuzz") -> tuple[int, str]:
    write(project / "stacks", data, stack)
    result = CliRunner().invoke(app, ["check", "--project-dir", str(project), "--stack", stack, "--timeout", "60"])
    return result.exit_code, result.output


@examples(2)
@given(case=bad_field())
@pytest.mark.slow
def test_cli_check_exits_2_on_a_bad_value(project, case):
    document, path, _ = case
    code, output = check(project, dump(document))
    assert code == 2, output
    assert "Traceback" not in output
    assert re.search(rf"Pulumi\.fuzz\.yaml:\d+:\d+: {re.escape(expected_key_path(path))}: ", output), output


def test_cli_check_refuses_a_plain_password_without_echoing_it(project):
    document = set_at(base_document("dev"), ("config", "amlkit:clusters", 0, "ssh_settings"),
                      {"admin_password": "CANARY-cli-0001"})
    code, output = check(project, dump(document))
    assert code == 2, output
    assert "CANARY-cli-0001" not in output and "Traceback" not in output
    assert ("pulumi config set --secret --path 'amlkit:clusters[0].ssh_settings.admin_password' <value>"
            in output)


# --- bugs the fuzzing found in the CLI (each fixed; pinned here; the loader's: test_stackfile_fuzz_findings.py)

_DEV = dump(base_document("dev"))


def test_cli_check_exits_2_on_control_characters(project):
    code, output = check(project, "config:\n  other:key: b\x00c\n")
    assert code == 2, output
    assert "Pulumi.fuzz.yaml" in output and "not valid YAML" in output and "Traceback" not in output


_CLI_BUGS = [
    ("binary", b"\xff\xfe\x00garbage\x80", "not UTF-8"),
    ("impossible-date", _DEV.replace("max_instances: 4", "max_instances: 2001-02-30"),
     "cannot read '2001-02-30' as !!timestamp"),
    ("deep", "config:\n  amlkit:workspace: " + "[" * 600 + "]" * 600 + "\n", "nested more than"),
    ("alias-bomb", _bomb(10, 5, merge=False), "alias bomb"),
    ("duplicate-key", _DEV.replace("max_instances: 4", "max_instances: 70000") + "  amlkit:environment: dev\n",
     "duplicate key"),
]


@pytest.mark.parametrize(("data", "expected"), [c[1:] for c in _CLI_BUGS], ids=[c[0] for c in _CLI_BUGS])
def test_cli_check_exits_2_on_a_bad_stack_file(project, data, expected):
    code, output = check(project, data)
    assert (code, "Traceback" in output) == (2, False), output
    assert expected in output
