"""Issue 29, item 6: one proof for the whole pack. Every program the tests use (each rule's example, every
fixture program, the sample stacks, examples/platform-repo) is reviewed twice: with what a first `pulumi
preview` knows (no state: created resources' ids, names and principal ids unknown) and against a state export
of the same program (every resource `same`, answered with its deployed outputs). Both verdict sets are pinned
(tests/data/preview_knowledge.json), and every difference is a case where preview cannot know: the finding
is *unknown* in preview, never a pass, and nothing preview reports is contradicted by the deployed state.

Regenerate the pinned verdicts after a deliberate change with `AMLKIT_PIN_PREVIEW_KNOWLEDGE=1`.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from amlkit.errors import ConfigError
from amlkit.review.engine import review
from amlkit.review.model import StackReview
from amlkit.review.options import ReviewOptions
from tests.review.helpers import FIXTURES
from tests.review.statefiles import deployed_state
from tests.review.test_rule_examples import examples, stacks

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PINNED = ROOT / "tests" / "data" / "preview_knowledge.json"
REGENERATE = os.environ.get("AMLKIT_PIN_PREVIEW_KNOWLEDGE") == "1"
PROGRAMS = {"samples": ROOT, "examples/platform-repo": ROOT / "examples" / "platform-repo",
            **{f"fixtures/{d.name}": d for d in sorted(FIXTURES.iterdir()) if (d / "Pulumi.yaml").is_file()
               and d.name != "rule_examples"}}


def rule_examples(directory: Path) -> Path:
    """The rule-examples project as tests/review/test_rule_examples.py builds it: one stack per example."""
    shutil.copytree(FIXTURES / "rule_examples", directory, dirs_exist_ok=True)
    (directory / "policy-config").mkdir()
    for name, (resources, config) in stacks(examples()).items():
        stack_config = {"config": {"rule-examples:resources": json.dumps(resources)}}
        (directory / f"Pulumi.{name}.yaml").write_text(yaml.safe_dump(stack_config))
        (directory / "policy-config" / f"{name}.json").write_text(json.dumps(config))
    return directory


def verdicts(stack: StackReview) -> dict[str, Any]:
    """A stack's verdicts: each finding as [policy, resource, outcome], the error kind, the plan's ops."""
    found = sorted([v.policy, v.resource, v.level] for v in stack.violations)
    found += sorted([u.policy, u.resource, "unknown"] for u in stack.unknown)
    ops = sorted({step.op for step in stack.plan.steps}) if stack.plan is not None else None
    return {"findings": found, "error": stack.error_kind if stack.error else None, "ops": ops}


def both(directory: Path, state_dir: Path) -> dict[str, dict[str, Any]]:
    """stack -> {"preview": verdicts without a state, "deployed": verdicts against its own export}."""
    try:
        # fixtures/faulty's `hang` sleeps an hour: a short timeout ends it as the default one would (a program error);
        # 10 s, as test_proc_workers gives it, leaves faulty's other, tiny stacks ample time on a loaded machine
        options = ReviewOptions(timeout=10.0) if directory.name == "faulty" else ReviewOptions()
        first = {stack.stack: stack for stack in review(directory, options=options).stacks}
    except ConfigError as error:  # a program refused before it runs (fixtures/native_1x: azure-native 1.x)
        return {"*": {"preview": {"findings": [], "error": f"refused: exit {error.exit_code}", "ops": None},
                      "deployed": None}}
    deployable = [name for name, stack in first.items() if stack.error is None]
    states = [deployed_state(directory, name, state_dir) for name in deployable]
    again = {s.stack: s for s in review(directory, deployable, options=ReviewOptions(states=states)).stacks}
    return {name: {"preview": verdicts(stack), "deployed": verdicts(again[name]) if name in again else None}
            for name, stack in sorted(first.items())}


@pytest.fixture(scope="module")
def proof(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    found = {label: both(directory, tmp_path_factory.mktemp("state")) for label, directory in PROGRAMS.items()}
    found["rule-examples"] = both(rule_examples(tmp_path_factory.mktemp("rule-examples")),
                                  tmp_path_factory.mktemp("state"))
    if REGENERATE:
        PINNED.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return found


def cases(proof: dict[str, dict[str, dict[str, Any]]]) -> list[tuple[str, str, dict[str, Any]]]:
    """Every stack reviewed both ways (a program that fails, such as fixtures/faulty's, has no state)."""
    return [(label, stack, pair) for label, stacks_ in proof.items() for stack, pair in stacks_.items()
            if pair["deployed"] is not None]


def test_both_verdict_sets_are_pinned(proof):
    assert json.loads(PINNED.read_text(encoding="utf-8")) == proof


# Stacks that are not only `same` against their own export, and why: never what preview knows, always what
# the offline review cannot know even with a state (a lookup's answer, an output the test state lacks).
NOT_ONLY_SAME = {
    ("fixtures/lookup_forms", "dev"): "inputs derived from unanswered lookups are unknown offline",
    ("fixtures/lookup_lines", "dev"): "inputs derived from unanswered lookups are unknown offline",
    ("fixtures/lookup_providers", "dev"): "inputs derived from unanswered lookups are unknown offline",
    ("fixtures/platform_e2e", "dev"): "the cluster's location is a stack reference's output, unknown offline",
    ("fixtures/platform_e2e", "prod"): "the cluster's location is a stack reference's output, unknown offline",
    ("fixtures/platform_lookups", "lookup"): "the cluster's location is a stack reference's output, unknown offline",
    ("fixtures/platform_lookups", "written"): "the cluster's location is a stack reference's output, unknown offline",
    ("fixtures/raw_aml", "dev"): "cpu-unknown-min reads the workspace's discoveryUrl, which the test state lacks",
    ("fixtures/storage_keys", "dev"): "a tag derived from storage keys, never answered offline",
}
# Programs that fail against the test state: it is built from the program's inputs, so output-only fields a
# program reads are missing (fixtures/output_only indexes a private DNS zone config's recordSets).
STATE_GAPS = {("fixtures/output_only", "dev")}


def test_every_program_is_reviewed_both_ways(proof):
    assert set(proof) == {*PROGRAMS, "rule-examples"}
    for label, stacks_ in proof.items():
        for stack, pair in stacks_.items():  # only a program that fails without a state has none
            assert (pair["deployed"] is None) == (pair["preview"]["error"] is not None), (label, stack)
            failed = pair["deployed"] is not None and pair["deployed"]["error"] is not None
            assert failed == ((label, stack) in STATE_GAPS), (label, stack)


def test_an_unchanged_program_against_its_own_export_is_only_same(proof):
    changed = {(label, stack) for label, stack, pair in cases(proof)
               if pair["deployed"]["ops"] != ["same"] and (label, stack) not in STATE_GAPS}
    assert changed == set(NOT_ONLY_SAME)
    assert {label for label, _ in changed} >= {"fixtures/raw_aml"}  # the samples, the platform repo: only same
    assert not {label for label, _ in changed} & {"samples", "examples/platform-repo", "rule-examples"}


def test_what_only_the_deployed_state_knows_is_unknown_in_preview_never_a_pass(proof):
    wrong = []
    for label, stack, pair in cases(proof):
        preview = {(p, r): o for p, r, o in pair["preview"]["findings"]}
        unknown_policies = {p for (p, _), o in preview.items() if o == "unknown"}
        for policy, resource, outcome in pair["deployed"]["findings"]:
            if (policy, resource) not in preview and policy not in unknown_policies:
                wrong.append((label, stack, policy, resource, outcome))
    assert wrong == []


def test_nothing_preview_reports_is_contradicted_by_the_deployed_state(proof):
    wrong = []
    for label, stack, pair in cases(proof):
        deployed = {(p, r, o) for p, r, o in pair["deployed"]["findings"]}
        wrong += [(label, stack, p, r, o) for p, r, o in pair["preview"]["findings"]
                  if o != "unknown" and (p, r, o) not in deployed]
    assert wrong == []
