"""The warm-start fork server (`python -P -m amlkit.review.children.fork_server`): it imports once, then forks
one child per request. The parent's side, the protocol and the guarantees are in `amlkit.review.proc.warm`.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import importlib
import importlib.util
import io
import os
import resource
import select
import signal
import socket
import struct
import sys
import threading
import traceback
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from amlkit.review.proc import environment
from amlkit.review.proc.preload import default_pack, pack_modules, program_preload, project_program
from amlkit.review.proc.warm import BASE_MODULES, PACK_MODULES
from amlkit.review.proc.wire import PR_SET_PDEATHSIG, receive, send

__all__ = ["cpu_seconds", "import_all", "main", "thread_count", "warm_caches", "warm_types"]


def _die_with_parent(parent: int) -> None:
    """SIGKILL when the parent dies; exit now if it already did (before prctl took effect)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


def thread_count() -> int:
    """Threads of this process, native ones included (gRPC's are invisible to `threading`)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def cpu_seconds() -> dict[str, float]:
    """User + system CPU seconds of this server (`self`) and of its children it has reaped (`children`)."""
    own, reaped = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"self": own.ru_utime + own.ru_stime, "children": reaped.ru_utime + reaped.ru_stime}


def import_all(names: Iterable[str]) -> list[str]:
    """Import each module and force a lazily loaded one (azure-native's) to load; the names imported. An azure-native
    module loaded member by member (amlkit.review.run.provider_modules) is not forced: the types warmed
    (`warm_types`) import the files of what the program uses, and a child imports the rest it uses itself (a
    worker's share of the files of a few types costs less than one server loading whole modules)."""
    from amlkit.review.run.provider_modules import MemberModule

    done = []
    for name in names:
        try:
            module = importlib.import_module(name)
            if isinstance(module, MemberModule):
                done.append(name)
                continue
            # a lazy module loads on its first attribute access, except for __name__, __file__ & co.
            getattr(module, "_amlkit_warm_start_", None)
        except Exception:  # noqa: BLE001 - the child will meet (and report) the same failure itself
            continue
        if type(module).__name__ != "_LazyModule":
            done.append(name)
    return done


def warm_caches() -> None:
    """Fill what amlkit computes on first use (the pack's rules, VM size catalogue, Azure regions, patch guards)
    once, for every child. `amlkit.policies` discovers its rules on first use, not when it is imported."""
    policies = sys.modules.get("amlkit.policies")
    if policies is not None:
        with contextlib.suppress(Exception):  # a broken rule module: the pack child reports it itself
            policies.all_rules()
    vmsizes = sys.modules.get("amlkit.vmsizes")
    if vmsizes is not None:
        with contextlib.suppress(Exception):
            vmsizes.all_families()
    from amlkit import patches, regions
    from amlkit.review.run import provider_modules

    for name in patches.PATCHES:  # each child would hash the SDK's source again
        if name != "provider-modules" or provider_modules.PACKAGE in sys.modules:  # never import azure-native for it
            patches.off_reason(name)
    with contextlib.suppress(Exception):  # a stack file's region is checked against them (a YAML file)
        regions.public_names()


def warm_types(program: Path, done: set[str]) -> int:
    """Warm pulumi's per-class caches for the resource types and functions `program`'s stacks were seen to use
    (amlkit.review.proc.learned, amlkit.review.run.typecache) and not in `done` (added to it); the number of
    classes warmed."""
    from amlkit.review.proc import learned
    from amlkit.review.run import typecache

    tokens = [token for token in learned.load_types(program) if token not in done]
    done.update(tokens)
    return typecache.warm(tokens)


class _Server:
    def __init__(self, sock: socket.socket, hint: Path | None = None) -> None:
        self.hint = hint
        self.idle: list[str] = []  # modules to import while nobody waits for a fork
        self.sock = sock
        self.children: dict[int, int] = {}  # pid -> the status fd the parent reads
        self.loaded: list[str] = []
        self.planned: dict[str, Any] | None = None
        self.wanted: dict[str, list[str]] = {}  # child kind -> the modules to import before forking one
        self.program: Path | None = None  # whose learned types to warm before its next program child
        self.warm_due = False  # a new review (or the hint) named that program: read what it learned
        self.warmed: dict[str, int] = {}  # program -> the classes warmed for it
        self.tokens: set[str] = set()  # the types and functions warmed
        wake_read, wake_write = os.pipe()
        os.set_blocking(wake_read, False)
        os.set_blocking(wake_write, False)
        self.wake = wake_read
        signal.set_wakeup_fd(wake_write)
        signal.signal(signal.SIGCHLD, lambda *_: None)

    def run(self) -> None:
        self.loaded += import_all(BASE_MODULES)
        from amlkit.review.run import provider_modules

        provider_modules.install()  # before any azure-native module is imported: each loads member by member
        while True:
            waiting = self.idle or self.hint is not None
            ready, _, _ = select.select([self.sock.fileno(), self.wake], [], [], 0 if waiting else None)
            if not ready and self.hint is not None:  # nobody waits for a fork: what to import meanwhile
                self.read_hint()
                continue
            if not ready:
                self.loaded += import_all([self.idle.pop(0)])
                if not self.idle:
                    warm_caches()
                    self.warm_program()
                continue
            if self.wake in ready:
                with contextlib.suppress(BlockingIOError):
                    os.read(self.wake, 4096)
            self.reap()
            if self.sock.fileno() in ready:
                try:
                    message, fds = receive(self.sock)
                except (EOFError, OSError):
                    return  # the parent is gone
                send(self.sock, self.handle(message, fds), [])

    def read_hint(self) -> None:
        """The modules to import one by one while no fork is asked for: the hinted project's program's, then the
        pack's. Read only while nobody waits (reading the program's imports and what it learned takes ~30-50 ms),
        and never once a review has said what it forks (its plan names what to import)."""
        hint, self.hint = self.hint, None
        assert hint is not None
        program = project_program(hint)
        self.program, self.warm_due = program, program is not None
        pack = default_pack()
        self.idle = [*(program_preload(program) if program else []), *PACK_MODULES,
                     *(pack_modules(pack) if pack else [])]

    def handle(self, message: dict[str, Any], fds: list[int]) -> dict[str, Any]:
        op = message.get("op")
        if op == "plan":
            self.hint = None  # the plan says what this review forks: the hint is no longer needed
            self.planned = message
            if message.get("eager"):  # a one-shot command with one stack: fork at once (see warm.prestart)
                self.planned, self.wanted, self.idle, self.program = None, {}, [], None
            return {"ok": True}
        if op == "status":
            self.reap()
            return {"threads": thread_count(), "loaded": self.loaded, "cpu": cpu_seconds(), "warmed": self.warmed,
                    "rules": sorted(name for name in sys.modules if name.startswith("amlkit.policies.rules."))}
        try:
            kind = message.get("kind", "")
            self.preload("runner" if kind == "worker" else kind)  # a worker runs what runner children run
            return self.fork(message, fds)
        finally:
            for fd in fds:
                os.close(fd)

    def preload(self, kind: str) -> None:
        """Before forking a child of `kind`: the modules that kind of child imports, as the review planned.

        For one stack too: the CLI prestarts this server, which imports while the parent imports the engine,
        and the server outlives the review (amlkit.review.proc.warm), so later reviews in the process fork warm.
        Per kind: the program's child is forked as soon as the program's modules are in (the pack's are
        imported next, while that child runs), the pack's as soon as the pack's are.
        """
        if self.planned is not None:
            plan, self.planned = self.planned, None
            self.idle = []  # the plan names what to import now
            program = program_preload(Path(plan["program"])) if plan.get("program") else []
            pack = [*PACK_MODULES, *pack_modules(Path(plan["pack"]))] if plan.get("pack") else []
            self.wanted = {"runner": [*BASE_MODULES, *program], "pack": [*BASE_MODULES, *pack]}
            self.program = Path(plan["program"]) if plan.get("program") else None
            self.warm_due = self.program is not None
        names = [name for name in self.wanted.get(kind, []) if name not in self.loaded]
        if names:
            self.loaded += import_all(names)
            warm_caches()
        if kind == "runner":
            self.warm_program()

    def warm_program(self) -> None:
        """Once per review (plan), before its first program child: warm the SDK classes its program's stacks
        were seen to use (a later review of the same program warms only what its last review added)."""
        program = self.program
        if program is not None and self.warm_due:
            self.warm_due = False
            self.warmed[str(program)] = self.warmed.get(str(program), 0) + warm_types(program, self.tokens)

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
        environment.adopt(message["env"], message["umask"])  # the review's, as Popen would pass them on
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
        from amlkit.review.run import runner

        sys.argv = [runner.__file__]
        return runner.main()
    if message["kind"] == "worker":  # stacks one after another: amlkit.review.children.worker
        from amlkit.review.children import worker
        from amlkit.review.run import runner

        sys.argv = [runner.__file__]
        return worker.serve(socket.socket(fileno=0), _fresh_stdio)
    if message["kind"] == "canary":  # the start-up canary: amlkit.review.pack.canary
        from amlkit.review.pack import canary

        return canary.main()
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
