"""Work done once per test run, shared by every module and every pytest-xdist worker that needs it.

A session fixture runs once per process, and under xdist (`make test`) each worker is its own process, so an
expensive step two modules need (a mypy run over the package) would run once per worker that has one of them.
`once(name, ...)` runs it in the first worker that asks, under an exclusive lock on a file in the run's shared
temporary directory (the parent of the workers' own basetemps, as pytest-xdist documents), and stores its JSON
result there; the other workers wait on the lock and read that result. Without xdist it is the session's
basetemp. A failed step stores nothing: the next caller runs it again (and fails the same way, in its own test).
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

__all__ = ["once"]


def shared_directory(factory: pytest.TempPathFactory) -> Path:
    """The directory every worker of this run sees (and no other run)."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once(name: str, factory: pytest.TempPathFactory, compute: Callable[[Path], Any]) -> Any:
    """compute(directory)'s JSON-able result, computed by one process of the run; `directory` is the step's own
    directory (shared by the workers, so what it writes there stays readable to them)."""
    root = shared_directory(factory) / f"once-{name}"
    root.mkdir(exist_ok=True)
    result = root / "result.json"
    with (root / "lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not result.exists():
            value = compute(root)
            result.write_text(json.dumps(value), encoding="utf-8")
    return json.loads(result.read_text(encoding="utf-8"))
