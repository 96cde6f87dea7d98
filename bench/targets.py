"""The issue-33 table: every workload of the comparison with its figures, the load at the time and its target.

`compare.py --scenario targets` fills it in one run: the platform scenario at S = 50, 200 and 500 (amlkit and
Checkov alternating), then one sample stack cold and the light commands cold. Wall-time targets are stated for an
idle machine; each row shows the 1-minute load average during its runs, and CPU seconds next to wall seconds,
which are the steadier figure when the machine is shared.
"""

from __future__ import annotations

from measure import Row, ToolResult
from report import not_reviewed

# S -> (wall speed-up over Checkov at least, amlkit CPU at most Checkov's x): issue 33's targets
PLATFORM_TARGETS = {50: (1.5, 1.0), 200: (2.0, 1.0)}
COLD_TARGET = 1.0  # one sample stack, cold, wall seconds
LIGHT_TARGET = 0.3  # --help, rules, sizes, init: wall seconds


def _f(value: float | None, spec: str = ".2f") -> str:
    return "n/a" if value is None else format(value, spec)


def _verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("met" if ok else "**not met**")


def platform_row(row: Row) -> str:
    a, c = row.amlkit, row.checkov
    aw, ac, am = a.median_seconds(), a.median_cpu(), a.peak_mb()
    cw, cc, cm = c.median_seconds(), c.median_cpu(), c.peak_mb()
    speedup = cw / aw if aw and cw else None
    cpu_ratio = ac / cc if ac is not None and cc else None
    mem_ratio = am / cm if am is not None and cm else None
    checks = []
    wanted = PLATFORM_TARGETS.get(row.n)
    if wanted is not None:
        checks.append(f"wall >= {wanted[0]:g}x Checkov: {_verdict(None if speedup is None else speedup >= wanted[0])}")
        checks.append(f"CPU <= Checkov's: {_verdict(None if cpu_ratio is None else cpu_ratio <= wanted[1])}")
    checks.append(f"memory below Checkov's: {_verdict(None if mem_ratio is None else mem_ratio < 1)}")
    checks.append(f"stacks not reviewed: {not_reviewed(a)}")
    loads = f"{a.load_range()} / {c.load_range()}"
    return (f"| {row.n} environments | {_f(aw)} | {_f(ac)} | {_f(am, '.0f')} | {_f(cw)} | {_f(cc)} | {_f(cm, '.0f')} "
            f"| {_f(speedup)}x | {_f(cpu_ratio)} | {_f(mem_ratio)} | {loads} | {'; '.join(checks)} |")


def single_row(label: str, result: ToolResult, target: float) -> str:
    wall, low = result.median_seconds(), result.min_seconds()
    if result.error:
        return f"| {label} | {result.error} | | | | | | | | | | |"
    verdict = _verdict(None if wall is None else wall <= target)
    cpu_note = "" if wall is None or wall <= target else (
        f" (CPU {_f(result.median_cpu())} s {'<=' if (result.median_cpu() or 0) <= target else '>'} {target:g})")
    return (f"| {label} | {_f(wall)} (min {_f(low)}) | {_f(result.median_cpu())} | {_f(result.peak_mb(), '.0f')} "
            f"| | | | | | | {result.load_range()} | <= {target:g} s wall: {verdict}{cpu_note} |")


def table(platform: list[Row], sample: ToolResult | None, cold: dict[str, ToolResult]) -> list[str]:
    """The Markdown table: one line per workload."""
    lines = [
        "| workload (one run, alternating) | amlkit wall s | amlkit CPU s | amlkit MB | Checkov wall s | Checkov CPU s "
        "| Checkov MB | speed-up (Checkov / amlkit wall) | CPU a/c | memory a/c | load (amlkit / Checkov) | target |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    lines += [platform_row(row) for row in platform]
    if sample is not None:
        lines.append(single_row("one sample stack cold (`check -s dev`)", sample, COLD_TARGET))
    lines += [single_row(label, result, LIGHT_TARGET) for label, result in cold.items()]
    return lines
