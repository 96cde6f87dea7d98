"""The suite's test loops (a pytest plugin, registered by tests/conftest.py).

`--rule NAME` (`make test-rule RULE=name`): only the tests of one rule: every test of its own test module
(tests/policies/test_<module>.py: unit cases, the documented EXAMPLE) and every test elsewhere that is
parametrized with that rule (by name, or as a `Rule` whose name it is): the engine runs of its example
(tests/review/test_rule_examples.py), the pack's checks of its metadata and example (tests/policies/
test_pack.py), its provider twins.

The slow-marker check: tests over 2 s on an idle machine are marked `slow` (pyproject.toml), so that
`-m "not slow"` (`make test-fast`) is a quick loop. Every run measures each test's wall time (setup, call
and teardown: a module fixture's cost falls on the first test that needs it, and the start of a process's
fork server, amlkit.review.proc.warm, on its first review) and lists, in a terminal
summary section, the unmarked tests over 2 s. That list is a report, never a failure: on the shared
2-core machine a 1.5 s test can take 4 s. With `--slow-check` (or in CI, `CI=true`) the run FAILS when an
unmarked test took over `--slow-limit` seconds (default 8: four times the 2 s rule), times the load per
core at the end of the run when that is over 1 (load average 6 on 2 cores: 24 s), so a test that is quick
on an idle machine is not flagged because the machine is loaded. The check runs in the process
that collects the reports (the xdist controller under `-n`), and only on runs that select slow tests too:
under `-m "not slow"` a slow test is never run, so nothing can be said about it.
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

__all__ = ["LISTED", "SLOW_LIMIT", "SLOW_NOTE", "SlowCheck", "rule_of", "selects_rule"]

SLOW_NOTE = 2.0
"""Seconds: the marker's rule (pyproject.toml), and the threshold of the report."""
SLOW_LIMIT = 8.0
"""Seconds: the default threshold above which an unmarked test fails the run under --slow-check or CI."""
LISTED = 20
"""How many unmarked slow tests the report lists (the slowest first)."""
TESTS = Path(__file__).resolve().parent


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("amlkit", "amlkit's test loops (tests/loops.py)")
    group.addoption("--rule", metavar="NAME", help="run only the tests of the rule NAME (e.g. aml-workspace-hbi)")
    group.addoption("--slow-check", action="store_true", default=os.environ.get("CI") == "true",
                    help="fail the run when a test without the slow mark takes over --slow-limit seconds "
                         "(on by default when CI=true)")
    group.addoption("--slow-limit", type=float, default=SLOW_LIMIT, metavar="SECONDS",
                    help=f"the --slow-check threshold on an idle machine (default {SLOW_LIMIT:g} s, four times the 2 s "
                         "marker rule; times the load per core when that is over 1)")


# --- make test-rule ----------------------------------------------------------------------------------

def rule_of(name: str) -> Any:
    """The rule called `name` in the pack, else a usage error naming the rules there are."""
    from amlkit.policies import ALL_RULES

    for rule in ALL_RULES:
        if rule.name == name:
            return rule
    raise pytest.UsageError(f"--rule {name}: no such rule; allowed: {', '.join(r.name for r in ALL_RULES)}")


def selects_rule(item: pytest.Item, rule: Any) -> bool:
    """Whether `item` is a test of `rule`: in its own test module (named after the rule), or parametrized with it."""
    module = TESTS / "policies" / f"test_{rule.name.replace('-', '_')}.py"
    if Path(str(item.path)) == module:
        return True
    params = getattr(getattr(item, "callspec", None), "params", {})
    return any(value == rule.name or getattr(value, "name", None) == rule.name for value in params.values())


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    name = config.getoption("rule")
    if not name:
        return
    rule = rule_of(name)
    keep = [item for item in items if selects_rule(item, rule)]
    config.hook.pytest_deselected(items=[item for item in items if not selects_rule(item, rule)])
    items[:] = keep


# --- the slow-marker check -----------------------------------------------------------------------------

class SlowCheck:
    """Wall time per test, from the reports this process sees (all of them, under xdist's controller)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.seconds: dict[str, float] = defaultdict(float)
        self.marked: set[str] = set()
        self.fail_over = SLOW_LIMIT

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] += report.duration
        if "slow" in report.keywords:
            self.marked.add(report.nodeid)

    def unmarked(self, limit: float) -> list[tuple[float, str]]:
        return sorted(((seconds, nodeid) for nodeid, seconds in self.seconds.items()
                       if seconds > limit and nodeid not in self.marked), reverse=True)

    def limit(self) -> float:
        """--slow-limit, times the load per core when the machine is busier than one process per core."""
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
        return float(self.config.getoption("slow_limit")) * max(1.0, load / (os.cpu_count() or 1))

    def runs_slow_tests(self) -> bool:
        markexpr = self.config.getoption("markexpr", "") or ""
        return "slow" not in markexpr

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.fail_over = self.limit()
        failing = self.config.getoption("slow_check") and self.runs_slow_tests() and self.unmarked(self.fail_over)
        if failing and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        listed = self.unmarked(SLOW_NOTE)
        if not listed:
            return
        limit = self.fail_over
        failing = self.config.getoption("slow_check") and self.runs_slow_tests()
        terminalreporter.section("tests over 2 s without @pytest.mark.slow")
        for seconds, nodeid in listed[:LISTED]:
            flag = " FAILS --slow-check" if failing and seconds > limit else ""
            terminalreporter.write_line(f"{seconds:6.1f} s  {nodeid}{flag}")
        if len(listed) > LISTED:
            terminalreporter.write_line(f"... and {len(listed) - LISTED} more")
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        terminalreporter.write_line(
            f"(wall time with setup and teardown; load average {load:.1f} on {os.cpu_count()} cores. Mark a test "
            f"slow when it takes over 2 s on an idle machine; --slow-check fails only over {limit:.0f} s at this "
            "load.)")


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # xdist workers send their reports to the controller
        config.pluginmanager.register(SlowCheck(config), "amlkit-slow-check")
