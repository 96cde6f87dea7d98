"""A program worker: one child of the fork server that runs stacks one after another (the child's side; the
parent's is amlkit.review.proc.workers).

The fork server forks it like a runner child, with a socket as its stdin. Per stack the parent sends a
message `{"cwd", "env", "umask", "request"}` with two file descriptors (the stack's result pipe and its
stderr file); the worker makes them its stdout and stderr, adopts the environment, working directory and
umask, runs exactly what `amlkit.review.run.runner` runs for that request, then resets and checks the
process (amlkit.review.proc.isolation) and answers `{"reuse": bool, "leaks": [...]}` once the stack's pipe
is closed. It exits after a stack that leaked, and when the parent closes the socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import socket
import sys
from pathlib import Path
from typing import Any

from amlkit.review.proc import environment, isolation
from amlkit.review.proc.wire import receive, send

__all__ = ["serve"]


def serve(sock: socket.socket, fresh_stdio: Any) -> int:
    """Run stacks until the parent closes the socket or a stack leaks; the exit code."""
    from amlkit.review.run import runner

    pristine = contextvars.copy_context()
    devnull = os.open(os.devnull, os.O_RDWR)
    sock = socket.socket(fileno=os.dup(sock.detach()))  # fd 0 becomes /dev/null, as a drained stdin
    os.dup2(devnull, 0)
    asyncio.get_event_loop_policy()  # created once, before the baseline
    base: isolation.Baseline | None = None
    while True:
        try:
            message, fds = receive(sock)
        except (EOFError, OSError):
            return 0
        if len(fds) != 2:
            return 1
        for target, fd in zip((1, 2), fds, strict=True):
            os.dup2(fd, target)
            os.close(fd)
        request = message["request"]
        os.chdir(message["cwd"])
        environment.adopt(message["env"], message["umask"])
        fresh_stdio(unbuffered=False)
        if base is None:  # as the first stack starts (its stdio and environment are replaced per stack)
            base = isolation.capture()
        failed = pristine.copy().run(_one, runner, request)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        try:
            leaks = isolation.restore(base, _program_dir(request["program"]), failed)
        except Exception as error:  # noqa: BLE001 - never reuse a process that could not be checked
            leaks = [f"the check failed: {type(error).__name__}: {error}"]
        send(sock, {"reuse": not leaks, "leaks": leaks}, [])
        if leaks:
            return 0


def _one(runner: Any, request: dict[str, Any]) -> bool:
    """One stack in a new event loop, as a fresh runner would run it; whether the program failed."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        return not runner.serve(request, runner.Emitter(os.dup(1)))
    finally:
        with contextlib.suppress(Exception):
            loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()
        asyncio.set_event_loop(None)


def _program_dir(program: str) -> Path:
    path = Path(program).resolve()
    return path if path.is_dir() else path.parent
