"""The opt-in persistent review server: `amlkit server start|stop|status`, for pre-commit hooks and editors.

`amlkit server start [DIR]...` starts one server for this user (`python -m amlkit.server_process`, detached). It
imports the review engine once and keeps its fork server and amlkit's packs warm (amlkit.review.proc.warm,
amlkit.review.pack.pool.PackPool); later `amlkit check` / `amlkit preview` commands hand it their command
line (amlkit.launch) instead of starting cold, and print what it answers: the same bytes and the same
exit code as a cold run (tests/test_server.py). Nothing uses it unless it was started.

Served equals cold by construction: the request carries the command's whole environment, working
directory and umask, and the server runs the command in them (amlkit.review.proc.environment): the time
zone (`TZ`), a variable the program reads and a report's file mode come out as in a cold run. A command
goes to the server only when all of these hold, else it runs cold as usual (`-v` says why):
- its output is not a terminal (the server renders without colour, as a cold run into a pipe does);
- the server runs the same interpreter, amlkit (every file of its packages: the CLI, the components, the
  pack), pulumi, pulumi-policy and the provider SDKs as when it started, and has the same start-up
  variables (`PYTHON*`, `LD_*`, `GRPC_*`, `LANG`, `LC_*`: a running process cannot adopt those). When the
  code changed, the server answers "stale", the command runs cold, and the server starts itself again on
  the new code (os.execv);
- the command's working directory and every path it names, as the CLI's own parser reads the command line
  (`-C DIR`, `-CDIR`, `--output=FILE`, stack files...), are inside a directory the server was started for;
- the server answers within CLIENT_TIMEOUT seconds (`$AMLKIT_SERVER_TIMEOUT` when set: `client_timeout`), and
  keeps answering while it works (a heartbeat each second): a stopped or hung server never hangs a command,
  which then runs cold.

One server per socket directory: `start` runs one at a time (start.lock), and the server holds an exclusive
lock (server.lock) for its life, so a second one refuses to start; a server removes only the socket it
created (same inode). It reads each connection in a thread of its own (a silent one is dropped after
CLIENT_TIMEOUT seconds and delays nobody) and runs one command at a time.

Access: the server listens only on a Unix socket, never on TCP: `$XDG_RUNTIME_DIR/amlkit/server.sock`
(else `/tmp/amlkit-<uid>/server.sock`), in a directory that must be owned by this user with mode 0700,
the socket mode 0600; both are checked when it starts (it refuses to start otherwise) and by every client
(`status` / `stop` say what is wrong in one line). Each connection's peer is checked with SO_PEERCRED:
another user's request is refused. It exits after `--idle-timeout` seconds without a request (default 900)
and on `amlkit server stop`.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import math
import os
import socket
import stat
import struct
import subprocess
import sys
import time
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from amlkit.errors import UsageError
from amlkit.review.proc import environment

__all__ = [
    "CLIENT_TIMEOUT", "DISTRIBUTIONS", "IDLE_TIMEOUT", "LOCK_NAME", "LOG_NAME", "SERVED_COMMANDS", "SERVER_DIR_ENV",
    "SOCKET_NAME", "START_LOCK_NAME", "START_TIMEOUT", "ServerError", "absent", "code_fingerprint", "forward", "lock",
    "outside", "peer_uid", "private_dir", "receive", "request", "run_request", "send", "socket_dir",
    "socket_path", "start", "status", "stop",
]

SOCKET_NAME = "server.sock"
LOG_NAME = "server.log"
LOCK_NAME = "server.lock"  # held by the running server
START_LOCK_NAME = "start.lock"  # held by `amlkit server start` while it starts one
IDLE_TIMEOUT = 900.0
START_TIMEOUT = 60.0
CLIENT_TIMEOUT = 5.0  # seconds to connect, and between two frames of an answer (the server beats each second)
SERVED_COMMANDS = ("check", "preview")
DISTRIBUTIONS = ("amlkit", "pulumi", "pulumi-policy", "pulumi-azure-native", "pulumi-azure", "grpcio", "protobuf")
_HEADER = struct.Struct("!I")


class ServerError(UsageError):
    """The server cannot start or be reached safely (a message for the user, exit 2)."""


TIMEOUT_ENV = "AMLKIT_SERVER_TIMEOUT"
TIMEOUT_LIMITS = (1.0, 3600.0)  # at least the heartbeat's second: a busy server is never taken for a silent one


def client_timeout() -> float:
    """Seconds a client waits to connect and between two frames of an answer: `$AMLKIT_SERVER_TIMEOUT` when set
    (a number from 1 to 3600), else CLIENT_TIMEOUT. Any other value is a ServerError (exit 2) naming it."""
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    if not raw:
        return CLIENT_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    low, high = TIMEOUT_LIMITS
    if not low <= value <= high:  # NaN too
        shown = raw if len(raw) <= 40 else raw[:37] + "..."
        raise ServerError(f"{TIMEOUT_ENV}={shown!r} is not a number of seconds; allowed: {low:g} to {high:g} (the "
                          f"seconds a command waits for the review server), or unset for {CLIENT_TIMEOUT:g}")
    return value


# --- where it listens --------------------------------------------------------------------------------

SERVER_DIR_ENV = "AMLKIT_SERVER_DIR"


def socket_dir() -> Path:
    """`$AMLKIT_SERVER_DIR` when set; else `$XDG_RUNTIME_DIR/amlkit` when that runtime directory is this
    user's; else `/tmp/amlkit-<uid>`. Whichever it is, it must be private (`private_dir`)."""
    if os.environ.get(SERVER_DIR_ENV):
        return Path(os.environ[SERVER_DIR_ENV])
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        with contextlib.suppress(OSError):
            info = os.stat(runtime)
            if info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) == 0o700:
                return Path(runtime) / "amlkit"
    return Path("/tmp") / f"amlkit-{os.getuid()}"  # noqa: S108 - checked private (0700, ours) before use


