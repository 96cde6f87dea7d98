"""Every policy pack config example in the docs and READMEs, as written, through the real pack over the
analyzer protocol (the engine's Configure and Analyze over gRPC, with numbers as the wire carries them)."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest

from amlkit.policies import ALL_RULES
from amlkit.policies.rule_baseline import BASELINE_POLICY
from amlkit.review.engine import review
from amlkit.review.options import ReviewOptions

ROOT = Path(__file__).resolve().parent.parent
PLATFORM = ROOT / "examples" / "platform-repo"
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), PLATFORM / "README.md"]
POLICIES = {rule.name for rule in ALL_RULES} | {"all", BASELINE_POLICY}


def config_examples() -> dict[str, dict]:
    """`<page>#<n>` -> the n-th JSON block of the page that is a policy pack config (a fragment
    `"<policy>": {...}` counts, as the object it belongs in)."""
    found = {}
    for page in PAGES:
        blocks = re.findall(r"```json\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)
        for number, block in enumerate(blocks):
            try:
                data = json.loads(block)
            except json.JSONDecodeError:
                data = json.loads("{" + block + "}")
            if isinstance(data, dict) and data and set(data) <= POLICIES:
                found[f"{page.relative_to(ROOT)}#{number}"] = data
    return found


EXAMPLES = config_examples()
GPU = "prod-cluster-gpu-cluster-compute"
WAIVER_LIVE = date.today() <= date(2027, 6, 30)  # the docs' expiry; after it the finding is a violation again
# example -> (project, stack, {(policy, resource): level} of the policies the example configures)
EXPECTED = {
    "docs/review.md#0": (ROOT, "dev", {}),  # remediate: the dev stack's resources get the missing tag
    "docs/upgrading.md#0": (ROOT, "prod", {}),
    "docs/vm-catalogue.md#0": (ROOT, "prod", {}),
    "docs/waivers.md#0": (ROOT, "prod", {
        ("aml-cluster-vm-priority", GPU): "waived" if WAIVER_LIVE else "mandatory",
        ("aml-cluster-vm-priority", "prod-cluster-cpu-cluster-compute"): "mandatory"}),
    "docs/waivers.md#1": (ROOT, "prod", {  # a waiver naming a stack entry, one naming a component
        ("aml-cluster-vm-priority", GPU): "waived" if WAIVER_LIVE else "mandatory",
        ("aml-cluster-vm-priority", "prod-cluster-cpu-cluster-compute"): "mandatory",
        ("aml-workspace-cmk", "prod-workspace-workspace"): "waived"}),
    "examples/platform-repo/README.md#0": (PLATFORM, "nonprod", {
        ("aml-cluster-vm-priority", "gpu-cluster-compute"): "waived" if WAIVER_LIVE else "mandatory"}),
}


# example -> the policies whose remediations the review reports (the example puts them at level remediate)
REMEDIATED = {"docs/review.md#0": {"aml-required-tags"}}


def test_every_config_example_is_tested():
    assert sorted(EXAMPLES) == sorted(EXPECTED)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_config_example_configures_the_real_pack_over_the_wire(name, tmp_path):
    project, stack, findings = EXPECTED[name]
    config = tmp_path / "pack.json"
    config.write_text(json.dumps(EXAMPLES[name]), encoding="utf-8")
    result = review(project, [stack], options=ReviewOptions(policy_pack_config=config))
    reviewed = result.stacks[0]
    assert reviewed.error is None
    assert reviewed.warnings == ()  # every waiver of the example matches a resource of the sample stack
    configured = {policy for policy in EXAMPLES[name] if policy != "all"}
    levels = {p.name: p.level for p in reviewed.pack.policies}
    for policy, entry in EXAMPLES[name].items():
        if policy != "all" and isinstance(entry, dict) and "enforcementLevel" in entry:
            assert levels[policy] == entry["enforcementLevel"], policy
    assert {(v.policy, v.resource): v.level for v in reviewed.violations if v.policy in configured} == findings
    assert {r.policy for r in reviewed.remediations} == REMEDIATED.get(name, set())
