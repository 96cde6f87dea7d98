"""Child processes of a review: each in its own process group, all killed on exit or Ctrl-C."""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

__all__ = ["Drain", "HEAD_BYTES", "TAIL_BYTES", "adopt", "cancel_on_interrupt", "cancelled", "kill", "kill_all",
           "usable_cpus"]

_LIVE: set[Any] = set()  # Popen, or warm.WarmChild
_Child = TypeVar("_Child")
_LOCK = threading.Lock()
_CANCELLED = threading.Event()


def adopt(start: Callable[[], _Child]) -> _Child:
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


def kill(process: Any) -> None:
    """Kill the child's whole process group (a Popen or a warm.WarmChild) and reap it; safe to call twice."""
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


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, e.g. a CI container's cpuset): the default --jobs."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def cancelled() -> bool:
    """Whether Ctrl-C is stopping the review (no child may start; waits should give up)."""
    return _CANCELLED.is_set()


atexit.register(kill_all)


TAIL_BYTES = 64 * 1024  # what a Drain keeps of a stream's end
HEAD_BYTES = 4096  # what a Drain keeps of a stream's start while it looks for the first line


class Drain:
    """Reads a child's output pipe to its end in a thread, so the child never blocks on a full pipe.

    Keeps the first line (the pack's port) and the last TAIL_BYTES (the end of a traceback); the rest is
    read and dropped. The thread owns the stream: it closes it at EOF, which comes when the child and
    everything it started are gone (`kill`), so nothing else may close or read it.
    """

    def __init__(self, stream: Any, name: str) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._head = b""
        self._tail = bytearray()
        self._first_line: bytes | None = None
        self._line_or_end = threading.Event()
        self._ended = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        fd = self._stream.fileno()
        try:
            while chunk := os.read(fd, 1 << 16):
                with self._lock:
                    if self._first_line is None:
                        self._head = (self._head + chunk)[:HEAD_BYTES]
                        if b"\n" in self._head or len(self._head) >= HEAD_BYTES:
                            self._first_line = self._head.split(b"\n", 1)[0]
                            self._line_or_end.set()
                    self._tail += chunk
                    del self._tail[:-TAIL_BYTES]
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                self._stream.close()
            self._ended.set()
            self._line_or_end.set()

    def first_line(self, timeout: float) -> bytes | None:
        """The stream's first line (without the newline) once it is complete; None when the stream ended
        without one, or when `timeout` seconds passed first (tell them apart with `ended`)."""
        self._line_or_end.wait(timeout)
        with self._lock:
            return self._first_line

    def ended(self) -> bool:
        return self._ended.is_set()

    def tail_lines(self, count: int, timeout: float = 0.0) -> list[str]:
        """The last `count` non-blank lines read so far, after waiting up to `timeout` seconds for the end."""
        self._ended.wait(timeout)
        with self._lock:
            text = bytes(self._tail).decode(errors="replace")
        return [line.rstrip() for line in text.splitlines() if line.strip()][-count:]
