"""Warm start: pay the imports once per review, then fork a child per stack for the program and the pack.

The review's parent talks gRPC to every pack, and gRPC is not fork-safe (a fork while another thread
is inside gRPC leaves the child aborting with `epoll_wait error: Bad file descriptor`). So the parent
never forks. It starts ONE fork server (`python -P -m amlkit.review.children.fork_server`, an exec, no Python code
between fork and exec) before it creates any gRPC channel; the server imports pulumi, the
azure-native modules the programs use (forcing the lazy modules to load), amlkit's components and the
pack's modules, and never creates a gRPC channel, server or thread: it checks that it is the only
thread before every fork (`/proc/self/task`), and refuses to fork otherwise.

Per stack, the parent asks the server (an AF_UNIX socket; the child's stdin/stdout/stderr travel as
file descriptors, SCM_RIGHTS) to fork:
- a program child, which runs exactly what `python -P -m amlkit.review.run.runner` runs (cwd = project
  dir; -P: the project directory never shadows the installed amlkit);
- a pack child, which runs exactly what the engine's `python -u -m pulumi.policy <engine> <pack dir>`
  runs: cwd = pack dir, `sys.argv`, unbuffered stdout, PULUMI_PROJECT / PULUMI_STACK /
  PULUMI_DRY_RUN / PULUMI_CONFIG in the environment. Its gRPC server starts in the child, after the
  fork.
Each child calls `setsid` (its own process group, which the parent kills with SIGKILL) and
PR_SET_PDEATHSIG(SIGKILL); the server has PR_SET_PDEATHSIG too, so killing the parent, even with
SIGKILL, kills the server and then every child. The server reaps the children and writes each exit
status to a pipe the parent holds (`WarmChild.wait`), so the parent sees the same exit codes as
with Popen.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from amlkit.errors import ReviewFailed
from amlkit.review.proc import environment, processes
from amlkit.review.proc.wire import receive, send

__all__ = [
    "BASE_MODULES", "DEVNULL", "ENGINE_ADDRESS", "ForkServer", "MAX_ENV_VALUE", "PACK_MODULES", "PIPE", "REPLY_TIMEOUT",
    "WarmChild", "config_env", "drop_parked", "eager", "pack_env", "prefork_pack", "prestart", "server",
    "server_cpu_seconds", "spawn_canary", "spawn_pack", "spawn_runner", "spawn_worker", "stop",
]

PIPE = subprocess.PIPE
DEVNULL = subprocess.DEVNULL
REPLY_TIMEOUT = 300.0  # seconds for the server to answer a fork request (it may be importing first)

# What both kinds of children need, imported before anything else (no gRPC object is created).
BASE_MODULES = ("pulumi", "pulumi.runtime", "pulumi.runtime.mocks", "pulumi.runtime.stack",
                "pulumi.runtime.sync_await", "amlkit.review.run.runner", "amlkit.review.run.mocks")
PACK_MODULES = ("pulumi_policy", "pulumi_policy.policy", "google.protobuf.json_format", "argparse", "runpy")
ENGINE_ADDRESS = "127.0.0.1:0"  # what a pack child is given as the engine's address: pulumi.policy never dials it
MAX_ENV_VALUE = 120_000  # Linux refuses a single environment string over 128 KiB (MAX_ARG_STRLEN)


# --- the parent's side ----------------------------------------------------------------------------

class WarmChild:
    """A child the fork server started, with the part of Popen's interface the review uses."""

    def __init__(self, pid: int, stdin: Any, stdout: Any, stderr: Any, status_fd: int) -> None:
        self.pid, self.stdin, self.stdout, self.stderr = pid, stdin, stdout, stderr
        self.returncode: int | None = None
        self._status_fd: int | None = status_fd
        self._lock = threading.Lock()

    def poll(self) -> int | None:
        return self._wait(0)

    def wait(self, timeout: float | None = None) -> int:
        code = self._wait(timeout)
        if code is None:
            raise subprocess.TimeoutExpired(f"pid {self.pid}", timeout or 0)
        return code

    def _wait(self, timeout: float | None) -> int | None:
        with self._lock:
            if self.returncode is not None or self._status_fd is None:
                return self.returncode
            ready, _, _ = select.select([self._status_fd], [], [], timeout)
            if not ready:
                return None
            data = b""
            while len(data) < 4:
                chunk = os.read(self._status_fd, 4 - len(data))
                if not chunk:
                    break
                data += chunk
            if len(data) < 4 and not _gone(self.pid, timeout):
                return None  # the server died (no status); the child dies with it (PR_SET_PDEATHSIG)
            os.close(self._status_fd)
            self._status_fd = None
            self.returncode = struct.unpack("!i", data)[0] if len(data) == 4 else -signal.SIGKILL
            return self.returncode

    def __del__(self) -> None:
        if self._status_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._status_fd)


