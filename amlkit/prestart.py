"""Whether an `amlkit` command line runs a review, and the fork server started for it before anything else
(amlkit.review.proc.warm): used by the console script (amlkit.launch) and by the command line (amlkit.cli)."""

from __future__ import annotations

import atexit
import os
import sys
import threading
from pathlib import Path
from typing import NoReturn

__all__ = ["audits", "exit_quickly", "prestart", "project_hint", "reviews"]


def prestart(args: list[str]) -> None:
    """Start the fork server now when `args` run a review (before any gRPC channel exists in this process:
    see amlkit.review.proc.warm); a later call is a no-op while it runs."""
    if reviews(args):
        from amlkit.review.proc import warm

        # an audit runs no program: nothing of the project's to preload
        warm.prestart(None if audits(args) else project_hint(args), one_shot=True)


def project_hint(args: list[str]) -> Path:
    """The project a review command line names (`-C DIR`, else its first stack file's directory, else `.`)."""
    for index, arg in enumerate(args):
        if arg in ("-C", "--project-dir") and index + 1 < len(args):
            return Path(args[index + 1])
        if arg.startswith("--project-dir="):
            return Path(arg.split("=", 1)[1])
    files = [arg for arg in args if arg.endswith((".yaml", ".yml"))]
    return Path(files[0]).parent if files else Path(".")


def reviews(args: list[str]) -> bool:
    """Whether the command line runs a review (`check`, `preview`, `analyze` or `fix`, not just their help)."""
    command = next((a for a in args if not a.startswith("-")), None)
    return command in ("check", "preview", "analyze", "fix") and not {"--help", "-h"} & set(args)


def audits(args: list[str]) -> bool:
    """Whether the command line audits deployed states (`analyze`, `check --state`): no program runs."""
    command = next((a for a in args if not a.startswith("-")), None)
    return command == "analyze" or (command == "check" and any(a == "--state" or a.startswith("--state=")
                                                                for a in args))


def exit_quickly(code: str | int | None) -> NoReturn:
    """End a review's process with `code` (as `sys.exit(code)` would) without the interpreter's teardown, which frees
    every module and object the review loaded (grpc, protobuf, the engine; measured 0.03-0.3 s of wall time after
    the report is written, more under load). What the teardown would do that anyone sees is done first: the atexit
    handlers (children and the fork server killed, temporary directories removed, logging flushed), then stdout and
    stderr flushed. A process with a thread still running that is not a daemon exits the usual way (the interpreter
    waits for it), and so does one whose output cannot be flushed (the interpreter reports it and exits 120)."""
    if any(not thread.daemon for thread in threading.enumerate() if thread is not threading.main_thread()):
        sys.exit(code)
    status = _status(code)
    atexit._run_exitfuncs()  # runs each handler once: the usual exit below finds none left
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader gone or a stream closed: the interpreter's own exit reports it
            sys.exit(code)  # (`Exception ignored in: <stdout>`) and exits 120, whatever the status was
    os._exit(status)


def _status(code: str | int | None) -> int:
    """The exit status `sys.exit(code)` gives: None is 0, an int is itself (the OS keeps its low byte), anything else
    is printed to stderr and gives 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1
