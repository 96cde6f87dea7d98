"""`python bench/in_process.py PROJECT STACK RUNS`: RUNS reviews of one stack in ONE process (the library
API, amlkit.review.engine.review), one JSON line per review: wall seconds and CPU seconds of the whole tree
(this process, its fork server, every child the server forked and reaped, and amlkit's packs still
alive for the next review). The first review is cold; the later ones are what "second
review in one process" measures (the fork server and amlkit's pack stay warm, amlkit.review.proc.warm).
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path


def tree_cpu() -> float:
    """CPU seconds so far of this process, its fork server, the children that reaped, and the packs alive."""
    from amlkit.review.pack import pool
    from amlkit.review.proc import warm

    own = resource.getrusage(resource.RUSAGE_SELF)
    total = own.ru_utime + own.ru_stime
    total += warm.server_cpu_seconds()
    for pid in pool.PackPool.shared_idle_pids():
        total += _proc_cpu(pid)
    return total


def _proc_cpu(pid: int) -> float:
    """utime + stime of a live process (/proc/<pid>/stat), 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main(argv: list[str]) -> int:
    project, stack, runs = Path(argv[0]), argv[1], int(argv[2])
    start, cpu = time.perf_counter(), tree_cpu()
    from amlkit.review.engine import review

    for index in range(runs):
        result = review(project, [stack])
        now, cpu_now = time.perf_counter(), tree_cpu()
        errors = [s.error for s in result.stacks if s.error]
        print(json.dumps({"review": index + 1, "seconds": now - start, "cpu_seconds": cpu_now - cpu,
                          "errors": errors}), flush=True)
        start, cpu = time.perf_counter(), tree_cpu()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
