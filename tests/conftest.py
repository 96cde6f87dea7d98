"""Suite-wide settings.

The review date is fixed (`AMLKIT_REVIEW_DATE`), so no outcome depends on the day the suite runs:
waiver expiry and VM series retirement are judged as of REVIEW_DATE, in this process and in every
child it starts (the runner, the policy pack, the CLI in a subprocess inherit the environment).

The review engine's fork server (amlkit.review.proc.warm) and amlkit's reused packs live as long as the
test process: every in-process review of the session forks from one server, which imports pulumi,
azure-native and the pack once; `warm_server` stops it (and so every pack) when the session ends. Under pytest-xdist
(`make test`, `make test-fast`) each worker is its own test process with its own fork server.

Under xdist's `--dist loadscope` a module's tests run on one worker, and xdist hands out modules in the order
given (the Makefile passes `--no-loadscope-reorder`: xdist's own reorder puts the modules with the most tests
first, so a module of one long test, such as the throwaway-rule test, started last and ran alone at the end).
`pytest_collection_modifyitems` moves the modules that hold a slow test to the front, in collection order, so
the long ones start first and the many short modules fill in behind them.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

import pytest

from amlkit.policies.framework import REVIEW_DATE_ENV

pytest_plugins = ["tests.loops"]  # --rule, and the report of tests over 2 s without the slow mark

REVIEW_DATE = "2026-11-24"


def pytest_configure(config) -> None:  # noqa: ARG001 - pytest's hook signature
    os.environ[REVIEW_DATE_ENV] = REVIEW_DATE
    # the reviews' learned preload lists (amlkit.review.proc.learned) go to a directory of the run, not ~/.cache
    os.environ.setdefault("AMLKIT_CACHE_DIR", tempfile.mkdtemp(prefix="amlkit-test-cache-"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules with a slow test first (a stable sort: the order inside each group is kept)."""
    slow = {item.nodeid.split("::", 1)[0] for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.nodeid.split("::", 1)[0] not in slow)


@pytest.fixture(scope="session")
def typechecked(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The run's one tools/typecheck.py over the package and the programs of tests/typechecked.py."""
    from tests import typechecked
    from tests.once import once

    return once("typecheck", tmp_path_factory, typechecked.run)


@pytest.fixture(scope="session", autouse=True)
def warm_server():
    """The session's fork server: started by the first review that needs it, stopped at the end."""
    yield
    from amlkit.review.proc import warm

    warm.stop()
