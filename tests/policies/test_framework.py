from datetime import date

import pytest

from amlkit.policies.framework import (
    Finding,
    Rule,
    Waiver,
    WaiverError,
    apply_waivers,
    must,
    parse_waived,
    parse_waivers,
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
    assert [w.describe() for w in waived] == [f"waived: {URN} | nightly batch | expires 2026-11-22 | X must be Y."]


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
    text = "\n".join(w.describe() for w in waived)
    assert parse_waived(text) == [
        {"urn": URN, "reason": "because", "expires": "never", "message": "X must be Y."}
    ]


def test_parse_waived_ignores_other_reasons():
    assert parse_waived("Policy does not implement validate") == []


BAD_WAIVERS = [
    ("not-a-list", {"resource": "x"}, "p.waivers: expected a list of waivers, got dict"),
    ("entry-not-object", ["x"], "p.waivers[0]: expected an object with resource, reason and optional expires"),
    ("no-reason", [{"resource": "x"}], "p.waivers[0].reason: required, a non-empty string"),
    ("blank-reason", [{"resource": "x", "reason": "  "}], "p.waivers[0].reason: required, a non-empty string"),
    ("no-resource", [{"reason": "r"}], "p.waivers[0].resource: required, a non-empty string"),
    ("bad-date", [{"resource": "x", "reason": "r", "expires": "soon"}],
     "p.waivers[0].expires: 'soon' is not a date (YYYY-MM-DD)"),
    ("unknown-key", [{"resource": "x", "reason": "r", "owner": "me"}],
     "p.waivers[0]: unknown key(s) owner; allowed: resource, reason, expires"),
]


@pytest.mark.parametrize(("raw", "message"), [c[1:] for c in BAD_WAIVERS], ids=[c[0] for c in BAD_WAIVERS])
def test_malformed_waivers_fail(raw, message):
    with pytest.raises(WaiverError) as error:
        parse_waivers("p", raw)
    assert str(error.value) == message


def test_parse_waivers_accepts_valid_entries():
    assert parse_waivers("p", [{"resource": "x", "reason": " r ", "expires": "2027-01-31"}]) == [
        Waiver("x", "r", date(2027, 1, 31))
    ]


def _rule(**config):
    return Rule(
        name="r", description="d", severity="low", level="advisory", tags=("cost",), url="u",
        remediation="m", check=lambda resource, cfg: [Finding(repr(sorted(cfg.items())))], config=config,
    )


def test_effective_config_applies_defaults_and_wire_integers():
    rule = _rule(maxNodes={"type": "integer", "default": 100}, modes={"type": "array", "default": ["A"]})
    assert rule.effective_config({"maxNodes": 10.0}) == {"maxNodes": 10, "modes": ["A"]}
    assert rule.effective_config(None) == {"maxNodes": 100, "modes": ["A"]}
