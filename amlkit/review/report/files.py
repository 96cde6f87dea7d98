"""Writing a report file (`--output`): all or nothing.

The report goes to a temporary file in the target's own directory, is flushed to disk, then renamed over the
target, so a reader (or a failed write: disk full, quota, I/O error) never sees a truncated report: on failure
the previous report stays as it was and the command exits 3 ("amlkit could not finish").

The file gets the mode a plain write gives (what 0.2.0 gave, and what a cold run gives): a new file
0666 less the umask (the kernel applies it, as to any `open`), an existing file keeps its mode. A target that
is a symbolic link is written through it, as a plain write does; one that is no regular file (`/dev/stdout`,
a named pipe) is written to as is, never replaced. A directory that does not exist, or a target
that is a directory, is bad usage (exit 2), found before anything is written.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from amlkit.errors import CouldNotFinish, UsageError

__all__ = ["write_report"]


def write_report(path: Path, text: str, what: str = "report") -> None:
    """Write `text` to `path` atomically (see the module doc); `what` the file is, for messages (`amlkit fix`
    writes stack files with it)."""
    target = Path(os.path.realpath(path))
    if not target.parent.is_dir():
        raise UsageError(f"{path}: cannot write the {what}: no directory {target.parent}")
    if target.is_dir():
        raise UsageError(f"{path}: cannot write the {what}: it is a directory")
    existing = target.exists()
    try:
        if existing and not os.access(target, os.W_OK):  # a plain write would be refused: so is this one
            raise PermissionError(13, os.strerror(13))
        info = target.stat() if existing else None
        if info is not None and not stat.S_ISREG(info.st_mode):  # /dev/stdout, a pipe: written as is, never replaced
            with open(target, "w", encoding="utf-8") as handle:
                handle.write(text)
            return
        _replace(target, text, stat.S_IMODE(info.st_mode) if info is not None else None)
    except OSError as error:
        left = f"the previous {what} is unchanged" if existing else f"no {what} was written"
        raise CouldNotFinish(f"{path}: cannot write the {what}: {error.strerror or error}; {left}") from error


def _replace(target: Path, text: str, mode: int | None) -> None:
    temporary = target.parent / f".{target.name}.{secrets.token_hex(6)}.tmp"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    try:
        with open(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
