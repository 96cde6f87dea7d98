"""End to end, derived from the rules' metadata: every rule's EXAMPLE (declared in its test module, see
tests/policies/examples.py) runs through a real program, the review engine and the analyzer protocol.

Nothing here names a rule: a new rule is covered once its test module declares its EXAMPLE. The fixture
program `tests/fixtures/rule_examples` declares raw resources from JSON stack config. The resource rules'
examples share one stack (`resources`; each example's resources renamed `<ref>-fails` / `<ref>-passes`,
since a resource rule sees one resource at a time); a stack rule sees the whole stack, so each of its
examples gets its own stack (`<ref>-fails`, `<ref>-passes`). Each rule's pack config is its example's.
When only some rules' tests run (`make test-rule RULE=...`), only those rules' examples are declared and reviewed:
a rule's findings are read on its own resources only, so the other rules' examples change nothing it is tested on.

The expected findings are the rule's own output on the same inputs, evaluated in-process: what this test
adds to the unit tests is that the engine delivers those inputs (wire types, property dependencies) and
reports each finding with the rule's name, level and resource. Every stack is reviewed against a state of the
program as deployed: stack rules get outputs (AnalyzeStack), and a first preview leaves unknown every output a
resource being created was not given (its `kind`, `location`, ids); what a first preview decides is
tests/review/test_preview_knowledge.py's.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from amlkit.policies import ALL_RULES
from amlkit.policies.framework import Rule, StackResource
from amlkit.review.engine import review
from amlkit.review.options import ReviewOptions
from tests.policies.examples import Example, example_of
from tests.review.helpers import FIXTURES
from tests.review.statefiles import deployed_state

pytestmark = pytest.mark.slow

RESOURCE_RULES = [rule for rule in ALL_RULES if not rule.is_stack_rule]
STACK_RULES = [rule for rule in ALL_RULES if rule.is_stack_rule]
SHARED = "resources"


def slug(rule: Rule) -> str:
    return rule.ref.lower()


def renamed(example: Example, rule: Rule) -> Example:
    """A resource rule's example with its resources named after the rule's ref, to share one stack."""
    fails = tuple(replace(item, name=f"{slug(rule)}-fails", urn=f"{item.urn}-fails") for item in example.fails)
    passes = tuple(replace(item, name=f"{slug(rule)}-passes", urn=f"{item.urn}-passes") for item in example.passes)
    return replace(example, fails=fails, passes=passes)


def declared(stack: tuple[StackResource, ...]) -> list[dict]:
    """The fixture program's JSON for a stack: dependencies by the name of the resource they come from."""
    names = {item.urn: item.name for item in stack}
    return [{"type": item.type, "name": item.name, "props": item.props,
             "deps": {key: [names[urn] for urn in urns] for key, urns in item.property_dependencies.items()}}
            for item in stack]


def examples(rules: list[Rule] = ALL_RULES) -> dict[str, Example]:
    return {rule.name: example_of(rule) for rule in rules}


def stacks(found: dict[str, Example]) -> dict[str, tuple[list[dict], dict]]:
    """Stack name -> (the resources it declares, its policy config); the shared stack if a resource rule's
    example is among `found`."""
    shared: list[dict] = []
    config: dict = {}
    for rule in RESOURCE_RULES:
        if rule.name not in found:
            continue
        example = renamed(found[rule.name], rule)
        shared += declared(example.fails) + declared(example.passes)
        config.update({rule.name: dict(example.config)} if example.config else {})
    result = {SHARED: (shared, config)} if shared else {}
    for rule in STACK_RULES:
        if rule.name not in found:
            continue
        example = found[rule.name]
        own = {rule.name: dict(example.config)} if example.config else {}
        result[f"{slug(rule)}-fails"] = (declared(example.fails), own)
        result[f"{slug(rule)}-passes"] = (declared(example.passes), own)
    return result


def selected_rules(items: list[pytest.Item]) -> list[Rule]:
    """The rules whose tests of this module run: all of them unless every test of this module that runs is one
    rule's (`make test-rule`, `-k`)."""
    mine = [item for item in items if item.path == Path(__file__)]
    chosen = [getattr(getattr(item, "callspec", None), "params", {}).get("rule") for item in mine]
    if not mine or None in chosen:
        return ALL_RULES
    names = {rule.name for rule in chosen}
    return [rule for rule in ALL_RULES if rule.name in names]


@pytest.fixture(scope="module")
def result(tmp_path_factory, request):
    project = tmp_path_factory.mktemp("rule-examples")
    shutil.copytree(FIXTURES / "rule_examples", project, dirs_exist_ok=True)
    (project / "policy-config").mkdir()
    declared_stacks = stacks(examples(selected_rules(request.session.items)))
    for name, (resources, config) in declared_stacks.items():
        stack_config = {"config": {"rule-examples:resources": json.dumps(resources)}}
        (project / f"Pulumi.{name}.yaml").write_text(yaml.safe_dump(stack_config))
        (project / "policy-config" / f"{name}.json").write_text(json.dumps(config))
    states = tmp_path_factory.mktemp("states")
    return review(project, None, options=ReviewOptions(
        states=[deployed_state(project, name, states) for name in declared_stacks]))


def by_stack(result) -> dict:
    return {stack.stack: stack for stack in result.stacks}


def findings(stack, rule: Rule, names: set[str]) -> list[tuple[str, str, str]]:
    """The rule's findings on those resources; an unknown of the rule there (or on the stack) fails the test."""
    unknown = [u.message for u in stack.unknown if u.policy == rule.name and (u.resource in names or
                                                                                u.type == "pulumi:pulumi:Stack")]
    assert unknown == [], f"{rule.name} could not decide its own example in stack {stack.stack}"
    return sorted((v.resource, v.message, v.level) for v in stack.violations
                  if v.policy == rule.name and v.resource in names)


def expected(rule: Rule, example: Example, stack: tuple[StackResource, ...]) -> list[tuple[str, str, str]]:
    return sorted((name, message, rule.level) for name, message in example.messages(rule, stack))


def test_every_stack_is_reviewed_without_error(result):
    reviewed = by_stack(result)
    assert sorted(reviewed) == sorted(stacks(examples()))
    for name, stack in reviewed.items():
        assert stack.error is None, name
        assert sorted(p.name for p in stack.pack.policies) == sorted(rule.name for rule in ALL_RULES)


@pytest.mark.parametrize("rule", RESOURCE_RULES, ids=lambda rule: rule.name)
def test_a_resource_rules_example_fails_and_passes_through_the_engine(result, rule):
    example = renamed(example_of(rule), rule)
    stack = by_stack(result)[SHARED]
    want = expected(rule, example, example.fails)
    assert want, f"{rule.name}: its example must fail"
    assert findings(stack, rule, {f"{slug(rule)}-fails"}) == want
    assert findings(stack, rule, {f"{slug(rule)}-passes"}) == []


@pytest.mark.parametrize("rule", STACK_RULES, ids=lambda rule: rule.name)
def test_a_stack_rules_example_fails_and_passes_through_the_engine(result, rule):
    example = example_of(rule)
    reviewed = by_stack(result)
    want = expected(rule, example, example.fails)
    assert want, f"{rule.name}: its example must fail"
    everything = {item.name for item in (*example.fails, *example.passes)}
    assert findings(reviewed[f"{slug(rule)}-fails"], rule, everything) == want
    assert findings(reviewed[f"{slug(rule)}-passes"], rule, everything) == []
