"""A policy config is reconciled once per distinct pack and file (#33), with the result reconcile gives."""

from __future__ import annotations

import pytest

from amlkit.errors import ConfigError
from amlkit.review.pack import reconciled as module
from amlkit.review.pack.config import PolicyConfig, PolicySchema, parse_config, reconcile

MAX_NODES = {"type": "integer", "minimum": 1, "maximum": 100, "default": 10}
POLICIES = [PolicySchema("mandatory-rule", "mandatory", {"maxNodes": MAX_NODES}),
            PolicySchema("advisory-rule", "advisory")]


@pytest.fixture
def calls(monkeypatch):
    monkeypatch.setattr(module, "_CACHE", {})
    seen: list[object] = []

    def counting(*args):
        seen.append(args[2])
        return reconcile(*args)

    monkeypatch.setattr(module, "reconcile", counting)
    return seen


def test_one_file_is_reconciled_once_for_many_stacks(calls):
    given = parse_config({"mandatory-rule": {"maxNodes": 20}}, "f.json")
    results = [module.reconciled(b"pack", POLICIES, {}, given, "f.json") for _ in range(3)]
    assert len(calls) == 1
    assert results[0] == reconcile(POLICIES, {}, given, "f.json")
    assert results[0]["mandatory-rule"] == PolicyConfig("mandatory", {"maxNodes": 20})
    results[0]["mandatory-rule"].properties["maxNodes"] = 99  # a caller's change reaches no other stack
    assert results[1]["mandatory-rule"].properties == {"maxNodes": 20}
    assert module.reconciled(b"pack", POLICIES, {}, given, "f.json") == results[1]


def test_each_distinct_file_pack_or_name_is_reconciled(calls):
    first = parse_config({"mandatory-rule": {"maxNodes": 20}}, "f.json")
    second = parse_config({"mandatory-rule": {"maxNodes": 30}}, "g.json")
    module.reconciled(b"pack", POLICIES, {}, first, "f.json")
    module.reconciled(b"pack", POLICIES, {}, second, "g.json")
    module.reconciled(b"other", POLICIES, {}, first, "f.json")
    module.reconciled(b"pack", POLICIES, {}, first, "h.json")
    module.reconciled(b"pack", POLICIES, {}, None, None)
    assert calls == [first, second, first, first, None]


def test_a_config_that_fails_fails_for_every_stack(calls):
    bad = parse_config({"mandatory-rule": {"maxNodes": 500}}, "f.json")
    for _ in range(2):
        with pytest.raises(ConfigError, match="maxNodes"):
            module.reconciled(b"pack", POLICIES, {}, bad, "f.json")
    assert len(calls) == 2
