"""What the installed provider SDKs say about their types, read without running anything: a function's
typed result (`result_fields`, for lookups and the lookups file) and which fields of a resource's outputs
are output-only (`with_output_only_unknown`: unknown at preview, as `pulumi preview` shows them).
Works for any provider package installed next to amlkit (azure-native, azure, azuread, random...).
"""

from __future__ import annotations

import collections.abc
import functools
import importlib
import inspect
import re
import threading
import types
import typing
import warnings
from pathlib import Path
from typing import Any

from pulumi.output import Unknown
from pulumi.runtime import rpc

from amlkit.review.run.bridge import planned_defaults
from amlkit.tokens import type_parts

__all__ = [
    "api_version", "function_parts", "input_names", "output_only_unknown", "preview_outputs", "result_fields",
    "result_shape", "returns_credentials", "with_output_only_unknown",
]


def function_parts(token: str) -> tuple[str, str, str] | None:
    """(package, module, function) of any provider's function token: `azure-native:network:getSubnet`,
    `azure:core/getClientConfig:getClientConfig` (module `core`), `azuread:index/getUser:getUser` (module
    `index`: the package itself); None when the token has another shape."""
    parts = token.split(":")
    if len(parts) != 3 or not all(parts):
        return None
    package, module, function = parts
    return package, module.split("/", 1)[0], function


def returns_credentials(token: str) -> bool:
    """Whether a function returns keys, passwords or connection strings: Azure's `list*` actions
    (`listStorageAccountKeys`, `listRegistryCredentials`, `listWorkspaceKeys`, `listSecrets`...). The
    offline review never answers them, and a lookups file never pins them."""
    parts = function_parts(token)
    return parts is not None and parts[2].startswith("list")


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


_IMPORTS = threading.RLock()


def _sdk_class(token: str, suffix: str = "") -> type | None:
    """The installed SDK's class for a type or function token of any provider: the resource class
    (`suffix` "") or a function's typed result (`suffix` "Result": `<Function>Result`)."""
    parts = type_parts(token)
    if parts is not None:  # azure-native, any spelling
        module, version, member = parts
        # an explicit API version the installed SDK lacks (azure-native 3.x dropped them): its default version's class
        names = [f"pulumi_azure_native.{module}.{version}"] * bool(version) + [f"pulumi_azure_native.{module}"]
    else:
        found = function_parts(token)
        if found is None:
            return None
        package, module, member = found
        root = "pulumi_" + package.replace("-", "_")
        base = root if module == "index" else f"{root}.{module.lower()}"
        names = [base, f"{base}.{_snake(member)}"]
    wanted = f"{member[:1].upper()}{member[1:]}{suffix}"
    for name in names:
        try:
            # one thread at a time: the SDK registers resources on several threads, and azure-native's lazily
            # loaded modules (importlib.util.LazyLoader) are not thread-safe, so a second thread could read a
            # half-loaded module and get no class; warnings.catch_warnings is process-wide state too
            with _IMPORTS, warnings.catch_warnings():  # pulumi-azure warns about its deprecated modules on import
                warnings.simplefilter("ignore", DeprecationWarning)
                result = getattr(importlib.import_module(name), wanted, None)
        except ImportError:
            continue
        if isinstance(result, type):
            return result
    return None


@functools.cache
def result_fields(token: str) -> dict[str, bool] | None:
    """The fields of a function's typed result (wire name -> whether it is a string), from the installed
    provider SDK's `<Function>Result` class (any provider: azure-native, azure, azuread, random...); None when
    no installed SDK has such a class."""
    result = _sdk_class(token, "Result")
    if result is None:
        return None
    fields = {}
    for prop in vars(result).values():
        wire = getattr(getattr(prop, "fget", None), "_pulumi_name", None)
        if isinstance(prop, property) and isinstance(wire, str):
            fields[wire] = _is_str(prop.fget.__annotations__.get("return"))
    return fields


def result_shape(token: str, mark: str) -> dict[str, Any] | None:
    """A function's typed result with every string, nested ones included, set to `mark` + its path, every
    list holding one such item and every map empty (numbers and booleans left out): what a program that
    indexes into a result it cannot have (`keys[0].value`) reads without crashing. None when no installed
    SDK has the function's result class."""
    result = _sdk_class(token, "Result")
    if result is None:
        return None
    shaped = _shape(result, mark, 0)
    return shaped if isinstance(shaped, dict) else {}


