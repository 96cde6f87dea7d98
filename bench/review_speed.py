"""How fast is the offline review? Not a test: prints medians and peak RSS.

Generates stacks with 1, 10, 100 and 1000 AmlCompute clusters, for two programs:
- `raw`: the fixture project with raw azure-native resources (tests/fixtures/raw_aml);
- `amlkit`: the repository's own program (amlkit.components), with the dev sample stack's cluster
  repeated N times.
Each stack is reviewed (program under mocks + the amlkit policy pack over gRPC) REPEAT times.

Usage: python bench/review_speed.py [--sizes 1,10,100,1000] [--repeat 3] [--no-alias-shortcut]
One-core numbers: `taskset -c 0 python bench/review_speed.py`.

Program workers (#33): `python bench/review_speed.py --environments 50,200 --repeat 3` reviews S generated
environments (bench/environments.py, one `amlkit check` of S stacks, default --jobs) alternately with a fresh
program process per stack (`AMLKIT_PROGRAM_WORKERS=0`, "before") and with program workers ("after"), and prints
the median wall and CPU of each, the load average around the runs, whether every run's JSON report is
byte-identical to the first fresh-process run, and the stacks not reviewed in each run (`--runs-of 200 --runs 10`
adds ten more runs of 200 environments, counting stacks not reviewed). `AMLKIT_BENCH_BEFORE=<another amlkit>` (e.g.
the main checkout's `.venv/bin/amlkit`) times that one too, first in each round, with a fresh process per stack.

Where the time goes (2026-11-22, one core, amlkit program; CPU seconds measured per process with
the runner alone, the pack replaying recorded registrations, cProfile/yappi/py-spy for shares):
- 1000 clusters (2009 resources, ~11.3 s): runner ~6.6 s (imports ~0.75; the Pulumi SDK per
  registration: serialize/resolve outputs, Output bookkeeping, the mock monitor's deserialize and
  re-serialize; components ~1.3; our recording and JSON lines ~0.35), pack ~2.9 s (start 0.3;
  pulumi-policy's servicer: per-policy proxies, config and settings per call; our rules ~0.4),
  parent ~1.5 s (stack YAML through the pure-Python safe loader ~0.45, gRPC future calls ~0.55,
  analyzer requests ~0.3, JSON ~0.1).
- 1 cluster (~1.35 s): runner ~1.0 s of which imports ~0.75 (azure-native submodules ~0.45, pulumi
  ~0.14, amlkit.schema/pydantic ~0.12), pack start ~0.3 s, parent ~0.1 s after its own imports.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

from amlkit.review.engine import review
from amlkit.review.options import ReviewOptions

ROOT = Path(__file__).resolve().parent.parent
RAW_FIXTURE = ROOT / "tests" / "fixtures" / "raw_aml"


def raw_project(workdir: Path, sizes: list[int]) -> Path:
    project = workdir / "raw"
    shutil.copytree(RAW_FIXTURE, project, ignore=shutil.ignore_patterns("Pulumi.*.yaml", "__pycache__"))
    for size in sizes:
        config = {"raw-aml:clusterCount": size}
        (project / f"Pulumi.c{size}.yaml").write_text(yaml.safe_dump({"config": config}))
    return project


def amlkit_project(workdir: Path, sizes: list[int]) -> Path:
    project = workdir / "amlkit"
    project.mkdir()
    shutil.copy(ROOT / "Pulumi.yaml", project / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", project / "__main__.py")
    (project / "stacks").mkdir()
    sample = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    template = sample["config"]["amlkit:clusters"][0]
    for size in sizes:
        config = dict(sample["config"])
        config["amlkit:clusters"] = [{**template, "name": f"cpu-{index}"} for index in range(size)]
        config.pop("amlkit:instances", None)
        (project / "stacks" / f"Pulumi.c{size}.yaml").write_text(yaml.safe_dump({"config": config}))
    return project


def cpu_seconds() -> float:
    """CPU time of this process (the driver) plus its reaped children (runner and pack)."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def measure(project: Path, stack: str, repeat: int, alias_shortcut: bool) -> tuple[float, float, int, int]:
    """(median wall s, median CPU s of all processes, resources, violations) over `repeat` reviews."""
    walls, cpus = [], []
    result = None
    for _ in range(repeat):
        cpu, start = cpu_seconds(), time.perf_counter()
        result = review(project, [stack], options=ReviewOptions(timeout=600, alias_shortcut=alias_shortcut))
        walls.append(time.perf_counter() - start)
        cpus.append(cpu_seconds() - cpu)
        if result.stacks[0].error:
            raise SystemExit(f"{project.name}/{stack}: {result.stacks[0].error}")
    assert result is not None
    stack_review = result.stacks[0]
    return statistics.median(walls), statistics.median(cpus), len(stack_review.resources), len(
        stack_review.violations)


