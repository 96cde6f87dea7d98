"""Twin programs (tests/fixtures/provider_twins): the same infrastructure written with azure-native 3.x and with
the classic pulumi-azure provider gets the same findings, rule by rule, through the real engine."""

from __future__ import annotations

import pytest

from amlkit.policies import ALL_RULES
from amlkit.review.engine import review
from amlkit.review.options import ReviewOptions
from tests.review.helpers import FIXTURES
from tests.review.statefiles import deployed_state

TWINS = FIXTURES / "provider_twins"
SCENARIOS = ("offender", "compliant")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def findings(tmp_path_factory):
    """provider -> stack -> rule -> sorted (resource, kind, message), each stack against its own state export.
    Deployed, the twins are the same infrastructure; in a first preview they are not known alike (azure-native
    does not mirror a group's name to its `name` output, the classic provider's planned state does), so the
    comparison is of deployed stacks (what each knows in preview: tests/review/test_preview_knowledge.py)."""
    found: dict[str, dict[str, dict[str, list[tuple[str, str, str]]]]] = {}
    for provider in ("native", "classic"):
        directory = tmp_path_factory.mktemp(provider)
        states = [deployed_state(TWINS / provider, stack, directory) for stack in SCENARIOS]
        result = review(TWINS / provider, list(SCENARIOS), options=ReviewOptions(states=states))
        for stack in result.stacks:
            assert stack.error is None, stack.error
            rules: dict[str, list[tuple[str, str, str]]] = {}
            for violation in stack.violations:
                rules.setdefault(violation.policy, []).append((violation.resource, violation.level,
                                                               violation.message))
            for unknown in stack.unknown:
                rules.setdefault(unknown.policy, []).append((unknown.resource, "unknown", unknown.message))
            found.setdefault(provider, {})[stack.stack] = {rule: sorted(items) for rule, items in rules.items()}
    return found


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("rule", [rule.name for rule in ALL_RULES])
def test_twins_get_the_same_findings_rule_by_rule(findings, scenario, rule):
    assert findings["classic"][scenario].get(rule, []) == findings["native"][scenario].get(rule, [])


FIRING = {
    "offender": {
        "aml-cluster-min-nodes-zero": ["gpu"], "aml-cluster-ssh-disabled": ["ci", "gpu"],
        "aml-compute-retired-vm-series": ["gpu"], "aml-compute-no-public-ip": ["ci", "gpu"],
        "aml-compute-local-auth-disabled": ["ci", "gpu"], "aml-no-resource-group-lock": ["lock"],
        "aml-compute-network-isolated": ["ci", "gpu"],
    },
    "compliant": {
        "aml-cluster-min-nodes-zero": [], "aml-cluster-ssh-disabled": [], "aml-compute-retired-vm-series": [],
        "aml-compute-no-public-ip": [], "aml-compute-local-auth-disabled": [], "aml-no-resource-group-lock": [],
        "aml-compute-network-isolated": [], "amlkit-unreviewed-resource": [],
    },
}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_classic_twin_gets_the_findings_its_inputs_call_for(findings, scenario):
    classic = findings["classic"][scenario]
    assert {rule: sorted({item[0] for item in classic.get(rule, [])}) for rule in FIRING[scenario]} == \
        FIRING[scenario]
