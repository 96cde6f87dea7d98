from datetime import date

import pytest

from amlkit.policies import framework
from amlkit.policies.framework import REVIEW_DATE_ENV, Finding, Rule, as_written, must, review_date

URN = "urn:pulumi:prod::amlkit::amlkit:index:ComputeCluster$azure-native:machinelearningservices:Compute::gpu"
TODAY = date(2026, 11, 22)


def test_must_without_found():
    assert must("Workspace 'mlw'", "disable public network access") == (
        "Workspace 'mlw' must disable public network access."
    )


def test_must_with_found():
    assert must("AmlCompute cluster 'c'", "have minNodeCount 0", "2") == (
        "AmlCompute cluster 'c' must have minNodeCount 0; found 2."
    )


def _rule(**config):
    return Rule(
        name="r", description="d", severity="low", level="advisory", tags=("cost",), url="u",
        remediation="m", check=lambda resource, cfg: [Finding(repr(sorted(cfg.items())))], config=config,
    )


WIRE_CONFIGS = [  # (as the engine's protobuf Struct delivers it, as the rule reads it)
    (None, {"maxNodes": 100, "modes": ["A"]}),
    ({"maxNodes": 10.0}, {"maxNodes": 10, "modes": ["A"]}),
    ({"maxNodes": 2.5}, {"maxNodes": 2.5, "modes": ["A"]}),
    ({"extraFamilies": [{"series": "X", "sizes": [{"vcpus": [2.0, 4.0], "memory": {"2": 8.0}}]}]},
     {"maxNodes": 100, "modes": ["A"], "extraFamilies": [{"series": "X", "sizes": [{"vcpus": [2, 4],
                                                                                    "memory": {"2": 8}}]}]}),
    ({"modes": [True, "B"]}, {"maxNodes": 100, "modes": [True, "B"]}),
]


@pytest.mark.parametrize(("given", "read"), WIRE_CONFIGS)
def test_effective_config_applies_defaults_and_reads_wire_numbers_as_json(given, read):
    rule = _rule(maxNodes={"type": "integer", "default": 100}, modes={"type": "array", "default": ["A"]})
    assert _typed(rule.effective_config(given)) == _typed(read)  # 2 == 2.0 in Python: compare the types too


def _typed(value):
    if isinstance(value, dict):
        return {key: _typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_typed(item) for item in value]
    return (type(value), value)


def test_review_date_is_the_environment_setting(monkeypatch):
    monkeypatch.setenv(REVIEW_DATE_ENV, "2031-02-03")
    assert review_date() == date(2031, 2, 3)


class _FrozenDate(date):
    """`date` whose today() is TODAY: review_date reads today as `framework.date.today()`."""

    @classmethod
    def today(cls) -> date:
        return TODAY


def test_review_date_defaults_to_today(monkeypatch):
    monkeypatch.delenv(REVIEW_DATE_ENV)
    monkeypatch.setattr(framework, "date", _FrozenDate)  # no race with midnight between two reads of the clock
    assert review_date() == TODAY


def test_a_malformed_review_date_fails_closed(monkeypatch):
    monkeypatch.setenv(REVIEW_DATE_ENV, "tomorrow")
    with pytest.raises(ValueError, match=r"^AMLKIT_REVIEW_DATE='tomorrow' is not a date; allowed: YYYY-MM-DD \(a real "
                       r"day, e\.g\. 2026-11-28\), or unset for today$"):
        review_date()


@pytest.mark.parametrize(("value", "default", "shown"), [
    (None, True, "none (Azure then uses true)"),
    (None, "Disabled", "none (Azure then uses Disabled)"),
    (False, True, "false"),
    ("Enabled", "Disabled", "Enabled"),
], ids=["omitted-bool", "omitted-string", "written-bool-lower-case", "written-string"])
def test_as_written(value, default, shown):
    assert as_written(value, default) == shown
