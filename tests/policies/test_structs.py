"""amlkit.policies.structs: a Struct converts to exactly what `json_format.MessageToDict` gives (same keys in the same
order, same values of the same types) or fails with the same error, on a generated state's inputs and outputs as
the pack receives them and on edge cases; anything else goes to MessageToDict itself; off when protobuf's printer
is not the code the shortcut was verified on."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest
from google.protobuf import json_format, struct_pb2
from hypothesis import given, settings
from hypothesis import strategies as st
from pulumi.runtime.proto import analyzer_pb2

from amlkit import patches
from amlkit.policies.structs import message_to_dict, struct_to_dict
from amlkit.review.pack import snapshot, wire
from amlkit.review.plan.stream import StateStream
from amlkit.review.secrets import SECRET_SIG, SECRET_SIG_KEY, UNKNOWN
from tests.benchmods import bench_module, platform_state


def _struct(value: dict[str, Any]) -> struct_pb2.Struct:
    return wire.to_struct(value)


def _same(struct: struct_pb2.Struct) -> None:
    """Both give the same dict (repr: key order and value types too, 1.0 is not True), or the same error."""
    try:
        expected: Any = repr(json_format.MessageToDict(struct))
    except ValueError as error:
        expected = (type(error), str(error))
    try:
        got: Any = repr(struct_to_dict(struct))
    except ValueError as error:
        got = (type(error), str(error))
    assert got == expected


EDGES = {
    "empty": {},
    "empty list and struct": {"a": [], "b": {}, "c": [[], {}, [[]]]},
    "nested": {"properties": {"properties": {"scaleSettings": {"minNodeCount": 0, "maxNodeCount": 4}}}},
    "secret": {"key": {SECRET_SIG_KEY: SECRET_SIG, "value": "hunter2"}, "n": {SECRET_SIG_KEY: SECRET_SIG, "value": 3}},
    "unknown": {"vmSize": UNKNOWN, "list": [UNKNOWN, 1]},
    "numbers": {"int": 3, "float": 2.5, "big": 2**70, "huge": 1e308, "tiny": 5e-324, "negative": -0.0,
                "minus": -12345678901234567890, "precise": 0.1 + 0.2, "int-valued": 4.0},
    "scalars": {"none": None, "true": True, "false": False, "text": "", "unicode": "日本 🙂 \u200b é"},
    "order": {"z": 1, "a": 2, "m": {"y": 1, "b": 2}},
    "mixed list": {"list": [None, True, 1, "x", {"k": [1.5]}, [False]]},
}


@pytest.mark.parametrize("name", sorted(EDGES))
def test_a_struct_converts_as_message_to_dict_converts_it(name):
    _same(_struct(EDGES[name]))
    assert struct_to_dict(_struct(EDGES[name])) == json_format.MessageToDict(_struct(EDGES[name]))


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("where", ["top", "nested", "in a list", "after a good key"])
def test_nan_and_infinity_fail_as_message_to_dict_fails(bad, where):
    value = {"top": {"x": bad}, "nested": {"a": {"b": {"c": bad}}}, "in a list": {"l": [1, [bad]]},
             "after a good key": {"a": 1, "b": bad}}[where]
    with pytest.raises(ValueError, match="Fail to serialize (NaN|Infinity) for Value.number_value"):
        json_format.MessageToDict(_struct(value))
    _same(_struct(value))


def test_an_unset_value_is_none_as_in_message_to_dict():
    struct = struct_pb2.Struct()
    struct.fields["unset"]  # noqa: B018  # a map entry with no kind set
    struct.fields["list"].list_value.values.add()
    assert json_format.MessageToDict(struct) == {"unset": None, "list": [None]}
    _same(struct)


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**80, max_value=2**80), st.floats(),
              st.text(max_size=8), st.sampled_from([UNKNOWN, SECRET_SIG, ""])),
    lambda children: st.one_of(st.lists(children, max_size=4),
                               st.dictionaries(st.text(max_size=6), children, max_size=4)),
    max_leaves=30,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=6), json_values, max_size=5))
def test_any_struct_converts_as_message_to_dict_converts_it(value):
    _same(_struct(value))


def test_a_generated_states_requests_convert_as_message_to_dict_converts_them(tmp_path):
    """Every Struct `amlkit check --state` sends for a generated ML platform state: inputs, outputs, providers."""
    state = platform_state(tmp_path / "state.json", 3)
    providers: dict[str, analyzer_pb2.AnalyzerProviderResource] = {}
    structs = []
    for resource in StateStream(state).resources():
        if resource.type.startswith("pulumi:providers:"):
            providers[resource.urn] = snapshot._provider(resource)
        request = snapshot._request(resource, snapshot.blind(resource.inputs), providers)
        structs += [request.properties, request.provider.properties, wire.to_struct(snapshot.blind(resource.outputs))]
    assert len(structs) == 3 * (2 + 3 * bench_module("auditstate").PER_ENVIRONMENT)
    for struct in structs:
        _same(struct)


def _strings(value: Any) -> list[str]:
    """Every key and string value of a converted dict, in order."""
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in (key, *_strings(item))]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return [value] if isinstance(value, str) else []


def test_conversions_sharing_strings_give_the_same_dicts_with_one_object_per_distinct_string():
    first = _struct({"location": "westeurope", "tags": {"env": "prod"}, "list": ["westeurope", {"env": "x"}]})
    second = _struct({"location": "westeurope", "env": "prod", "n": 1})
    strings: dict[str, str] = {}
    converted = [struct_to_dict(first, strings), message_to_dict(json_format.MessageToDict, strings)(second)]
    assert [repr(d) for d in converted] == [repr(json_format.MessageToDict(s)) for s in (first, second)]
    found = _strings(converted)
    assert sorted(found) == ["env", "env", "env", "list", "location", "location", "n", "prod", "prod", "tags",
                             "westeurope", "westeurope", "westeurope", "x"]
    assert all(text is strings[text] for text in found)  # each equal string is the one object the pool holds
    assert sorted(strings) == ["env", "list", "location", "n", "prod", "tags", "westeurope", "x"]
    # without a pool, protobuf's reads give a new object each time
    apart = [struct_to_dict(first), struct_to_dict(second)]
    assert apart == converted and apart[0]["location"] is not apart[1]["location"]


def test_message_to_dict_takes_a_plain_struct_and_hands_anything_else_to_the_original():
    calls = []

    def original(*args: Any, **kwargs: Any) -> Any:
        calls.append((args, kwargs))
        return "original"

    to_dict = message_to_dict(original)
    struct = _struct({"a": 1})
    assert to_dict(struct) == {"a": 1.0} and calls == []
    value = struct_pb2.Value(number_value=1)
    request = analyzer_pb2.AnalyzeRequest(type="t")
    assert to_dict(value) == to_dict(request) == to_dict(struct, preserving_proto_field_name=True) == "original"
    assert calls == [((value,), {}), ((request,), {}), ((struct,), {"preserving_proto_field_name": True})]
    assert to_dict.__name__ == original.__name__


def test_the_shortcut_is_off_when_protobufs_printer_is_not_the_verified_code(monkeypatch):
    assert patches.off_reason("struct-to-dict") is None
    monkeypatch.setitem(patches.PATCHES, "struct-to-dict",
                        dataclasses.replace(patches.PATCHES["struct-to-dict"], verified=frozenset()))
    patches.off_reason.cache_clear()
    try:
        assert message_to_dict(json_format.MessageToDict) is json_format.MessageToDict
        assert "google.protobuf.json_format:_Printer._ValueMessageToJsonObject" in str(
            patches.off_reason("struct-to-dict"))
    finally:
        patches.off_reason.cache_clear()
