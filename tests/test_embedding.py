"""docs/embedding.md's Python API: its examples run as written, the API it documents is `amlkit.review.__all__`,
and an embedder's program type-checks under mypy --strict (and its mistakes do not)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import amlkit.review

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "embedding.md"
FIXTURES = ROOT / "tests" / "fixtures" / "embedder"


def examples() -> list[str]:
    """The doc's ```python blocks, each a whole program."""
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_the_doc_has_its_example() -> None:
    assert len(examples()) == 1
    assert "from amlkit.review import" in examples()[0]


def test_the_api_table_names_exactly_the_packages_all() -> None:
    section = DOC.read_text(encoding="utf-8").split("## The Python API", 1)[1].split("\n## ", 1)[0]
    table = [line for line in section.splitlines() if line.startswith("| `")]
    named = {name for line in table for name in re.findall(r"`(\w+)[`(]", line.split(" | ")[0])}
    assert named == set(amlkit.review.__all__)


def test_the_stability_policy_names_modules_that_declare_all() -> None:
    policy = DOC.read_text(encoding="utf-8").split("## Stability", 1)[1]
    documented = re.findall(r"`(amlkit(?:\.\w+)*)` \(", policy)
    assert documented == ["amlkit.review", "amlkit.components", "amlkit.errors"]
    for name in documented:
        assert __import__(name, fromlist=["__all__"]).__all__


def _finding_lines(report: dict[str, object]) -> list[str]:
    """The example's lines, built from `amlkit check --format json` instead."""
    lines = []
    for stack in report["stacks"]:  # type: ignore[attr-defined]
        lines += [f"{stack['stack']}: {v['level']} {v['policy']} on {v['resource']}" for v in stack["violations"]]
        lines += [f"{stack['stack']}: unknown {u['policy']} on {u['resource']}" for u in stack["unknown"]]
    return lines


@pytest.mark.slow
def test_the_example_prints_what_amlkit_check_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The example runs as an embedder runs it (its own process); `amlkit check`, what it is compared with,
    runs in this process (typer's CliRunner: the same command and report, without an interpreter's start)."""
    from typer.testing import CliRunner

    from amlkit import cli

    program = tmp_path / "review_dev.py"
    program.write_text(examples()[0], encoding="utf-8")
    ran = subprocess.run([sys.executable, str(program)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    monkeypatch.chdir(ROOT)
    check = CliRunner().invoke(cli.app, ["check", "-s", "dev", "--format", "json"])
    expected = _finding_lines(json.loads(check.stdout))
    assert expected  # the dev stack has findings to compare
    assert ran.stdout.splitlines() == expected
    assert ran.returncode == check.exit_code


@pytest.mark.slow
def test_an_embedder_type_checks_under_mypy_strict_and_its_mistakes_do_not(typechecked: dict[str, Any]) -> None:
    """The example and the embedder's programs, in the suite's one mypy run (tests/typechecked.py; it also checks
    test_typecheck's program, and its other lines are its summary only: the package has no error)."""
    errors = typechecked["errors"]
    assert errors["embedding_example"] == []
    assert errors["embedder"] == []
    assert errors["misuse"] == [
        'error: "tuple[Violation, ...]" has no attribute "append"  [attr-defined]',
        'error: Property "error" defined in "StackReview" is read-only  [misc]',
        'error: Item "None" of "Plan | None" has no attribute "steps"  [union-attr]',
        "error: Non-overlapping equality check (left operand type: \"Literal['config', 'program', 'pack', "
        "'internal'] | None\", right operand type: \"Literal['programme']\")  [comparison-overlap]",
        'error: Incompatible return value type (got "Review", expected "StackReview")  [return-value]',
    ]
    assert [re.sub(r"\d+ source files", "N source files", line) for line in typechecked["other"]] == [
        "Found 8 errors in 2 files (checked N source files)"], typechecked["stderr"]
    assert typechecked["returncode"] == 1
