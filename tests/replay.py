"""The real review engine, recorded: CLI tests that run the same review in several formats review once.

The CLI imports `amlkit.review.engine` by name on each command (`cli._engine`), so a test can put this
stand-in in `sys.modules`. The first call with given arguments runs the real engine; a later call with
exactly the same arguments (project, stacks, pack, config, jobs, timeout, verbose, plan inputs) gets a
copy of that review back. The report format and `--output` never reach the engine, so each format is
still rendered and written by the real CLI from a real review; what the engine itself prints (e.g.
`--verbose` lines) is printed by the first call of each kind.
"""

from __future__ import annotations

import copy
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import amlkit.review.engine as real
from amlkit.review.model import Review
from amlkit.review.options import ReviewOptions


class ReplayEngine:
    def __init__(self) -> None:
        self.reviews: dict[str, Review] = {}
        self.calls: list[str] = []  # the key of every call, in order

    def module(self) -> types.ModuleType:
        module = types.ModuleType("amlkit.review.engine")
        module.__dict__.update({name: getattr(real, name) for name in dir(real) if not name.startswith("__")})
        module.review = self.review
        return module

    def review(self, project_dir: Path, stacks: Any = None, options: ReviewOptions | None = None) -> Review:
        key = repr((str(project_dir), stacks, options))
        self.calls.append(key)
        if key not in self.reviews:
            self.reviews[key] = real.review(project_dir, stacks, options)
        return copy.deepcopy(self.reviews[key])

    @property
    def real_runs(self) -> int:
        return len(self.reviews)


@contextmanager
def replaying() -> Iterator[ReplayEngine]:
    """Install a ReplayEngine as `amlkit.review.engine` for the duration."""
    engine = ReplayEngine()
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(sys.modules, "amlkit.review.engine", engine.module())
        yield engine
