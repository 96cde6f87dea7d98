"""amlkit.review.proc.isolation: what a program worker resets between two stacks and what it reports as a leak
(each case runs in a forked child, so the test process itself is never changed; pulumi and amlkit are imported
before the baseline, as in a worker forked from the fork server)."""

from __future__ import annotations

import gc
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pulumi.runtime.settings
import pytest

from amlkit.review import arm
from amlkit.review.proc import isolation

PROGRAM = Path(__file__).resolve().parents[1] / "data" / "worker_state"


def _in_child(case: Callable[[isolation.Baseline], object]) -> object:
    """Run `case(baseline)` in a forked child (baseline captured there first); its JSON result."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read)
        code = 0
        # hypothesis (loaded by other tests of this process) keeps a gc callback that rebinds its own module
        # globals whenever a collection runs: the child drops it, or any collection would look like a leak
        gc.callbacks.clear()
        try:
            base = isolation.capture()
            os.write(write, json.dumps(case(base)).encode())
        except BaseException as error:  # noqa: BLE001 - reported to the parent
            os.write(write, json.dumps({"raised": repr(error)}).encode())
            code = 1
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    return json.loads(data)


def _leaves_nothing(base: isolation.Baseline) -> object:
    return isolation.restore(base, PROGRAM, failed=False)


def _global_of_installed_module(base: isolation.Baseline) -> object:
    json.amlkit_leak = 1  # type: ignore[attr-defined]
    return isolation.restore(base, PROGRAM, failed=False)


def _signal_handler(base: isolation.Baseline) -> object:
    import signal

    signal.signal(signal.SIGUSR2, lambda *_: None)
    return isolation.restore(base, PROGRAM, failed=False)


def _thread(base: isolation.Baseline) -> object:
    import threading
    import time

    threading.Thread(target=time.sleep, args=(5,), daemon=True).start()
    return isolation.restore(base, PROGRAM, failed=False)


def _ending_thread(base: isolation.Baseline) -> object:
    """A thread told to stop that is still leaving when the stack returns (an executor the SDK shut down)."""
    import threading
    import time

    threading.Thread(target=time.sleep, args=(0.05,), daemon=True).start()
    return isolation.restore(base, PROGRAM, failed=False)


def _open_file(base: isolation.Baseline) -> object:
    kept = open(os.devnull)  # noqa: SIM115 - left open on purpose
    leaks = isolation.restore(base, PROGRAM, failed=False)
    return [leaks, kept.fileno()]


def _failed(base: isolation.Baseline) -> object:
    return isolation.restore(base, PROGRAM, failed=True)


def _warnings_filter(base: isolation.Baseline) -> object:
    import warnings

    warnings.filterwarnings("ignore", message="amlkit isolation test")
    return isolation.restore(base, PROGRAM, failed=False)


def _reset_state(base: isolation.Baseline) -> object:
    """What the worker resets without a leak: pulumi's and amlkit's module globals, sys.path, sys.argv, the
    program's own modules (and their names on their package), a file-less module the program made up."""
    import types

    original_root = pulumi.runtime.settings.ROOT
    arm.SUBSCRIPTION = "changed"
    pulumi.runtime.settings.ROOT = None  # type: ignore[assignment]
    pulumi.runtime.settings.amlkit_added = 1  # type: ignore[attr-defined]
    sys.path.insert(0, str(PROGRAM))
    sys.argv = ["program", "left"]
    import helper  # type: ignore[import-not-found]  # the fixture program's own module

    helper.COUNT = 5
    sys.modules["made_up"] = types.ModuleType("made_up")
    leaks = isolation.restore(base, PROGRAM, failed=False)
    return {"leaks": leaks, "subscription": arm.SUBSCRIPTION,
            "root kept": pulumi.runtime.settings.ROOT is original_root,
            "added": hasattr(pulumi.runtime.settings, "amlkit_added"), "path": str(PROGRAM) in sys.path,
            "argv": sys.argv == base.argv, "helper": "helper" in sys.modules, "made_up": "made_up" in sys.modules}


def _installed_module_under_the_program(base: isolation.Baseline) -> object:
    """A program directory that holds the virtual environment (`.venv` in the project): a stack imports an installed
    module (here a file of azure-native) from under it, and that module stays, bound on its package."""
    import sysconfig

    import pulumi_azure_native.machinelearningservices._enums as enums

    program = Path(sysconfig.get_paths()["purelib"]).parent
    assert os.path.realpath(enums.__file__).startswith(os.path.realpath(program))
    leaks = isolation.restore(base, program, failed=False)
    package = sys.modules["pulumi_azure_native.machinelearningservices"]
    return {"leaks": leaks, "kept": sys.modules.get(enums.__name__) is enums,
            "bound": package.__dict__.get("_enums") is enums}


def test_an_installed_module_under_the_programs_directory_is_not_the_programs():
    assert _in_child(_installed_module_under_the_program) == {"leaks": [], "kept": True, "bound": True}


def test_nothing_left_behind_is_no_leak():
    assert _in_child(_leaves_nothing) == []


def test_a_thread_still_ending_when_the_stack_returns_is_no_leak():
    assert _in_child(_ending_thread) == []


def test_pulumi_and_amlkit_globals_path_argv_and_the_programs_modules_are_reset():
    assert _in_child(_reset_state) == {
        "leaks": [], "subscription": "00000000-0000-0000-0000-000000000000", "root kept": True, "added": False,
        "path": False, "argv": True, "helper": False, "made_up": False}


@pytest.mark.parametrize(("case", "leaks"), [
    (_global_of_installed_module, ["module json: amlkit_leak changed"]),
    (_signal_handler, ["a signal handler changed"]),
    (_thread, ["1 thread(s) still running"]),
    (_failed, ["the program failed"]),
    (_warnings_filter, ["warnings.filters changed"]),
])
def test_state_outside_pulumis_is_a_leak(case: Callable[[isolation.Baseline], object], leaks: list[str]):
    assert _in_child(case) == leaks


def test_a_file_left_open_is_a_leak():
    leaks, fd = _in_child(_open_file)  # type: ignore[misc]
    assert leaks == [f"file descriptor(s) left open: {fd} (/dev/null)"]
