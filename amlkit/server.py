"""The opt-in persistent review server: `amlkit server start|stop|status`, for pre-commit hooks and editors.

`amlkit server start [DIR]...` starts one server for this user (`python -m amlkit.server`, detached). It
imports the review engine once and keeps its fork server and amlkit's packs warm (amlkit.review.proc.warm,
amlkit.review.pack.driver.PackPool); later `amlkit check` / `amlkit preview` commands hand it their command
line (amlkit.launch) instead of starting cold, and print what it answers: the same bytes and the same
exit code as a cold run (tests/test_server.py). Nothing uses it unless it was started.

A command goes to the server only when all of these hold, else it runs cold as usual:
- its output is not a terminal (the server renders without colour, as a cold run into a pipe does);
- the server runs the same interpreter, amlkit (every file of its packages: the CLI, the components, the
  pack), pulumi, pulumi-policy and the provider SDKs as when it started, and has the same `AMLKIT_*`,
  `PULUMI_*` and `PYTHON*` environment as the command. When the code changed, the server answers
  "stale", the command runs cold, and the server starts itself again on the new code (os.execv);
- the command's working directory and every path it names (`-C`, stack files, `--policy-pack`,
  `--policy-pack-config`, `--state`, `--output`) are inside a directory the server was started for.

Access: the server listens only on a Unix socket, never on TCP: `$XDG_RUNTIME_DIR/amlkit/server.sock`
(else `/tmp/amlkit-<uid>/server.sock`), in a directory that must be owned by this user with mode 0700,
the socket mode 0600; both are checked when it starts (it refuses to start otherwise). Each connection's
peer is checked with SO_PEERCRED: another user's request is refused. It exits after `--idle-timeout`
seconds without a request (default 900) and on `amlkit server stop`; one request runs at a time.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
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

SOCKET_NAME = "server.sock"
LOG_NAME = "server.log"
IDLE_TIMEOUT = 900.0
START_TIMEOUT = 60.0
SERVED_COMMANDS = ("check", "preview")
DISTRIBUTIONS = ("amlkit", "pulumi", "pulumi-policy", "pulumi-azure-native", "pulumi-azure", "grpcio", "protobuf")
PATH_OPTIONS = ("-C", "--project-dir", "--policy-pack", "--policy-pack-config", "--state", "-o", "--output")
VALUE_OPTIONS = ("-s", "--stack", "-f", "--format", "-j", "--jobs", "--timeout", "--base")
_HEADER = struct.Struct("!I")


class ServerError(Exception):
    """The server cannot start or be reached safely (a message for the user, exit 2)."""


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


def relevant_env(env: dict[str, str] | os._Environ[str]) -> dict[str, str]:
    """The environment a review's result can depend on (the pack and the program inherit it)."""
    return {key: value for key, value in env.items() if key.startswith(("AMLKIT_", "PULUMI_", "PYTHON"))}


def named_paths(argv: Sequence[str], cwd: Path) -> list[Path]:
    """The working directory and every path a check/preview command line names, resolved."""
    paths = [cwd]
    args = list(argv[1:])  # argv[0] is the command
    index = 0
    while index < len(args):
        arg = args[index]
        option, has_value, value = arg.partition("=")
        if option in PATH_OPTIONS:
            if not has_value:
                index += 1
                value = args[index] if index < len(args) else ""
            paths.append(cwd / value)
        elif option in VALUE_OPTIONS:
            index += 0 if has_value else 1
        elif not arg.startswith("-"):
            paths.append(cwd / arg)
        index += 1
    return [Path(os.path.realpath(path)) for path in paths]


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
    """One request to this user's server; raises OSError / EOFError when there is none or it went away."""
    path = path or socket_path()
    private_dir(path.parent, create=False)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(str(path))
        send(sock, message)
        return receive(sock)


# --- the client side (amlkit.launch) -----------------------------------------------------------------

def forward(argv: Sequence[str]) -> int | None:
    """Run `amlkit <argv>` on this user's server when one runs and may serve it: its exit code after its
    output is written here; None: run it cold (no server, not served, refused, stale or incompatible)."""
    if not argv or argv[0] not in SERVED_COMMANDS or {"--help", "-h"} & set(argv):
        return None
    if sys.stdout.isatty() or sys.stderr.isatty():
        return None
    path = socket_path()
    if not path.exists():
        return None
    try:
        reply = request({"op": "run", "argv": list(argv), "cwd": os.getcwd(), "env": relevant_env(os.environ)},
                        path=path)
    except (OSError, EOFError, ValueError, ServerError):
        return None
    if "code" not in reply:
        return None
    sys.stdout.write(reply["stdout"])
    sys.stdout.flush()
    sys.stderr.write(reply["stderr"])
    sys.stderr.flush()
    return int(reply["code"])


# --- start / stop / status (the `amlkit server` commands) --------------------------------------------

def start(roots: Sequence[Path], idle_timeout: float = IDLE_TIMEOUT) -> dict[str, Any]:
    """Start this user's server for `roots` (detached) and wait until it answers; its status."""
    directory = private_dir(socket_dir(), create=True)
    with contextlib.suppress(OSError, EOFError, ValueError):
        running = request({"op": "status"}, timeout=5)
        raise ServerError(f"a server already runs (pid {running['pid']}, for "
                          f"{', '.join(running['roots'])}); stop it first: amlkit server stop")
    resolved = [str(Path(os.path.realpath(root))) for root in roots]
    args = [sys.executable, "-m", "amlkit.server", "--idle-timeout", str(idle_timeout), *resolved]
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
            return request({"op": "status"}, timeout=5)
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
    """Stop this user's server; its last status, or None when none was running."""
    try:
        return request({"op": "stop"}, timeout=30)
    except (OSError, EOFError, ValueError):
        return None


