"""The process state a review's result depends on besides its command line: every environment variable, the
working directory, the umask and the time zone (`TZ`). A served command (amlkit.server) adopts the client's
before anything of the review runs, and the fork server's children (amlkit.review.proc.warm) adopt the
review's, so a program that reads a variable, a waiver judged "today" and a report's file mode come out as
in a cold run.

Some variables act only when a process starts (the interpreter's `PYTHON*`, the dynamic linker's `LD_*`,
gRPC's `GRPC_*`, the locale's `LANG` / `LC_*`, which fix Python's encodings at start): a process that already
runs cannot adopt them, so a server whose start-up variables differ from a command's does not serve it.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

__all__ = ["STARTUP_PREFIXES", "adopt", "adopted", "startup_env", "state", "umask"]

STARTUP_PREFIXES = ("PYTHON", "LD_", "GRPC_", "LANG", "LC_")


def startup_env(env: Mapping[str, str]) -> dict[str, str]:
    """The variables that take effect only when a process starts (see the module's doc)."""
    return {key: value for key, value in env.items() if key.startswith(STARTUP_PREFIXES)}


def umask() -> int:
    """This process's umask, read without changing it (/proc; else set and restored at once)."""
    with contextlib.suppress(OSError, ValueError, StopIteration), open("/proc/self/status") as status:
        return int(next(line for line in status if line.startswith("Umask:")).split()[1], 8)
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


def state() -> tuple[tuple[tuple[str, str], ...], int]:
    """This process's environment (time zone included) and umask: what a child started now inherits. A
    long-lived child (a reused pack) serves only a review made in the same state."""
    return tuple(sorted(os.environ.items())), umask()


def adopt(env: Mapping[str, str], mask: int) -> None:
    """Make this process's environment exactly `env` (time zone included: `TZ`) and its umask `mask`."""
    for key in [key for key in os.environ if key not in env]:
        del os.environ[key]
    os.environ.update(env)
    time.tzset()
    os.umask(mask)


@contextlib.contextmanager
def adopted(env: Mapping[str, str], mask: int, cwd: Path) -> Iterator[None]:
    """This process with `env`, umask `mask` and working directory `cwd` for the block, then restored."""
    saved_env, saved_mask, saved_cwd = dict(os.environ), umask(), os.getcwd()
    try:
        os.chdir(cwd)
        adopt(env, mask)
        yield
    finally:
        adopt(saved_env, saved_mask)
        os.chdir(saved_cwd)
