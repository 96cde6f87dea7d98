"""Typed, strict component arguments: one checker driven by the Args TypedDicts' own annotations.

Every component calls `check(ArgsType, label, args)` first. An unknown key is a `ComponentArgError`
naming the component, the key and the closest allowed key; a value whose type does not fit the
annotation is one naming the component, the argument, the value and what is allowed. `None` for an
optional argument means "unset" (the documented default applies). `pulumi.Input[...]` arguments take
Outputs and awaitables as they are: the engine resolves them later.

`ArgInfo` holds what the annotations cannot say (the default and the ARM input path an argument
sets); `document(ArgsType, infos)` writes every field, its type, default and doc into the class
docstring, so `help(ComputeClusterArgs)` shows them (a TypedDict's attribute docstrings alone are not).
Both live in `components.arg_types` (reading and documenting the TypedDicts) and are re-exported here.
"""

from __future__ import annotations

import difflib
import inspect
import types
import typing
from collections.abc import Awaitable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Literal, get_args, get_origin

import pulumi
import pulumi.output

from amlkit import regions
from amlkit.components.arg_types import (
    NONE_TYPE,
    ArgInfo,
    describe,
    document,
    document_nested,
    field_docs,
    field_help,
    fields,
    input_type,
    nested,
    nested_types,
    resolved_hints,
    type_text,
    typed_bases,
)
from amlkit.errors import ComponentArgError, ConfigError, show_value
from amlkit.suggest import VM_SIZE_ALLOWED, size_problem

__all__ = [
    "ArgInfo", "ProgramArgError", "REQUIRED", "check", "check_sourced", "closest_key", "describe", "document",
    "document_nested", "extra_regions", "field_docs", "field_help", "fields", "label", "named", "nested_types",
    "resolved_hints", "type_text", "typed_bases", "value_problem",
]

REQUIRED = "required"


class ProgramArgError(ComponentArgError, pulumi.RunError):
    """The ComponentArgError the components raise: also a `pulumi.RunError`, so `pulumi preview` and
    `pulumi up` print its one line instead of a traceback (as for amlkit.program's StackConfigError)."""


# --- checking values -------------------------------------------------------------------------------


