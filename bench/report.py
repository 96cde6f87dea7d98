"""The benchmark's report: the performance and findings tables, notes and the machine it ran on."""

from __future__ import annotations

import importlib.metadata
import os
import platform
from collections import Counter
from pathlib import Path

from measure import COMPARED, PLANTED_KEY, Row, Run, ToolResult, amlkit_findings, checkov_version, pin_prefix


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
        f"{'cpu s':>7} {'MB':>5} | {'wall a/c':>8} {'cpu a/c':>7} {'mem a/c':>7} | {'load a/c':>9}"
    )
    lines = [head, "-" * len(head)]
    for row in rows:
        a, c = row.amlkit, row.checkov
        lines.append(
            f"{row.n:>5} {row.repeat:>4} | {fmt(a.median_seconds(), '.2f'):>8} {fmt(a.median_cpu(), '.2f'):>7} "
            f"{fmt(a.peak_mb(), '.0f'):>5} {not_reviewed(a):>7} | {fmt(c.median_seconds(), '.2f'):>9} "
            f"{fmt(c.median_cpu(), '.2f'):>7} "
            f"{fmt(c.peak_mb(), '.0f'):>5} | {ratio(a.median_seconds(), c.median_seconds()):>8} "
            f"{ratio(a.median_cpu(), c.median_cpu()):>7} {ratio(a.peak_mb(), c.peak_mb()):>7} | "
            f"{a.load_range()}/{c.load_range()}"
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
            f"{sample.peak_mb():.0f} MB, load {sample.load_range()}"]



def warm_lines(rows: dict[str, ToolResult]) -> list[str]:
    """One line per warm-path row of the sample stack: median wall and cpu seconds (cpu of the whole tree)."""
    out = []
    for label, result in rows.items():
        if result.error:
            out.append(f"{label}: {result.error}")
            continue
        out.append(f"{label}, {len(result.runs)} runs: median {result.median_seconds():.2f}s wall (min "
                   f"{min(r.seconds for r in result.runs):.2f}s), {result.median_cpu():.2f}s cpu, load "
                   f"{result.load_range()}")
    return out
