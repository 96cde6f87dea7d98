"""Rule baselines (amlkit.policies.rule_baseline): what a rule runs with under a pinned release, in the pack
(the servicer's Configure) and in the offline review (the documented config, through the analyzer protocol)."""

import json
import re
from pathlib import Path

import pytest
from pulumi.runtime.proto import analyzer_pb2
from pulumi_policy import EnforcementLevel
from pulumi_policy.policy import _PolicyAnalyzerServicer

from amlkit import __version__
from amlkit.errors import ConfigError
from amlkit.policies import ALL_RULES
from amlkit.policies.framework import Change, Rule
from amlkit.policies.pack import apply_rule_baselines, baseline_policy, build_policies
from amlkit.policies.rule_baseline import BaselineError, at_baseline, newer, rebase
from amlkit.review import engine

ROOT = Path(__file__).resolve().parents[2]


def _rule(name: str = "aml-demo", since: str = "0.1.0", level: str = "mandatory", changed=(), config=None) -> Rule:
    return Rule(name=name, description="d", severity="low", level=level, tags=("cost",), url="https://example.com",
                remediation="r", check=lambda resource, cfg: [], since=since, changed=changed,
                config=config or {"maxNodes": {"type": "integer", "description": "cap", "default": 20}})


NEW = _rule(since="0.2.0")
LEVEL_CHANGED = _rule(changed=(Change("0.2.0", "now mandatory", level="advisory"),))
FACT_CHANGED = _rule(changed=(Change("0.2.0", "cap raised", config={"maxNodes": 10}),))
TWICE = _rule(changed=(Change("0.2.0", "advisory -> mandatory", level="advisory", config={"maxNodes": 5}),
                       Change("0.3.0", "cap raised", config={"maxNodes": 10})))

CASES = [
    # (id, rule, baseline, (level, properties) as reconciled, (level, properties) the rule runs with)
    ("new-rule-mandatory-becomes-advisory", NEW, "0.1.0", ("mandatory", {"maxNodes": 20}),
     ("advisory", {"maxNodes": 20})),
    ("new-rule-remediate-becomes-advisory", NEW, "0.1.0", ("remediate", None), ("advisory", None)),
    ("new-rule-disabled-stays-disabled", NEW, "0.1.0", ("disabled", None), ("disabled", None)),
    ("new-rule-at-its-own-release-runs", NEW, "0.2.0", ("mandatory", None), ("mandatory", None)),
    ("level-changed-keeps-old-default", LEVEL_CHANGED, "0.1.0", ("mandatory", None), ("advisory", None)),
    ("level-changed-explicit-level-stays", LEVEL_CHANGED, "0.1.0", ("disabled", None), ("disabled", None)),
    ("level-changed-baseline-after-change", LEVEL_CHANGED, "0.2.0", ("mandatory", None), ("mandatory", None)),
    ("fact-changed-keeps-old-default", FACT_CHANGED, "0.1.0", ("mandatory", {"maxNodes": 20}),
     ("mandatory", {"maxNodes": 10})),
    ("fact-changed-wire-float-is-the-default", FACT_CHANGED, "0.1.0", ("mandatory", {"maxNodes": 20.0}),
     ("mandatory", {"maxNodes": 10})),
    ("fact-changed-explicit-value-stays", FACT_CHANGED, "0.1.0", ("mandatory", {"maxNodes": 40}),
     ("mandatory", {"maxNodes": 40})),
    ("two-changes-oldest-after-baseline-wins", TWICE, "0.1.0", ("mandatory", {"maxNodes": 20}),
     ("advisory", {"maxNodes": 5})),
    ("two-changes-only-the-later-one", TWICE, "0.2.0", ("mandatory", {"maxNodes": 20}),
     ("mandatory", {"maxNodes": 10})),
]


