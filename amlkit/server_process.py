"""The persistent review server's process (`python -m amlkit.server_process`, started by `amlkit server
start`): what it accepts, how it runs a command exactly as a cold run would, and when it stops. What it
serves and who may ask is in amlkit.server.

Threads: one accepts connections and starts one thread per connection, which checks the peer and reads the
request (CLIENT_TIMEOUT seconds at most: a silent connection is dropped and delays nobody), answers `status`
and `stop` itself and queues `run` with a heartbeat to its client; the main thread runs the queued commands
one at a time, each in its client's environment, working directory, umask and time zone
(amlkit.review.proc.environment), restored after it.
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
import socket
import stat
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, get_args, get_type_hints

from amlkit.review.proc import environment
from amlkit.server import (
    CLIENT_TIMEOUT,
    IDLE_TIMEOUT,
    LOCK_NAME,
    SERVED_COMMANDS,
    ServerError,
    code_fingerprint,
    lock,
    outside,
    peer_uid,
    private_dir,
    receive,
    send,
    socket_path,
)

__all__ = ["Heartbeat", "Server", "main", "named_paths", "run_command"]

BEAT = 1.0  # seconds between two heartbeats to a client whose command waits or runs
TICK = 0.2  # seconds between two looks at the queue, the stop request and the idle time


class Heartbeat:
    """Tells a waiting client every BEAT seconds that its command is queued or running; then its answer."""

    def __init__(self, conn: socket.socket) -> None:
        self.conn = conn
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._beat, name="amlkit-server-beat", daemon=True)
        self.thread.start()

    def _beat(self) -> None:
        while not self.done.wait(BEAT):
            with self.lock, contextlib.suppress(OSError):
                send(self.conn, {"busy": True})

    def gone(self) -> bool:
        """Whether the client hung up (it gave up waiting): its command is then not run."""
        try:
            readable, _, _ = select.select([self.conn], [], [], 0)
            return bool(readable) and self.conn.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True

    def answer(self, reply: dict[str, Any]) -> None:
        self.done.set()
        with self.lock, contextlib.suppress(OSError):
            send(self.conn, reply)
        self.conn.close()


class Server:
    def __init__(self, roots: Sequence[Path], idle_timeout: float, path: Path | None = None) -> None:
        self.roots = [Path(os.path.realpath(root)) for root in roots]
        self.idle_timeout = idle_timeout
        self.path = path or socket_path()
        self.fingerprint = code_fingerprint()
        self.startup = environment.startup_env(os.environ)
        self.started = time.time()
        self.served = 0
        self.sock: socket.socket | None = None
        self.lock_fd: int | None = None
        self.inode: tuple[int, int] | None = None  # (device, inode) of the socket this server bound
        self.jobs: queue.Queue[tuple[dict[str, Any], Heartbeat]] = queue.Queue()
        self.pending = 0  # commands queued or running
        self.last = time.monotonic()  # the last connection or finished command
        self.outcome: str | None = None  # "stop" once asked to stop
        self.state = threading.Lock()

    def listen(self) -> None:
        """Take the directory's server lock, bind the socket (mode 0600) in the private directory, both
        checked; refuses anything else."""
        private_dir(self.path.parent, create=True)
        self.lock_fd = lock(self.path.parent / LOCK_NAME)
        with contextlib.suppress(FileNotFoundError):
            if stat.S_ISSOCK(os.lstat(self.path).st_mode):
                os.unlink(self.path)  # left by a server that died: we hold the lock, so no live server owns it
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
        self.inode = (info.st_dev, info.st_ino)
        sock.listen(16)
        self.sock = sock

    def close(self) -> None:
        """Close the socket and remove it, only if it still is the one this server bound; release the lock."""
        with contextlib.suppress(OSError):
            info = os.lstat(self.path)
            if self.inode == (info.st_dev, info.st_ino):
                os.unlink(self.path)
        if self.sock is not None:
            self.sock.close()
        if self.lock_fd is not None:
            os.close(self.lock_fd)
            self.lock_fd = None

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
        threading.Thread(target=self._accept, name="amlkit-server-accept", daemon=True).start()
        while True:
            try:
                message, heartbeat = self.jobs.get(timeout=TICK)
            except queue.Empty:
                if self.outcome:
                    return self.outcome
                with self.state:
                    if not self.pending and time.monotonic() - self.last >= self.idle_timeout:
                        return "idle"
                continue
            try:
                reply, outcome = ({"refused": "the client hung up"}, None) if heartbeat.gone() else self.run(message)
            except Exception as error:  # noqa: BLE001 - a malformed request: the client runs cold
                reply, outcome = {"refused": f"malformed request ({type(error).__name__})"}, None
            heartbeat.answer(reply)
            with self.state:
                self.pending -= 1
                self.last = time.monotonic()
            if outcome:
                return outcome

    def _accept(self) -> None:
        assert self.sock is not None
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return  # closed: the server stops
            with self.state:
                self.last = time.monotonic()
            threading.Thread(target=self.handle, args=(conn,), name="amlkit-server-conn", daemon=True).start()

    def handle(self, conn: socket.socket) -> str | None:
        """One connection: checked and answered, or its command queued; "stop" when the server must stop."""
        conn.settimeout(CLIENT_TIMEOUT)
        try:
            if peer_uid(conn) != os.getuid():
                send(conn, {"refused": "the server serves only the user who started it"})
                return _closed(conn, None)
            message = receive(conn)
            op = message.get("op")
            if op == "run":
                with self.state:
                    self.pending += 1
                self.jobs.put((message, Heartbeat(conn)))  # answered (and closed) by the main thread
                return None
            if op in ("status", "stop"):
                send(conn, self.status())
                self.outcome = "stop" if op == "stop" else self.outcome
                return _closed(conn, self.outcome)
            send(conn, {"refused": f"unknown request {op!r}"})
        except (OSError, EOFError, ValueError, AttributeError):
            pass  # silent past CLIENT_TIMEOUT, gone, or not our protocol: dropped
        return _closed(conn, None)

    def run(self, message: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        argv, cwd = list(message["argv"]), Path(message["cwd"])
        if not argv or argv[0] not in SERVED_COMMANDS:
            return {"refused": f"the server runs only {' and '.join(SERVED_COMMANDS)}"}, None
        env, mask = message.get("env"), message.get("umask")
        if not isinstance(env, dict) or not isinstance(mask, int):
            return {"incompatible": "the request carries no environment and umask (an older amlkit)"}, None
        if environment.startup_env(env) != self.startup:
            return {"incompatible": "the start-up environment differs (PYTHON*, LD_*, GRPC_*, LANG, LC_*): "
                                    "a running server cannot adopt it"}, None
        if code_fingerprint() != self.fingerprint:
            return {"stale": "amlkit, an SDK or the interpreter changed since the server started"}, "stale"
        paths = named_paths(argv, cwd)
        if paths is None:
            return {"refused": "the command line does not parse (the cold run says why)"}, None
        refused = outside(paths, self.roots)
        if refused:
            return {"refused": f"{refused[0]} is outside the directories the server was started for "
                               f"({', '.join(map(str, self.roots))})"}, None
        self.served += 1
        return run_command(argv, cwd, env, mask), None


def _closed(conn: socket.socket, outcome: str | None) -> str | None:
    conn.close()
    return outcome


def named_paths(argv: Sequence[str], cwd: Path) -> list[Path] | None:
    """The working directory and every path a check/preview command line names, resolved; read by the
    CLI's own parser (every spelling it accepts: `-C DIR`, `-CDIR`, `--project-dir=DIR`, `-vCDIR`...); and
    the project above any of them that the CLI would find (the nearest Pulumi.yaml upward, as `pulumi` finds
    it). None when the CLI would refuse the command line (the command then runs cold and says why)."""
    import typer.main

    from amlkit import cli

    command = typer.main.get_command(cli.app).commands[argv[0]]  # type: ignore[attr-defined]
    try:
        parsed, _, _ = command.make_parser(command.context_class(command, info_name=argv[0])).parse_args(
            list(argv[1:]))
    except Exception:  # noqa: BLE001 - the parser's usage errors (typer's vendored click): the CLI refuses it too
        return None
    paths = [cwd]
    for name in _path_parameters(command.callback):
        value = parsed.get(name)
        values = value if isinstance(value, list | tuple) else [] if value is None else [value]
        paths += [cwd / str(item) for item in values]
    resolved = [Path(os.path.realpath(path)) for path in paths]
    return resolved + [project for project in map(_project_above, resolved) if project is not None]


def _project_above(path: Path) -> Path | None:
    """The project directory the CLI would find above `path` (not at it), if any."""
    from amlkit.review.project import project_root

    start = path if path.is_dir() else path.parent
    found = Path(os.path.realpath(project_root(start)))
    return found if found != start else None


def _path_parameters(callback: Any) -> list[str]:
    """The parameters of a CLI command whose type is a Path (or a list of paths)."""
    def has_path(hint: Any) -> bool:
        return hint is Path or any(has_path(arg) for arg in get_args(hint))

    hints = get_type_hints(callback, include_extras=True)
    return [name for name, hint in hints.items() if name != "return" and has_path(hint)]


def run_command(argv: Sequence[str], cwd: Path, env: dict[str, str] | None = None,
                mask: int | None = None) -> dict[str, Any]:
    """`amlkit <argv>` in this process, in the client's environment, working directory and umask (this
    process's own when not given; all restored after it): its stdout, stderr and exit code."""
    from typer.testing import CliRunner

    from amlkit import cli

    env = dict(os.environ) if env is None else env
    with environment.adopted(env, environment.umask() if mask is None else mask, cwd):
        result = CliRunner().invoke(cli.app, list(argv), catch_exceptions=True)
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += f"amlkit: error: internal error in the server: {type(result.exception).__name__}\n"
        return {"stdout": result.stdout, "stderr": stderr, "code": 3}
    return {"stdout": result.stdout, "stderr": stderr, "code": result.exit_code}


def main(argv: Sequence[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m amlkit.server_process")
    parser.add_argument("--idle-timeout", type=float, default=IDLE_TIMEOUT)
    parser.add_argument("roots", nargs="+", type=Path)
    args = parser.parse_args(argv)
    server = Server(args.roots, args.idle_timeout)
    try:
        server.listen()
    except ServerError as error:
        print(f"amlkit server: {error}", file=sys.stderr)
        server.close()
        return 2
    try:
        outcome = server.serve()
    finally:
        server.close()
    if outcome == "stale":  # start again on the new code, with the same arguments
        from amlkit.review.proc import warm

        warm.stop()
        os.execv(sys.executable, [sys.executable, "-m", "amlkit.server_process", *argv])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
