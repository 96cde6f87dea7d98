"""Child processes of a review: each in its own process group, all killed on exit or Ctrl-C."""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator
from typing import Any

_LIVE: set[Any] = set()  # Popen, or warm.WarmChild
_LOCK = threading.Lock()
_CANCELLED = threading.Event()


def adopt(start: Callable[[], Any]) -> Any:
    """Track a child started by `start()` (e.g. forked by the warm-start server) until `kill`.

    It must have Popen's `pid`, `wait`, `poll` and std streams, and lead its own process group.
    """
    with _LOCK:
        if _CANCELLED.is_set():
            raise KeyboardInterrupt("review cancelled")
        process = start()
        _LIVE.add(process)
    return process


@contextlib.contextmanager
def cancel_on_interrupt() -> Iterator[None]:
    """On Ctrl-C, kill every child and refuse to start new ones (other errors let each stack clean up)."""
    _CANCELLED.clear()
    try:
        yield
    except (KeyboardInterrupt, SystemExit):
        _CANCELLED.set()
        kill_all()
        raise


def kill(process: subprocess.Popen) -> None:
    """Kill the child's whole process group and reap it; safe to call twice."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    with _LOCK:
        _LIVE.discard(process)


def kill_all() -> None:
    """Kill every child still alive (Ctrl-C, or the interpreter exiting)."""
    with _LOCK:
        live = list(_LIVE)
    for process in live:
        kill(process)


def live_count() -> int:
    with _LOCK:
        return len(_LIVE)


atexit.register(kill_all)
