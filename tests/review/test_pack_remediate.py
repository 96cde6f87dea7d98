"""amlkit.review.pack.remediate without a pack process: which properties a remediation changed, as reports show
them (secrets never, unknowns as [unknown]), in the order made and the records' order."""

from __future__ import annotations

import pytest

from amlkit.review.model import Remediation, StackReview
from amlkit.review.pack.config import PolicyConfig
from amlkit.review.pack.diagnostics import Analysis
from amlkit.review.pack.remediate import Remediated, add_remediations, changes, remediates
from amlkit.review.secrets import SECRET_SIG, SECRET_SIG_KEY, UNKNOWN, Secrets

SECRET = {SECRET_SIG_KEY: SECRET_SIG, "value": "hunter2"}
ABSENT = changes({}, {"a": 1})[0][1]  # the marker of a side without the key


@pytest.mark.parametrize(("before", "after", "expected"), [
    ({"a": 2.0}, {"a": 0.0}, [("a", 2.0, 0.0)]),
    ({"a": {"b": 1.0, "c": "x"}}, {"a": {"b": 1.0, "c": "y"}}, [("a.c", "x", "y")]),
    ({}, {"tags": {"k": "v"}}, [("tags.k", ABSENT, {"k": "v"}["k"])]),
    ({"a": False}, {"a": 0}, [("a", False, 0)]),  # a boolean is never a number
    ({"a": 1.0}, {"a": 1}, []),  # the wire carries floats: 1 is 1.0
    ({"p": SECRET}, {"p": {**SECRET, "value": "other"}}, [("p", SECRET, {**SECRET, "value": "other"})]),
    ({"a": 1.0, "b": "same"}, {"a": 1.0, "b": "same"}, []),
], ids=["number", "nested", "added-map", "bool-vs-number", "float-int", "secret-is-a-leaf", "unchanged"])
def test_changes(before, after, expected):
    assert changes(before, after) == expected


def _analysis(*remediated: Remediated, levels: dict[str, str] | None = None) -> Analysis:
    config = {name: PolicyConfig(level) for name, level in (levels or {"p": "remediate"}).items()}
    return Analysis("pack", "1.0.0", [], config, remediations=list(remediated))


def test_remediates_only_with_a_policy_at_level_remediate():
    assert remediates(_analysis(levels={"a": "mandatory", "b": "remediate"}))
    assert not remediates(_analysis(levels={"a": "mandatory", "b": "advisory", "c": "disabled"}))


def test_each_changed_property_in_the_records_order_then_the_order_made_values_as_reports_show_them():
    records = [{"urn": "u:a", "type": "t:A", "name": "a"}, {"urn": "u:b", "type": "t:B", "name": "b"}]
    made = _analysis(
        Remediated("second", "u:b", {"x": 1.0}, {"x": 0.0}),
        Remediated("first", "u:a", {"s": SECRET, "n": None}, {"s": {**SECRET, "value": "new"}, "n": "hunter2"}),
        Remediated("third", "u:b", {"x": 0.0, "u": UNKNOWN}, {"x": 0.0, "u": "set", "m": {"k": [SECRET]}}),
    )
    result = StackReview("dev", "p", "dev", "Pulumi.dev.yaml")
    result = add_remediations(result, made, records, Secrets(["hunter2"]))
    assert result.remediations == (
        Remediation("first", "u:a", "t:A", "a", "n", None, "[secret]", pack="pack"),  # a known secret, scrubbed
        Remediation("first", "u:a", "t:A", "a", "s", "[secret]", "[secret]", pack="pack"),
        Remediation("second", "u:b", "t:B", "b", "x", 1, 0, pack="pack"),
        Remediation("third", "u:b", "t:B", "b", "m.k", None, "[secret]", pack="pack"),
        Remediation("third", "u:b", "t:B", "b", "u", "[unknown]", "set", pack="pack"),
    )
    assert [r.text() for r in result.remediations[2:]] == ["x: 1 -> 0", "m.k: none -> [secret]",
                                                           "u: [unknown] -> set"]
