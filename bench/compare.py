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
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from environments import write_environments
from measure import (
    AMLKIT_OK,
    LARGE_N,
    REPO,
    Findings,
    Row,
    Run,
    Tool,
    ToolResult,
    amlkit_check,
    amlkit_cmd,
    amlkit_exe,
    amlkit_findings,
    bytecode_env,
    checkov_cmd,
    checkov_env,
    checkov_findings,
    compile_amlkit,
    ensure_checkov,
    error_line,
    measure,
    pin_prefix,
    record,
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
    warm_lines,
)
from targets import table as targets_table
from terraform import write_terraform

from stacks import find_local_auth_knob, plan, validate, write_project

BENCH = Path(__file__).resolve().parent


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
        tools.insert(0, Tool("amlkit", cmd, work, bytecode_env(), AMLKIT_OK, amlkit_findings))
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
        tools.insert(0, Tool("amlkit", cmd, root, bytecode_env(), AMLKIT_OK, amlkit_findings))
    results = run_alternately(tools, repeat)
    missing = ToolResult(error="amlkit check not available")
    return Row(s, repeat, planted, results.get("amlkit", missing), results["checkov"])


def bench_sample(repeat: int, amlkit: list[str] | None) -> ToolResult:
    """One sample stack (`stacks/Pulumi.dev.yaml` of this repository), each run a cold process."""
    if amlkit is None:
        return ToolResult(error="amlkit check not available")
    tool = Tool("amlkit", [*amlkit, "--stack", "dev", "--format", "json"], REPO, bytecode_env(), AMLKIT_OK,
                amlkit_findings)
    return run_alternately([tool], repeat)["amlkit"]


COLD_COMMANDS = {"--help": ["--help"], "rules": ["rules"], "sizes": ["sizes"], "init (start-up)": ["init", "--help"]}


def bench_cold(repeat: int, exe: str | None, args: list[str]) -> ToolResult:
    """`amlkit <args>`, a cold process per repetition (none imports grpc, pulumi-policy, pulumi nor the engine)."""
    if exe is None:
        return ToolResult(error="amlkit not available")
    tool = Tool("amlkit", [exe, *args], REPO, bytecode_env(), (0,), lambda _: Findings())
    return run_alternately([tool], repeat)["amlkit"]


def bench_in_process(repeat: int) -> ToolResult:
    """Second (and later) reviews of the sample stack in ONE process (bench/in_process.py): the fork
    server and amlkit's pack stay warm between review() calls. CPU: the whole tree (bench/in_process.py)."""
    done = subprocess.run([sys.executable, str(BENCH / "in_process.py"), str(REPO), "dev", str(repeat + 1)],
                          capture_output=True, text=True, timeout=600, env=bytecode_env())
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or len(lines) != repeat + 1 or any(line["errors"] for line in lines):
        return ToolResult(error=f"exit {done.returncode}: {error_line(done.stderr or done.stdout)}")
    runs = [Run(line["seconds"], line["cpu_seconds"], 0.0, 0, "", "") for line in lines[1:]]  # [0]: cold
    for index, run in enumerate(runs):
        print(f"    in-process review {index + 2}: {run.seconds:.2f}s wall, {run.cpu_seconds:.2f}s cpu", flush=True)
    return ToolResult(runs=runs)


def bench_server(repeat: int, exe: str | None) -> ToolResult:
    """`amlkit check --stack dev` with the persistent server (amlkit server start; its own private socket
    directory). CPU: the client's plus the server's (its status before and after), per command."""
    if exe is None:
        return ToolResult(error="amlkit not available")
    from amlkit import server

    directory = Path(tempfile.mkdtemp(prefix="amlkit-bench-server-"))
    env = {**bytecode_env(), server.SERVER_DIR_ENV: str(directory / "srv")}
    started = subprocess.run([exe, "server", "start", str(REPO)], env=env, capture_output=True, text=True)
    if started.returncode != 0:
        shutil.rmtree(directory, ignore_errors=True)
        return ToolResult(error=f"server start: {error_line(started.stderr or started.stdout)}")
    check = [exe, "check", "--stack", "dev", "--format", "json"]
    result = ToolResult()
    try:
        measure(check, REPO, env)  # the first command waits for the server's own warm-up
        for index in range(repeat):
            before = _server_cpu(env)
            run = measure(check, REPO, env)
            run = Run(run.seconds, run.cpu_seconds + _server_cpu(env) - before, run.peak_mb, run.returncode,
                      run.stdout, run.stderr)
            record(Tool("amlkit", check, REPO, env, AMLKIT_OK, amlkit_findings), result, run)
            print(f"    with the server, run {index + 1}: {run.seconds:.2f}s wall, {run.cpu_seconds:.2f}s cpu "
                  "(client + server)", flush=True)
        served = _server_status(env).get("served", 0)
        if served != repeat + 1 and not result.error:
            result.error = f"the server served {served} of {repeat + 1} commands"
    finally:
        subprocess.run([exe, "server", "stop"], env=env, capture_output=True)
        shutil.rmtree(directory, ignore_errors=True)
    return result


def _server_status(env: dict[str, str]) -> dict:
    code = "import json; from amlkit import server; print(json.dumps(server.status() or {}))"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    return json.loads(done.stdout or "{}")


def _server_cpu(env: dict[str, str]) -> float:
    return float(_server_status(env).get("cpu", 0.0))


