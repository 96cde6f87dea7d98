"""Program workers, the parent's side: a review runs each stack's program in a worker forked from the fork server
(amlkit.review.proc.warm), which runs stacks one after another (the child's side, and what it resets and checks
between two stacks: amlkit.review.children.worker and amlkit.review.proc.isolation).

A review thread takes an idle worker of the same program (or forks one), sends it the stack's request with the
stack's result pipe and stderr file, reads the result as from a fresh runner child (`StackRun` has the part of
Popen's interface `amlkit.review.run.client.Runner` uses), then gives it back. A worker that reported a leak,
failed, timed out or was interrupted is killed; the next stack gets a fresh one. When the last review of the
process ends, the idle workers are stopped.

`AMLKIT_PROGRAM_WORKERS` in the environment: `1` (the default; unset or empty is the same) runs stacks in workers,
`0` a fresh runner child per stack, as before workers (the fidelity test and the bench compare both ways). Any other
value is a usage error (exit 2) naming the variable, the value and what is allowed (`check_switch`), before any work.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from amlkit.errors import UsageError, elide
from amlkit.review.proc import environment, learned, processes, warm
from amlkit.review.proc.wire import receive, send

__all__ = [
    "FINISH_TIMEOUT", "SWITCH", "SWITCH_VALUES", "StackRun", "Worker", "check_switch", "enabled", "finish",
    "review_session", "session", "start",
]

FINISH_TIMEOUT = 60.0  # seconds for a worker to reset itself after a stack
SWITCH = "AMLKIT_PROGRAM_WORKERS"
SWITCH_VALUES = ("0", "1")  # a fresh process per stack, workers (the default)


def check_switch() -> None:
    """A review checks `AMLKIT_PROGRAM_WORKERS` before any work: a value other than 0, 1 or empty is a usage error."""
    enabled()


def enabled() -> bool:
    """Whether stacks run in workers (`1`, the default; unset or empty the same) or each in a fresh child (`0`);
    any other value raises UsageError (exit 2) naming the variable, the value and what is allowed."""
    value = os.environ.get(SWITCH, "").strip() or "1"
    if value not in SWITCH_VALUES:
        raise UsageError(f"{SWITCH}={elide(os.environ[SWITCH], 40)!r} is not allowed; allowed: 1 (run each job's "
                         "stacks one after another in a program worker, the default; unset or empty is the same) "
                         "or 0 (a fresh process per stack)")
    return value == "1"


class Worker:
    """One worker process and the socket its stacks' requests travel on."""

    def __init__(self, program: Path, cwd: Path) -> None:
        self.program = program
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.process = warm.spawn_worker(cwd, theirs)
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self.sock = ours
        self.leaks: list[str] = []

    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        processes.kill(self.process)
        self.sock.close()


class StackRun:
    """One stack running in a worker: its result pipe (`stdout`), and the worker's exit as its own."""

    stdin = None
    stderr = None

    def __init__(self, worker: Worker, stdout: Any) -> None:
        self.worker, self.stdout, self.pid = worker, stdout, worker.process.pid

    def poll(self) -> int | None:
        return self.worker.process.poll()

    def wait(self, timeout: float | None = None) -> int:
        return self.worker.process.wait(timeout)


_IDLE: list[Worker] = []
_LOCK = threading.Lock()
_SESSIONS = 0
# True while a one-shot command reviews its one stack (warm.eager): its worker never runs another stack, so it is
# closed after the stack without waiting for its own check of what the stack left behind (amlkit.review.proc.isolation)
_LAST = [False]


def start(program: Path, cwd: Path, stderr: Any, request: dict[str, Any]) -> StackRun:
    """Run `request` (the runner's, amlkit.review.run.runner) in an idle worker of `program`, or a new one."""
    worker = _take(program)
    if worker is not None:  # alive when taken, it may still exit before it reads: the stack then gets a fresh one
        with contextlib.suppress(OSError):
            return _send(worker, cwd, stderr, request)
    return _send(Worker(program, cwd), cwd, stderr, request)


def _send(worker: Worker, cwd: Path, stderr: Any, request: dict[str, Any]) -> StackRun:
    """The stack's request to `worker`, with its result pipe and stderr; OSError (the worker is closed) when the
    worker cannot take it."""
    read, write = os.pipe()
    try:
        send(worker.sock, {"cwd": str(cwd), "env": dict(os.environ), "umask": environment.umask(),
                           "request": request}, [write, stderr.fileno()])
    except OSError:
        os.close(read)
        worker.close()
        raise
    finally:
        os.close(write)
    return StackRun(worker, open(read, "rb"))  # noqa: SIM115 - closed in finish()


def finish(run: StackRun, complete: bool) -> None:
    """After a stack: give the worker back when its stack ran to the end and it found no leak, else kill it."""
    worker = run.worker
    with contextlib.suppress(OSError):
        run.stdout.close()
    reuse = False
    if complete and not _LAST[0]:  # a worker that leaked exits right after its answer: read it even then
        try:
            worker.sock.settimeout(FINISH_TIMEOUT)
            reply, _ = receive(worker.sock)
            reuse, worker.leaks = bool(reply.get("reuse")), list(reply.get("leaks") or [])
        except (OSError, EOFError, ValueError):
            reuse = False
    with _LOCK:
        if reuse and _SESSIONS > 0:
            _IDLE.append(worker)
            return
    worker.close()


def _take(program: Path) -> Worker | None:
    dead = []
    found = None
    with _LOCK:
        for worker in [worker for worker in _IDLE if worker.program == program]:
            _IDLE.remove(worker)
            if worker.alive():
                found = worker
                break
            dead.append(worker)
    for worker in dead:
        worker.close()
    return found


@contextlib.contextmanager
def session() -> Iterator[None]:
    """A review: workers are kept between its stacks; the idle ones stop when the process's last review ends."""
    global _SESSIONS
    with _LOCK:
        _SESSIONS += 1
    try:
        yield
    finally:
        with _LOCK:
            _SESSIONS -= 1
            stopping = list(_IDLE) if _SESSIONS == 0 else []
            if stopping:
                _IDLE.clear()
        for worker in stopping:
            worker.close()


@contextlib.contextmanager
def review_session(program: Path | None, pack: Path | None, stacks: int) -> Iterator[warm.ForkServer]:
    """The process's fork server (started on first use, or prestarted), told what this review will fork.

    It lives as long as this process (stopped at exit), so a second review in the same process forks from
    a server that has imported everything already; no review ever stops it under another one running
    at the same time.
    """
    server = warm.server()
    server.plan(program, pack, stacks)
    _LAST[0] = warm.eager(stacks)
    try:
        with session():
            yield server
    finally:
        _LAST[0] = False
        warm.drop_parked()  # a pack child forked ahead that no stack took (warm.prefork_pack)
    if program is not None:  # the provider modules its stacks used: preloaded for its next review
        learned.keep(program)
