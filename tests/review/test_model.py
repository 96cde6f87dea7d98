import dataclasses

import pytest

from amlkit.review.model import Review, StackReview, Unknown, Violation


def _violation(level: str) -> Violation:
    return Violation("p", level, "high", "urn:x", "t", "r", "m")


def _stack(*levels: str, unknown: bool = False) -> StackReview:
    unknowns = (Unknown("p", "urn:x", "t", "r", "can't be known during preview"),) if unknown else ()
    return StackReview("dev", "proj", "dev", "Pulumi.dev.yaml", violations=tuple(_violation(lv) for lv in levels),
                       unknown=unknowns)


@pytest.mark.parametrize(("stack", "outcome", "code"), [
    (_stack(), "passed", 0),
    (_stack("waived"), "passed", 0),
    (_stack("advisory"), "warnings", 0),
    (_stack(unknown=True), "warnings", 0),
    (_stack("advisory", "mandatory"), "mandatory", 1),
], ids=["clean", "waived-only", "advisory", "unknown", "mandatory"])
def test_outcome_and_exit_code(stack, outcome, code):
    assert stack.outcome == outcome
    assert Review([stack]).exit_code() == code


def test_a_failed_stack_exits_3_whatever_its_counts():
    stack = dataclasses.replace(_stack("mandatory"), error="the program failed")
    assert Review([stack, _stack()]).exit_code() == 3