def reliability(runs: int, s: int, root: Path, amlkit: list[str] | None, knob: str | None) -> list[int]:
    """Stacks not reviewed in each of `runs` reviews of S environments (default --jobs): must be all 0."""
    if amlkit is None or runs == 0:
        return []
    project_dir, _, _ = write_environments(root / f"reliability-s{s}", s, knob)
    counts = []
    for run in range(runs):
        result = measure([*amlkit, "--project-dir", str(project_dir), "--format", "json"], root, bytecode_env())
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
    parser.add_argument("--scenario", choices=("all", "platform", "clusters", "sample", "targets"), default="all",
                        help="platform: S environments; clusters: N computes in one workspace; sample: one "
                             "sample stack cold (all: every one); targets: issue 33's table in one run (platform "
                             "at --envs, default 50,200,500, then the sample stack and the light commands cold)")
    parser.add_argument("--envs", type=parse_sizes, help="environment counts S (default 1,10,50,200; targets: "
                        "50,200,500)")
    parser.add_argument("--reliability", type=int, default=10, metavar="RUNS",
                        help="reviews of S=--reliability-envs environments counting stacks not reviewed (0: none)")
    parser.add_argument("--reliability-envs", type=positive, default=50, metavar="S")
    parser.add_argument("--sizes", type=parse_sizes, default=[1, 10, 100, 500], help="cluster counts N")
    parser.add_argument("--pin", action="store_true", help="clusters scenario: pin both tools to CPU 0 (taskset)")
    parser.add_argument("--repeat", type=positive, default=5, help="repetitions per tool and size")
    parser.add_argument("--repeat-large", type=positive,
                        help=f"repetitions cap at N >= {LARGE_N} (targets: at S >= 500; default: none)")
    parser.add_argument("--keep", type=Path, help="write the generated projects here and keep them")
    parser.add_argument("--amlkit-timeout", type=positive, default=1800, help="seconds per amlkit review")
    parser.add_argument("--checkov", help="an existing checkov executable (default: the bench virtualenv)")
    return parser.parse_args(argv)


def targets(args: argparse.Namespace) -> int:
    """Issue 33's table in one run: S environments (amlkit and Checkov alternating), then one sample stack
    cold and the light commands cold; every figure with the load average of its runs."""
    checkov = ensure_checkov(args.checkov)
    compile_amlkit()  # bytecode and the parsed catalogue, as an installed package has them
    amlkit = amlkit_check(amlkit_exe(), args.amlkit_timeout)
    knob = find_local_auth_knob()
    root = args.keep or Path(tempfile.mkdtemp(prefix="amlkit-bench-"))
    load_before = load_average()
    try:
        platform_rows = [bench_platform(s, _platform_repeats(s, args), root, checkov, amlkit, knob) for s in args.envs]
        counts = reliability(args.reliability, args.reliability_envs, root, amlkit, knob)
        sample = bench_sample(args.repeat, amlkit)
        cold = {f"`amlkit {name}`, cold": bench_cold(args.repeat, amlkit_exe(), command)
                for name, command in COLD_COMMANDS.items()}
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    print("\n".join(["", *environment_lines(checkov, load_before), "bytecode: on (PYTHONDONTWRITEBYTECODE unset, "
                     "amlkit's sources compiled first, as an installed package has them)", knob_note(knob), ""]))
    print("\n".join(targets_table(platform_rows, sample, cold)))
    for table in (findings_table(platform_rows, "S"), notes(platform_rows, "S"), linearity(platform_rows)):
        print("\n" + "\n".join(table))
    if counts:
        print(f"\nstacks not reviewed in {len(counts)} reviews of S={args.reliability_envs}: {counts} "
              f"(total {sum(counts)})")
    return 0


def _platform_repeats(s: int, args: argparse.Namespace) -> int:
    """targets: --repeat-large caps the repetitions at S >= 500 too (one run of either tool takes minutes there)."""
    return min(args.repeat, args.repeat_large) if s >= 500 and args.repeat_large else args.repeat


def repeats_for(n: int, args: argparse.Namespace) -> int:
    if n >= LARGE_N and args.repeat_large:
        return min(args.repeat, args.repeat_large)
    return args.repeat


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.envs is None:
        args.envs = [50, 200, 500] if args.scenario == "targets" else [1, 10, 50, 200]
    if args.scenario == "targets":
        return targets(args)
    checkov = ensure_checkov(args.checkov)
    amlkit = amlkit_check(amlkit_exe(), args.amlkit_timeout)
    if amlkit is None:
        print("amlkit check not available: the amlkit column is n/a", flush=True)
    knob = find_local_auth_knob()
    root = args.keep or Path(tempfile.mkdtemp(prefix="amlkit-bench-"))
    load_before = load_average()
    wanted = {"platform", "clusters", "sample"} if args.scenario == "all" else {args.scenario}
    sample, platform_rows, rows, counts, warm_rows = None, [], [], [], {}
    try:
        if "sample" in wanted:
            sample = bench_sample(args.repeat, amlkit)
            warm_rows = {**{f"`amlkit {name}`, cold": bench_cold(args.repeat, amlkit_exe(), command)
                            for name, command in COLD_COMMANDS.items()},
                         "second review in one process (library API)": bench_in_process(args.repeat),
                         "with the persistent server (`amlkit server start`)": bench_server(args.repeat,
                                                                                          amlkit_exe())}
        if "platform" in wanted:
            platform_rows = [bench_platform(s, args.repeat, root, checkov, amlkit, knob) for s in args.envs]
            counts = reliability(args.reliability, args.reliability_envs, root, amlkit, knob)
        if "clusters" in wanted:
            rows = [bench_size(n, repeats_for(n, args), root, checkov, amlkit, knob, args.pin) for n in args.sizes]
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    print("\n".join(environment_lines(checkov, load_before, args.pin)))
    print("\n".join(["", knob_note(knob), *sample_lines(sample), *warm_lines(warm_rows)]))
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
