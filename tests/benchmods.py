"""The benchmark's generators (bench/), for tests that need a generated project or state."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def bench_module(name: str) -> ModuleType:
    """The module bench/<name>.py, imported without leaving bench/ on sys.path."""
    bench = str(ROOT / "bench")
    sys.path.insert(0, bench)
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(bench)


def platform_state(path: Path, environments: int) -> Path:
    """A generated ML platform state at `path` (bench/auditstate.py): the stack, its provider and `environments`
    whole environments."""
    auditstate = bench_module("auditstate")
    auditstate.write(path, 2 + environments * auditstate.PER_ENVIRONMENT)
    return path
