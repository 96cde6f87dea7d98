"""What a program worker (amlkit.review.children.worker) resets between two stacks, and what it checks.

A worker runs one stack after another in one process. The next stack must see exactly what a fresh
child of the fork server sees, so after every stack the worker compares the process with the `Baseline`
it captured before its first stack:

Reset (restored, the worker goes on):
- every module global of `pulumi*` and `amlkit*` modules rebound or added (the runner patches some of
  them per stack; a program's own rebinding of them is undone the same way); a submodule imported meanwhile
  stays;
- `sys.path`, `sys.argv`, `sys.modules` entries of the program's own modules (any module whose file is under
  the program's directory but not under site-packages, or that has no file and was not there before) and their
  names on parent packages;
- the environment, the working directory, the umask and `TZ` (the next stack adopts the review's, as a
  freshly forked child does: amlkit.review.proc.environment);
- pulumi's per-stack state (settings, config, root stack, mocks: context variables) and the asyncio loop:
  each stack runs in a copy of the worker's first context, with a new event loop.

Detected (the worker reports the leak and exits after the stack; the next stack gets a fresh fork):
- any other module's global rebound, removed or added (a module, i.e. an import, excepted);
- a thread still alive, a file descriptor left open, a signal handler, `sys.meta_path`, `sys.path_hooks`,
  `sys.excepthook`, `sys.displayhook`, the recursion limit, `warnings.filters`, the root logger's handlers
  or level, the garbage collector's settings or an `atexit` callback changed;
- a program that failed (its state may be half-built).

Not seen (documented in docs/review.md): a change inside a mutable object (a list or dict held by a module
of an installed package, a class attribute), a child process or a variable set with `os.putenv` alone.
"""

from __future__ import annotations

import atexit
import functools
import gc
import logging
import os
import signal
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["Baseline", "RESET_PACKAGES", "capture", "open_fds", "restore"]

THREAD_SETTLE_S = 0.25
"""How long a stack's ending threads may take to leave before they count as left running."""
RESET_PACKAGES = ("pulumi", "amlkit")  # their module globals are restored after each stack


def _reset(name: str) -> bool:
    return any(name == top or name.startswith(top) for top in RESET_PACKAGES)  # pulumi_azure_native too


@dataclass
class Baseline:
    """The worker's state before its first stack (module dicts shallow-copied: bindings, not contents)."""

    modules: dict[str, ModuleType]
    globals: dict[str, dict[str, Any]]
    path: list[str]
    argv: list[str]
    signals: dict[int, Any]
    fds: set[int]
    hooks: tuple[Any, ...]
    threads: int
    shapes: dict[str, dict[str, Any]] = field(default_factory=dict)  # module globals as last seen unchanged


def _signals() -> dict[int, Any]:
    found = {}
    for signum in signal.valid_signals():
        try:
            found[int(signum)] = signal.getsignal(signum)
        except (ValueError, OSError):
            continue
    return found


def open_fds() -> set[int]:
    """This process's open file descriptors (not the one the listing itself used)."""
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return set()
    found = set()
    for name in names:
        try:
            os.fstat(int(name))
        except OSError:
            continue
        found.add(int(name))
    return found


def _hooks() -> tuple[Any, ...]:
    return (sys.excepthook, sys.displayhook, sys.breakpointhook, sys.unraisablehook, tuple(sys.meta_path),
            tuple(sys.path_hooks), sys.getrecursionlimit(), tuple(warnings.filters), tuple(logging.root.handlers),
            logging.root.level, gc.isenabled(), gc.get_threshold(), atexit._ncallbacks())


def capture() -> Baseline:
    _installed_roots()  # before the snapshot: sysconfig fills its own module globals on first use
    modules = dict(sys.modules)
    saved = {name: dict(vars(module)) for name, module in modules.items() if _has_dict(module)}
    gc.freeze()
    return Baseline(modules, saved, list(sys.path), sys.argv, _signals(), open_fds(), _hooks(), _thread_count(),
                    {name: dict(names) for name, names in saved.items()})


def _has_dict(module: Any) -> bool:
    try:
        return isinstance(vars(module), dict)
    except TypeError:
        return False


def restore(base: Baseline, program: Path, failed: bool) -> list[str]:
    """Reset what the worker resets; the leaks it found (empty: the next stack may run here)."""
    leaks = ["the program failed"] if failed else []
    sys.argv = base.argv
    sys.path[:] = base.path
    _drop_program_modules(base, program)
    leaks += _module_globals(base)
    threads = _settled_thread_count(base.threads)
    if threads > base.threads:  # a worker has one (a forked test process may have gRPC's too)
        leaks.append(f"{threads - base.threads} thread(s) still running")
    gc.collect()  # an event loop the SDK opened in an executor thread closes when collected
    gc.freeze()  # what survived (the baseline, caches) is not walked again after the next stack
    fds = open_fds() - base.fds
    if fds:
        leaks.append(f"file descriptor(s) left open: {', '.join(_fd_names(fds))}")
    if _signals() != base.signals:
        leaks.append("a signal handler changed")
    hooks = _hooks()
    if hooks != base.hooks:
        names = ("sys.excepthook", "sys.displayhook", "sys.breakpointhook", "sys.unraisablehook", "sys.meta_path",
                 "sys.path_hooks", "the recursion limit", "warnings.filters", "the root logger's handlers",
                 "the root logger's level", "gc.isenabled()", "gc thresholds", "atexit callbacks")
        leaks += [f"{name} changed" for name, now, then in zip(names, hooks, base.hooks, strict=True) if now != then]
    return leaks