def status() -> dict[str, Any] | None:
    try:
        return request({"op": "status"}, timeout=10)
    except (OSError, EOFError, ValueError):
        return None


# --- the server process ------------------------------------------------------------------------------

class Server:
    def __init__(self, roots: Sequence[Path], idle_timeout: float, path: Path | None = None) -> None:
        self.roots = [Path(os.path.realpath(root)) for root in roots]
        self.idle_timeout = idle_timeout
        self.path = path or socket_path()
        self.fingerprint = code_fingerprint()
        self.env = relevant_env(os.environ)
        self.started = time.time()
        self.served = 0
        self.sock: socket.socket | None = None

    def listen(self) -> None:
        """Bind the socket (mode 0600) in the private directory, both checked; refuses anything else."""
        private_dir(self.path.parent, create=True)
        with contextlib.suppress(FileNotFoundError):
            if stat.S_ISSOCK(os.lstat(self.path).st_mode):
                os.unlink(self.path)  # left by a server that died (start() found nothing answering on it)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            sock.bind(str(self.path))
        finally:
            os.umask(old)
        os.chmod(self.path, 0o600)
        info = os.lstat(self.path)
        if not stat.S_ISSOCK(info.st_mode) or stat.S_IMODE(info.st_mode) != 0o600 or info.st_uid != os.getuid():
            sock.close()
            raise ServerError(f"{self.path}: the socket is not this user's with mode 0600")
        sock.listen(8)
        self.sock = sock

    def status(self) -> dict[str, Any]:
        return {"pid": os.getpid(), "roots": [str(root) for root in self.roots], "socket": str(self.path),
                "idle_timeout": self.idle_timeout, "started": self.started, "served": self.served,
                "python": sys.executable, "cpu": self.cpu_seconds()}

    @staticmethod
    def cpu_seconds() -> float:
        """CPU seconds of this server, the children it reaped, its fork server and the children that reaped."""
        import resource

        total = sum(usage.ru_utime + usage.ru_stime for usage in (
            resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)))
        warm = sys.modules.get("amlkit.review.proc.warm")
        if warm is not None:
            with contextlib.suppress(Exception):
                total += warm.server_cpu_seconds()
        return total

    def serve(self) -> str:
        """Answer requests until stopped, idle or stale; why it stopped."""
        assert self.sock is not None
        from amlkit.review.proc import warm

        warm.prestart(self.roots[0])  # import pulumi, azure-native and the pack now, not at the first request
        self.sock.settimeout(self.idle_timeout)
        while True:
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                return "idle"
            with conn:
                outcome = self.handle(conn)
            if outcome:
                return outcome

    def handle(self, conn: socket.socket) -> str | None:
        """One connection: checked, answered; "stop" / "stale" when the server must stop after it."""
        conn.settimeout(30)
        try:
            if peer_uid(conn) != os.getuid():
                send(conn, {"refused": "the server serves only the user who started it"})
                return None
            message = receive(conn)
            op = message.get("op")
            if op == "status":
                send(conn, self.status())
                return None
            if op == "stop":
                send(conn, self.status())
                return "stop"
            if op != "run":
                send(conn, {"refused": f"unknown request {op!r}"})
                return None
            conn.settimeout(None)
            reply, outcome = self.run(message)
            send(conn, reply)
            return outcome
        except (OSError, EOFError, ValueError, KeyError, TypeError):
            return None

    def run(self, message: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        argv, cwd = list(message["argv"]), Path(message["cwd"])
        if not argv or argv[0] not in SERVED_COMMANDS:
            return {"refused": f"the server runs only {' and '.join(SERVED_COMMANDS)}"}, None
        if message.get("env") != self.env:
            return {"incompatible": "the environment differs (AMLKIT_*, PULUMI_*, PYTHON*)"}, None
        if code_fingerprint() != self.fingerprint:
            return {"stale": "amlkit, an SDK or the interpreter changed since the server started"}, "stale"
        refused = outside(named_paths(argv, cwd), self.roots)
        if refused:
            return {"refused": f"{refused[0]} is outside the directories the server was started for "
                               f"({', '.join(map(str, self.roots))})"}, None
        self.served += 1
        return run_command(argv, cwd), None


def run_command(argv: Sequence[str], cwd: Path) -> dict[str, Any]:
    """`amlkit <argv>` in this process (cwd changed for the call): its stdout, stderr and exit code."""
    from typer.testing import CliRunner

    from amlkit import cli

    previous = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(cli.app, list(argv), catch_exceptions=True)
    finally:
        os.chdir(previous)
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += f"amlkit: error: internal error in the server: {type(result.exception).__name__}\n"
        return {"stdout": result.stdout, "stderr": stderr, "code": 3}
    return {"stdout": result.stdout, "stderr": stderr, "code": result.exit_code}


def main(argv: Sequence[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m amlkit.server")
    parser.add_argument("--idle-timeout", type=float, default=IDLE_TIMEOUT)
    parser.add_argument("roots", nargs="+", type=Path)
    args = parser.parse_args(argv)
    server = Server(args.roots, args.idle_timeout)
    try:
        server.listen()
    except ServerError as error:
        print(f"amlkit server: {error}", file=sys.stderr)
        return 2
    try:
        outcome = server.serve()
    finally:
        with contextlib.suppress(OSError):
            os.unlink(server.path)
        if server.sock is not None:
            server.sock.close()
    if outcome == "stale":  # start again on the new code, with the same arguments
        from amlkit.review.proc import warm

        warm.stop()
        os.execv(sys.executable, [sys.executable, "-m", "amlkit.server", *argv])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