def _gone(pid: int, timeout: float | None) -> bool:
    """Whether the process has exited (a zombie holds no files), waiting up to `timeout` seconds."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                if stat.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    return True
        except FileNotFoundError:
            return True
        except OSError:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
        if deadline is not None and time.monotonic() >= deadline:
            return False
        time.sleep(0.01)


class ForkServer:
    """The parent's handle on the fork server process."""

    def __init__(self, hint: Path | None = None) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close()
        self.lock = threading.Lock()
        self.sock = ours
        self.sock.settimeout(REPLY_TIMEOUT)
        args = [sys.executable, "-P", "-m", "amlkit.review.children.fork_server", str(theirs.fileno()),
                str(os.getpid()), *([str(hint)] if hint else [])]
        try:
            # no preexec_fn: Popen then execs straight away (no Python code, no fork handlers run)
            self.process = processes.adopt(lambda: subprocess.Popen(
                args, pass_fds=[theirs.fileno()], start_new_session=True, stdin=DEVNULL, stdout=DEVNULL,
                stderr=self.stderr))
        except OSError as error:
            raise ReviewFailed(f"cannot start the warm-start process: {error.strerror}") from None
        finally:
            theirs.close()

    def alive(self) -> bool:
        return self.process.poll() is None

    def plan(self, program: Path | None, pack: Path | None, stacks: int) -> None:
        """Tell the server what it will fork (it preloads the modules those need, unless `eager`)."""
        self._request({"op": "plan", "program": str(program) if program else None,
                       "pack": str(pack) if pack else None, "stacks": stacks, "eager": eager(stacks)})

    def status(self) -> dict[str, Any]:
        return self._request({"op": "status"})

    def fork(self, kind: str, cwd: Path, stdio: tuple[Any, Any, Any], env: dict[str, str] | None = None,
             argv: list[str] | None = None) -> WarmChild:
        """Fork a child of `kind` ("runner" | "pack"); stdio entries: PIPE, DEVNULL or a file object. The child
        gets this process's environment (updated with `env`) and umask, as a Popen child would: not the fork
        server's (amlkit.review.proc.environment)."""
        child_fds: list[int] = []
        parent_ends: list[Any] = []  # the parent's file object per stream, or None
        opened: list[int] = []
        try:
            for index, spec in enumerate(stdio):
                if spec == PIPE:
                    read, write = os.pipe()
                    child, parent = (read, write) if index == 0 else (write, read)
                    opened.append(child)
                    child_fds.append(child)
                    parent_ends.append(open(parent, "wb" if index == 0 else "rb"))  # noqa: SIM115
                elif spec == DEVNULL:
                    fd = os.open(os.devnull, os.O_RDWR)
                    opened.append(fd)
                    child_fds.append(fd)
                    parent_ends.append(None)
                else:
                    child_fds.append(spec.fileno())
                    parent_ends.append(None)
            status_read, status_write = os.pipe()
            opened.append(status_write)
            try:
                reply = self._request({"op": "fork", "kind": kind, "cwd": str(cwd), "argv": argv or [],
                                       "env": {**os.environ, **(env or {})}, "umask": environment.umask()},
                                      [*child_fds, status_write])
            except BaseException:
                os.close(status_read)
                raise
        except BaseException:
            for end in parent_ends:
                if end is not None:
                    end.close()
            raise
        finally:
            for fd in opened:
                os.close(fd)
        if "error" in reply:
            os.close(status_read)
            for end in parent_ends:
                if end is not None:
                    end.close()
            raise ReviewFailed(f"warm start: {reply['error']}")
        stdin, stdout, stderr = parent_ends
        return WarmChild(reply["pid"], stdin, stdout, stderr, status_read)

    def _request(self, message: dict[str, Any], fds: list[int] | None = None) -> dict[str, Any]:
        with self.lock:
            try:
                send(self.sock, message, fds or [])
                reply, _ = receive(self.sock)
            except (OSError, EOFError, ValueError) as error:
                raise ReviewFailed(f"the warm-start process failed ({error or 'it exited'}): "
                                   f"{self._stderr_tail()}") from None
        return reply

    def _stderr_tail(self) -> str:
        with contextlib.suppress(OSError, ValueError):
            self.stderr.seek(0)
            lines = [line.strip() for line in self.stderr.read().decode(errors="replace").splitlines() if line.strip()]
            if lines:
                return lines[-1]
        return "no output"

    def close(self) -> None:
        processes.kill(self.process)
        self.sock.close()
        self.stderr.close()


