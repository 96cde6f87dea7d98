"""amlkit.review.pack.wire: the Analyze requests the engine builds from a registration (no pack process), and Structs
built as `Struct.update` builds them."""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any

import pytest
from google.protobuf import struct_pb2
from hypothesis import given, settings
from hypothesis import strategies as st

from amlkit.review.pack.wire import default_provider_name, provider_resource, resource_options, to_struct
from amlkit.review.secrets import SECRET_SIG, SECRET_SIG_KEY, UNKNOWN

RESOURCE = {"type": "azure-native:machinelearningservices:Compute", "name": "cpu", "custom": True,
            "parent": "urn:pulumi:dev::p::azure-native:machinelearningservices:Workspace::mlw",
            "provider": None, "inputs": {},
            "options": {"aliases": [
                {"type": "azure-native:machinelearningservices/v20240401:Compute", "parentUrn": ""},
                {"name": "old-cpu", "noParent": True},
                {"urn": "urn:pulumi:dev::p::x:y:Z::literal"},
            ]}}


def test_alias_specs_reach_the_analyzer_as_engine_urns():
    assert list(resource_options(RESOURCE, "dev", "p").aliases) == [
        "urn:pulumi:dev::p::azure-native:machinelearningservices:Workspace"
        "$azure-native:machinelearningservices/v20240401:Compute::cpu",
        "urn:pulumi:dev::p::azure-native:machinelearningservices:Compute::old-cpu",
        "urn:pulumi:dev::p::x:y:Z::literal",
    ]


def test_default_provider_is_named_as_the_engine_names_it():
    provider = provider_resource(RESOURCE, {}, "dev", "p")
    assert provider is not None
    assert provider.type == "pulumi:providers:azure-native"
    assert provider.name == default_provider_name("azure-native")
    assert provider.name.startswith("default_3_")
    assert provider.urn == f"urn:pulumi:dev::p::pulumi:providers:azure-native::{provider.name}"
    assert provider_resource({**RESOURCE, "custom": False}, {}, "dev", "p") is None


def test_explicit_provider_is_the_registered_one():
    provider_urn = "urn:pulumi:dev::p::pulumi:providers:azure-native::westus"
    registered = {provider_urn: {"type": "pulumi:providers:azure-native", "name": "westus",
                                 "inputs": {"location": "westus"}}}
    provider = provider_resource({**RESOURCE, "provider": f"{provider_urn}::some-id"}, registered, "dev", "p")
    assert (provider.name, provider.urn, dict(provider.properties)) == ("westus", provider_urn,
                                                                         {"location": "westus"})


def to_struct_as_protobuf(value: Any) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(value)
    return struct


class _Text(str):
    pass


STRUCT_VALUES = {
    "empty": {},
    "scalars": {"none": None, "true": True, "false": False, "text": "", "unicode": "日本 🙂", "int": 3, "float": 2.5,
                "big": 2**70, "negative": -0.0, "nan": math.nan, "inf": -math.inf},
    "nested": {"z": {"y": {"x": [1, {"w": []}]}}, "a": {}, "m": [[], [None, [True]]]},
    "secret": {SECRET_SIG_KEY: SECRET_SIG, "value": {"inner": [1, "two"]}},
    "unknown": {"vmSize": UNKNOWN},
    "not plain": {"tuple": (1, "x"), "subclass": _Text("t"), "dict subclass": OrderedDict(b=1, a=2),
                  "struct": to_struct_as_protobuf({"k": 1})},
}


@pytest.mark.parametrize("name", sorted(STRUCT_VALUES))
def test_to_struct_builds_what_struct_update_builds(name):
    """The same message, the same bytes (the map entries in the same order), for every kind of value."""
    value = STRUCT_VALUES[name]
    ours, theirs = to_struct(value), to_struct_as_protobuf(value)
    assert ours.SerializeToString() == theirs.SerializeToString()
    assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(deterministic=True)
    assert list(ours.fields) == list(theirs.fields)


@pytest.mark.parametrize("bad", [object(), {1, 2}, b"bytes"])
def test_to_struct_refuses_what_struct_update_refuses(bad):
    with pytest.raises(ValueError, match="Unexpected type"):
        to_struct_as_protobuf({"a": {"b": [bad]}})
    with pytest.raises(ValueError, match="Unexpected type"):
        to_struct({"a": {"b": [bad]}})


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(max_size=6), st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70), st.floats(),
              st.text(max_size=6)),
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(st.text(max_size=6), children,
                                                                                max_size=4)),
    max_leaves=25), max_size=5))
def test_to_struct_builds_what_struct_update_builds_for_any_value(value):
    assert to_struct(value).SerializeToString() == to_struct_as_protobuf(value).SerializeToString()
