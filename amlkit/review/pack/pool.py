"""Pack processes reused across stacks: one pool per policy pack, one idle process per worker at most."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

from amlkit.review.pack.process import PackProcess
from amlkit.review.pack.session import SessionParams
from amlkit.review.proc import environment

__all__ = ["PackPool"]


class PackPool:
    """Pack processes reused across stacks, and across the reviews of one process: one per worker.

    A stack takes an idle pack (or starts one) with `pack()`, and gives it back when its conversation
    ended cleanly; each stack sends its own ConfigureStack and Configure (the whole reconciled config),
    so a reused pack answers as a fresh one would (tests/review/test_pack_reuse.py). A pack whose stack
    failed in any way (the pack crashed or hung, the program failed mid-way with Analyze calls in flight,
    find_failing_policy reconfigured it) is killed, never reused: the next stack starts a new one, so a
    crash fails only its own stack. At most `keep` packs wait idle; they die with the process (their
    fork server dies at exit, amlkit.review.proc.warm, and every child with it).

    Only amlkit's own pack is reused (`shared`): its rules are pure functions of (type, inputs, config)
    and read nothing of the process's PULUMI_PROJECT / PULUMI_STACK / PULUMI_CONFIG, which a process
    keeps from the stack it was started for. Another pack may read them (pulumi.get_stack(),
    pulumi.Config()), so it gets a fresh process per stack (`PackPool(dir, reuse=False)`), as
    `pulumi preview` gives it.
    """

    _shared: dict[Path, PackPool] = {}
    _shared_lock = threading.Lock()

    def __init__(self, pack_dir: Path, reuse: bool, keep: int = 1) -> None:
        self.pack_dir, self.reuse, self.keep = pack_dir, reuse, keep
        self._idle: list[PackProcess] = []
        self._lock = threading.Lock()
        self.started = 0  # packs started (for tests)

    @classmethod
    def shared(cls, pack_dir: Path, keep: int) -> PackPool:
        """This process's pool of reused packs of `pack_dir` (keeping at most `keep` idle, the largest asked)."""
        with cls._shared_lock:
            pool = cls._shared.setdefault(pack_dir, cls(pack_dir, reuse=True, keep=keep))
            pool.keep = max(pool.keep, keep)
            return pool

    @contextlib.contextmanager
    def pack(self, params: SessionParams) -> Iterator[PackProcess]:
        """A pack for one stack: an idle one when reuse is on and one is alive, else a new one."""
        pack = self._take()
        if pack is None:
            pack = params.start(self.pack_dir)
            with self._lock:
                self.started += 1
        pack.timeout, pack.verbose = params.timeout, params.verbose  # this review's
        clean = False
        try:
            yield pack
            clean = True
        finally:
            if not (clean and self.reuse and pack.process.poll() is None and self._give_back(pack)):
                pack.close()

    def _give_back(self, pack: PackProcess) -> bool:
        with self._lock:
            if len(self._idle) >= self.keep:
                return False
            self._idle.append(pack)
            return True

    def _take(self) -> PackProcess | None:
        if not self.reuse:
            return None
        while True:
            with self._lock:
                if not self._idle:
                    return None
                pack = self._idle.pop()
            if pack.process.poll() is None and pack.started_in == environment.state():
                return pack
            pack.close()  # died while idle, or started in another environment, umask or time zone

    @classmethod
    def shared_idle_pids(cls) -> list[int]:
        """The process ids of this process's reused packs waiting idle (for measurements and tests)."""
        with cls._shared_lock:
            pools = list(cls._shared.values())
        pids = []
        for pool in pools:
            with pool._lock:
                pids += [pack.process.pid for pack in pool._idle]
        return pids

    def close(self) -> None:
        """Stop the idle packs."""
        with self._lock:
            idle, self._idle = self._idle, []
        for pack in idle:
            pack.close()