_SERVER: ForkServer | None = None
_SERVER_LOCK = threading.Lock()


_ONE_SHOT = False


def prestart(project_dir: Path | None = None, one_shot: bool = False) -> None:
    """Start the fork server now (the CLI calls this before its heavy imports and any gRPC channel).

    project_dir: where the review will probably run; the server preloads what its program imports,
    then amlkit's pack, while the caller is still importing. one_shot: this process runs one review and
    exits (the CLI): a review of one stack then forks its two children at once, and each imports what
    it lacks, in parallel on two cores, instead of the server importing both (measured faster cold,
    bench/README.md); a process that reviews again (the library, the persistent server) preloads, so its
    later reviews fork warm.
    """
    global _ONE_SHOT
    _ONE_SHOT = one_shot
    _server(project_dir)


def eager(stacks: int) -> bool:
    """Whether a review of `stacks` stacks forks its children at once, each importing what it needs in parallel
    (a one-shot command, the CLI, reviewing one stack: see `prestart`), instead of the server preloading."""
    return _ONE_SHOT and stacks <= 1


def server() -> ForkServer:
    """The process's fork server, started on first use (a review holds it through
    `amlkit.review.proc.workers.review_session`)."""
    return _server()


def _server(hint: Path | None = None) -> ForkServer:
    global _SERVER
    with _SERVER_LOCK:
        if _SERVER is None or not _SERVER.alive():
            if _SERVER is not None:
                _SERVER.close()
            _SERVER = ForkServer(hint)
        return _SERVER


def stop() -> None:
    """Stop the fork server, if one is running: at exit (atexit, and the CLI when its command ends). A
    review still running in another thread starts a new one for its next child."""
    drop_parked()
    global _SERVER
    with _SERVER_LOCK:
        server, _SERVER = _SERVER, None
    if server is not None:
        server.close()


atexit.register(stop)


def server_cpu_seconds() -> float:
    """CPU seconds of this process's fork server and of the children it reaped; 0 when none runs."""
    server = _SERVER
    if server is None or not server.alive():
        return 0.0
    try:
        return float(sum(server.status()["cpu"].values()))
    except ReviewFailed:  # it died meanwhile
        return 0.0


def spawn_runner(cwd: Path, stderr: Any) -> WarmChild:
    """The program's child: what `python -P -m amlkit.review.run.runner` (cwd = project dir) runs."""
    return _fork("runner", cwd, (PIPE, PIPE, stderr))