@pytest.mark.parametrize(("rule", "baseline", "given", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_rule_baseline(rule, baseline, given, expected):
    assert at_baseline(rule, baseline, *given) == expected


def test_rebase_without_a_baseline_changes_nothing():
    config = {"aml-demo": ("mandatory", {"maxNodes": 20}), "baseline": ("advisory", None)}
    assert rebase([NEW], config) == config


def test_rebase_applies_the_baseline_to_the_pack_rules_only():
    config = {"aml-demo": ("mandatory", None), "other-pack-policy": ("mandatory", None),
              "baseline": ("advisory", {"version": "0.1.0"})}
    assert rebase([NEW], config) == {**config, "aml-demo": ("advisory", None)}


@pytest.mark.parametrize(("version", "message"), [
    ("9.0.0", f"baseline.version: 9.0.0 is not a release of this pack; allowed: a release from 0.1.0 to {__version__} "
              "(the version of this pack)"),
    ("0.0.9", f"baseline.version: 0.0.9 is not a release of this pack; allowed: a release from 0.1.0 to {__version__} "
              "(the version of this pack)"),
    ("v0.1", f"baseline.version: 'v0.1' is not a release; allowed: a release from 0.1.0 to {__version__} "
             "(the version of this pack)"),
], ids=["newer-than-the-pack", "before-the-first-release", "not-a-version"])
def test_a_baseline_naming_no_release_is_refused(version, message):
    with pytest.raises(BaselineError, match=f"^{re.escape(message)}$"):
        rebase([NEW], {"baseline": ("advisory", {"version": version})})


# --- in the pack: the servicer's Configure, as the Pulumi engine calls it -------------------------------------

@pytest.fixture(autouse=True)
def _restore_configure(monkeypatch):
    """apply_rule_baselines wraps pulumi-policy's servicer class: each test starts from (and restores) the original."""
    monkeypatch.setattr(_PolicyAnalyzerServicer, "Configure", _PolicyAnalyzerServicer.Configure)


def _configured_levels(rules, config: dict) -> dict[str, EnforcementLevel]:
    policies = [*build_policies(rules), baseline_policy()]
    servicer = _PolicyAnalyzerServicer("amlkit-guardrails", __version__, policies, EnforcementLevel.ADVISORY)
    request = analyzer_pb2.ConfigureAnalyzerRequest()
    for name, (level, properties) in config.items():
        request.policyConfig[name].enforcementLevel = analyzer_pb2.EnforcementLevel.Value(level.upper())
        if properties:
            request.policyConfig[name].properties.update(properties)
    apply_rule_baselines(rules)
    servicer.Configure(request, None)
    return {policy.name: servicer._get_enforcement_level(policy) for policy in policies}


def test_the_pack_applies_the_baseline_the_engine_sends():
    old = _rule(name="aml-old")
    config = {"aml-demo": ("mandatory", None), "aml-old": ("mandatory", None),
              "baseline": ("advisory", {"version": "0.1.0"})}
    assert _configured_levels([NEW, old], config) == {
        "aml-demo": EnforcementLevel.ADVISORY, "aml-old": EnforcementLevel.MANDATORY,
        "baseline": EnforcementLevel.ADVISORY}
    without = {**config, "baseline": ("advisory", None)}
    assert _configured_levels([NEW, old], without)["aml-demo"] == EnforcementLevel.MANDATORY


def test_the_pack_refuses_a_baseline_naming_no_release():
    with pytest.raises(BaselineError, match=r"^baseline\.version: 9\.0\.0 is not a release of this pack"):
        _configured_levels([NEW], {"aml-demo": ("mandatory", None), "baseline": ("advisory", {"version": "9.0.0"})})


# --- offline: the documented config, as written, through the analyzer protocol --------------------------------

def _documented_config() -> str:
    text = (ROOT / "docs" / "upgrading.md").read_text(encoding="utf-8")
    return re.search(r"```json\n(.*?)```", text, re.S).group(1)


def arrived_after(release: str) -> set[str]:
    """The rules that arrived after `release`, from their metadata (`Rule.since`)."""
    return {rule.name for rule in ALL_RULES if newer(rule.since, release)}


def test_the_documented_baseline_runs_through_the_analyzer_protocol(tmp_path):
    path = tmp_path / "pack-config.json"
    path.write_text(_documented_config(), encoding="utf-8")
    assert json.loads(path.read_text()) == {"all": "mandatory", "baseline": {"version": "0.1.0"}}
    pinned = {policy.name: (policy.since, policy.level) for policy in engine.pack_info(config=path).policies}
    assert "baseline" not in pinned  # config, not a rule
    # every rule of 0.1.0 runs as `all` says; the rules that arrived later (0.2.0 and on) run as advisory
    later = arrived_after("0.1.0")
    assert "aml-workspace-private-endpoint" in later  # arrived in 0.2.0
    assert {name: level for name, (since, level) in pinned.items() if name in later} == dict.fromkeys(later, "advisory")
    assert {level for since, level in pinned.values() if since == "0.1.0"} == {"mandatory"}
    # the upgrade without a baseline: the same config makes them mandatory
    path.write_text('{"all": "mandatory"}', encoding="utf-8")
    current = {policy.name: policy.level for policy in engine.pack_info(config=path).policies}
    assert {name: current[name] for name in later} == dict.fromkeys(later, "mandatory")


def test_an_unreleased_baseline_is_a_config_error(tmp_path):
    path = tmp_path / "pack-config.json"
    path.write_text('{"baseline": {"version": "1.0.0"}}', encoding="utf-8")
    with pytest.raises(ConfigError) as error:
        engine.pack_info(config=path)
    assert str(error.value) == (f"{path}: baseline.version: 1.0.0 is not a release of this pack; allowed: a release "
                                f"from 0.1.0 to {__version__} (the version of this pack)")
    assert error.value.value == "1.0.0"
