"""`python bench/in_process.py PROJECT STACK RUNS`: RUNS reviews of one stack in ONE process (the library
API, amlkit.review.engine.review), one JSON line per review: wall seconds and CPU seconds of the whole tree
(this process, its fork server and every child the server forked and reaped; a pack still alive and
reused counts in the review that ends it). The first review is cold; the later ones are what "second
review in one process" measures (the fork server and amlkit's pack stay warm, amlkit.review.warm).
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path


def tree_cpu() -> float:
    from amlkit.review import warm

    own = resource.getrusage(resource.RUSAGE_SELF)
    total = own.ru_utime + own.ru_stime
    if warm._SERVER is not None and warm._SERVER.alive():
        total += sum(warm._SERVER.status()["cpu"].values())
    return total


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
