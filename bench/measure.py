"""The benchmark's measurements: run each tool as a child process, time it (wall and CPU), read its
peak memory and its findings. `compare.py` drives the scenarios; `report.py` prints the tables."""

from __future__ import annotations

import json
import os
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

from stacks import stack_name

CHECKOV_VENV = Path.home() / ".cache" / "amlkit-bench" / "checkov-venv"
CHECKOV_VERSION = "3.3.30"  # the version the targets of bench/README.md are stated against
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
    load: float | None = None  # the 1-minute load average when the run started


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

    def min_seconds(self) -> float | None:
        return min(r.seconds for r in self.runs) if self.runs and not self.error else None

    def load_range(self) -> str:
        """The 1-minute load average at the start of the runs: `low-high` (or one value)."""
        loads = [r.load for r in self.runs if r.load is not None]
        if not loads:
            return "n/a"
        low, high = min(loads), max(loads)
        return f"{low:.1f}" if f"{low:.1f}" == f"{high:.1f}" else f"{low:.1f}-{high:.1f}"


@dataclass
class Row:
    n: int
    repeat: int
    planted: dict[str, int]
    amlkit: ToolResult
    checkov: ToolResult


def pin_prefix() -> list[str]:
    """`taskset -c 0` when available: the child and everything it forks stay on CPU 0."""
    taskset = shutil.which("taskset")
    return [taskset, "-c", "0"] if taskset else []


GNU_TIME = Path("/usr/bin/time")


def measure(cmd: Sequence[str], cwd: Path, env: dict[str, str]) -> Run:
    """Run one child to completion; wall time, CPU and the peak RSS of its process tree.

    The peak comes from GNU time (`/usr/bin/time -f %M`) when it exists: Linux counts the resident set a forked
    child had before its exec in that child's maxrss, so wait4 on a child of this (growing) process reports at
    least this process's own size; GNU time is a small process whose child's maxrss is the tool's own."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        wrapper = [str(GNU_TIME), "-o", report.name, "-f", "%M"] if GNU_TIME.is_file() else []
        load = os.getloadavg()[0]
        start = time.perf_counter()
        proc = subprocess.Popen([*wrapper, *cmd], cwd=cwd, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # already reaped: keep Popen from waiting
        out.seek(0)
        err.seek(0)
        peak_kib = usage.ru_maxrss  # KiB on Linux
        lines = report.read().split()
        if wrapper and lines and lines[-1].isdigit():
            peak_kib = int(lines[-1])
        return Run(
            seconds=seconds,
            cpu_seconds=usage.ru_utime + usage.ru_stime,
            peak_mb=peak_kib / 1024,
            returncode=proc.returncode,
            stdout=out.read().decode("utf-8", "replace"),
            stderr=err.read().decode("utf-8", "replace"),
            load=load,
        )


def bytecode_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """`env` (default: this process's) without PYTHONDONTWRITEBYTECODE: a tool runs with its bytecode, as an
    installed package does (pip compiles it; this machine's shells set the variable, which makes an editable
    install compile its sources on every run: 0.2-0.9 s of a cold command)."""
    return {key: value for key, value in (env if env is not None else os.environ).items()
            if key != "PYTHONDONTWRITEBYTECODE"}


def compile_amlkit() -> None:
    """Write the bytecode of amlkit's sources once (and the parsed VM catalogue beside it, amlkit.vmcache), so
    the first timed run does not pay for it."""
    dirs = [str(REPO / name) for name in ("amlkit", "components", "policies") if (REPO / name).is_dir()]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *dirs], env=bytecode_env(), check=False,
                   stdout=subprocess.DEVNULL)
    exe = amlkit_exe()
    if exe:
        subprocess.run([exe, "sizes"], env=bytecode_env(), check=False, stdout=subprocess.DEVNULL)


def error_line(text: str) -> str:
    """The line of a failed run's output worth showing: the first one naming an error, else the last."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    named = [line for line in lines if "error" in line.lower()]
    return (named or lines or ["(no output)"])[0 if named else -1][:240]


def ensure_checkov(explicit: str | None) -> Path:
    """The checkov executable: --checkov, else the bench virtualenv (created on first use)."""
    if explicit:
        return Path(explicit)
    exe = CHECKOV_VENV / "bin" / "checkov"
    if not exe.exists():
        print(f"installing checkov into {CHECKOV_VENV} (first run only) ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(CHECKOV_VENV)], check=True)
        pip = CHECKOV_VENV / "bin" / "pip"
        subprocess.run([str(pip), "install", "--quiet", f"checkov=={CHECKOV_VERSION}"], check=True)
    return exe


def checkov_cmd(exe: Path, tf_dir: Path) -> list[str]:
    return [str(exe), "-d", str(tf_dir), "--framework", "terraform", "--skip-download", "--quiet",
            "--compact", "-o", "json"]  # fmt: skip


def checkov_env() -> dict[str, str]:
    return {**bytecode_env(), **CHECKOV_OFFLINE_ENV}


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
    """Violations per policy in `amlkit check --format json` (amlkit/review/report/json.py)."""
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

