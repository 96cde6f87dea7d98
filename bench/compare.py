"""amlkit vs Checkov, side by side, on the same Azure ML infrastructure.

For each size N (clusters), the script writes the same environment twice - an amlkit project
(`Pulumi.yaml`, a `__main__.py` that calls `amlkit.program.run()` and adds a resource-group lock,
`stacks/Pulumi.bench<N>.yaml`) and an azurerm Terraform `main.tf` - with the same planted defects:

- every 10th cluster keeps min nodes 2 (amlkit `aml-cluster-min-nodes-zero`, Checkov CKV_AZURE_150);
- every 7th cluster has local auth on (amlkit `aml-compute-local-auth-disabled`, Checkov
  CKV_AZURE_142) - only when the amlkit stack schema has a per-cluster knob for it; otherwise this
  defect is left out on BOTH sides and the output says so;
- clusters 5, 30, 55, ... use a retired VM size (Standard_NC6s_v3; amlkit only);
- a CanNotDelete lock on the resource group (amlkit only).

Then it runs `amlkit check --project-dir <dir> --stack bench<N> --format json` and
`checkov -d <dir> --framework terraform --skip-download --quiet --compact -o json` alternately
(the first tool alternates between repetitions), pinned to CPU 0 with `taskset -c 0` when it exists,
and prints the median wall time, the peak memory and the findings of each.

Peak memory is the ru_maxrss that `os.wait4` reports for the child: the largest resident set of any
one process of its tree (Linux folds waited-for descendants in), not the sum over processes.

Checkov runs offline: `--skip-download` and BC_SKIP_MAPPING=TRUE (no Prisma Cloud download),
CKV_SKIP_PACKAGE_UPDATE_CHECK=true (no PyPI version check; checkov/common/util/banner.py). It is
installed on first use into its own virtualenv (~/.cache/amlkit-bench/checkov-venv, `pip install
checkov`) unless `--checkov PATH` names an existing executable.

Usage (from the repo root, with the project's virtualenv, which has amlkit installed):

    .venv/bin/python bench/compare.py                       # N = 1,10,100,1000, 5 repetitions
    .venv/bin/python bench/compare.py --sizes 1,10 --repeat 3
    .venv/bin/python bench/compare.py --keep /tmp/bench     # keep the generated projects

`--repeat-large K` caps the repetitions at N >= 1000 (default: no cap; here one run of either tool
takes under 20 s at N = 1000, so all 5 repetitions run). Not part of the test suite: nothing here
asserts on time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from environments import write_environments
from measure import (
    AMLKIT_OK,
    LARGE_N,
    REPO,
    Row,
    Tool,
    ToolResult,
    amlkit_check,
    amlkit_cmd,
    amlkit_exe,
    amlkit_findings,
    checkov_cmd,
    checkov_env,
    checkov_findings,
    ensure_checkov,
    measure,
    pin_prefix,
    run_alternately,
)
from report import (
    environment_lines,
    findings_table,
    knob_note,
    linearity,
    load_average,
    notes,
    perf_table,
    sample_lines,
)
from terraform import write_terraform

from stacks import find_local_auth_knob, plan, validate, write_project


def bench_size(n: int, repeat: int, root: Path, checkov: Path, amlkit: list[str] | None, knob: str | None,
               pin: bool = False) -> Row:
    bench = plan(n, knob)
    work = root / f"n{n}"
    project_dir, tf_dir = work / "amlkit", work / "terraform"
    stack_file = write_project(project_dir, bench)
    write_terraform(tf_dir, bench)
    print(f"N={n}: stack {stack_file.name} {validate(stack_file, bench)}", flush=True)
    prefix = pin_prefix() if pin else []
    tools = [Tool("checkov", prefix + checkov_cmd(checkov, tf_dir), work, checkov_env(), (0, 1), checkov_findings)]
    if amlkit is not None:
        cmd = prefix + amlkit_cmd(amlkit, project_dir, n)
        tools.insert(0, Tool("amlkit", cmd, work, dict(os.environ), AMLKIT_OK, amlkit_findings))
    results = run_alternately(tools, repeat)
    missing = ToolResult(error="amlkit check not available")
    return Row(n, repeat, bench.planted(), results.get("amlkit", missing), results["checkov"])


def bench_platform(s: int, repeat: int, root: Path, checkov: Path, amlkit: list[str] | None,
                   knob: str | None) -> Row:
    """S environments: one amlkit project with S stacks (all reviewed by one `amlkit check`, default
    --jobs) against Checkov on S Terraform directories. Not pinned: both tools may use every core."""
    project_dir, tf_root, planted = write_environments(root / f"s{s}", s, knob)
    print(f"S={s}: {s} stacks in {project_dir}, {s} Terraform directories in {tf_root}", flush=True)
    tools = [Tool("checkov", checkov_cmd(checkov, tf_root), root, checkov_env(), (0, 1), checkov_findings)]
    if amlkit is not None:
        cmd = [*amlkit, "--project-dir", str(project_dir), "--format", "json"]
        tools.insert(0, Tool("amlkit", cmd, root, dict(os.environ), AMLKIT_OK, amlkit_findings))
    results = run_alternately(tools, repeat)
    missing = ToolResult(error="amlkit check not available")
    return Row(s, repeat, planted, results.get("amlkit", missing), results["checkov"])


def bench_sample(repeat: int, amlkit: list[str] | None) -> ToolResult:
    """One sample stack (`stacks/Pulumi.dev.yaml` of this repository), each run a cold process."""
    if amlkit is None:
        return ToolResult(error="amlkit check not available")
    tool = Tool("amlkit", [*amlkit, "--stack", "dev", "--format", "json"], REPO, dict(os.environ), AMLKIT_OK,
                amlkit_findings)
    return run_alternately([tool], repeat)["amlkit"]


def reliability(runs: int, s: int, root: Path, amlkit: list[str] | None, knob: str | None) -> list[int]:
    """Stacks not reviewed in each of `runs` reviews of S environments (default --jobs): must be all 0."""
    if amlkit is None or runs == 0:
        return []
    project_dir, _, _ = write_environments(root / f"reliability-s{s}", s, knob)
    counts = []
    for run in range(runs):
        result = measure([*amlkit, "--project-dir", str(project_dir), "--format", "json"], root, dict(os.environ))
        try:
            counts.append(amlkit_findings(result.stdout).not_reviewed if result.returncode in AMLKIT_OK else s)
        except (ValueError, KeyError, TypeError):
            counts.append(s)
        print(f"    reliability run {run + 1}/{runs}: {counts[-1]} of {s} stacks not reviewed, "
              f"{result.seconds:.2f}s wall, {result.cpu_seconds:.2f}s cpu", flush=True)
    return counts


def parse_sizes(text: str) -> list[int]:
    try:
        sizes = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list of integers") from None
    if not sizes or any(n < 1 or n > 9999 for n in sizes):
        raise argparse.ArgumentTypeError(f"'{text}': each size must be between 1 and 9999")
    return sizes


def positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive integer")
    return int(text)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="amlkit vs Checkov on the same Azure ML infrastructure.")
    parser.add_argument("--scenario", choices=("all", "platform", "clusters", "sample"), default="all",
                        help="platform: S environments; clusters: N computes in one workspace; sample: one "
                             "sample stack cold (all: every one)")
    parser.add_argument("--envs", type=parse_sizes, default=[1, 10, 50, 200], help="environment counts S")
    parser.add_argument("--reliability", type=int, default=10, metavar="RUNS",
                        help="reviews of S=--reliability-envs environments counting stacks not reviewed (0: none)")
    parser.add_argument("--reliability-envs", type=positive, default=50, metavar="S")
    parser.add_argument("--sizes", type=parse_sizes, default=[1, 10, 100, 500], help="cluster counts N")
    parser.add_argument("--pin", action="store_true", help="clusters scenario: pin both tools to CPU 0 (taskset)")
    parser.add_argument("--repeat", type=positive, default=5, help="repetitions per tool and size")
    parser.add_argument("--repeat-large", type=positive, help=f"repetitions cap at N >= {LARGE_N} (default: none)")
    parser.add_argument("--keep", type=Path, help="write the generated projects here and keep them")
    parser.add_argument("--amlkit-timeout", type=positive, default=1800, help="seconds per amlkit review")
    parser.add_argument("--checkov", help="an existing checkov executable (default: the bench virtualenv)")
    return parser.parse_args(argv)


def repeats_for(n: int, args: argparse.Namespace) -> int:
    if n >= LARGE_N and args.repeat_large:
        return min(args.repeat, args.repeat_large)
    return args.repeat


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    checkov = ensure_checkov(args.checkov)
    amlkit = amlkit_check(amlkit_exe(), args.amlkit_timeout)
    if amlkit is None:
        print("amlkit check not available: the amlkit column is n/a", flush=True)
    knob = find_local_auth_knob()
    root = args.keep or Path(tempfile.mkdtemp(prefix="amlkit-bench-"))
    load_before = load_average()
    wanted = {"platform", "clusters", "sample"} if args.scenario == "all" else {args.scenario}
    sample, platform_rows, rows, counts = None, [], [], []
    try:
        if "sample" in wanted:
            sample = bench_sample(args.repeat, amlkit)
        if "platform" in wanted:
            platform_rows = [bench_platform(s, args.repeat, root, checkov, amlkit, knob) for s in args.envs]
            counts = reliability(args.reliability, args.reliability_envs, root, amlkit, knob)
        if "clusters" in wanted:
            rows = [bench_size(n, repeats_for(n, args), root, checkov, amlkit, knob, args.pin) for n in args.sizes]
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    print("\n".join(environment_lines(checkov, load_before, args.pin)))
    print("\n".join(["", knob_note(knob), *sample_lines(sample)]))
    if platform_rows:
        print("\nplatform: S environments (one stack each, `dev` size), not pinned, amlkit with its default --jobs")
        for table in (perf_table(platform_rows, "S"), findings_table(platform_rows, "S"),
                      notes(platform_rows, "S"), linearity(platform_rows)):
            print("\n" + "\n".join(table))
    if counts:
        print(f"\nstacks not reviewed in {len(counts)} reviews of S={args.reliability_envs}: {counts} "
              f"(total {sum(counts)})")
    if rows:
        print("\nclusters: N computes in one workspace, one stack")
        for table in (perf_table(rows), findings_table(rows), notes(rows)):
            print("\n" + "\n".join(table))
    if args.keep:
        print(f"generated projects kept in {args.keep}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
