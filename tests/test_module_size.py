"""No module of the package is over 500 lines (issue #34; the house style's limit): every .py file under
amlkit/, components/ (amlkit.components) and policies/ (amlkit.policies), counted as `wc -l` counts."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("amlkit", "components", "policies")
LIMIT = 500


def line_counts() -> dict[str, int]:
    return {path.relative_to(ROOT).as_posix(): path.read_bytes().count(b"\n")
            for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}


def test_the_package_has_modules_to_measure() -> None:
    counts = line_counts()
    assert len(counts) > 100
    assert {"amlkit/cli.py", "components/workspace.py", "policies/azure.py"} <= set(counts)


def test_no_module_is_over_500_lines() -> None:
    over = {path: count for path, count in line_counts().items() if count > LIMIT}
    assert over == {}
