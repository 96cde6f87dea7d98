"""`json_format.MessageToDict` of a protobuf `Struct`, without json_format's walk of descriptors per value.

pulumi-policy's servicer converts every request's properties with `json_format.MessageToDict(struct)` (Analyze,
AnalyzeStack, each provider). For a `Struct`, protobuf's printer (5.29) does, per value: `WhichOneof("kind")`,
then for a number the NaN/Infinity refusal, and for the rest a descriptor lookup and `_FieldToJsonObject`, which
for these fields returns the value itself (`str`, `bool`, the double), the printer's own conversion of a nested
`Struct` (after checking it is not a wrapper type), or a list of the `ListValue`'s values; an unset or null value
is None. `struct_to_dict` does exactly that, without the descriptor lookups: ~3x faster, and the same dict (same
keys in the same order, same values and types) or the same ValueError, which
tests/policies/test_structs.py checks against `MessageToDict` itself on generated states and edge cases.

`message_to_dict(original)` is `original` (json_format's MessageToDict) with this shortcut for a plain `Struct`
and no options, only when protobuf's printer is the code this was verified on (amlkit.patches `struct-to-dict`
hashes its source); otherwise it is `original` itself. pulumi-policy's own path runs under `pulumi preview
--policy-pack` too: no offline fork.

`strings`: a dict that the conversions of one request share, so that equal strings (keys, and values such as
locations, SKUs, URNs) are one object. protobuf makes a new `str` each time a string is read; at 100,000 resources
AnalyzeStack's converted stack held ~20 copies of each property name. The dicts are equal either way.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

__all__ = ["message_to_dict", "struct_to_dict"]


def message_to_dict(original: Callable[..., Any], strings: dict[str, str] | None = None) -> Callable[..., Any]:
    """`original` (`json_format.MessageToDict`), converting a plain Struct with `struct_to_dict` when verified
    (its strings shared through `strings`, when given)."""
    from google.protobuf import struct_pb2

    from amlkit.patches import off_reason

    if off_reason("struct-to-dict") is not None:
        return original
    struct = struct_pb2.Struct

    def to_dict(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs and type(args[0]) is struct:
            return struct_to_dict(args[0], strings)
        return original(*args, **kwargs)

    to_dict.__name__, to_dict.__doc__ = original.__name__, original.__doc__
    return to_dict


def struct_to_dict(message: Any, strings: dict[str, str] | None = None) -> dict[str, Any]:
    """`json_format.MessageToDict(message)` of a `Struct` (protobuf 5.29's printer, value for value); each string
    (key or value) equal to one in `strings` is that object (new ones are added)."""
    return _struct(message, ({} if strings is None else strings).setdefault)


def _struct(message: Any, same: Callable[[str, str], str]) -> dict[str, Any]:
    fields = message.fields
    return {same(key, key): _value(fields[key], same) for key in fields}


def _value(message: Any, same: Callable[[str, str], str]) -> Any:
    which = message.WhichOneof("kind")
    if which == "string_value":
        text = message.string_value
        return same(text, text)
    if which == "struct_value":
        return _struct(message.struct_value, same)
    if which == "number_value":
        value = message.number_value
        if math.isinf(value):
            raise ValueError("Fail to serialize Infinity for Value.number_value, which would parse as string_value")
        if math.isnan(value):
            raise ValueError("Fail to serialize NaN for Value.number_value, which would parse as string_value")
        return value
    if which == "bool_value":
        return message.bool_value
    if which == "list_value":
        return [_value(item, same) for item in message.list_value.values]
    return None  # unset, or null_value
