"""`mypy --strict` over amlkit/, components/ and policies/ as the package `amlkit` (what `make test` runs).

setuptools maps `amlkit.components` to components/ and `amlkit.policies` to policies/ (pyproject.toml
`package-dir`); mypy resolves modules from directories only and cannot follow that mapping (nor the
editable install's import hook). So this builds the package's tree as setuptools lays it out, out of
symlinks (build/typecheck/amlkit/, with components/ and policies/ linked in), runs mypy on it with the
`[tool.mypy]` settings of pyproject.toml, and prints each error at its path in the repository.
Extra arguments go to mypy (e.g. a fixture program to check against the package).

Runs of one checkout take turns (an exclusive lock on build/typecheck.lock, held while the tree is rebuilt and
mypy runs): the tree is removed and rebuilt on every run, and two runs at once (`make typecheck` beside the
suite, or two pytest-xdist workers each running a test that type-checks) would otherwise remove the tree under
each other's mypy. They also share `.mypy_cache`.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TREE = ROOT / "build" / "typecheck"
LOCK = ROOT / "build" / "typecheck.lock"
MAPPED = {"components": ROOT / "components", "policies": ROOT / "policies"}  # under amlkit/, as installed


def build_tree(tree: Path = TREE) -> Path:
    """build/typecheck/amlkit: amlkit/'s entries, and components/ and policies/ as its subpackages."""
    package = tree / "amlkit"
    if package.exists():
        shutil.rmtree(package)
    package.mkdir(parents=True)
    for entry in sorted((ROOT / "amlkit").iterdir()):
        if entry.name not in MAPPED and entry.name != "__pycache__":
            os.symlink(entry, package / entry.name)
    for name, source in MAPPED.items():
        os.symlink(source, package / name)
    return tree


def repository_path(line: str, tree: Path = TREE) -> str:
    """A mypy line about build/typecheck/amlkit/<x> as the repository's path of <x>."""
    for name in MAPPED:
        line = line.replace(f"amlkit/{name}/", f"{name}/")
    return line


def run(extra: list[str]) -> int:
    from mypy import api

    LOCK.parent.mkdir(parents=True, exist_ok=True)
    with LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        tree = build_tree()
        cwd = os.getcwd()
        os.chdir(tree)
        try:
            stdout, stderr, status = api.run(["--config-file", str(ROOT / "pyproject.toml"),
                                              "--cache-dir", str(ROOT / ".mypy_cache"), "amlkit", *extra])
        finally:
            os.chdir(cwd)
    for line in stdout.splitlines():
        print(repository_path(line))
    print(stderr, end="", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
