"""Warm start: pay the imports once per review, then fork a child per stack for the program and the pack.

The review's parent talks gRPC to every pack, and gRPC is not fork-safe (a fork while another thread
is inside gRPC leaves the child aborting with `epoll_wait error: Bad file descriptor`). So the parent
never forks. It starts ONE fork server (`python -P -m amlkit.review.warm`, an exec, no Python code
between fork and exec) before it creates any gRPC channel; the server imports pulumi, the
azure-native modules the programs use (forcing the lazy modules to load), amlkit's components and the
pack's modules, and never creates a gRPC channel, server or thread: it checks that it is the only
thread before every fork (`/proc/self/task`), and refuses to fork otherwise.

Per stack, the parent asks the server (an AF_UNIX socket; the child's stdin/stdout/stderr travel as
file descriptors, SCM_RIGHTS) to fork:
- a program child, which runs exactly what `python -P -m amlkit.review.runner` runs (cwd = project
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

import contextlib
import ctypes
import gc
import importlib
import importlib.util
import io
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
import traceback
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from amlkit.errors import ReviewFailed
from amlkit.review import processes
from amlkit.review.preload import default_pack, pack_modules, program_modules, project_program

PIPE = subprocess.PIPE
DEVNULL = subprocess.DEVNULL
REPLY_TIMEOUT = 300.0  # seconds for the server to answer a fork request (it may be importing first)
_PR_SET_PDEATHSIG = 1
_HEADER = struct.Struct("!I")
_MAX_FDS = 8

# What both kinds of children need, imported before anything else (no gRPC object is created).
BASE_MODULES = ("pulumi", "pulumi.runtime", "pulumi.runtime.mocks", "pulumi.runtime.stack",
                "pulumi.runtime.sync_await", "amlkit.review.runner", "amlkit.review.mocks")
PACK_MODULES = ("pulumi_policy", "pulumi_policy.policy", "google.protobuf.json_format", "argparse", "runpy")


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
        args = [sys.executable, "-P", "-m", "amlkit.review.warm", str(theirs.fileno()), str(os.getpid()),
                *([str(hint)] if hint else [])]
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
        """Tell the server what it will fork (it preloads the modules those need)."""
        self._request({"op": "plan", "program": str(program) if program else None,
                       "pack": str(pack) if pack else None, "stacks": stacks})

    def status(self) -> dict[str, Any]:
        return self._request({"op": "status"})

    def fork(self, kind: str, cwd: Path, stdio: tuple[Any, Any, Any], env: dict[str, str] | None = None,
             argv: list[str] | None = None) -> WarmChild:
        """Fork a child of `kind` ("runner" | "pack"); stdio entries: PIPE, DEVNULL or a file object."""
        child_fds, parent_ends, opened = [], [], []
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
                reply = self._request({"op": "fork", "kind": kind, "cwd": str(cwd), "env": env or {},
                                       "argv": argv or []}, [*child_fds, status_write])
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
        return WarmChild(reply["pid"], *parent_ends, status_read)

    def _request(self, message: dict[str, Any], fds: list[int] | None = None) -> dict[str, Any]:
        with self.lock:
            try:
                _send(self.sock, message, fds or [])
                reply, _ = _receive(self.sock)
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


def prestart(project_dir: Path | None = None) -> None:
    """Start the fork server now (the CLI calls this before its heavy imports and any gRPC channel).

    project_dir: where the review will probably run; the server preloads what its program imports,
    then amlkit's pack, while the caller is still importing.
    """
    _server(project_dir)


def _server(hint: Path | None = None) -> ForkServer:
    global _SERVER
    with _SERVER_LOCK:
        if _SERVER is None or not _SERVER.alive():
            if _SERVER is not None:
                _SERVER.close()
            _SERVER = ForkServer(hint)
        return _SERVER


def stop() -> None:
    """Stop the fork server, if one is running (e.g. prestarted for a review that never ran)."""
    global _SERVER
    with _SERVER_LOCK:
        server, _SERVER = _SERVER, None
    if server is not None:
        server.close()


@contextlib.contextmanager
def session(program: Path | None, pack: Path | None, stacks: int) -> Iterator[ForkServer]:
    """A fork server for one review (the prestarted one when there is one); stopped at the end."""
    global _SERVER
    server = _server()
    try:
        server.plan(program, pack, stacks)
        yield server
    finally:
        with _SERVER_LOCK:
            if _SERVER is server:
                _SERVER = None
        server.close()


def spawn_runner(cwd: Path, stderr: Any) -> WarmChild:
    """The program's child: what `python -P -m amlkit.review.runner` (cwd = project dir) runs."""
    return _fork("runner", cwd, (PIPE, PIPE, stderr))


