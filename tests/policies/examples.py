"""A rule's documented example, declared as `EXAMPLE` in the rule's own test module.

One example per rule: a stack in which the rule fails and the same stack with the rule's expectation
met, both as the policy sees them (wire-form inputs), plus the rule's pack config when it needs one.
Three consumers read it, so adding a rule needs no other file:
- tests/policies/test_pack.py checks that the failing stack fails and the passing one passes;
- tools/docs/rules.py renders it in docs/rules/<rule>.md (inputs, the messages the rule reports today);
- tests/review/test_rule_examples.py runs both stacks through the real engine and the analyzer protocol.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from amlkit.policies.framework import ResourceInput, Rule, StackResource, urn_name
from tests.policies.helpers import COMPUTE_TYPE

EXAMPLE_NAME = "example"
"""The logical name of a resource rule's example resource (the name its messages show)."""


def urn(type_: str, name: str) -> str:
    return f"urn:pulumi:dev::example::{type_}::{name}"


@dataclass(frozen=True)
class Example:
    """`fails` and `passes` are the stacks (for a resource rule, one resource each); `config` is the rule's
    pack config for both; `fails_case` and `passes_case` name the rows of the module's CASES they show."""

    fails: tuple[StackResource, ...]
    passes: tuple[StackResource, ...]
    fails_case: str
    passes_case: str
    config: Mapping[str, Any] | None = None

    @classmethod
    def of_cases(cls, cases: Sequence[tuple], fails: str, passes: str, type_: str = COMPUTE_TYPE) -> Example:
        """From a resource rule's CASES rows `(id, props, [config,] expected)`: the two rows named."""
        rows = {row[0]: row for row in cases}
        failing, passing = rows[fails], rows[passes]
        config = failing[2] if len(failing) == 4 else None
        if config != (passing[2] if len(passing) == 4 else None):
            raise ValueError(f"example rows {fails!r} and {passes!r} must share one pack config")
        return cls((resource(type_, failing[1]),), (resource(type_, passing[1]),), fails, passes, config)

    @classmethod
    def of_stacks(cls, cases: Sequence[tuple], fails: str, passes: str, base: Sequence[StackResource] = (),
                  config: Mapping[str, Any] | None = None) -> Example:
        """From a stack rule's CASES rows `(id, [StackResource...], expected)`, each on top of `base`."""
        rows = {row[0]: row[1] for row in cases}
        return cls((*base, *rows[fails]), (*base, *rows[passes]), fails, passes, config)

    @classmethod
    def of_builders(cls, cases: Sequence[tuple], fails: str, passes: str,
                    config: Mapping[str, Any] | None = None) -> Example:
        """From a stack rule's CASES rows `(id, build)`, `build()` returning `([StackResource...], expected)`."""
        rows = {row[0]: row[1] for row in cases}
        return cls(tuple(rows[fails]()[0]), tuple(rows[passes]()[0]), fails, passes, config)

    def messages(self, rule: Rule, stack: Sequence[StackResource]) -> list[tuple[str, str]]:
        """(resource name, message) of each finding of `rule` on `stack`, as the rule says it today."""
        if rule.is_stack_rule:
            return [(urn_name(finding.urn) if finding.urn else "", finding.message)
                    for finding in rule.evaluate_stack(stack, self.config)]
        return [(item.name, finding.message) for item in stack
                for finding in rule.evaluate(ResourceInput(item.type, item.name, item.urn, item.props), self.config)]


def resource(type_: str, props: Mapping[str, Any], name: str = EXAMPLE_NAME) -> StackResource:
    return StackResource(type_, name, urn(type_, name), props)


def rule_test_path(rule: Rule) -> str:
    return f"tests/policies/test_{rule.name.replace('-', '_')}.py"


def rule_test_module(rule: Rule) -> ModuleType:
    return importlib.import_module(rule_test_path(rule)[:-3].replace("/", "."))


def example_of(rule: Rule) -> Example | None:
    """The `EXAMPLE` its test module declares, or None."""
    example = getattr(rule_test_module(rule), "EXAMPLE", None)
    return example if isinstance(example, Example) else None