def _matches(value: Any, annotation: Any) -> bool:
    """Whether a value fits an annotation at the top level (nested TypedDicts are checked by `_check`)."""
    if annotation is Any:
        return True
    inner = input_type(annotation)
    if inner is not None:
        return isinstance(value, pulumi.Output) or inspect.isawaitable(value) or _matches(value, inner)
    origin = get_origin(annotation)
    if origin is Literal:
        return any(value == v and type(value) is type(v) for v in get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        return any(_matches(value, member) for member in get_args(annotation))
    if origin is pulumi.Output:
        return isinstance(value, pulumi.Output)
    if origin is Awaitable:
        return inspect.isawaitable(value)
    if origin in (list, Sequence, typing.Sequence):
        return isinstance(value, (list, tuple)) and all(_matches(v, get_args(annotation)[0]) for v in value)
    if origin in (dict, Mapping, typing.Mapping):
        key, item = get_args(annotation)
        return isinstance(value, Mapping) and all(_matches(k, key) and _matches(v, item) for k, v in value.items())
    if typing.is_typeddict(annotation):
        return isinstance(value, Mapping)
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if annotation is NONE_TYPE:
        return value is None
    return isinstance(value, annotation)


def _secret_only(annotation: Any) -> bool:
    """A field that takes only an Output (a password): its value is never shown in an error."""
    return get_origin(annotation) is pulumi.Output


def check(args_type: type, component: str, args: Any, renamed: Mapping[str, str] | None = None,
          sourced: bool = False) -> None:
    """Refuse unknown keys, missing required keys and values that do not fit their annotation.

    renamed: former argument names -> today's, so a typo of an old name points at the new one.
    sourced: also check `size`, `location` and `workspace_location` against sourced data (`check_sourced`).
    """
    if not isinstance(args, Mapping):
        raise ProgramArgError(component, "args", f"must be a mapping ({args_type.__name__}), got {show_value(args)}",
                                allowed=describe(args_type))
    _check(args_type, component, args, "", renamed or {})
    if sourced:
        check_sourced(component, args)


def closest_key(key: str, known: Sequence[str], renamed: Mapping[str, str]) -> str | None:
    """The allowed key nearest to `key` (through a former name when that is nearer), or None."""
    candidates = [*known, *renamed]
    match = difflib.get_close_matches(key, candidates, n=1) or difflib.get_close_matches(key, candidates, n=1,
                                                                                          cutoff=0.0)
    return renamed.get(match[0], match[0]) if match else None


def _check(args_type: type, component: str, args: Mapping[str, Any], prefix: str,
           renamed: Mapping[str, str] = types.MappingProxyType({})) -> None:
    known = fields(args_type)
    for key in args:
        if key not in known:
            closest = closest_key(str(key), list(known), renamed)
            hint = f"did you mean {closest}? " if closest else ""
            raise ProgramArgError(
                component, f"{prefix}{key}",
                f"unknown argument; {hint}(help({args_type.__name__}) lists every argument)",
                closest=closest, allowed=", ".join(known),
            )
    for key, (annotation, required) in known.items():
        value = args.get(key)
        if value is None:
            if required:
                raise ProgramArgError(component, f"{prefix}{key}", "is required", allowed=describe(annotation))
            continue
        _check_value(annotation, component, value, f"{prefix}{key}")


def check_sourced(component: str, args: Mapping[str, Any]) -> None:
    """Refuse a `size` the VM catalogue does not know and a `location`/`workspace_location` that is not an Azure
    region, with the stack schema's words and the closest allowed value (a component calls it after `check`)."""
    for key in _VALUE_ALLOWED:
        problem = value_problem(key, args.get(key))
        if problem is not None:
            raise ProgramArgError(component, key, problem, args[key], allowed=_VALUE_ALLOWED[key])


_VALUE_ALLOWED = {"size": VM_SIZE_ALLOWED, "location": regions.allowed_text(),
                  "workspace_location": regions.allowed_text()}
"""Arguments whose plain-text value is checked against sourced data, as the stack schema checks the same keys."""


def value_problem(key: str, value: Any) -> str | None:
    """Why a `size` (the VM catalogue) or `location`/`workspace_location` (Azure's regions, plus the stack
    config's `amlkit:extraRegions`) is refused, in the stack schema's words; None when fine or an Output."""
    if key not in _VALUE_ALLOWED or not isinstance(value, str) or not value:  # '' is the component's "required"
        return None
    if key == "size":
        problem = size_problem(value)
        return problem.text if problem is not None else None
    return regions.region_problem(value, extra_regions())


def extra_regions() -> tuple[str, ...]:
    """The stack config's `amlkit:extraRegions` (region names beyond Azure's public list), () when unset."""
    try:
        names = pulumi.Config("amlkit").get_object("extraRegions")
    except Exception:  # noqa: BLE001 - malformed config: the schema names it; here it adds no region
        return ()
    return tuple(name for name in names if isinstance(name, str)) if isinstance(names, list) else ()


def _check_value(annotation: Any, component: str, value: Any, path: str) -> None:
    if not _matches(value, annotation):
        allowed = describe(annotation)
        shown = "a plain value" if _secret_only(annotation) else show_value(value)
        raise ProgramArgError(component, path, f"must be {allowed}, got {shown}",
                                None if _secret_only(annotation) else value, allowed=allowed)
    inner = nested(annotation)
    if inner is None:
        return
    kind, typed_dict = inner
    if kind == "one":
        _check(typed_dict, component, value, f"{path}.")
    elif kind == "keyed":
        for key, item in value.items():
            _check(typed_dict, component, item, f"{path}.{key}.")
    else:
        for index, item in enumerate(value):
            _check(typed_dict, component, item, f"{path}[{index}].")


@contextmanager
def named(component: str) -> Iterator[None]:
    """Turn a ConfigError raised by a component's own rules into one naming the component."""
    try:
        yield
    except ComponentArgError:
        raise
    except ConfigError as error:
        problem = error.problem
        if error.value is not None and show_value(error.value) not in problem:
            problem = f"{problem}, got {show_value(error.value)}"
        raise ProgramArgError(component, error.key_path, problem, error.value) from None


def label(component_type: str, name: str) -> str:
    """How errors name a component: its class and its Pulumi name, e.g. `ComputeCluster "cpu"`."""
    return f'{component_type} "{name}"'
