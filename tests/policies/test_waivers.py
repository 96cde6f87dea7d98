"""amlkit.policies.waivers: what a waiver names (a resource, its stack entry, its component), which findings it
covers, its expiry and the not-applicable contract that carries waived findings to the offline review."""

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amlkit.policies.framework import Finding, urn_name
from amlkit.policies.waivers import (
    HOW_TO_WAIVE,
    Subject,
    Waiver,
    WaiverContractError,
    WaiverError,
    apply_waivers,
    describe_waived,
    parse_waived,
    parse_waivers,
    warn_days,
)

URN = "urn:pulumi:prod::amlkit::amlkit:index:ComputeCluster$azure-native:machinelearningservices:Compute::gpu"
TODAY = date(2026, 11, 22)


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
    active, waived = apply_waivers([finding], [Waiver("gpu", "nightly batch", date(2026, 11, 22))], Subject, URN, TODAY)
    assert active == []
    assert [w.describe() for w in waived] == ["waived on gpu: nightly batch (expires 2026-11-22, in 0 day(s))"]


def test_expired_waiver_keeps_finding_and_says_so():
    finding = Finding("X must be Y.")
    active, waived = apply_waivers([finding], [Waiver("gpu", "nightly batch", date(2026, 11, 21))], Subject, URN, TODAY)
    assert waived == []
    assert active == [Finding("X must be Y. (waiver expired on 2026-11-21: nightly batch)")]


def test_stack_finding_uses_its_own_urn():
    other = URN.replace("::gpu", "::cpu")
    active, waived = apply_waivers(
        [Finding("A.", urn=URN), Finding("B.", urn=other)], [Waiver("cpu", "why")], Subject, "", TODAY
    )
    assert active == [Finding("A.", urn=URN)]
    assert [w.urn for w in waived] == [other]


def test_parse_waived_round_trip():
    _, waived = apply_waivers([Finding("X must be Y.")], [Waiver("gpu", "because")], Subject, URN, TODAY)
    text = describe_waived(waived)
    assert text == ("waived on gpu: because (expires never)\n"
                    'amlkit-waivers/v2 {"version":2,"waived":[{"urn":"' + URN + '","reason":"because",'
                    '"expires":null,"message":"X must be Y.","waiver":"gpu","via":"resource"}]}')
    assert parse_waived(text) == [{"urn": URN, "reason": "because", "expires": None, "message": "X must be Y.",
                                   "waiver": "gpu", "via": "resource"}]


HARD_REASONS = [
    ("pipes-as-the-old-separator", "T4 quota | see NET-42 | expires never | trust me"),
    ("quotes", 'the "GPU" team\'s \\ request'),
    ("newlines", "line one\nline two\r\nline three\n"),
    ("unicode", "Kühlung ⚡ 配额 \u2028 \U0001f600"),
    ("looks-like-the-contract", 'x\namlkit-waivers/v2 {"version":2,"waived":[]}'),
    ("surrounding-spaces", "  kept as written  "),
]


@pytest.mark.parametrize("reason", [c[1] for c in HARD_REASONS], ids=[c[0] for c in HARD_REASONS])
def test_any_reason_round_trips_exactly(reason):
    waiver = Waiver("gpu", reason, date(2026, 12, 31))
    _, waived = apply_waivers([Finding("X must be Y.\nsecond | line")], [waiver], Subject, URN, TODAY)
    assert parse_waived(_over_the_wire(describe_waived(waived))) == [
        {"urn": URN, "reason": reason, "expires": "2026-12-31", "message": "X must be Y.\nsecond | line",
         "waiver": "gpu", "via": "resource"}]


def _over_the_wire(reason: str) -> str:
    """As the pack sends it: a protobuf string in an AnalyzeResponse, serialized and parsed back."""
    from pulumi.runtime.proto import analyzer_pb2

    sent = analyzer_pb2.AnalyzeResponse(not_applicable=[analyzer_pb2.PolicyNotApplicable(
        policy_name="p", reason=reason)])
    return analyzer_pb2.AnalyzeResponse.FromString(sent.SerializeToString()).not_applicable[0].reason


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(reasons=st.lists(st.text(min_size=1), min_size=1, max_size=3), message=st.text(),
       expires=st.one_of(st.none(), st.dates()))
def test_waived_findings_round_trip(reasons, message, expires):
    waivers = [Waiver(f"gpu-{i}", reason, expires) for i, reason in enumerate(reasons)]
    findings = [Finding(message, URN.replace("::gpu", f"::gpu-{i}")) for i in range(len(reasons))]
    _, waived = apply_waivers(findings, waivers, Subject, "", date.min)
    assert parse_waived(_over_the_wire(describe_waived(waived))) == [
        {"urn": w.urn, "reason": w.waiver.reason, "expires": expires.isoformat() if expires else None,
         "message": message, "waiver": w.waiver.resource, "via": "resource"} for w in waived]


def test_parse_waived_ignores_other_reasons():
    assert parse_waived("Policy does not implement validate") == []
    assert parse_waived("waived: urn | old text format | expires never | X.") == []


