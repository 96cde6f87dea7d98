"""amlkit.policies.proxies: pulumi-policy's unknown-checking proxies made on first read read as the eager ones."""

import copy

import pytest
from pulumi_policy.deserialize import serialize_properties
from pulumi_policy.proxy import (
    UNKNOWN_BOOLEAN_VALUE,
    UNKNOWN_NUMBER_VALUE,
    UNKNOWN_OBJECT_VALUE,
    UNKNOWN_STRING_VALUE,
    UnknownValueError,
    unknown_checking_proxy,
)

from amlkit.policies.proxies import lazy_proxy

PROPERTIES = {
    "name": "cpu", "tags": {"owner": "ml"}, "unknownName": UNKNOWN_STRING_VALUE,
    "properties": {"scale": {"min": 0, "max": UNKNOWN_NUMBER_VALUE}, "subnets": [{"id": "a"}, UNKNOWN_OBJECT_VALUE],
                   "zones": ["1", "2"], "nested": [[{"deep": UNKNOWN_BOOLEAN_VALUE}]]},
}

READS = [
    pytest.param(lambda p: p["name"], id="leaf"),
    pytest.param(lambda p: p["unknownName"], id="unknown-leaf"),
    pytest.param(lambda p: p["missing"], id="missing-key"),
    pytest.param(lambda p: p.get("missing", "default"), id="get-default"),
    pytest.param(lambda p: dict(p["tags"]), id="dict-of-a-proxy"),
    pytest.param(lambda p: p["properties"]["scale"]["max"], id="unknown-nested"),
    pytest.param(lambda p: p["properties"]["subnets"][-1], id="unknown-by-negative-index"),
    pytest.param(lambda p: [dict(s) for s in p["properties"]["subnets"][:1]], id="slice"),
    pytest.param(lambda p: list(p["properties"]["subnets"]), id="iterate-to-an-unknown"),
    pytest.param(lambda p: p["properties"]["subnets"][5], id="index-error"),
    pytest.param(lambda p: p["properties"]["nested"][0][0]["deep"], id="unknown-deep-in-lists"),
    pytest.param(lambda p: "zones" in p["properties"] and list(p["properties"]["zones"]), id="contains-and-list"),
    pytest.param(lambda p: sorted(p), id="keys"),
    pytest.param(lambda p: len(p["properties"]["zones"]), id="len"),
    pytest.param(lambda p: p == {**PROPERTIES, "unknownName": "x"}, id="equality-reads-an-unknown"),
    pytest.param(lambda p: (p.__setitem__("tags", {"set": "by a policy"}), dict(p["tags"]))[1], id="set-then-read"),
    pytest.param(lambda p: serialize_properties(p), id="pulumi-policy-serializer"),
]


def _outcome(read, proxy):
    try:
        return "value", read(proxy)
    except UnknownValueError as error:
        return "unknown", error.message
    except (KeyError, IndexError) as error:
        return type(error).__name__, str(error)


@pytest.mark.parametrize("read", READS)
def test_a_lazy_proxy_reads_as_pulumi_policys_eager_one(read):
    """Same value, same UnknownValueError (and path) or lookup error, whatever the access; nothing shared."""
    source = copy.deepcopy(PROPERTIES)
    assert _outcome(read, lazy_proxy(source)) == _outcome(read, unknown_checking_proxy(copy.deepcopy(PROPERTIES)))
    assert source == PROPERTIES  # the converted request (shared by every policy) is never changed
