"""tools/typecheck.py: mypy --strict over the package as installed, and what it catches in a user's program."""

from __future__ import annotations

import fcntl
import re
from pathlib import Path
from typing import Any

import pytest

from tools import typecheck

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("line", "expected"), [
    ("amlkit/components/args.py:75: error: x  [no-any-return]", "components/args.py:75: error: x  [no-any-return]"),
    ("amlkit/policies/pack.py:1: error: y", "policies/pack.py:1: error: y"),
    ("amlkit/review/pack/session.py:2: error: z", "amlkit/review/pack/session.py:2: error: z"),
    ("Found 3 errors in 1 file (checked 1 source file)", "Found 3 errors in 1 file (checked 1 source file)"),
])
def test_repository_path(line: str, expected: str) -> None:
    assert typecheck.repository_path(line) == expected


def test_the_tree_lays_out_the_package_as_setuptools_installs_it(tmp_path: Path) -> None:
    package = typecheck.build_tree(tmp_path) / "amlkit"
    assert (package / "components").resolve() == ROOT / "components"
    assert (package / "policies").resolve() == ROOT / "policies"
    assert (package / "cli.py").resolve() == ROOT / "amlkit" / "cli.py"
    assert (package / "components" / "compute_cluster.py").is_file()


@pytest.mark.slow
def test_the_type_checker_catches_a_misspelt_component_argument(typechecked: dict[str, Any]) -> None:
    """The component Args are TypedDicts: a typo, a missing required argument and a wrong type are
    type errors in the user's program, before anything runs. (One mypy run checks this program and
    test_embedding's: tests/typechecked.py; the package itself has no error, so the run's other lines are its
    summary only, and it fails.)"""
    assert typechecked["errors"]["typed_program"] == [
        'error: Missing key "max_instances" for TypedDict "ComputeClusterArgs"  [typeddict-item]',
        'error: Extra key "max_instanses" for TypedDict "ComputeClusterArgs"  [typeddict-unknown-key]',
        'error: Incompatible types (expression has type "str", TypedDict item "idle_time_before_shutdown_minutes" '
        'has type "int")  [typeddict-item]',
    ]
    assert [re.sub(r"\d+ source files", "N source files", line) for line in typechecked["other"]] == [
        "Found 8 errors in 2 files (checked N source files)"], typechecked["stderr"]
    assert typechecked["returncode"] == 1


def test_runs_take_turns_on_the_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tree is removed and rebuilt on every run: a run holds build/typecheck.lock while it rebuilds the tree
    and mypy runs, so two runs at once (xdist workers, `make typecheck` beside the suite) take turns."""
    from mypy import api

    lock = tmp_path / "typecheck.lock"
    monkeypatch.setattr(typecheck, "LOCK", lock)
    monkeypatch.setattr(typecheck, "build_tree", lambda: tmp_path)
    held = []

    def mypy_run(args: list[str]) -> tuple[str, str, int]:
        with lock.open("a") as other:
            try:
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                held.append(args[-1])
        return "", "", 0

    monkeypatch.setattr(api, "run", mypy_run)
    assert typecheck.run(["program.py"]) == 0
    assert held == ["program.py"]
    with lock.open("a") as after:
        fcntl.flock(after, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released when the run ends


def test_make_test_runs_the_type_checker() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "\ntest: lint typecheck\n" in makefile
    assert "\ntypecheck: install\n\t$(BIN)/python tools/typecheck.py\n" in makefile
