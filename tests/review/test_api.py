"""amlkit.review as embedders import it: one import path (`__all__`), names loaded on first use, frozen results."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

import amlkit.review
from amlkit.review import engine, model, options, state_audit
from amlkit.review.plan import diff

API = {
    "review": engine.review, "audit": state_audit.audit, "ReviewOptions": options.ReviewOptions,
    "Review": model.Review, "StackReview": model.StackReview, "Violation": model.Violation,
    "Unknown": model.Unknown, "Lookup": model.Lookup, "ResourceRecord": model.ResourceRecord,
    "PackInfo": model.PackInfo, "PolicyInfo": model.PolicyInfo, "Plan": diff.Plan, "Level": model.Level,
    "ErrorKind": model.ErrorKind, "Remediation": model.Remediation, "Severity": model.Severity,
}


def test_all_is_the_embedding_api() -> None:
    assert sorted(amlkit.review.__all__) == sorted(API)


@pytest.mark.parametrize("name", sorted(API))
def test_each_name_is_its_home_modules(name: str) -> None:
    assert getattr(amlkit.review, name) is API[name]
    assert name in dir(amlkit.review)


def test_audit_is_the_function_once_its_module_loaded() -> None:
    """The function lives in `state_audit`: a submodule named `audit` would replace it as the package's
    attribute the moment anything imported that module."""
    import amlkit.review.state_audit  # noqa: F401 - loaded before the name is asked for
    from amlkit.review import audit

    assert audit is state_audit.audit and callable(audit)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="module 'amlkit.review' has no attribute 'reveiw'"):
        amlkit.review.reveiw  # noqa: B018 - the lookup is the test


def test_importing_the_types_loads_neither_the_engine_nor_grpc() -> None:
    code = ("import sys\nfrom amlkit.review import Review, ReviewOptions, StackReview\n"
            "print(sorted(m for m in ('amlkit.review.engine', 'amlkit.review.state_audit', 'grpc', 'pulumi')"
            " if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout == "[]\n"


@pytest.mark.parametrize(("value", "field"), [
    (model.Review(), "stacks"),
    (model.StackReview("dev", "p", "dev", "Pulumi.dev.yaml"), "error"),
    (model.Violation("p", "mandatory", "high", "urn", "t", "r", "m"), "message"),
    (model.Unknown("p", "urn", "t", "r", "m"), "message"),
    (model.Remediation("p", "urn", "t", "r", "a.b", 2, 0), "after"),
    (model.Lookup("t"), "token"),
    (model.ResourceRecord("urn", "t", "r"), "name"),
    (model.PackInfo("pack", "1", ()), "policies"),
])
def test_results_are_frozen(value: object, field: str) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, field, None)


def test_sequences_given_as_lists_are_kept_as_tuples() -> None:
    violation = model.Violation("p", "mandatory", "high", "urn", "t", "r", "m")
    stack = model.StackReview("dev", "p", "dev", "f", violations=[violation], warnings=["w"])  # type: ignore[arg-type]
    review = model.Review(stacks=[stack])  # type: ignore[arg-type]
    assert (review.stacks, stack.violations, stack.warnings, stack.unknown) == ((stack,), (violation,), ("w",), ())


def test_a_changed_copy_leaves_the_original() -> None:
    stack = model.StackReview("dev", "p", "dev", "f")
    failed = dataclasses.replace(stack, error="stack dev: boom", error_kind="program")
    assert (stack.error, failed.error, model.Review((stack, failed)).exit_code()) == (None, "stack dev: boom", 3)