def spawn_pack(pack_dir: Path, engine_address: str, env: dict[str, str]) -> WarmChild:
    """The pack's child: what `python -u -m pulumi.policy <engine> <pack dir>` (cwd = pack dir) runs."""
    return _fork("pack", pack_dir, (DEVNULL, PIPE, PIPE), env=env, argv=[engine_address, str(pack_dir)])


def _fork(kind: str, cwd: Path, stdio: tuple[Any, Any, Any], env: dict[str, str] | None = None,
          argv: list[str] | None = None) -> WarmChild:
    server = _server()
    return processes.adopt(lambda: server.fork(kind, cwd, stdio, env, argv))


# --- wire format -----------------------------------------------------------------------------------

def _send(sock: socket.socket, message: dict[str, Any], fds: list[int]) -> None:
    data = json.dumps(message).encode()
    frame = _HEADER.pack(len(data)) + data
    sent = socket.send_fds(sock, [frame[:65536]], fds) if fds else sock.send(frame[:65536])
    sock.sendall(frame[sent:])


def _receive(sock: socket.socket) -> tuple[dict[str, Any], list[int]]:
    data, fds, _, _ = socket.recv_fds(sock, 65536, _MAX_FDS)
    if not data:
        raise EOFError("")
    while len(data) < _HEADER.size:
        data += _recv_some(sock)
    (size,) = _HEADER.unpack(data[:_HEADER.size])
    body = data[_HEADER.size:]
    while len(body) < size:
        body += _recv_some(sock)
    return json.loads(body), list(fds)


def _recv_some(sock: socket.socket) -> bytes:
    chunk = sock.recv(65536)
    if not chunk:
        raise EOFError("")
    return chunk


# --- the server's side -----------------------------------------------------------------------------

