"""Program workers (amlkit.review.proc.workers): a review whose stacks run one after another in one worker is
byte for byte (JSON report) the review with a fresh process per stack, for every program the tests use, and
a program that leaves state behind never reaches the next stack."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from amlkit.errors import ConfigError
from amlkit.review.engine import review
from amlkit.review.options import ReviewOptions
from amlkit.review.proc import environment, workers
from amlkit.review.report.json import render
from tests.review.test_preview_knowledge import PROGRAMS, rule_examples

pytestmark = pytest.mark.slow

STATE = Path(__file__).resolve().parents[1] / "data" / "worker_state"  # not in fixtures/: no preview proof
# fixtures/faulty's `hang` stack sleeps for an hour: it ends at the review's timeout, the default 120 s of which
# held this test's worker for 6 minutes (three reviews of the project) doing nothing. Both ways get the same
# timeout, so the reports still compare byte for byte (the hang's error names it); 10 s leaves faulty's other,
# tiny stacks ample time on a loaded machine.
TIMEOUTS = {"fixtures/faulty": 10.0}
CLEAN = ["argv-1", "count-1", "cwd-program", "env-none", "json-none", "module-none", "path-0", "signal-default",
         "thread-none", f"umask-{environment.umask():o}"]


def _json(directory: Path, monkeypatch: pytest.MonkeyPatch, switch: str, jobs: int | None,
          timeout: float = ReviewOptions.timeout) -> str:
    monkeypatch.setenv(workers.SWITCH, switch)
    try:
        return render(review(directory, options=ReviewOptions(jobs=jobs, timeout=timeout)))
    except ConfigError as error:  # a program refused before it runs (fixtures/native_1x): the same both ways
        return f"refused: {error}"


@pytest.fixture
def finished(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, list[str]]]:
    """(stack's first resource group, worker pid, leaks) per stack run in a worker, in order."""
    seen: list[tuple[str, int, list[str]]] = []
    original = workers.finish

    def finish(run: workers.StackRun, complete: bool) -> None:
        original(run, complete)
        seen.append((run.worker.program.name, run.pid, list(run.worker.leaks)))

    monkeypatch.setattr(workers, "finish", finish)
    return seen


def test_a_program_that_leaves_state_behind_never_reaches_the_next_stack(
        monkeypatch: pytest.MonkeyPatch, finished: list[tuple[str, int, list[str]]]):
    monkeypatch.setenv(workers.SWITCH, "1")
    monkeypatch.delenv("AMLKIT_FIXTURE_LEFT", raising=False)
    result = review(STATE, options=ReviewOptions(jobs=1))
    names = {stack.stack: sorted(r.name for r in stack.resources) for stack in result.stacks}
    assert names == {"a": CLEAN, "b": CLEAN, "c": CLEAN, "d": CLEAN, "e": CLEAN, "f": [], "g": CLEAN}
    assert [stack.error_kind for stack in result.stacks] == [None, None, None, None, None, "program", None]
    leaks = [found for _, _, found in finished]
    assert leaks == [[], [], ["module json: amlkit_fixture changed"], ["a signal handler changed"],
                     ["1 thread(s) still running"], ["the program failed"], []]
    pids = [pid for _, pid, _ in finished]
    # a, b and c share a worker (a and b reset what they left); each leak ends its worker
    assert pids[0] == pids[1] == pids[2] and len(set(pids[2:])) == 5


def _programs(tmp: Path) -> dict[str, Path]:
    return {**PROGRAMS, "fixtures/worker_state": STATE, "rule-examples": rule_examples(tmp)}


def test_workers_review_every_program_byte_for_byte_as_fresh_processes(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """Each fixture, the samples, examples/platform-repo and every rule example, fresh processes vs one worker
    (--jobs 1: every stack after the first runs where another ran) vs the default jobs."""
    differ: dict[str, Any] = {}
    programs = _programs(tmp_path)
    assert set(TIMEOUTS) <= set(programs)  # the timeout is cut for a program this test reviews
    for label, directory in programs.items():
        timeout = TIMEOUTS.get(label, ReviewOptions.timeout)
        fresh = _json(directory, monkeypatch, "0", 1, timeout)
        assert (label in TIMEOUTS) == ("the program did not finish within" in fresh), label  # only the hang
        for jobs in (1, None):
            if _json(directory, monkeypatch, "1", jobs, timeout) != fresh:
                differ[label] = jobs
    assert differ == {}


class _FakeProcess:
    pid = 4242

    def poll(self) -> None:
        return None


class _FakeWorker(workers.Worker):
    """A worker whose process looks alive; `gone`: its end of the socket is closed (it exited after it was taken)."""

    def __init__(self, program: Path, cwd: Path, gone: bool = False) -> None:
        import socket

        self.program, self.leaks, self.closed = program, [], False
        self.sock, self.peer = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.process = _FakeProcess()  # type: ignore[assignment]
        if gone:
            self.peer.close()

    def close(self) -> None:
        self.closed = True
        self.sock.close()


def test_a_worker_that_exits_after_it_is_taken_gives_the_stack_a_fresh_one(tmp_path, monkeypatch):
    program = tmp_path / "__main__.py"
    gone = _FakeWorker(program, tmp_path, gone=True)
    fresh: list[_FakeWorker] = []
    monkeypatch.setattr(workers, "_take", lambda wanted: gone if wanted == program else None)
    monkeypatch.setattr(workers, "Worker", lambda *args: fresh.append(_FakeWorker(*args)) or fresh[-1])
    with open(tmp_path / "stderr", "w+b") as stderr:
        run = workers.start(program, tmp_path, stderr, {"stack": "dev"})
        run.stdout.close()
    assert (gone.closed, len(fresh), run.worker is fresh[0], fresh[0].closed) == (True, 1, True, False)
    fresh[0].close()
    fresh[0].peer.close()


@pytest.mark.parametrize("one_shot, stacks, waits", [(True, 1, False), (True, 2, True), (False, 1, True)],
                         ids=["one-shot-one-stack", "one-shot-two-stacks", "library-one-stack"])
def test_only_a_one_shot_review_of_one_stack_closes_its_worker_without_its_verdict(tmp_path, monkeypatch, one_shot,
                                                                                   stacks, waits):
    """A one-shot command's only stack (warm.eager): its worker never runs another stack, so the parent does not
    wait for the worker's check of what the stack left behind; otherwise it waits and keeps a clean worker."""
    import os

    from amlkit.review.proc import warm, wire

    monkeypatch.setattr(warm, "_ONE_SHOT", one_shot)
    worker = _FakeWorker(tmp_path / "__main__.py", tmp_path)
    wire.send(worker.peer, {"reuse": True, "leaks": []}, [])  # the worker's verdict, ready to be read
    read, write = os.pipe()
    os.close(write)
    run = workers.StackRun(worker, open(read, "rb"))  # noqa: SIM115 - finish() closes it
    with workers.review_session(None, None, stacks):
        workers.finish(run, complete=True)
        closed, kept = worker.closed, worker in workers._IDLE
    assert (closed, kept) == ((False, True) if waits else (True, False))
    worker.peer.close()
