"""processes.Drain: a child's output pipe read to its end, keeping the first line and the tail."""

from __future__ import annotations

import subprocess
import sys

import pytest

from amlkit.review.proc import processes

CASES = [  # (what the child writes, its first line, its last line)
    ("print('4711'); print('x' * 1023 * 8000); print('last words')", b"4711", ["last words"]),
    ("import sys; sys.stdout.write('no newline')", None, ["no newline"]),
    ("pass", None, []),
]


@pytest.mark.parametrize(("code", "first", "tail"), CASES, ids=["megabytes", "no-newline", "silent"])
def test_drain_reads_everything_and_keeps_the_first_line_and_the_tail(code, first, tail):
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    drain = processes.Drain(child.stdout, "test")
    assert child.wait(timeout=60) == 0  # it never blocked on a full pipe
    assert drain.first_line(timeout=10) == first
    assert drain.tail_lines(1, timeout=10) == tail
    assert drain.ended()


def test_drain_first_line_times_out_while_the_child_is_silent():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], stdout=subprocess.PIPE)
    drain = processes.Drain(child.stdout, "test")
    try:
        assert drain.first_line(timeout=0.2) is None
        assert not drain.ended()
    finally:
        child.kill()
        child.wait()
    assert drain.tail_lines(5, timeout=10) == [] and drain.ended()
