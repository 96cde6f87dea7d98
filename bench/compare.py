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
import importlib.metadata
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from environments import write_environments
from terraform import write_terraform

from stacks import find_local_auth_knob, plan, stack_name, validate, write_project

CHECKOV_VENV = Path.home() / ".cache" / "amlkit-bench" / "checkov-venv"
CHECKOV_OFFLINE_ENV = {"BC_SKIP_MAPPING": "TRUE", "CKV_SKIP_PACKAGE_UPDATE_CHECK": "true"}
LARGE_N = 1000
REPO = Path(__file__).resolve().parent.parent
AMLKIT_OK = (0, 1, 3)  # 3: some stack NOT reviewed; counted per run, never taken as a result

# (label, amlkit policy, Checkov check id or None when Checkov has no equivalent)
COMPARED = (
    ("min nodes 0", "aml-cluster-min-nodes-zero", "CKV_AZURE_150"),
    ("local auth off", "aml-compute-local-auth-disabled", "CKV_AZURE_142"),
    ("retired VM series", "aml-compute-retired-vm-series", None),
    ("no RG lock", "aml-no-resource-group-lock", None),
)
PLANTED_KEY = {
    "aml-cluster-min-nodes-zero": "min_nodes",
    "aml-compute-local-auth-disabled": "local_auth",
    "aml-compute-retired-vm-series": "retired",
    "aml-no-resource-group-lock": "rg_lock",
}


@dataclass(frozen=True)
class Findings:
    """What one run reported: failures per rule id, and checks that could not tell (amlkit only)."""

    failed: Counter[str] = field(default_factory=Counter)
    unknown: int = 0
    not_reviewed: int = 0  # amlkit: stacks that ended NOT reviewed (a program or pack failure, exit 3)


@dataclass(frozen=True)
class Run:
    seconds: float
    cpu_seconds: float  # user + system of the child and its waited-for descendants
    peak_mb: float
    returncode: int
    stdout: str
    stderr: str


@dataclass
class ToolResult:
    """All repetitions of one tool at one size; `error` set when a run did not produce a result."""

    runs: list[Run] = field(default_factory=list)
    findings: Findings = field(default_factory=Findings)
    error: str | None = None
    unstable: bool = False  # findings differed between repetitions

    def median_seconds(self) -> float | None:
        return statistics.median(r.seconds for r in self.runs) if self.runs and not self.error else None

    def median_cpu(self) -> float | None:
        return statistics.median(r.cpu_seconds for r in self.runs) if self.runs and not self.error else None

    def peak_mb(self) -> float | None:
        return max(r.peak_mb for r in self.runs) if self.runs and not self.error else None


@dataclass
class Row:
    n: int
    repeat: int
    planted: dict[str, int]
    amlkit: ToolResult
    checkov: ToolResult


# --- running and measuring one child ----------------------------------------------------------


def pin_prefix() -> list[str]:
    """`taskset -c 0` when available: the child and everything it forks stay on CPU 0."""
    taskset = shutil.which("taskset")
    return [taskset, "-c", "0"] if taskset else []


def measure(cmd: Sequence[str], cwd: Path, env: dict[str, str]) -> Run:
    """Run one child to completion; wall time and the peak RSS of its process tree from wait4."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(list(cmd), cwd=cwd, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # already reaped: keep Popen from waiting
        out.seek(0)
        err.seek(0)
        return Run(
            seconds=seconds,
            cpu_seconds=usage.ru_utime + usage.ru_stime,
            peak_mb=usage.ru_maxrss / 1024,  # KiB on Linux
            returncode=proc.returncode,
            stdout=out.read().decode("utf-8", "replace"),
            stderr=err.read().decode("utf-8", "replace"),
        )


def error_line(text: str) -> str:
    """The line of a failed run's output worth showing: the first one naming an error, else the last."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    named = [line for line in lines if "error" in line.lower()]
    return (named or lines or ["(no output)"])[0 if named else -1][:240]


