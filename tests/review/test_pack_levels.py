"""amlkit.review.pack.levels: the levels amlkit's pack runs with under its rule baseline, worked out from its
GetAnalyzerInfo answer alone (each policy's level and its `since:` and `level-before:` tags)."""

from __future__ import annotations

import pytest
from pulumi.runtime.proto import analyzer_pb2

from amlkit.errors import ConfigError
from amlkit.review.pack.config import PolicyConfig, PolicySchema
from amlkit.review.pack.levels import at_baseline

POLICIES = [  # name, default level, tags
    ("old-rule", "mandatory", ["cost", "since:0.1.0"]),
    ("new-rule", "mandatory", ["cost", "since:0.3.0"]),
    ("stricter-rule", "mandatory", ["since:0.1.0", "level-before:0.2.0:advisory"]),
    ("untagged", "mandatory", ["cost"]),
]
INFO = [analyzer_pb2.PolicyInfo(name=name, tags=tags) for name, _, tags in POLICIES]
SCHEMAS = [PolicySchema(name, level) for name, level, _ in POLICIES]


def config(baseline: str | None, **levels: str) -> dict[str, PolicyConfig]:
    entries = {name: PolicyConfig(levels.get(name.replace("-", "_"), level), {"x": 1.0}) for name, level, _ in POLICIES}
    if baseline is not None:
        entries["baseline"] = PolicyConfig("advisory", {"version": baseline})
    return entries


def levels(entries: dict[str, PolicyConfig]) -> dict[str, str]:
    return {name: entry.level for name, entry in entries.items() if name != "baseline"}


def expect(new: str, stricter: str) -> dict[str, str]:
    """The levels when only `new-rule` and `stricter-rule` move (the others are mandatory throughout)."""
    return {"old-rule": "mandatory", "new-rule": new, "stricter-rule": stricter, "untagged": "mandatory"}


@pytest.mark.parametrize(("given", "expected"), [
    pytest.param(config(None), expect("mandatory", "mandatory"), id="no baseline: unchanged"),
    pytest.param(config("0.3.0"), expect("mandatory", "mandatory"), id="the current release: unchanged"),
    pytest.param(config("0.1.0"), expect("advisory", "advisory"), id="older: new rules advisory, old default levels"),
    pytest.param(config("0.2.0"), expect("advisory", "mandatory"), id="after the level changed"),
    pytest.param(config("0.1.0", new_rule="disabled", stricter_rule="advisory"), expect("disabled", "advisory"),
                 id="a level the config chose stays"),
    pytest.param(config("0.1.0", new_rule="remediate"), expect("advisory", "advisory"), id="remediate blocks too"),
])
def test_at_baseline(given, expected):
    result = at_baseline(given, INFO, SCHEMAS, "f.json")
    assert levels(result) == expected
    assert all(entry.properties == {"x": 1.0} for name, entry in result.items() if name != "baseline")


@pytest.mark.parametrize(("version", "message"), [
    ("9.9.9", "f.json: baseline.version: 9.9.9 is not a release of this pack; allowed: a release from 0.1.0 to "
              "0.3.0 (the version of this pack)"),
    ("latest", "f.json: baseline.version: 'latest' is not a release; allowed: a release from 0.1.0 to 0.3.0 (the "
               "version of this pack)"),
])
def test_a_baseline_naming_no_release_is_a_config_error(version, message):
    with pytest.raises(ConfigError) as error:
        at_baseline(config(version), INFO, SCHEMAS, "f.json")
    assert str(error.value) == message
