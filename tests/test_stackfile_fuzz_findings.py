"""Bugs the stack-file fuzzing (tests/test_fuzz_stackfile.py) found in the loader, each fixed and pinned:
control characters, explicit YAML tags on bad values, huge integers, impossible dates, nesting up to the
size cap, odd cron digits, credentials at the top level. Each is one ConfigError naming the file and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from amlkit.stackfile import MAX_DEPTH
from tests.fuzz_strategies import assert_secret_advice, base_document, config_error, dump, write

TAG_HINT = "(write the value without the tag, or quote it)"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz-findings")


_DEV = dump(base_document("dev"))


def test_control_characters_are_a_config_error(workdir):
    error = config_error(write(workdir, "config:\n  other:key: b\x00c\n"))
    assert (error.key_path, error.problem) == (
        "", "not valid YAML: character #x0000 at position 22 is not allowed (control characters are not text)")


@pytest.mark.parametrize(("text", "problem"), [
    ("a: !!int x", "cannot read 'x' as !!int"),
    ("a: !!int", "cannot read '' as !!int"),
    ("a: !!float x", "cannot read 'x' as !!float"),
    ("a: !!bool x", "cannot read 'x' as !!bool"),
    ("a: !!timestamp x", "cannot read 'x' as !!timestamp"),
], ids=lambda v: v if v.startswith("a:") else "")
def test_explicit_core_tag_on_a_bad_value_is_a_config_error(workdir, text, problem):
    error = config_error(write(workdir, text + "\n"))
    assert (error.key_path, error.problem) == ("", f"not valid YAML: {problem} {TAG_HINT}")
    assert (error.line, error.column) == (1, 4)


def test_key_with_a_newline_keeps_the_message_on_one_line(workdir):
    error = config_error(write(workdir, "config:\n  ? 'amlkit:a\n\n  b'\n  : x\n"))
    assert error.key_path == "amlkit:a\\nb"  # escaped, as typed in YAML


def test_integer_beyond_the_digit_limit_is_a_config_error(workdir):
    error = config_error(write(workdir, _DEV.replace("max_instances: 4", "max_instances: " + "9" * 5000)))
    assert error.problem == f"not valid YAML: cannot read '{'9' * 37}...' as !!int {TAG_HINT}"
    assert (error.line, error.column) == (24, 20)


def test_huge_hex_integer_is_an_error_at_its_key(workdir):
    error = config_error(write(workdir, _DEV.replace("max_instances: 4", "max_instances: 0x" + "F" * 5000)))
    assert (error.key_path, error.problem) == (
        "amlkit:clusters[0].max_instances", "got a very large integer; allowed: an integer from 1 to 65000")


@pytest.mark.parametrize("value", ["2001-02-30", "2001-13-01 10:00:00"])
def test_impossible_date_is_a_config_error(workdir, value):
    error = config_error(write(workdir, _DEV.replace("max_instances: 4", f"max_instances: {value}")))
    assert error.problem == f"not valid YAML: cannot read '{value}' as !!timestamp {TAG_HINT}"
    assert (error.line, error.column) == (24, 20)


@pytest.mark.parametrize(("opening", "closing"), [("[", "]"), ("{a: ", "}")], ids=["list", "mapping"])
def test_nesting_up_to_the_size_cap_is_a_config_error(workdir, opening, closing):
    """Once far beyond Python's recursion limit (PyYAML's composer recursed): 500,000 levels, 1 MB."""
    depth = 500_000 // len(opening)
    error = config_error(write(workdir, "config: " + opening * depth + "x" + closing * depth + "\n"))
    assert error.problem == f"nested more than {MAX_DEPTH} levels deep"


def test_depth_error_key_path_starts_at_config(workdir):
    error = config_error(write(workdir, "config: " + "[" * 50 + "]" * 50 + "\n"))
    assert error.key_path == "config" + "[0]" * MAX_DEPTH


@pytest.mark.parametrize("expression", ["\u00b2 19 * * *", "0/" + "9" * 5000 + " 19 * * *"], ids=["sup2", "long"])
def test_cron_with_odd_digits_says_what_is_allowed(workdir, expression):
    text = _DEV.replace("expression: 0 19 * * *", f"expression: '{expression}'")
    error = config_error(write(workdir, text))
    assert error.key_path == "amlkit:instances[0].schedules[0].trigger.expression"
    assert error.problem.endswith("; allowed: a five-field cron expression 'minute hour day-of-month month "
                                  "day-of-week', e.g. '0 19 * * 1-5'")


def test_top_level_credential_key_gets_the_secret_advice(workdir):
    error = config_error(write(workdir, _DEV + "  amlkit:adminPassword: CANARY-top-0001\n"))
    assert_secret_advice(error, "amlkit:adminPassword", "CANARY-top-0001")
