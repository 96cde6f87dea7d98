"""amlkit.policies.secret_reads: a finding a rule builds after reading a secret input says [secret]."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from amlkit.policies.framework import Finding, cannot_tell, must
from amlkit.policies.secret_reads import Taint, redacted, tracked

PROPS = {"name": "c3", "scale": {"min": 3, "max": 4}, "sizes": ["a", "b"], "creds": {"user": "u", "pw": "p"}}
SECRETS = frozenset({("scale", "min"), ("sizes", 1), ("creds",)})


def _reads(read: Any) -> bool:
    taint = Taint()
    read(tracked(PROPS, SECRETS, taint))
    return taint.read


READS = [
    ("plain-value", lambda p: p["name"], False),
    ("parent-of-a-secret", lambda p: p["scale"]["max"], False),
    ("secret-value", lambda p: p["scale"]["min"], True),
    ("secret-via-get", lambda p: p["scale"].get("min"), True),
    ("secret-list-item", lambda p: p["sizes"][1], True),
    ("secret-list-item-negative", lambda p: p["sizes"][-1], True),
    ("other-list-item", lambda p: p["sizes"][0], False),
    ("iterating-values", lambda p: list(p["scale"].values()), True),
    ("below-a-secret-mapping", lambda p: p["creds"]["user"], True),
    ("key-present-is-no-read", lambda p: "min" in p["scale"], False),
    ("slice", lambda p: p["sizes"][0:2], True),
]


@pytest.mark.parametrize(("read", "tainted"), [r[1:] for r in READS], ids=[r[0] for r in READS])
def test_a_read_at_or_below_a_secret_path_taints(read, tainted) -> None:
    assert _reads(read) is tainted


def test_tracked_views_read_as_the_props_do() -> None:
    view = tracked(PROPS, SECRETS, Taint())
    assert isinstance(view, Mapping) and dict(view["scale"]) == {"min": 3, "max": 4}
    assert list(view["sizes"]) == ["a", "b"] and len(view) == 4
    assert tracked(PROPS, frozenset(), Taint()) is PROPS  # nothing secret: the props themselves


def test_findings_after_the_first_secret_read_are_redacted() -> None:
    taint = Taint()
    view = tracked(PROPS, SECRETS, taint)

    def check() -> Iterator[Finding]:
        yield Finding(must(f"Cluster {view['name']}", "have a name", "none"))
        minimum = view["scale"]["min"]
        yield Finding(must(f"Cluster {view['name']}", "scale to 0", f"{minimum} ({minimum * 60} seconds)"))
        yield Finding(must(f"Cluster {view['name']}", "set max", "none"))  # after a secret read: redacted too

    assert [f.message for f in taint.findings(check())] == [
        "Cluster c3 must have a name; found none.",
        "Cluster c3 must scale to 0; found [secret].",
        "Cluster c3 must set max; found [secret].",
    ]


REDACTED = [
    ("found", Finding(must("Cluster c3", "scale to 0", "3 (180 seconds)"), "urn"),
     Finding("Cluster c3 must scale to 0; found [secret].", "urn")),
    ("cannot-tell", cannot_tell("Cluster c3", "use a known size", "size 'M3' is not in the catalogue"),
     Finding("Cluster c3 must use a known size; cannot tell: [secret].", None, unknown=True)),
    ("free-form", Finding("Cluster c3 must fit: 3 nodes over quota"),
     Finding("Cluster c3 must be reviewed: its finding is built from a secret value ([secret]).")),
    ("no-template", Finding("3 nodes over quota"), Finding("a finding built from a secret value ([secret]).")),
]


@pytest.mark.parametrize(("finding", "expected"), [r[1:] for r in REDACTED], ids=[r[0] for r in REDACTED])
def test_redacted_keeps_subject_and_expectation_only(finding, expected) -> None:
    assert redacted(finding) == expected


def _resource(urn: str, properties: dict[str, Any]) -> Any:
    from pulumi.runtime.proto import analyzer_pb2

    from amlkit.review.pack import wire

    return analyzer_pb2.AnalyzerResource(urn=urn, properties=wire.to_struct(properties))


def test_the_secret_paths_of_a_request_are_kept_only_for_resources_with_secrets_the_last_of_a_urn_counting() -> None:
    from amlkit.policies.secret_reads import _paths
    from amlkit.review.secrets import SECRET_SIG, SECRET_SIG_KEY

    secret = {SECRET_SIG_KEY: SECRET_SIG, "value": "hunter2"}
    resources = [
        _resource("a", {"key": secret, "plain": 1}),
        _resource("b", {"plain": "x", "list": [1, 2]}),  # no secret: nothing kept
        _resource("c", {"nested": {"list": ["x", secret]}, "creds": secret}),
        _resource("d", {"pw": secret}),
        _resource("d", {"pw": "now plain"}),  # the same URN again: the last one's paths (none), as {urn: ...} kept
        _resource("e", {"plain": 1}),
        _resource("e", {"token": secret}),
    ]
    assert _paths(resources) == {"a": frozenset({("key",)}), "c": frozenset({("nested", "list", 1), ("creds",)}),
                                 "e": frozenset({("token",)})}
