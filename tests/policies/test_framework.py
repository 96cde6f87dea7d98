from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amlkit.policies import framework
from amlkit.policies.framework import (
    REVIEW_DATE_ENV,
    Finding,
    Rule,
    Waiver,
    WaiverContractError,
    WaiverError,
    apply_waivers,
    as_written,
    describe_waived,
    must,
    parse_waived,
    parse_waivers,
    review_date,
    urn_name,
)

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


WAIVER_CASES = [
    ("by-name", Waiver("gpu", "nightly batch"), True),
    ("by-urn", Waiver(URN, "nightly batch"), True),
    ("by-glob", Waiver("gpu*", "nightly batch"), True),
    ("other-name", Waiver("cpu", "nightly batch"), False),
]


@pytest.mark.parametrize(("waiver", "expected"), [c[1:] for c in WAIVER_CASES], ids=[c[0] for c in WAIVER_CASES])
def test_waiver_matches(waiver, expected):
    assert waiver.matches(urn_name(URN), URN) is expected


def test_live_waiver_moves_finding_to_waived():
    finding = Finding("X must be Y.")
    active, waived = apply_waivers([finding], [Waiver("gpu", "nightly batch", date(2026, 11, 22))], URN, TODAY)
    assert active == []
    assert [w.describe() for w in waived] == ["waived on gpu: nightly batch (expires 2026-11-22)"]


def test_expired_waiver_keeps_finding_and_says_so():
    finding = Finding("X must be Y.")
    active, waived = apply_waivers([finding], [Waiver("gpu", "nightly batch", date(2026, 11, 21))], URN, TODAY)
    assert waived == []
    assert active == [Finding("X must be Y. (waiver expired on 2026-11-21: nightly batch)")]


def test_stack_finding_uses_its_own_urn():
    other = URN.replace("::gpu", "::cpu")
    active, waived = apply_waivers(
        [Finding("A.", urn=URN), Finding("B.", urn=other)], [Waiver("cpu", "why")], "", TODAY
    )
    assert active == [Finding("A.", urn=URN)]
    assert [w.urn for w in waived] == [other]


def test_parse_waived_round_trip():
    _, waived = apply_waivers([Finding("X must be Y.")], [Waiver("gpu", "because")], URN, TODAY)
    text = describe_waived(waived)
    assert text == ("waived on gpu: because (expires never)\n"
                    'amlkit-waivers/v1 {"version":1,"waived":[{"urn":"' + URN + '","reason":"because",'
                    '"expires":null,"message":"X must be Y."}]}')
    assert parse_waived(text) == [{"urn": URN, "reason": "because", "expires": None, "message": "X must be Y."}]


HARD_REASONS = [
    ("pipes-as-the-old-separator", "T4 quota | see NET-42 | expires never | trust me"),
    ("quotes", 'the "GPU" team\'s \\ request'),
    ("newlines", "line one\nline two\r\nline three\n"),
    ("unicode", "Kühlung ⚡ 配额 \u2028 \U0001f600"),
    ("looks-like-the-contract", 'x\namlkit-waivers/v1 {"version":1,"waived":[]}'),
    ("surrounding-spaces", "  kept as written  "),
]


@pytest.mark.parametrize("reason", [c[1] for c in HARD_REASONS], ids=[c[0] for c in HARD_REASONS])
def test_any_reason_round_trips_exactly(reason):
    waiver = Waiver("gpu", reason, date(2026, 12, 31))
    _, waived = apply_waivers([Finding("X must be Y.\nsecond | line")], [waiver], URN, TODAY)
    assert parse_waived(_over_the_wire(describe_waived(waived))) == [
        {"urn": URN, "reason": reason, "expires": "2026-12-31", "message": "X must be Y.\nsecond | line"}]


def _over_the_wire(reason: str) -> str:
    """As the pack sends it: a protobuf string in an AnalyzeResponse, serialized and parsed back."""
    from pulumi.runtime.proto import analyzer_pb2

    sent = analyzer_pb2.AnalyzeResponse(not_applicable=[analyzer_pb2.PolicyNotApplicable(
        policy_name="p", reason=reason)])
    return analyzer_pb2.AnalyzeResponse.FromString(sent.SerializeToString()).not_applicable[0].reason


