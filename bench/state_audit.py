"""How fast and how big is an audit of a deployed state? Not a test: prints wall, CPU and peak memory.

`python bench/state_audit.py --sizes 10000,100000 [--repeat 1] [--timeout 120] [--keep DIR]` writes a
state of each size with bench/auditstate.py (an Azure ML platform stack: 20 resources per environment)
and runs `amlkit check --state FILE --format json` on it as a child process, with the default timeout
unless told otherwise. Per run it prints:

- wall seconds and CPU seconds (user + system of the child and every descendant it waited for, from
  `os.wait4`: the CLI, its fork server, the policy pack);
- peak RSS: the largest resident set of any single process of the tree (`ru_maxrss`, which Linux folds
  in from waited-for descendants);
- peak tree memory: the largest sum of proportional set sizes (`Pss` of /proc/<pid>/smaps_rollup) over
  the child and all its descendants, sampled every 0.2 s (shared pages of forked processes counted once);
- per process (`processes`): its role (`amlkit`, the CLI; `fork server`; `pack`, each process the fork server
  started, in start order), its CPU seconds (user + system of /proc/<pid>/stat at the last sample, so up to
  0.2 s short) and its peak resident set (`VmHWM` of /proc/<pid>/status at the last sample);
- the machine's load average before and after, since the 2 cores are shared;
- the exit code, and the stack's error or its findings (mandatory / advisory / unknown).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import auditstate

REPO = Path(__file__).resolve().parent.parent


def _children(pid: int) -> list[int]:
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as listed:
                found += [int(child) for child in listed.read().split()]
    except OSError:
        pass
    return found


def _pss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_pss_mb(root: int) -> float:
    """The summed PSS of a process and all its descendants, in MB."""
    total, todo, seen = 0, [root], set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += _pss_kib(pid)
        todo += _children(pid)
    return total / 1024


_TICK = os.sysconf("SC_CLK_TCK")


def _cpu_s(pid: int) -> float | None:
    """User + system seconds of one process so far (fields 14 and 15 of /proc/<pid>/stat)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / _TICK


def _hwm_mb(pid: int) -> float | None:
    """The peak resident set of one process so far (`VmHWM`), in MB."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


class Sampler(threading.Thread):
    """Every 0.2 s: the tree's summed PSS (its peak kept) and each process's CPU and peak RSS so far."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self.done = pid, 0.0, threading.Event()
        self.seen: dict[int, dict[str, object]] = {}  # pid -> role, cpu_s, peak_rss_mb (in first-seen order)

    def run(self) -> None:
        while not self.done.wait(0.2):
            self.peak = max(self.peak, tree_pss_mb(self.pid))
            self._processes()

    def _processes(self) -> None:
        for pid, role in self._roles():
            cpu, hwm = _cpu_s(pid), _hwm_mb(pid)
            if cpu is None or hwm is None:
                continue
            entry = self.seen.setdefault(pid, {"role": role})
            entry.update(cpu_s=round(cpu, 1), peak_rss_mb=round(hwm))

    def _roles(self) -> list[tuple[int, str]]:
        """The CLI, its children (the fork server) and what they started (the packs)."""
        found = [(self.pid, "amlkit")]
        for child in _children(self.pid):
            found.append((child, "fork server"))
            found += [(grandchild, "pack") for grandchild in _children(child)]
        return found

    def processes(self) -> list[dict[str, object]]:
        return list(self.seen.values())


def audit(state: Path, timeout: float | None) -> dict[str, object]:
    """One `amlkit check --state` child: wall, CPU, peak RSS, peak tree PSS, exit code, findings."""
    amlkit = str(Path(sys.executable).parent / "amlkit")
    cmd = [amlkit, "check", "--state", str(state), "--format", "json", "-C", str(state.parent)]
    cmd += ["--timeout", f"{timeout:g}"] if timeout else []
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        sampler = Sampler(proc.pid)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        sampler.done.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    row: dict[str, object] = {"wall_s": round(wall, 1), "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
                              "peak_rss_mb": round(usage.ru_maxrss / 1024), "peak_tree_pss_mb": round(sampler.peak),
                              "exit": proc.returncode, "processes": sampler.processes()}
    try:
        [stack] = json.loads(stdout)["stacks"]
    except (ValueError, KeyError):
        row["error"] = (stderr.strip().splitlines() or ["(no output)"])[-1][:300]
        return row
    if stack["error"]:
        row["error"] = stack["error"][:300]
    levels = Counter(v["level"] for v in stack["violations"])
    row.update(resources=len(stack["resources"]), mandatory=levels["mandatory"], advisory=levels["advisory"],
               unknown=len(stack["unknown"]))
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=None, help="--timeout for amlkit (default: its own)")
    parser.add_argument("--keep", type=Path, default=None, help="write the states here and keep them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        where = args.keep or Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        for size in (int(s) for s in args.sizes.split(",")):
            state = where / f"state-{size}.json"
            if not state.exists():
                megabytes = auditstate.write(state, size) / 1e6
                print(f"{state.name}: {size} resources, {megabytes:.1f} MB", flush=True)
            for rep in range(args.repeat):
                before = os.getloadavg()
                row = audit(state, args.timeout)
                after = os.getloadavg()
                print(json.dumps({"resources_in_state": size, "rep": rep + 1, **row,
                                  "load_before": round(before[0], 1), "load_after": round(after[0], 1)}), flush=True)


if __name__ == "__main__":
    main()
