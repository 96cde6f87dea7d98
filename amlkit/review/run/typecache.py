"""Warm what a program's first stack would compute about the SDK classes it uses, once, in the fork server
(amlkit.review.children.fork_server), so that every child forked from it starts with it computed.

Pulumi's Python SDK works out, per resource, args and output class, the Python and wire names of its properties
and their resolved type hints (`pulumi._types`: `_py_properties`, `_raw_return_hints`,
`_types_from_py_properties`, `_wire_union_members`), and caches them for the life of the process; the runner's
own reading of the SDKs (amlkit.review.run.sdk `_fields`, amlkit.review.run.bridge `planned_defaults`) is cached
the same way. A program worker's first stack paid all of that (about 50 ms of its 90-130 ms extra, measured on
the samples); a fresh child paid it on every stack.

`warm(tokens)` fills those caches for the resource types and functions a project's stacks were seen to use
(amlkit.review.proc.learned), their args classes and the input and output types one level down. Each of these
functions is pure (a class in, its names or hints out), so calling one earlier changes no result, only when it
is computed. A class that cannot be found or read is left alone: the child meets it, and reports any failure,
itself. The private names are looked up, never assumed: a pulumi without one is simply not warmed there.
"""

from __future__ import annotations

import contextlib
import sys
import typing
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["warm"]

_PULUMI_CACHES = ("_py_properties", "_raw_return_hints", "_types_from_py_properties")


def warm(tokens: Iterable[str]) -> int:
    """Fill the caches for these resource type and function tokens; the number of classes warmed."""
    from amlkit.review.run import sdk
    from amlkit.tokens import type_parts

    seen: set[type] = set()
    for token in tokens:
        with contextlib.suppress(Exception):  # never fails: the child computes what is left itself
            resource = sdk._sdk_class(token)
            cls = resource or sdk._sdk_class(token, "Result")
            if cls is None:
                continue
            for one in [cls, *_args_of(cls)]:
                _warm_class(one, seen, nested=True)
            if resource is not None and type_parts(token) is None:  # the classic provider's planned defaults
                _classic_defaults(resource)
    if seen:  # and what every program registers: its stack, and amlkit's components when it uses them
        for cls in _components():
            _warm_class(cls, seen, nested=False)
    return len(seen)


def _components() -> list[type]:
    from pulumi import ComponentResource
    from pulumi.runtime.stack import Stack

    found: list[type] = [Stack]
    for name, module in list(sys.modules.items()):
        if name.startswith("amlkit.components.") and module is not None:
            found.extend(value for value in vars(module).values() if isinstance(value, type) and
                         issubclass(value, ComponentResource) and value.__module__ == name)
    return found


def _args_of(cls: type) -> list[type]:
    found = getattr(sys.modules.get(cls.__module__), f"{cls.__name__}Args", None)
    return [found] if isinstance(found, type) else []


def _classic_defaults(cls: type) -> None:
    from amlkit.review.run.bridge import planned_defaults

    with contextlib.suppress(Exception):
        planned_defaults(cls)


def _warm_class(cls: type, seen: set[type], nested: bool) -> None:
    if cls in seen:
        return
    seen.add(cls)
    from pulumi import _types

    from amlkit.review.run import sdk

    hints: dict[str, Any] = {}
    with contextlib.suppress(Exception):
        for name in _PULUMI_CACHES:
            cached: Callable[[type], Any] | None = getattr(_types, name, None)
            if cached is not None:
                cached(cls)
        raw = getattr(_types, "_raw_return_hints", None)
        hints = dict(raw(cls)) if raw is not None else {}
        union = getattr(_types, "_wire_union_members", None)
        if union is not None:
            for hint in hints.values():
                union(hint)
        if not _types.is_input_type(cls):
            sdk._fields(cls)
    if nested:
        for inner in _sdk_types(hints.values()):
            _warm_class(inner, seen, nested=False)


def _sdk_types(hints: Iterable[Any]) -> list[type]:
    """The input and output types named in these hints (inside Output, Optional, lists and maps)."""
    from pulumi import _types

    found: list[type] = []
    todo = list(hints)
    while todo:
        hint = todo.pop()
        if typing.get_origin(hint) is not None:
            todo.extend(typing.get_args(hint))
        elif isinstance(hint, type) and (_types.is_input_type(hint) or _types.is_output_type(hint)):
            found.append(hint)
    return found