MODES = {"fresh": "0", "workers": "1"}  # AMLKIT_PROGRAM_WORKERS: before / after


def environments(sizes: list[int], repeat: int, runs: int, runs_of: int) -> int:
    """Alternating fresh-process and worker reviews of S environments; non-zero when a result differed."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from environments import write_environments
    from measure import amlkit_exe, amlkit_findings, measure

    exe = amlkit_exe()
    if exe is None:
        raise SystemExit("no amlkit executable beside this Python")
    before = os.environ.get("AMLKIT_BENCH_BEFORE")  # another amlkit (e.g. main's) timed first in each round
    differed = 0
    print(f"{'envs':>5} {'mode':8} {'wall s':>8} {'cpu s':>8} {'runs':>5} {'identical':>9} {'unreviewed':>10} load")
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            project, _, _ = write_environments(Path(tmp) / f"s{size}", size, None)
            command = [exe, "check", "--project-dir", str(project), "--format", "json"]
            modes = {**({"before": "0"} if before else {}), **MODES}
            results: dict[str, list[tuple[float, float, str, int]]] = {mode: [] for mode in modes}
            loads = [os.getloadavg()[0]]
            for _ in range(repeat):
                for mode, switch in modes.items():
                    cmd = [before, *command[1:]] if mode == "before" and before else command
                    run = measure(cmd, Path(tmp), {**os.environ, "AMLKIT_PROGRAM_WORKERS": switch})
                    unreviewed = amlkit_findings(run.stdout).not_reviewed if run.stdout else size
                    results[mode].append((run.seconds, run.cpu_seconds, run.stdout, unreviewed))
                    loads.append(os.getloadavg()[0])
            reference = results["fresh"][0][2]
            for mode, rows in results.items():
                same = sum(stdout == reference for _, _, stdout, _ in rows)
                differed += len(rows) - same
                print(f"{size:5d} {mode:8} {statistics.median(r[0] for r in rows):8.2f} "
                      f"{statistics.median(r[1] for r in rows):8.2f} {len(rows):5d} {same:>4}/{len(rows):<4} "
                      f"{','.join(str(r[3]) for r in rows):>10} {min(loads):.1f}-{max(loads):.1f}", flush=True)
        if runs:
            project, _, _ = write_environments(Path(tmp) / f"runs{runs_of}", runs_of, None)
            command = [exe, "check", "--project-dir", str(project), "--format", "json"]
            counts = []
            for _ in range(runs):
                run = measure(command, Path(tmp), dict(os.environ))
                counts.append(amlkit_findings(run.stdout).not_reviewed if run.stdout else runs_of)
            print(f"{runs} runs of {runs_of} environments with workers: stacks not reviewed per run {counts}")
            differed += sum(counts)
    return 1 if differed else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,10,100,1000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--programs", default="raw,amlkit")
    parser.add_argument("--no-alias-shortcut", action="store_true")
    parser.add_argument("--environments", help="S,S...: fresh processes vs program workers (see the module doc)")
    parser.add_argument("--runs", type=int, default=0, help="with --environments: runs counting unreviewed stacks")
    parser.add_argument("--runs-of", type=int, default=200)
    args = parser.parse_args()
    if args.environments:
        sys.exit(environments([int(s) for s in args.environments.split(",")], args.repeat, args.runs, args.runs_of))
    sizes = [int(s) for s in args.sizes.split(",")]
    builders = {"raw": raw_project, "amlkit": amlkit_project}
    print(f"{'program':8} {'clusters':>8} {'resources':>9} {'violations':>10} {'wall s':>8} {'cpu s':>11}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.programs.split(","):
            project = builders[name](Path(tmp), sizes)
            for size in sizes:
                wall, cpu, resources, violations = measure(project, f"c{size}", args.repeat,
                                                           not args.no_alias_shortcut)
                print(f"{name:8} {size:8d} {resources:9d} {violations:10d} {wall:8.2f} {cpu:11.2f}", flush=True)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
    print(f"peak RSS of the largest child process: {peak} MiB; repetitions: {args.repeat} (medians)")


if __name__ == "__main__":
    main()
