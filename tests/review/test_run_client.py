"""amlkit.review.run.client.Runner: a program child whose start fails leaves no file open and no child running."""

from __future__ import annotations

import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from amlkit.review.proc import processes, warm, workers
from amlkit.review.run import client


class _Stdin:
    def write(self, data: bytes) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def close(self) -> None:
        pass


def _fresh_child_gone(monkeypatch: pytest.MonkeyPatch, killed: list[Any]) -> None:
    """Stacks in fresh children; the child exits before it reads its request."""
    child = SimpleNamespace(stdin=_Stdin())
    monkeypatch.setenv(workers.SWITCH, "0")
    monkeypatch.setattr(warm, "spawn_runner", lambda cwd, stderr: child)
    monkeypatch.setattr(processes, "kill", killed.append)


def _worker_refused(monkeypatch: pytest.MonkeyPatch, killed: list[Any]) -> None:
    """Stacks in workers; starting the stack's worker fails."""
    def start(*args: Any) -> None:
        raise OSError("no worker")

    monkeypatch.setenv(workers.SWITCH, "1")
    monkeypatch.setattr(workers, "start", start)


@pytest.mark.parametrize("case, error, kills", [
    (_fresh_child_gone, BrokenPipeError, 1),
    (_worker_refused, OSError, 0),
])
def test_a_runner_that_cannot_start_closes_its_stderr_file_and_kills_its_child(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, case: Any, error: type[BaseException], kills: int):
    killed: list[Any] = []
    opened: list[Any] = []
    case(monkeypatch, killed)
    original = tempfile.TemporaryFile
    monkeypatch.setattr(client.tempfile, "TemporaryFile", lambda: opened.append(original()) or opened[-1])
    project = SimpleNamespace(main=tmp_path / "__main__.py", name="p", dir=tmp_path)
    config = SimpleNamespace(stack="dev", values={}, secret_keys=())
    with pytest.raises(error):
        client.Runner(project, config, {}, timeout=5.0, verbose=False)  # type: ignore[arg-type]
    assert ([file.closed for file in opened], len(killed)) == ([True], kills)