def _fd_names(fds: set[int]) -> list[str]:
    names = []
    for fd in sorted(fds):
        try:
            names.append(f"{fd} ({os.readlink(f'/proc/self/fd/{fd}')})")
        except OSError:
            names.append(str(fd))
    return names


def _settled_thread_count(base: int, wait: float = THREAD_SETTLE_S) -> int:
    """The threads alive once those already ending have ended: a thread the SDK shut down (an executor's worker
    told to stop) can still be leaving the kernel when the stack returns, and counting it then would end a clean
    worker. Waits only while there are more threads than `base`, and at most `wait` seconds."""
    deadline = time.monotonic() + wait
    threads = _thread_count()
    while threads > base and time.monotonic() < deadline:
        time.sleep(0.005)
        threads = _thread_count()
    return threads


def _thread_count() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        import threading

        return threading.active_count()


def _drop_program_modules(base: Baseline, program: Path) -> None:
    """Forget the modules the program imported from its own directory (and file-less new ones); never an installed
    package's, even where the program's directory holds the virtual environment (`.venv/lib/.../site-packages`):
    forgetting a file of azure-native that a stack imported would leave its package holding the old file's
    classes while the next stack imports the file anew."""
    root = os.path.join(str(program.resolve()), "")
    installed = _installed_roots()
    known = base.modules
    for name, module in [(name, module) for name, module in list(sys.modules.items()) if known.get(name) is not module]:
        filename = getattr(module, "__file__", None)
        if filename is not None and any(os.path.realpath(filename).startswith(top) for top in installed):
            base.modules[name] = module  # it stays: the next stacks need not resolve its path again
            continue
        if filename is None and name.partition(".")[0] not in base.modules or filename is not None and (
                os.path.abspath(filename).startswith(root) or os.path.realpath(filename).startswith(root)):
            del sys.modules[name]
            parent, _, child = name.rpartition(".")
            if parent in sys.modules and getattr(sys.modules[parent], child, None) is module:
                delattr(sys.modules[parent], child)


@functools.cache
def _installed_roots() -> list[str]:
    """The directories installed packages are imported from (site-packages), resolved, each ending in a separator."""
    import sysconfig

    paths = sysconfig.get_paths()
    return sorted({os.path.join(os.path.realpath(paths[key]), "") for key in ("purelib", "platlib") if key in paths})


def _module_globals(base: Baseline) -> list[str]:
    """Restore pulumi's and amlkit's module globals; name any other module whose globals changed. Modules
    imported during the stack from installed packages join the baseline as they are now."""
    leaks = []
    for name, module in list(sys.modules.items()):
        if _provider_types(name):
            continue
        saved = base.globals.get(name)
        if saved is None or base.modules.get(name) is not module:
            if _has_dict(module):
                base.modules[name], base.globals[name] = module, dict(vars(module))
                base.shapes[name] = dict(vars(module))
            continue
        now = vars(module)
        if _same(now, base.shapes.get(name)):
            continue
        ignored = _PER_STACK.get(name, ())
        changed = sorted(key for key in now.keys() | saved.keys()
                         if now.get(key, _MISSING) is not saved.get(key, _MISSING)
                         and not isinstance(now.get(key), ModuleType) and key not in ignored)
        saved.update({key: value for key, value in now.items() if isinstance(value, ModuleType) and key not in saved})
        for key in [key for key in changed if key == "__warningregistry__"]:  # a warning shows again, as fresh
            changed.remove(key)
            _put_back(now, saved, key)
        if _reset(name):
            for key in changed:
                _put_back(now, saved, key)
        elif changed:
            leaks.append(f"module {name}: {', '.join(changed[:5])}{' ...' if len(changed) > 5 else ''} changed")
        if not changed:
            base.shapes[name] = dict(now)  # a submodule added, or a per-stack name: compare with it next time
    return leaks


@functools.cache
def _provider_types(name: str) -> bool:
    """A provider SDK's generated module (`pulumi_azure_native.network`, its types): not compared, for speed
    (thousands of classes); the package itself and its `config` module are."""
    top, _, rest = name.partition(".")
    return top.startswith("pulumi_") and top != "pulumi_policy" and bool(rest) and rest.split(".")[0] != "config"


def _same(now: dict[str, Any], shape: dict[str, Any] | None) -> bool:
    """Whether a module's globals are bound as in `shape` (a dict compares each value by identity first, in C,
    without building a copy of either side)."""
    if shape is None or len(now) != len(shape):
        return False
    try:
        return now == shape
    except Exception:  # noqa: BLE001 - a value whose == raises was rebound: compare name by name
        return False


def _put_back(now: dict[str, Any], saved: dict[str, Any], key: str) -> None:
    if key in saved:
        now[key] = saved[key]
    else:
        del now[key]


_MISSING = object()
# set anew by the worker as each stack starts (its stdio; `time.tzset()` when it adopts the environment)
_PER_STACK = {"sys": ("stdin", "stdout", "stderr"), "time": ("tzname", "timezone", "altzone", "daylight")}