def private_dir(directory: Path, create: bool) -> Path:
    """The directory, checked: a real directory (not a link), owned by this user, mode exactly 0700."""
    if create:
        with contextlib.suppress(FileExistsError):
            os.mkdir(directory, 0o700)
    info = os.lstat(directory)
    if not stat.S_ISDIR(info.st_mode):
        raise ServerError(f"{directory}: not a directory (refusing to use it for the server's socket)")
    if info.st_uid != os.getuid():
        raise ServerError(f"{directory}: owned by uid {info.st_uid}, not by this user ({os.getuid()})")
    if stat.S_IMODE(info.st_mode) != 0o700:
        raise ServerError(f"{directory}: mode {stat.S_IMODE(info.st_mode):04o}; the server needs 0700")
    return directory


def socket_path() -> Path:
    return socket_dir() / SOCKET_NAME


def lock(path: Path, wait: float = 0.0) -> int:
    """An exclusive lock (flock) on `path`, waiting up to `wait` seconds; its fd (closing it unlocks).
    ServerError naming the holder's pid when another process keeps it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if time.monotonic() < deadline:
                time.sleep(0.05)
                continue
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise ServerError(f"{path} is held by pid {holder}: another amlkit server runs or starts there") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return fd


# --- compatibility ---------------------------------------------------------------------------------

def code_fingerprint() -> str:
    """What the server's answers depend on: the interpreter, the installed SDKs and every amlkit file."""
    digest = hashlib.sha256()
    executable = Path(sys.executable)
    digest.update(f"{executable}\0{os.path.realpath(executable)}\0{sys.version}\0".encode())
    with contextlib.suppress(OSError):
        info = os.stat(os.path.realpath(executable))
        digest.update(f"{info.st_mtime_ns}:{info.st_size}\0".encode())
    for name in DISTRIBUTIONS:
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            digest.update(f"{name}:-\0".encode())
            continue
        location = getattr(dist, "_path", None)
        mtime = os.stat(location).st_mtime_ns if location and os.path.exists(location) else 0
        digest.update(f"{name}:{dist.version}:{mtime}\0".encode())
    for root in _amlkit_dirs():
        for directory, subdirs, files in os.walk(root):
            subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
            for file in sorted(files):
                if file.endswith((".py", ".yaml", ".json")):
                    path = os.path.join(directory, file)
                    with contextlib.suppress(OSError):
                        info = os.stat(path)
                        digest.update(f"{path}:{info.st_mtime_ns}:{info.st_size}\0".encode())
    return digest.hexdigest()


