"""The suite's one run of tools/typecheck.py (mypy --strict over the package) with every program the tests
type-check against it: the misspelt component arguments (tests/tools/test_typecheck.py) and the embedder's
programs (tests/test_embedding.py). A warm mypy run costs its start and the package's cache load whichever
programs it checks, so the tests share one run (tests.once: one per test run, across xdist workers) and each
reads the errors of its own programs.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["PROGRAMS", "run"]

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = {
    "typed_program": ROOT / "tests" / "fixtures" / "typed_program" / "__main__.py",
    "embedder": ROOT / "tests" / "fixtures" / "embedder" / "embedder.py",
    "misuse": ROOT / "tests" / "fixtures" / "embedder" / "misuse.py",
}
EXAMPLE = "embedding_example"
"""docs/embedding.md's example, written as a program of its own (its name in the result)."""


def run(directory: Path) -> dict[str, Any]:
    """{"returncode", "errors": {program: its error lines, without the path}, "other": every other line}."""
    from tests.test_embedding import examples

    example = directory / f"{EXAMPLE}.py"
    example.write_text(examples()[0], encoding="utf-8")
    programs = {**PROGRAMS, EXAMPLE: example}
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "typecheck.py"), *map(str, programs.values())],
                          capture_output=True, text=True, timeout=1800, check=False)
    errors: dict[str, list[str]] = {name: [] for name in programs}
    other = []
    for line in done.stdout.splitlines():
        name = next((name for name, path in programs.items() if line.startswith(f"{path}:")), None)
        if name is None:
            other.append(line)
        else:
            errors[name].append(line.split(": ", 1)[1])
    return {"returncode": done.returncode, "errors": errors, "other": other, "stderr": done.stderr}