# --- Checkov -----------------------------------------------------------------------------------


def ensure_checkov(explicit: str | None) -> Path:
    """The checkov executable: --checkov, else the bench virtualenv (created on first use)."""
    if explicit:
        return Path(explicit)
    exe = CHECKOV_VENV / "bin" / "checkov"
    if not exe.exists():
        print(f"installing checkov into {CHECKOV_VENV} (first run only) ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(CHECKOV_VENV)], check=True)
        pip = CHECKOV_VENV / "bin" / "pip"
        subprocess.run([str(pip), "install", "--quiet", "checkov"], check=True)
    return exe


def checkov_cmd(exe: Path, tf_dir: Path) -> list[str]:
    return [str(exe), "-d", str(tf_dir), "--framework", "terraform", "--skip-download", "--quiet",
            "--compact", "-o", "json"]  # fmt: skip


def checkov_env() -> dict[str, str]:
    return {**os.environ, **CHECKOV_OFFLINE_ENV}


def checkov_findings(stdout: str) -> Findings:
    """Failed check ids in Checkov's JSON (one report object, or a list of them per framework)."""
    data = json.loads(stdout) if stdout.strip() else {}
    reports = data if isinstance(data, list) else [data]
    failed: Counter[str] = Counter()
    for report in reports:
        for check in report.get("results", {}).get("failed_checks", []):
            failed[check["check_id"]] += 1
    return Findings(failed)


def checkov_version(exe: Path) -> str:
    done = subprocess.run([str(exe), "--version"], capture_output=True, text=True, env=checkov_env())
    return done.stdout.strip() or "unknown"


# --- amlkit ------------------------------------------------------------------------------------


def amlkit_exe() -> str | None:
    beside = Path(sys.executable).parent / "amlkit"
    return str(beside) if beside.exists() else shutil.which("amlkit")


def amlkit_check(exe: str | None, timeout: int) -> list[str] | None:
    """`amlkit check` (with `--timeout` when it has one), or None while the command does not exist."""
    if exe is None:
        return None
    done = subprocess.run([exe, "check", "--help"], capture_output=True, text=True)
    if done.returncode != 0:
        return None
    return [exe, "check", *(["--timeout", str(timeout)] if "--timeout" in done.stdout else [])]


def amlkit_cmd(check: list[str], project_dir: Path, n: int) -> list[str]:
    return [*check, "--project-dir", str(project_dir), "--stack", stack_name(n), "--format", "json"]


def amlkit_findings(stdout: str) -> Findings:
    """Violations per policy in `amlkit check --format json` (amlkit/review/report_json.py)."""
    data = json.loads(stdout)
    stacks = data.get("stacks", [data]) if isinstance(data, dict) else []
    found: Counter[str] = Counter()
    unknown = not_reviewed = 0
    for stack in stacks:
        if stack.get("error"):
            not_reviewed += 1
            continue
        for violation in stack.get("violations", []):
            found[violation["policy"]] += 1
        unknown += len(stack.get("unknown", []))
    if not stacks:
        raise ValueError("no stack in the report")
    return Findings(found, unknown, not_reviewed)


# --- one size ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tool:
    name: str
    cmd: list[str]
    cwd: Path
    env: dict[str, str]
    ok_codes: tuple[int, ...]  # exit codes that still mean "a result" (1 = findings reported)
    parse: Callable[[str], Findings]


def record(tool: Tool, result: ToolResult, run: Run) -> None:
    """Add one repetition; the first failure (bad exit, unparsable output) marks the tool failed."""
    result.runs.append(run)
    if result.error:
        return
    if run.returncode not in tool.ok_codes:
        result.error = f"exit {run.returncode}: {error_line(run.stderr or run.stdout)}"
        return
    try:
        findings = tool.parse(run.stdout)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        result.error = f"unreadable output: {exc}"
        return
    if len(result.runs) > 1 and findings != result.findings:
        result.unstable = True
    result.findings = findings


def run_alternately(tools: list[Tool], repeat: int) -> dict[str, ToolResult]:
    results = {tool.name: ToolResult() for tool in tools}
    for rep in range(repeat):
        order = tools if rep % 2 == 0 else list(reversed(tools))
        for tool in order:
            if results[tool.name].error:
                continue  # failed once at this size: do not spend the other repetitions on it
            record(tool, results[tool.name], measure(tool.cmd, tool.cwd, tool.env))
            last = results[tool.name].runs[-1]
            print(f"    rep {rep + 1}/{repeat} {tool.name}: {last.seconds:.2f}s wall, {last.cpu_seconds:.2f}s cpu",
                  flush=True)  # fmt: skip
    return results


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


# --- report ------------------------------------------------------------------------------------


def fmt(value: float | None, spec: str) -> str:
    return "n/a" if value is None else format(value, spec)


def ratio(ours: float | None, theirs: float | None) -> str:
    return "n/a" if ours is None or theirs is None or theirs == 0 else f"{ours / theirs:.2f}"


def not_reviewed(result: ToolResult) -> str:
    """Stacks not reviewed, summed over the repetitions."""
    return "n/a" if result.error else str(sum(_not_reviewed(r) for r in result.runs))


def _not_reviewed(run: Run) -> int:
    try:
        return amlkit_findings(run.stdout).not_reviewed
    except (ValueError, KeyError, TypeError):
        return 0


def perf_table(rows: list[Row], label: str = "N") -> list[str]:
    head = (
        f"{label:>5} {'reps':>4} | {'amlkit s':>8} {'cpu s':>7} {'MB':>5} {'not rev':>7} | {'checkov s':>9} "
        f"{'cpu s':>7} {'MB':>5} | {'wall a/c':>8} {'cpu a/c':>7} {'mem a/c':>7}"
    )
    lines = [head, "-" * len(head)]
    for row in rows:
        a, c = row.amlkit, row.checkov
        lines.append(
            f"{row.n:>5} {row.repeat:>4} | {fmt(a.median_seconds(), '.2f'):>8} {fmt(a.median_cpu(), '.2f'):>7} "
            f"{fmt(a.peak_mb(), '.0f'):>5} {not_reviewed(a):>7} | {fmt(c.median_seconds(), '.2f'):>9} "
            f"{fmt(c.median_cpu(), '.2f'):>7} "
            f"{fmt(c.peak_mb(), '.0f'):>5} | {ratio(a.median_seconds(), c.median_seconds()):>8} "
            f"{ratio(a.median_cpu(), c.median_cpu()):>7} {ratio(a.peak_mb(), c.peak_mb()):>7}"
        )
    return lines


def count(result: ToolResult, key: str | None) -> str:
    if result.error:
        return "n/a"
    return "-" if key is None else str(result.findings.failed.get(key, 0))


def findings_table(rows: list[Row], label: str = "N") -> list[str]:
    head = f"{label:>5} | {'check':<18} {'planted':>7} {'amlkit':>7} {'checkov':>7}"
    lines = [head, "-" * len(head)]
    for row in rows:
        for label, policy, check_id in COMPARED:
            planted = row.planted[PLANTED_KEY[policy]]
            lines.append(f"{row.n:>5} | {label:<18} {planted:>7} {count(row.amlkit, policy):>7} "
                         f"{count(row.checkov, check_id):>7}")  # fmt: skip
        total_a = "n/a" if row.amlkit.error else str(sum(row.amlkit.findings.failed.values()))
        total_c = "n/a" if row.checkov.error else str(sum(row.checkov.findings.failed.values()))
        lines.append(f"{row.n:>5} | {'all findings':<18} {'':>7} {total_a:>7} {total_c:>7}")
    return lines


def listing(found: Counter[str], exclude: set[str]) -> str:
    """`ID x count, ...` for the rule ids not in `exclude`, sorted."""
    return ", ".join(f"{key} x{found[key]}" for key in sorted(found) if key not in exclude)


def knob_note(knob: str | None) -> str:
    if knob is None:
        return ("local auth: the amlkit stack schema has no per-cluster knob, so that defect is planted on "
                "NEITHER side (planted 0).")  # fmt: skip
    return f"local auth: planted through the amlkit schema field '{knob}' and local_auth_enabled."


def notes(rows: list[Row], label: str = "N") -> list[str]:
    out = []
    for row in rows:
        for name, result in (("amlkit", row.amlkit), ("checkov", row.checkov)):
            if result.error:
                out.append(f"{label}={row.n} {name}: {result.error}")
            elif result.unstable:
                out.append(f"{label}={row.n} {name}: findings differed between repetitions (last run shown)")
        others = listing(row.checkov.findings.failed, {"CKV_AZURE_150", "CKV_AZURE_142"})
        if others and not row.checkov.error:
            out.append(f"{label}={row.n} checkov also failed: {others}")
        if not row.amlkit.error:
            extra = listing(row.amlkit.findings.failed, {policy for _, policy, _ in COMPARED})
            if extra:
                out.append(f"{label}={row.n} amlkit also reported: {extra}")
            if row.amlkit.findings.unknown:
                out.append(f"{label}={row.n} amlkit could not tell (unknown at preview): {row.amlkit.findings.unknown}")
    return out


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def dist_version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def environment_lines(checkov: Path, load_before: str, pin: bool = False) -> list[str]:
    if not pin:
        pinned = "not pinned (every tool may use every core)"
    else:
        pinned = ("the clusters scenario pinned to CPU 0 with taskset -c 0 (platform and sample: not pinned)"
                  if pin_prefix() else "NOT pinned (taskset not found)")
    return [
        f"machine: {cpu_model()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}; runs {pinned}",
        f"versions: python {platform.python_version()}, checkov {checkov_version(checkov)}, "
        f"amlkit {dist_version('amlkit')}, pulumi {dist_version('pulumi')}, "
        f"pulumi-policy {dist_version('pulumi-policy')}, pulumi-azure-native {dist_version('pulumi-azure-native')}",
        f"load average (1/5/15 min): {load_before} before the runs, {load_average()} after "
        "(other work on the machine inflates wall time; cpu time is steadier)",
        "s: median wall seconds; cpu s: median user+system seconds of the child tree; MB: peak RSS of the "
        "largest process in the child's tree (max over reps); a/c: amlkit / checkov (below 1 = amlkit cheaper)",
    ]


# --- command line ------------------------------------------------------------------------------


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


def linearity(rows: list[Row]) -> list[str]:
    """amlkit's cost per added environment between consecutive S (flat = linear in S)."""
    out = []
    for low, high in zip(rows, rows[1:], strict=False):
        a, b = low.amlkit, high.amlkit
        if a.error or b.error:
            continue
        added = high.n - low.n
        out.append(f"S={low.n}->{high.n}: amlkit {(b.median_seconds() - a.median_seconds()) / added:.3f}s wall, "
                   f"{(b.median_cpu() - a.median_cpu()) / added:.3f}s cpu per added environment; checkov "
                   f"{(high.checkov.median_seconds() or 0) - (low.checkov.median_seconds() or 0):.2f}s wall for "
                   f"{added} more")
    return out


def sample_lines(sample: ToolResult | None) -> list[str]:
    if sample is None:
        return []
    if sample.error:
        return [f"one sample stack (dev), cold: {sample.error}"]
    return [f"one sample stack (stacks/Pulumi.dev.yaml), a cold `amlkit check --stack dev` per run, "
            f"{len(sample.runs)} runs: median {sample.median_seconds():.2f}s wall (min "
            f"{min(r.seconds for r in sample.runs):.2f}s), {sample.median_cpu():.2f}s cpu, "
            f"{sample.peak_mb():.0f} MB"]


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