def _die_with_parent(parent: int) -> None:
    """SIGKILL when the parent dies; exit now if it already did (before prctl took effect)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


def thread_count() -> int:
    """Threads of this process, native ones included (gRPC's are invisible to `threading`)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def import_all(names: Iterable[str]) -> list[str]:
    """Import each module and force a lazily loaded one (azure-native's) to load; the names imported."""
    done = []
    for name in names:
        try:
            module = importlib.import_module(name)
            # a lazy module loads on its first attribute access, except for __name__, __file__ & co.
            getattr(module, "_amlkit_warm_start_", None)
        except Exception:  # noqa: BLE001 - the child will meet (and report) the same failure itself
            continue
        if type(module).__name__ != "_LazyModule":
            done.append(name)
    return done


def warm_caches() -> None:
    """Fill what amlkit computes on first use (VM size catalogue, patch guards) once, for every child."""
    vmsizes = sys.modules.get("amlkit.vmsizes")
    if vmsizes is not None:
        with contextlib.suppress(Exception):
            vmsizes.all_families()
    from amlkit.review import patches

    for name in patches.PATCHES:  # each child would hash the SDK's source again
        patches.off_reason(name)


class _Server:
    def __init__(self, sock: socket.socket, hint: Path | None = None) -> None:
        self.hint = hint
        self.idle: list[str] = []  # modules to import while nobody waits for a fork
        self.sock = sock
        self.children: dict[int, int] = {}  # pid -> the status fd the parent reads
        self.loaded: list[str] = []
        self.planned: dict[str, Any] | None = None
        wake_read, wake_write = os.pipe()
        os.set_blocking(wake_read, False)
        os.set_blocking(wake_write, False)
        self.wake = wake_read
        signal.set_wakeup_fd(wake_write)
        signal.signal(signal.SIGCHLD, lambda *_: None)

    def run(self) -> None:
        self.loaded += import_all(BASE_MODULES)
        if self.hint is not None:  # imported one by one while no fork is asked for
            program = project_program(self.hint)
            pack = default_pack()
            self.idle = [*(program_modules(program) if program else []), *PACK_MODULES,
                         *(pack_modules(pack) if pack else [])]
        while True:
            ready, _, _ = select.select([self.sock, self.wake], [], [], 0 if self.idle else None)
            if not ready:
                self.loaded += import_all([self.idle.pop(0)])
                if not self.idle:
                    warm_caches()
                continue
            if self.wake in ready:
                with contextlib.suppress(BlockingIOError):
                    os.read(self.wake, 4096)
            self.reap()
            if self.sock in ready:
                try:
                    message, fds = _receive(self.sock)
                except (EOFError, OSError):
                    return  # the parent is gone
                _send(self.sock, self.handle(message, fds), [])

    def handle(self, message: dict[str, Any], fds: list[int]) -> dict[str, Any]:
        op = message.get("op")
        if op == "plan":
            self.planned = message
            if message["stacks"] <= 1:
                self.idle = []  # the two children import what is missing, in parallel; nothing to share
            return {"ok": True}
        if op == "status":
            return {"threads": thread_count(), "loaded": self.loaded}
        try:
            self.preload()
            return self.fork(message, fds)
        finally:
            for fd in fds:
                os.close(fd)

    def preload(self) -> None:
        """Before the first fork of a multi-stack review: the modules every child would import."""
        plan, self.planned = self.planned, None
        if not plan or plan["stacks"] <= 1:
            return  # one stack: fork at once, the two children import in parallel
        names, self.idle = self.idle, []
        if plan.get("program"):
            names += program_modules(Path(plan["program"]))
        if plan.get("pack"):
            names += [*PACK_MODULES, *pack_modules(Path(plan["pack"]))]
        self.loaded += import_all(n for n in names if n not in self.loaded)
        warm_caches()

    def fork(self, message: dict[str, Any], fds: list[int]) -> dict[str, Any]:
        threads = thread_count()
        if threads != 1:
            return {"error": f"refusing to fork: the fork server has {threads} threads (fork is only safe "
                             "with one)"}
        if len(fds) != 4:
            return {"error": f"expected 4 file descriptors, got {len(fds)}"}
        server = os.getpid()
        gc.freeze()  # the children's collector never walks (and so never copies) the preloaded objects
        ready_read, ready_write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(ready_read)
            _child(server, message, fds, ready_write)  # never returns
        os.close(ready_write)
        self.children[pid] = os.dup(fds[3])
        # answer once the child leads its own process group: the parent's killpg must reach it
        with contextlib.suppress(OSError):
            os.read(ready_read, 1)
        os.close(ready_read)
        return {"pid": pid}

    def reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            fd = self.children.pop(pid, None)
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.write(fd, struct.pack("!i", os.waitstatus_to_exitcode(status)))
                os.close(fd)


def _child(server: int, message: dict[str, Any], fds: list[int], ready: int) -> None:
    """In the forked child: become what `python -m ...` would be, run it, exit with its code."""
    code = 1
    try:
        os.setsid()
        _die_with_parent(server)
        os.write(ready, b"1")
        signal.set_wakeup_fd(-1)
        for signum in (signal.SIGCHLD, signal.SIGTERM):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for target, fd in enumerate(fds[:3]):
            os.dup2(fd, target)
        os.closerange(3, 1 << 16)
        os.chdir(message["cwd"])
        os.environ.update(message["env"])
        _fresh_stdio(unbuffered=message["kind"] == "pack")
        if message["kind"] == "pack":
            sys.path[0:0] = [message["cwd"]]  # what `python -m` puts first (the runner runs with -P: nothing)
        code = _run(message)
    except SystemExit as done:
        code = _exit_code(done.code)
    except BaseException:  # noqa: BLE001 - what the interpreter prints for an uncaught exception
        with contextlib.suppress(Exception):
            traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)


def _run(message: dict[str, Any]) -> int:
    import runpy

    if message["kind"] == "runner":
        from amlkit.review import runner

        sys.argv = [runner.__file__]
        return runner.main()
    if message["kind"] == "pack":
        sys.argv = ["-m", *message["argv"]]  # run_module puts the module's path first, as -m does
        runpy.run_module("pulumi.policy", run_name="__main__", alter_sys=True)
        return 0
    raise ValueError(f"unknown child kind {message['kind']!r}")


def _fresh_stdio(unbuffered: bool) -> None:
    """New sys.stdin/stdout/stderr over fds 0-2 (nothing the server buffered can leak into them)."""
    sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)))
    out = io.FileIO(1, "w", closefd=False)
    sys.stdout = io.TextIOWrapper(out if unbuffered else io.BufferedWriter(out), write_through=unbuffered,
                                  line_buffering=not unbuffered and out.isatty())
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), errors="backslashreplace", write_through=True)


def _exit_code(code: Any) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    with contextlib.suppress(Exception):
        print(code, file=sys.stderr)
    return 1


def main(argv: list[str]) -> int:
    fd, parent = int(argv[0]), int(argv[1])
    _die_with_parent(parent)
    _Server(socket.socket(fileno=fd), Path(argv[2]) if len(argv) > 2 else None).run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
