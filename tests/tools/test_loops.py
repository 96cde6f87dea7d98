"""tests/loops.py: the slow-marker check and `--rule` (`make test-rule`), on made-up reports and items."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from amlkit.policies import rule_named
from tests import loops

TESTS = Path(loops.__file__).resolve().parent


class Options(SimpleNamespace):
    def getoption(self, name: str, default: object = None) -> object:
        return getattr(self, name, default)


def check(markexpr: str = "", slow_check: bool = True, limit: float = 8.0) -> loops.SlowCheck:
    return loops.SlowCheck(Options(markexpr=markexpr, slow_check=slow_check, slow_limit=limit))


def report(nodeid: str, seconds: float, slow: bool = False) -> SimpleNamespace:
    return SimpleNamespace(nodeid=nodeid, duration=seconds, keywords={"slow": 1} if slow else {})


def test_a_tests_setup_call_and_teardown_add_up_and_only_unmarked_tests_are_listed() -> None:
    seen = check()
    for item in [report("a", 1.5), report("a", 0.75), report("b", 30.0, slow=True), report("c", 1.9),
                 report("d", 9.0)]:
        seen.pytest_runtest_logreport(item)
    assert seen.unmarked(2.0) == [(9.0, "d"), (2.25, "a")]
    assert seen.unmarked(8.0) == [(9.0, "d")]


@pytest.mark.parametrize(("load", "limit"), [(0.5, 8.0), (2.0, 8.0), (6.0, 24.0)])
def test_the_failing_limit_grows_with_the_load_per_core(monkeypatch, load: float, limit: float) -> None:
    monkeypatch.setattr(loops.os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(loops.os, "cpu_count", lambda: 2)
    assert check().limit() == limit


@pytest.mark.parametrize(("markexpr", "slow_check", "fails"), [
    ("", True, True), ("not slow", True, False), ("", False, False)])
def test_an_unmarked_slow_test_fails_the_run_only_when_asked_and_slow_tests_ran(
        monkeypatch, markexpr: str, slow_check: bool, fails: bool) -> None:
    monkeypatch.setattr(loops.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    seen = check(markexpr, slow_check)
    seen.pytest_runtest_logreport(report("d", 9.0))
    session = SimpleNamespace(exitstatus=pytest.ExitCode.OK)
    seen.pytest_sessionfinish(session)
    assert session.exitstatus == (pytest.ExitCode.TESTS_FAILED if fails else pytest.ExitCode.OK)


def item(path: Path, **params: object) -> SimpleNamespace:
    return SimpleNamespace(path=path, callspec=SimpleNamespace(params=params))


def test_a_rules_tests_are_its_module_and_the_tests_parametrized_with_it() -> None:
    rule = rule_named("aml-workspace-hbi")
    other = TESTS / "review" / "test_rule_examples.py"
    assert loops.selects_rule(item(TESTS / "policies" / "test_aml_workspace_hbi.py"), rule)
    assert loops.selects_rule(item(other, rule=rule), rule)
    assert loops.selects_rule(item(other, scenario="offender", rule="aml-workspace-hbi"), rule)
    assert not loops.selects_rule(item(other, rule=rule_named("aml-workspace-cmk")), rule)
    assert not loops.selects_rule(item(TESTS / "policies" / "test_aml_workspace_cmk.py"), rule)


def test_an_unknown_rule_is_a_usage_error_naming_the_rules() -> None:
    with pytest.raises(pytest.UsageError, match=r"^--rule aml-nope: no such rule; allowed: .*aml-workspace-hbi"):
        loops.rule_of("aml-nope")