UNREADABLE = [
    ("older-version", 'amlkit-waivers/v1 {"version":1,"waived":[]}',
     "waived findings in format 'amlkit-waivers/v1'; this amlkit reads amlkit-waivers/v2 (use the same amlkit "
     "version for the pack and the review)"),
    ("other-version", 'amlkit-waivers/v3 {"version":3,"waived":[]}',
     "waived findings in format 'amlkit-waivers/v3'; this amlkit reads amlkit-waivers/v2 (use the same amlkit "
     "version for the pack and the review)"),
    ("not-json", "amlkit-waivers/v2 {oops", "unreadable waived findings (Expecting property name enclosed in "
     "double quotes: line 1 column 2 (char 1)): amlkit-waivers/v2 {oops"),
    ("missing-key", 'amlkit-waivers/v2 {"version":2,"waived":[{"urn":"u"}]}', "unreadable waived findings "
     "(expected an object with urn, reason, expires, message, waiver, via): amlkit-waivers/v2 "
     '{"version":2,"waived":[{"urn":"u"}]}'),
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


COMPONENT = "urn:pulumi:prod::amlkit::amlkit:index:Environment$amlkit:index:KubernetesCompute::prod-attached-aks-batch"
CHILD = ("urn:pulumi:prod::amlkit::amlkit:index:Environment$amlkit:index:KubernetesCompute$"
         "azure-native:machinelearningservices:Compute::prod-attached-aks-batch-compute")
TOP = "urn:pulumi:prod::amlkit::amlkit:index:Environment::prod"
ROOT = "urn:pulumi:prod::amlkit::pulumi:pulumi:Stack::amlkit-prod"
ATTACHED = Subject(CHILD, ("aks-batch", "mlw-prod"), COMPONENT)
NAMED_BY = [
    ("resource-name", ATTACHED, "prod-attached-aks-batch-compute", "resource"),
    ("resource-urn", ATTACHED, CHILD, "resource"),
    ("resource-glob", ATTACHED, "prod-attached-*-compute", "resource"),
    ("stack-entry", ATTACHED, "aks-batch", "entry"),
    ("workspace-entry", ATTACHED, "mlw-prod", "entry"),
    ("component-name", ATTACHED, "prod-attached-aks-batch", "component"),
    ("component-urn", ATTACHED, COMPONENT, "component"),
    ("another-entry", ATTACHED, "aks-other", None),
    ("the-environment-is-a-grandparent", ATTACHED, "prod", None),
    ("the-stack-never-names-a-component", Subject(TOP, (), ROOT), "amlkit-prod", None),
    ("a-top-level-component", Subject(TOP, (), ROOT), "prod", "resource"),
]


@pytest.mark.parametrize(("subject", "resource", "via"), [c[1:] for c in NAMED_BY], ids=[c[0] for c in NAMED_BY])
def test_a_waiver_names_a_resource_its_stack_entry_or_its_component(subject, resource, via):
    assert subject.named_by(Waiver(resource, "r")) == via


def test_a_component_waiver_covers_its_child_and_says_how():
    finding = Finding("Kubernetes compute 'aks-batch' must use a managed identity.")
    active, waived = apply_waivers([finding], [Waiver("prod-attached-aks-batch", "pilot", date(2026, 12, 31))],
                                   lambda urn: ATTACHED, CHILD, TODAY)
    assert active == []
    assert [(w.urn, w.via, w.soon) for w in waived] == [(CHILD, "component", None)]
    assert describe_waived(waived).splitlines()[0] == (
        "waived on prod-attached-aks-batch-compute (by the waiver for its component prod-attached-aks-batch): pilot "
        "(expires 2026-12-31)")
    assert parse_waived(describe_waived(waived))[0]["via"] == "component"


@pytest.mark.parametrize(("expires", "within", "soon"), [
    pytest.param(date(2026, 12, 6), 14, 14, id="on-the-edge"),
    pytest.param(date(2026, 12, 7), 14, None, id="outside"),
    pytest.param(date(2026, 11, 22), 0, 0, id="last-day-with-0"),
    pytest.param(None, 14, None, id="never-expires"),
])
def test_a_waiver_expiring_within_the_window_is_marked_soon(expires, within, soon):
    _, waived = apply_waivers([Finding("X.")], [Waiver("gpu", "r", expires)], Subject, URN, TODAY, within)
    assert [w.soon for w in waived] == [soon]


@pytest.mark.parametrize(("config", "days"), [
    pytest.param({}, 14, id="default"),
    pytest.param({"waiverExpiryWarningDays": 30.0}, 30, id="float-from-the-wire"),
    pytest.param({"waiverExpiryWarningDays": 0}, 0, id="zero"),
    pytest.param(None, 14, id="no-config"),
])
def test_warn_days_reads_the_knob_as_the_engine_delivers_it(config, days):
    assert warn_days(config) == days


def test_how_to_waive_as_amlkit_rules_prints_it_names_every_way_and_the_knob():
    for words in ("`waivers`", "stack entry", "component", "logical name, URN or glob", "--strict",
                  "`waiverExpiryWarningDays` (default 14)", "docs/waivers.md"):
        assert words in HOW_TO_WAIVE
