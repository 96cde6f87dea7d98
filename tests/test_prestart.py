"""amlkit.prestart.exit_quickly: a review's process ends as `sys.exit` would end it (status, atexit handlers, flushed
output), without the interpreter's teardown."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from amlkit.prestart import _status

ROOT = Path(__file__).resolve().parents[1]

STATUSES = {"none": (None, 0, ""), "zero": (0, 0, ""), "findings": (1, 1, ""), "internal": (3, 3, ""),
            "wraps": (256 + 2, 2, ""), "text": ("amlkit: stopped", 1, "amlkit: stopped\n")}


@pytest.mark.parametrize("code, status, stderr", list(STATUSES.values()), ids=list(STATUSES))
def test_the_status_is_what_sys_exit_gives(capsys, code, status, stderr):
    assert _status(code) == status
    assert capsys.readouterr().err == stderr


def _exit(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_atexit_handlers_run_and_buffered_output_is_written():
    done = _exit("import atexit, sys\n"
                 "atexit.register(lambda: print('atexit ran'))\n"
                 "print('buffered', end=' ')\n"
                 "sys.stderr.write('on stderr')\n"
                 "from amlkit.prestart import exit_quickly\n"
                 "exit_quickly(3)\n"
                 "print('never')\n")
    assert (done.returncode, done.stdout, done.stderr) == (3, "buffered atexit ran\n", "on stderr")


def test_a_thread_still_running_is_waited_for_as_the_interpreter_waits():
    done = _exit("import threading, time\n"
                 "def late():\n"
                 "    time.sleep(0.3)\n"
                 "    print('thread done', flush=True)\n"
                 "threading.Thread(target=late).start()\n"
                 "from amlkit.prestart import exit_quickly\n"
                 "exit_quickly(4)\n")
    assert (done.returncode, done.stdout) == (4, "thread done\n")


@pytest.mark.slow
def test_a_review_run_by_the_console_script_exits_with_its_status_and_its_whole_report(tmp_path):
    """What `amlkit check` prints and exits with (the console script, which ends through exit_quickly) is what the
    command line gives in process (typer's CliRunner, which returns from the command instead)."""
    from typer.testing import CliRunner

    from amlkit import cli

    args = ["check", "-C", str(ROOT), "-s", "dev", "--format", "json"]
    done = subprocess.run([sys.executable, "-c", "import sys; from amlkit.launch import main; sys.argv[0] = 'amlkit';"
                           " main()", *args], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    in_process = CliRunner().invoke(cli.app, args)
    assert done.returncode == in_process.exit_code
    assert json.loads(done.stdout) == json.loads(in_process.stdout)


def _to_closed_pipe(code: str) -> subprocess.CompletedProcess[str]:
    """`code` run with its stdout a pipe nobody reads any more (`amlkit check | head -0`)."""
    import os

    read, write = os.pipe()
    os.close(read)
    try:
        env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}  # output stays buffered
        return subprocess.run([sys.executable, "-c", code], stdout=write, stderr=subprocess.PIPE, text=True,
                              timeout=60, env=env)
    finally:
        os.close(write)


@pytest.mark.parametrize("code", [0, 1, 3])
def test_output_that_cannot_be_written_ends_with_the_interpreters_status(code):
    """A stdout whose reader has gone: the interpreter's own exit fails to flush it and exits 120 whatever the status
    was, so exit_quickly does the same."""
    usual = _to_closed_pipe(f"import atexit, sys\natexit.register(print, 'atexit ran', file=sys.stderr)\n"
                            f"print('report')\nsys.exit({code})\n")
    quick = _to_closed_pipe(f"import atexit, sys\natexit.register(print, 'atexit ran', file=sys.stderr)\n"
                            f"print('report')\nfrom amlkit.prestart import exit_quickly\nexit_quickly({code})\n")
    assert (quick.returncode, quick.stderr) == (usual.returncode, usual.stderr)
    assert usual.returncode == 120 and usual.stderr.startswith("atexit ran\nException ignored in: <_io.TextIOWrapper")
