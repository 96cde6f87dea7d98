"""tools/typecheck.py: mypy --strict over the package as installed, and what it catches in a user's program."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tools import typecheck

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "typed_program" / "__main__.py"


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
def test_the_type_checker_catches_a_misspelt_component_argument() -> None:
    """The component Args are TypedDicts: a typo, a missing required argument and a wrong type are
    type errors in the user's program, before anything runs."""
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "typecheck.py"), str(FIXTURE)],
                          capture_output=True, text=True, timeout=1800)
    mine = [line.split(": ", 1)[1] for line in done.stdout.splitlines() if str(FIXTURE) in line]
    assert mine == [
        'error: Missing key "max_instances" for TypedDict "ComputeClusterArgs"  [typeddict-item]',
        'error: Extra key "max_instanses" for TypedDict "ComputeClusterArgs"  [typeddict-unknown-key]',
        'error: Incompatible types (expression has type "str", TypedDict item "idle_time_before_shutdown_minutes" '
        'has type "int")  [typeddict-item]',
    ]
    assert done.returncode == 1


def test_make_test_runs_the_type_checker() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "\ntest: lint typecheck\n" in makefile
    assert "\ntypecheck: install\n\t$(BIN)/python tools/typecheck.py\n" in makefile