@settings(max_examples=200, deadline=None)
@given(reasons=st.lists(st.text(min_size=1), min_size=1, max_size=3), message=st.text(),
       expires=st.one_of(st.none(), st.dates()))
def test_waived_findings_round_trip(reasons, message, expires):
    waivers = [Waiver(f"gpu-{i}", reason, expires) for i, reason in enumerate(reasons)]
    findings = [Finding(message, URN.replace("::gpu", f"::gpu-{i}")) for i in range(len(reasons))]
    _, waived = apply_waivers(findings, waivers, "", date.min)
    assert parse_waived(_over_the_wire(describe_waived(waived))) == [
        {"urn": w.urn, "reason": w.waiver.reason, "expires": expires.isoformat() if expires else None,
         "message": message} for w in waived]


def test_parse_waived_ignores_other_reasons():
    assert parse_waived("Policy does not implement validate") == []
    assert parse_waived("waived: urn | old text format | expires never | X.") == []


UNREADABLE = [
    ("other-version", 'amlkit-waivers/v2 {"version":2,"waived":[]}',
     "waived findings in format 'amlkit-waivers/v2'; this amlkit reads amlkit-waivers/v1 (use the same amlkit "
     "version for the pack and the review)"),
    ("not-json", "amlkit-waivers/v1 {oops", "unreadable waived findings (Expecting property name enclosed in "
     "double quotes: line 1 column 2 (char 1)): amlkit-waivers/v1 {oops"),
    ("missing-key", 'amlkit-waivers/v1 {"version":1,"waived":[{"urn":"u"}]}', "unreadable waived findings "
     "(expected an object with urn, reason, expires, message): amlkit-waivers/v1 "
     '{"version":1,"waived":[{"urn":"u"}]}'),
]


@pytest.mark.parametrize(("text", "message"), [c[1:] for c in UNREADABLE], ids=[c[0] for c in UNREADABLE])
def test_an_unreadable_contract_line_fails_closed(text, message):
    with pytest.raises(WaiverContractError) as error:
        parse_waived(text)
    assert str(error.value) == message


BAD_WAIVERS = [
    ("not-a-list", {"resource": "x"}, "p.waivers: expected a list of waivers, got dict"),
    ("entry-not-object", ["x"], "p.waivers[0]: expected an object with resource, reason and optional expires"),
    ("no-reason", [{"resource": "x"}], "p.waivers[0].reason: required, a non-empty string"),
    ("blank-reason", [{"resource": "x", "reason": "  "}], "p.waivers[0].reason: required, a non-empty string"),
    ("no-resource", [{"reason": "r"}], "p.waivers[0].resource: required, a non-empty string"),
    ("bad-date", [{"resource": "x", "reason": "r", "expires": "soon"}],
     "p.waivers[0].expires: 'soon' is not a date (YYYY-MM-DD)"),
    ("unknown-key", [{"resource": "x", "reason": "r", "owner": "me"}],
     "p.waivers[0].owner: unknown key; allowed: resource, reason, expires"),
    ("misspelt-key", [{"resource": "x", "reason": "r", "expiry": "2027-01-01"}],
     "p.waivers[0].expiry: unknown key (did you mean 'expires'?); allowed: resource, reason, expires"),
    ("impossible-date", [{"resource": "x", "reason": "r", "expires": "2027-02-30"}],
     "p.waivers[0].expires: '2027-02-30' is not a date (YYYY-MM-DD)"),
]


@pytest.mark.parametrize(("raw", "message"), [c[1:] for c in BAD_WAIVERS], ids=[c[0] for c in BAD_WAIVERS])
def test_malformed_waivers_fail(raw, message):
    with pytest.raises(WaiverError) as error:
        parse_waivers("p", raw)
    assert str(error.value) == message


def test_parse_waivers_accepts_valid_entries_and_keeps_the_reason_as_written():
    assert parse_waivers("p", [{"resource": "x", "reason": " r ", "expires": "2027-01-31"}]) == [
        Waiver("x", " r ", date(2027, 1, 31))
    ]


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