def _shape(hint: Any, mark: str, depth: int) -> Any:
    hint = _unwrap(hint)
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if isinstance(hint, type) and issubclass(hint, str):  # str, and the SDKs' string enums
        return mark
    if origin in (list, collections.abc.Sequence) and args:
        item = _shape(args[0], mark, depth + 1)
        return [] if item is None else [item]
    if origin in (dict, collections.abc.Mapping):
        return {}
    if not isinstance(hint, type) or depth > _MAX_DEPTH or hint in (bool, int, float):
        return None
    shaped = {}
    for wire, field_hint in _fields(hint).items():
        value = _shape(field_hint, f"{mark}.{wire}", depth + 1)
        if value is not None:
            shaped[wire] = value
    return shaped


_MAX_DEPTH = 8  # result types nest a few levels; a self-referencing type stops here


@functools.cache
def _fields(cls: type) -> dict[str, Any]:
    """Wire name -> type hint of each property of an SDK resource, output or args class."""
    module = importlib.import_module(cls.__module__)
    fields = {}
    for prop in vars(cls).values():
        wire = getattr(getattr(prop, "fget", None), "_pulumi_name", None)
        if isinstance(prop, property) and isinstance(wire, str):
            try:
                fields[wire] = typing.get_type_hints(prop.fget, globalns=vars(module)).get("return")
            except Exception:  # noqa: BLE001 - an unresolvable hint: that field is echoed as given
                fields[wire] = None
    return fields


_API_VERSION = re.compile(r"Uses Azure REST API version (\d{4}-\d{2}-\d{2}(?:-[a-z]+)?)\b")


@functools.cache
def api_version(type_token: str) -> str | None:
    """The Azure REST API version azure-native's provider uses for a type (its metadata's `APIVersion`): an explicit
    version's own (`.../v20240401preview:...` -> 2024-04-01-preview), else the one the installed SDK's class names
    ("Uses Azure REST API version 2025-12-01."); None for another provider or a type no installed SDK documents.
    Once per type: Check asks on every registration, and the answer depends only on the installed SDK."""
    parts = type_parts(type_token)
    if parts is None:
        return None
    version = parts[1]
    if version:
        found = re.fullmatch(r"v(\d{4})(\d{2})(\d{2})([a-z]*)", version)
        return None if found is None else "-".join(part for part in found.groups() if part)
    cls = _sdk_class(type_token)
    return None if cls is None else _documented_version(cls)


def _documented_version(cls: type) -> str | None:
    """The version the class's constructor docstring names: read from its module's source, since `typing.overload`
    leaves the constructor that runs without the docstring."""
    try:
        source = Path(inspect.getfile(cls)).read_text(encoding="utf-8")
    except (OSError, TypeError):
        return None
    start = source.find(f"class {cls.__name__}(")
    match = _API_VERSION.search(source, max(start, 0))
    return match.group(1) if match else None


@functools.cache
def input_names(type_token: str) -> frozenset[str]:
    """The wire names of a resource type's inputs (its SDK `<Type>Args` class), any installed provider; empty when
    no installed SDK has the class."""
    cls = _sdk_class(type_token)
    if cls is None:
        return frozenset()
    args = getattr(importlib.import_module(cls.__module__), f"{cls.__name__}Args", None)
    return frozenset(_fields(args)) if isinstance(args, type) else frozenset()


def _args_class(response: type) -> type | None:
    """The input type of an output type (`PrivateDnsZoneConfigResponse` -> `PrivateDnsZoneConfigArgs`, the
    classic `ComputeClusterIdentity` -> `ComputeClusterIdentityArgs`), from the package's inputs."""
    base = response.__name__.removesuffix("Response")
    package = importlib.import_module(response.__module__.rsplit(".", 1)[0])
    found = getattr(package, f"{base}Args", None)
    return found if isinstance(found, type) else None


def _unwrap(hint: Any) -> Any:
    """The type inside Output[...] and Optional[...]."""
    while True:
        origin = typing.get_origin(hint)
        if origin is not None and getattr(origin, "__name__", "") == "Output":
            hint = typing.get_args(hint)[0]
        elif origin in (typing.Union, types.UnionType):
            kept = [arg for arg in typing.get_args(hint) if arg is not type(None)]
            if len(kept) != 1:
                return hint
            hint = kept[0]
        else:
            return hint