def spawn_canary() -> WarmChild:
    """The start-up canary's child: what `python -m amlkit.review.pack.canary` runs (amlkit.review.pack.canary)."""
    return _fork("canary", Path("/"), (DEVNULL, PIPE, PIPE))


def spawn_worker(cwd: Path, sock: Any) -> WarmChild:
    """A program worker (amlkit.review.children.worker): runs stacks one after another, its requests on `sock`."""
    return _fork("worker", cwd, (sock, DEVNULL, DEVNULL))


def config_env(config: dict[str, str]) -> str:
    """PULUMI_CONFIG for the pack. Values that would not fit the environment are left out of it
    (largest first); ConfigureStack still carries the whole stack config."""
    kept = dict(config)
    text = json.dumps(kept)
    for key in sorted(config, key=lambda k: len(config[k]), reverse=True):
        if len(text) <= MAX_ENV_VALUE:
            break
        del kept[key]
        text = json.dumps(kept)
    return text


def pack_env(project: str, stack: str, config: dict[str, str]) -> dict[str, str]:
    """What the engine sets for a policy pack it starts for `stack` (amlkit.review.pack.process)."""
    return dict(PULUMI_PROJECT=project, PULUMI_STACK=stack, PULUMI_DRY_RUN="true", PULUMI_CONFIG=config_env(config),
                PYTHONUNBUFFERED="1")


def spawn_pack(pack_dir: Path, engine_address: str, env: dict[str, str]) -> WarmChild:
    """The pack's child: what `python -u -m pulumi.policy <engine> <pack dir>` (cwd = pack dir) runs; the one
    `prefork_pack` started for exactly these arguments, environment and umask, when there is one."""
    with _PARKED_LOCK:
        child = _PARKED.pop(_pack_key(pack_dir, engine_address, env), None)
    if child is not None:
        if child.poll() is None:
            return child
        processes.kill(child)  # it died while parked: a new one, whose failure the review reports
    return _fork("pack", pack_dir, (DEVNULL, PIPE, PIPE), env=env, argv=[engine_address, str(pack_dir)])


_PARKED: dict[tuple[str, ...], WarmChild] = {}  # pack children forked ahead, by what they were started with
_PARKED_LOCK = threading.Lock()


def prefork_pack(pack_dir: Path, project: str, stack: str, config: dict[str, str]) -> None:
    """Fork the pack child of a stack now, beside its program's child, before this process imports the pack side
    (grpc, pulumi's protobufs: a one-stack CLI review, `eager`); that stack's `spawn_pack` takes it. It is the
    child `spawn_pack` would fork (the same request: directory, argv, environment, umask), only earlier; one
    nobody takes is killed when the review ends (`drop_parked`)."""
    env = pack_env(project, stack, config)
    key = _pack_key(pack_dir, ENGINE_ADDRESS, env)
    child = _fork("pack", pack_dir, (DEVNULL, PIPE, PIPE), env=env, argv=[ENGINE_ADDRESS, str(pack_dir)])
    with _PARKED_LOCK:
        before = _PARKED.pop(key, None)
        _PARKED[key] = child
    if before is not None:
        processes.kill(before)


def drop_parked() -> None:
    """Kill the pack children forked ahead that no stack took."""
    with _PARKED_LOCK:
        parked = list(_PARKED.values())
        _PARKED.clear()
    for child in parked:
        processes.kill(child)


def _pack_key(pack_dir: Path, engine_address: str, env: dict[str, str]) -> tuple[str, ...]:
    """What a pack child gets from the review: its directory, argv, whole environment and umask."""
    return (str(pack_dir), engine_address, json.dumps({**os.environ, **env}, sort_keys=True),
            str(environment.umask()))


def _fork(kind: str, cwd: Path, stdio: tuple[Any, Any, Any], env: dict[str, str] | None = None,
          argv: list[str] | None = None) -> WarmChild:
    server = _server()
    return processes.adopt(lambda: server.fork(kind, cwd, stdio, env, argv))