def _amlkit_dirs() -> list[str]:
    import importlib.util

    dirs = []
    for package in ("amlkit", "amlkit.components", "amlkit.policies"):
        with contextlib.suppress(ImportError, ValueError):
            spec = importlib.util.find_spec(package)
            dirs += list(spec.submodule_search_locations or []) if spec else []
    return sorted(set(dirs))


def outside(paths: Sequence[Path], roots: Sequence[Path]) -> list[Path]:
    return [path for path in paths if not any(path == root or path.is_relative_to(root) for root in roots)]


# --- wire ------------------------------------------------------------------------------------------

def send(sock: socket.socket, message: dict[str, Any]) -> None:
    data = json.dumps(message).encode()
    sock.sendall(_HEADER.pack(len(data)) + data)


def receive(sock: socket.socket) -> dict[str, Any]:
    header = _read(sock, _HEADER.size)
    (size,) = _HEADER.unpack(header)
    message: dict[str, Any] = json.loads(_read(sock, size))
    return message


def _read(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(min(size - len(data), 1 << 20))
        if not chunk:
            raise EOFError("the server closed the connection")
        data += chunk
    return data


def peer_uid(conn: socket.socket) -> int:
    """The uid of the process at the other end of a Unix socket (SO_PEERCRED: pid, uid, gid)."""
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    uid: int = struct.unpack("3i", creds)[1]
    return uid


def request(message: dict[str, Any], timeout: float | None = None, path: Path | None = None) -> dict[str, Any]:
    """One request to this user's server: its answer, skipping the heartbeats it sends while it works. Raises
    OSError (TimeoutError: no frame for `timeout` seconds) or EOFError when there is none or it went away,
    ServerError when the socket's directory is not private. `timeout`: `client_timeout()` unless given."""
    path = path or socket_path()
    private_dir(path.parent, create=False)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(client_timeout() if timeout is None else timeout)
        sock.connect(str(path))
        send(sock, message)
        while True:
            reply = receive(sock)
            if not reply.get("busy"):
                return reply


# --- the client side (amlkit.launch) -----------------------------------------------------------------

def run_request(argv: Sequence[str]) -> dict[str, Any]:
    """What a served command sends: its command line, working directory, whole environment and umask."""
    return {"op": "run", "argv": list(argv), "cwd": os.getcwd(), "env": dict(os.environ),
            "umask": environment.umask()}


def forward(argv: Sequence[str]) -> int | None:
    """Run `amlkit <argv>` on this user's server when one runs and may serve it: its exit code after its
    output is written here; None: run it cold (no server, not served, refused, stale, incompatible, or no
    answer within `client_timeout()` seconds; with `-v` it says so on stderr). 2: that setting is malformed (said
    on stderr, as the CLI says a usage error)."""
    if not argv or argv[0] not in SERVED_COMMANDS or {"--help", "-h"} & set(argv):
        return None
    try:
        timeout = client_timeout()
    except ServerError as error:
        sys.stderr.write(f"amlkit: error: {error}\n")
        return 2
    if sys.stdout.isatty() or sys.stderr.isatty():
        return None
    path = socket_path()
    if not os.path.lexists(path):
        return None
    try:
        reply = request(run_request(argv), timeout=timeout, path=path)
    except ServerError as error:
        _cold(argv, str(error))
        return None
    except TimeoutError:
        _cold(argv, f"the server at {path} did not answer within {timeout:g}s")
        return None
    except (OSError, EOFError, ValueError) as error:
        reason = (error.strerror if isinstance(error, OSError) else None) or str(error) or "connection closed"
        _cold(argv, f"the server at {path} did not answer ({reason})")
        return None
    if "code" not in reply:
        why = next((str(reply[key]) for key in ("refused", "incompatible", "stale") if key in reply), "no answer")
        _cold(argv, why)
        return None
    sys.stdout.write(reply["stdout"])
    sys.stdout.flush()
    sys.stderr.write(reply["stderr"])
    sys.stderr.flush()
    return int(reply["code"])


def _cold(argv: Sequence[str], why: str) -> None:
    """Run cold (None), saying why on stderr when the command line asks for `-v` / `--verbose`."""
    if any(arg == "--verbose" or (arg.startswith("-v") and not arg.startswith("--")) for arg in argv):
        sys.stderr.write(f"amlkit: not served: {why}; running cold\n")
        sys.stderr.flush()
    return None


# --- start / stop / status (the `amlkit server` commands) --------------------------------------------

def start(roots: Sequence[Path], idle_timeout: float = IDLE_TIMEOUT) -> dict[str, Any]:
    """Start this user's server for `roots` (detached) and wait until it answers; its status. One start at
    a time (start.lock): a start that finds a server running says so (ServerError)."""
    directory = private_dir(socket_dir(), create=True)
    starting = lock(directory / START_LOCK_NAME, wait=START_TIMEOUT + 5)
    try:
        return _start(directory, roots, idle_timeout)
    finally:
        os.close(starting)


def _start(directory: Path, roots: Sequence[Path], idle_timeout: float) -> dict[str, Any]:
    with contextlib.suppress(OSError, EOFError, ValueError):
        running = request({"op": "status"})
        raise ServerError(f"a server already runs (pid {running['pid']}, for "
                          f"{', '.join(running['roots'])}); stop it first: amlkit server stop")
    resolved = [str(Path(os.path.realpath(root))) for root in roots]
    args = [sys.executable, "-m", "amlkit.server_process", "--idle-timeout", str(idle_timeout), *resolved]
    log = os.open(directory / LOG_NAME, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
                                   cwd=resolved[0])
    finally:
        os.close(log)
    _STARTED.append(process)  # detached (its own session); it outlives this process, which never waits for it
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServerError(f"the server exited at start (exit code {process.returncode}): {_log_tail(directory)}")
        with contextlib.suppress(OSError, EOFError, ValueError):
            return request({"op": "status"})
        time.sleep(0.05)
    process.kill()
    raise ServerError(f"the server did not answer within {START_TIMEOUT:g}s: {_log_tail(directory)}")


_STARTED: list[subprocess.Popen[bytes]] = []


def _log_tail(directory: Path) -> str:
    with contextlib.suppress(OSError):
        lines = [line for line in (directory / LOG_NAME).read_text(errors="replace").splitlines() if line.strip()]
        if lines:
            return lines[-1]
    return "no output"


def stop() -> dict[str, Any] | None:
    """Stop this user's server; its last status, or None when none was running. ServerError when the socket
    directory is not private (a link, loose, another user's)."""
    try:
        return request({"op": "stop"})
    except (OSError, EOFError, ValueError):
        return None


def absent() -> tuple[str, bool]:
    """Why no server answered, and whether one runs: none does ("not running", False), or one holds the server
    lock without answering (stopped, hung: True)."""
    try:
        fd = os.open(socket_dir() / LOCK_NAME, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return "not running", False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
        return (f"pid {holder} holds {socket_dir() / LOCK_NAME} but does not answer within {client_timeout():g}s "
                f"(stopped or hung): kill {holder}"), True
    finally:
        os.close(fd)
    return "not running", False


def status() -> dict[str, Any] | None:
    """This user's server's status, or None when none answers. ServerError as `stop`."""
    try:
        return request({"op": "status"})
    except (OSError, EOFError, ValueError):
        return None