def output_only_unknown(value: Any, hint: Any) -> Any:
    """`value` (an echoed input) with every output-only field of its output type, nested ones included, set
    to the engine's unknown, as `pulumi preview` gives them: a field of the output type its input type does
    not have (a private DNS zone config's `recordSets`, a subnet's `provisioningState`)."""
    hint = _unwrap(hint)
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (list, collections.abc.Sequence) and args and isinstance(value, list):
        return [output_only_unknown(item, args[0]) for item in value]
    if origin in (dict, collections.abc.Mapping) and len(args) == 2 and isinstance(value, dict):
        return {key: output_only_unknown(item, args[1]) for key, item in value.items()}
    if not isinstance(hint, type) or not isinstance(value, dict):
        return value
    fields = _fields(hint)
    inputs = _args_class(hint)
    given = set(_fields(inputs)) if inputs is not None else None
    shaped = dict(value)
    for wire, field_hint in fields.items():
        if wire in shaped:
            shaped[wire] = output_only_unknown(shaped[wire], field_hint)
        elif given is not None and wire not in given:
            shaped[wire] = rpc.UNKNOWN
    return shaped


def with_output_only_unknown(type_token: str, outputs: dict[str, Any]) -> dict[str, Any]:
    """A resource's echoed inputs with the output-only fields nested in them unknown (`output_only_unknown`),
    for a resource class of any installed SDK; unchanged when there is none. The identity is left as shaped."""
    cls = _sdk_class(type_token)
    if cls is None:
        return outputs
    fields = _fields(cls)
    return {wire: value if wire == "identity" or wire not in fields else output_only_unknown(value, fields[wire])
            for wire, value in outputs.items()}


def preview_outputs(type_token: str, inputs: dict[str, Any]) -> dict[str, Any] | None:
    """A resource's outputs as its provider answers `Create` in a preview (and `Update`, before the stable
    outputs are added back): every output of the SDK's resource class that an input of the same wire name
    gives, shaped to the output's type (`_preview_value`), and every other one unknown. azure-native:
    `PreviewOutputs(inputs, res.Response)` (pulumi/pulumi-azure-native `provider/pkg/provider/provider.go`,
    `Create`'s `req.GetPreview()` branch; `provider/pkg/convert/previewOutputs.go`), so a `*Name` path
    input does not make the output `name` known. The classic provider (the Terraform bridge) plans the
    configured attributes, an omitted one with a schema default as that default (amlkit.review.run.bridge), and
    leaves the others unknown. None when no installed SDK has the class."""
    cls = _sdk_class(type_token)
    if cls is None:
        return None
    planned = planned_defaults(cls) if type_parts(type_token) is None else {}
    return {wire: _preview_value(inputs[wire], hint) if wire in inputs else planned.get(wire, rpc.UNKNOWN)
            for wire, hint in _fields(cls).items()}


def _preview_value(value: Any, hint: Any) -> Any:
    """previewOutputValue (previewOutputs.go): an input kept where its shape matches the output's type
    (objects field by field, a field the input lacks unknown), unknown where it does not (a list of
    user-assigned identity ids given where the output is a map); untyped and one-of values kept as given."""
    if isinstance(value, Unknown) or value == rpc.UNKNOWN:
        return value
    if rpc.is_rpc_secret(value):
        return rpc.wrap_rpc_secret(_preview_value(rpc.unwrap_rpc_secret(value), hint))
    hint = _unwrap(hint)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if isinstance(hint, type) and issubclass(hint, str):  # str and the SDKs' string enums
        return value if isinstance(value, str) else rpc.UNKNOWN
    if hint is bool:
        return value if isinstance(value, bool) else rpc.UNKNOWN
    if hint in (int, float):
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else rpc.UNKNOWN
    if origin in (list, collections.abc.Sequence) and args:
        return [_preview_value(item, args[0]) for item in value] if isinstance(value, list) else rpc.UNKNOWN
    if origin in (dict, collections.abc.Mapping) and len(args) == 2:
        if not isinstance(value, dict):
            return rpc.UNKNOWN
        return {key: _preview_value(item, args[1]) for key, item in value.items()}
    if isinstance(hint, type) and hint not in (dict, list, object) and _fields(hint):
        if not isinstance(value, dict):
            return rpc.UNKNOWN
        return {wire: _preview_value(value[wire], field) if wire in value else rpc.UNKNOWN
                for wire, field in _fields(hint).items()}
    return value  # Any, untyped or one of several types: as given


def _is_str(annotation: Any) -> bool:
    if annotation is str:
        return True
    return typing.get_origin(annotation) in (typing.Union, types.UnionType) and set(
        typing.get_args(annotation)) == {str, type(None)}
