"""Reading and documenting the Args TypedDicts: their fields (inherited ones included), each field's doc
from the source, what an annotation allows in words, and the docstrings `help()` shows.

`components.args` checks values against what this module reads (and re-exports its public names).
"""

from __future__ import annotations

import functools
import inspect
import re
import sys
import types
import typing
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NotRequired, Required, get_args, get_origin

import pulumi
import pulumi.output

__all__ = [
    "ArgInfo", "NONE_TYPE", "describe", "document", "document_nested", "field_docs", "field_help", "fields",
    "input_type", "nested", "nested_types", "resolved_hints", "type_text", "typed_bases",
]

NONE_TYPE = type(None)


@dataclass(frozen=True)
class ArgInfo:
    """What an argument's annotation cannot say: its default (text), the ARM input it sets and, where Azure
    restricts the value beyond its type, what Azure allows (from `amlkit.azure_facts`, never retyped)."""

    default: str
    arm: str
    allowed: str = ""



# --- resolving annotations -------------------------------------------------------------------------


def resolved_hints(owner: Any) -> dict[str, Any]:
    """The owner's own annotations, evaluated (they are strings under `from __future__ import annotations`),
    with `Required`/`NotRequired` kept (`typing.get_type_hints` would drop them)."""
    local = {"Output": pulumi.Output, "T": pulumi.output.T}  # pulumi.Input refers to 'Output[T]'
    resolved: dict[str, Any] = {}
    for name, annotation in inspect.get_annotations(owner).items():
        module = vars(sys.modules[_module_of(annotation, owner)])
        text = annotation.__forward_arg__ if isinstance(annotation, typing.ForwardRef) else annotation
        value = eval(text, module, local) if isinstance(text, str) else text  # noqa: S307 - own annotations
        resolved[name] = _resolve_forward_refs(value, module, local)
    return resolved


def _module_of(annotation: Any, owner: Any) -> str:
    """Where an annotation was written: a TypedDict keeps an inherited field's ForwardRef with the module
    of the class that declares it, whose names it uses."""
    declared = getattr(annotation, "__forward_module__", None) if isinstance(annotation, typing.ForwardRef) else None
    return str(declared or owner.__module__)


def _resolve_forward_refs(annotation: Any, module: Mapping[str, Any], local: Mapping[str, Any]) -> Any:
    if isinstance(annotation, typing.ForwardRef):
        return eval(annotation.__forward_arg__, dict(module), dict(local))  # noqa: S307 - SDK's own 'Output[T]'
    args = get_args(annotation)
    if not args:
        return annotation
    resolved = tuple(_resolve_forward_refs(arg, module, local) for arg in args)
    return _rebuild(annotation, resolved)


def _rebuild(annotation: Any, args: tuple[Any, ...]) -> Any:
    origin = get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return typing.Union[args]  # noqa: UP007 - built from a tuple
    if origin is Literal:
        return typing.cast(Any, Literal)[args]  # a Literal of values known only at run time
    if origin in (Required, NotRequired):
        return origin[args[0]]
    if origin is Awaitable:
        return typing.cast(Any, Awaitable)[args[0]]
    return annotation.copy_with(args) if hasattr(annotation, "copy_with") else origin[args]


@functools.cache
def fields(args_type: type) -> dict[str, tuple[Any, bool]]:
    """Each field of a TypedDict, inherited ones included: (annotation without Required/NotRequired,
    required). Required fields come first, then the others, each in declaration order (a base's first)."""
    totals = _declared_total(args_type)
    result: dict[str, tuple[Any, bool]] = {}
    for name, annotation in resolved_hints(args_type).items():
        origin = get_origin(annotation)
        if origin in (Required, NotRequired):
            result[name] = (get_args(annotation)[0], origin is Required)
        else:
            result[name] = (annotation, totals.get(name, True))
    return dict(sorted(result.items(), key=lambda item: not item[1][1]))


def _declared_total(args_type: type) -> dict[str, bool]:
    """Each field's default requiredness: the `total` of the class that declares it (a subclass's
    `total` does not apply to what it inherits)."""
    totals: dict[str, bool] = {}
    for base in typed_bases(args_type):
        totals.update(_declared_total(base))
    for name in inspect.get_annotations(args_type):
        totals.setdefault(name, getattr(args_type, "__total__", True))
    return totals


@functools.cache
def typed_bases(args_type: type) -> tuple[type, ...]:
    """The TypedDicts a TypedDict derives from, as its `class` line names them (Python 3.11 keeps no
    bases on a TypedDict: it folds their fields into its own annotations)."""
    line = _class_line(args_type)
    if line is None:
        return ()
    module = vars(sys.modules[args_type.__module__])
    bases = []
    for base in line.group(0).split("(", 1)[1].rsplit(")", 1)[0].split(","):
        path = base.strip().split(".")
        if "=" in base or not path[0] or path[0] not in module:
            continue
        value = functools.reduce(getattr, path[1:], module[path[0]])
        if typing.is_typeddict(value):
            bases.append(value)
    return tuple(bases)


def field_docs(args_type: type) -> dict[str, str]:
    """The docstring under each field of a class, inherited fields included, read from the source of
    the modules that declare them.

    A plain scan, not `inspect.getsource` + `ast` (which cost tens of milliseconds per class at
    import): the class body runs from `class <Name>(` to the next line that is not indented, and a
    field is a `    name: annotation` line followed by a `    \"\"\"doc\"\"\"` string.
    """
    docs: dict[str, str] = {}
    for base in typed_bases(args_type):
        docs.update(field_docs(base))
    body = _class_body(args_type)
    docs.update({name: inspect.cleandoc(doc) for name, doc in _FIELD_DOC.findall(body or "")})
    return docs


def field_help(args_type: type) -> dict[str, str]:
    """Each field's doc, with what Azure allows (`ArgInfo.allowed`, recorded by `document`) on a last
    `Allowed:` line, as help() shows it: the description other languages' SDKs get from the provider."""
    allowed = getattr(args_type, "__amlkit_allowed__", {})
    return {name: f"{doc}\nAllowed: {allowed[name]}" if name in allowed else doc
            for name, doc in field_docs(args_type).items()}


_FIELD_DOC = re.compile(r'^    (\w+): [^\n]+\n    """(.*?)"""', re.MULTILINE | re.DOTALL)


def _class_body(owner: type) -> str | None:
    """The source from a class's `class` line to the next line that is not indented, or None."""
    found = _class_line(owner)
    if found is None:
        return None
    text = found.string
    end = re.compile(r"^\S", re.MULTILINE).search(text, found.end() + 1)
    return text[found.end():end.start() if end else len(text)]


def _class_line(owner: type) -> re.Match[str] | None:
    """The `class <Name>(...):` line of a module-level class in its module's source, or None."""
    text = _module_source(sys.modules[owner.__module__].__file__ or "")
    return re.search(rf"^class {re.escape(owner.__name__)}\(.*$", text, re.MULTILINE)


@functools.cache
def _module_source(path: str) -> str:
    return Path(path).read_text(encoding="utf-8")


# --- describing types ------------------------------------------------------------------------------


def input_type(annotation: Any) -> Any | None:
    """T when the annotation is `pulumi.Input[T]` (T | Awaitable[T] | Output[T]), else None."""
    if get_origin(annotation) not in (typing.Union, types.UnionType):
        return None
    members = get_args(annotation)
    outputs = [m for m in members if get_origin(m) is pulumi.Output]
    awaitables = [m for m in members if get_origin(m) is Awaitable]
    plain = [m for m in members if m not in outputs and m not in awaitables]
    if outputs and awaitables and len(plain) == 1:
        return plain[0]
    return None


def describe(annotation: Any) -> str:
    """What an annotation allows, in words."""
    inner = input_type(annotation)
    if inner is not None:
        return f"{describe(inner)} (or a pulumi Output)"
    origin = get_origin(annotation)
    if origin is Literal:
        return "one of " + ", ".join(repr(v) for v in get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        members = [m for m in get_args(annotation) if m is not NONE_TYPE]
        plain = [m for m in members if get_origin(m) not in (pulumi.Output, Awaitable)]
        text = " or ".join(describe(m) for m in plain)
        return text + (" (or a pulumi Output)" if len(plain) < len(members) else "")
    if origin is pulumi.Output:
        return "a pulumi secret Output (pulumi.Output.secret or a secret config value), never a plain string"
    if origin in (list, Sequence, typing.Sequence):
        return f"a list, each {describe(get_args(annotation)[0])}"
    if origin in (dict, Mapping, typing.Mapping):
        key, value = get_args(annotation)
        return f"a mapping of {describe(key)} to {describe(value)}"
    if typing.is_typeddict(annotation):
        return "a mapping with keys " + ", ".join(fields(annotation))
    if isinstance(annotation, type) and issubclass(annotation, pulumi.ComponentResource):
        return f"a {annotation.__name__} component"
    return _PLAIN.get(annotation) or f"a {getattr(annotation, '__name__', annotation)}"


_PLAIN: dict[Any, str] = {str: "a string", int: "a whole number", bool: "True or False", Any: "any value",
                          NONE_TYPE: "None"}


def type_text(annotation: Any) -> str:
    """A short type name for references: `int`, `Input[str]`, `'dedicated' | 'low_priority'`."""
    inner = input_type(annotation)
    if inner is not None:
        return f"Input[{type_text(inner)}]"
    origin = get_origin(annotation)
    if origin is Literal:
        return " | ".join(repr(v) for v in get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        return " | ".join(_union_parts(get_args(annotation)))
    if origin is pulumi.Output:
        return f"Output[{type_text(get_args(annotation)[0])}]"
    if origin in (list, Sequence, typing.Sequence):
        return f"list[{type_text(get_args(annotation)[0])}]"
    if origin in (dict, Mapping, typing.Mapping):
        return "dict[" + ", ".join(type_text(a) for a in get_args(annotation)) + "]"
    if annotation is Any:
        return "Any"
    if annotation is NONE_TYPE:
        return "None"
    return getattr(annotation, "__name__", str(annotation))


def _union_parts(members: Sequence[Any]) -> list[str]:
    """Union members as text, `T | Awaitable[T] | Output[T]` folded back into `Input[T]`."""
    has_output = any(get_origin(m) is pulumi.Output for m in members)
    inputs = {get_args(m)[0] for m in members if get_origin(m) is Awaitable} if has_output else set()
    parts: list[str] = []
    for member in members:
        if inputs and get_origin(member) in (pulumi.Output, Awaitable):
            continue
        parts.append(f"Input[{type_text(member)}]" if member in inputs else type_text(member))
    return parts


def nested(annotation: Any) -> tuple[str, type] | None:
    """("one", TD) for a TypedDict field, ("many", TD) for a list of them, ("keyed", TD) for a map of
    them (`Mapping[str, TD]`: the keys name the children), else None."""
    inner = input_type(annotation)
    annotation = inner if inner is not None else annotation
    if typing.is_typeddict(annotation):
        return "one", annotation
    if get_origin(annotation) in (list, Sequence, typing.Sequence):
        item = get_args(annotation)[0]
        if typing.is_typeddict(item):
            return "many", item
    if get_origin(annotation) in (dict, Mapping, typing.Mapping):
        item = get_args(annotation)[1]
        if typing.is_typeddict(item):
            return "keyed", item
    return None


def nested_types(args_type: type) -> list[type]:
    """Every TypedDict reachable from the fields of `args_type`, depth first, each once."""
    found: list[type] = []

    def visit(owner: type) -> None:
        for annotation, _ in fields(owner).values():
            inner = nested(annotation)
            if inner and inner[1] not in found:
                found.append(inner[1])
                visit(inner[1])

    visit(args_type)
    return found


# --- documentation ---------------------------------------------------------------------------------


def document(args_type: type, infos: Mapping[str, ArgInfo]) -> None:
    """Append every field (type, default, doc) to the class docstring, for help().

    Fails at import when a field has no doc or no ArgInfo, or an ArgInfo names no field: the
    reference cannot drift from the type.
    """
    docs = field_docs(args_type)
    known = fields(args_type)
    missing = [name for name in known if name not in docs or name not in infos]
    extra = [name for name in infos if name not in known]
    if missing or extra:
        raise TypeError(f"{args_type.__name__}: fields without doc or ArgInfo {missing}, ArgInfo without field {extra}")
    allowed = {name: info.allowed for name, info in infos.items() if info.allowed}
    args_type.__amlkit_allowed__ = allowed  # type: ignore[attr-defined]
    lines = [inspect.cleandoc(args_type.__doc__ or ""), "", "Fields:"]
    for name, (annotation, required) in known.items():
        info = infos[name]
        default = "required" if required else f"default: {info.default}"
        lines.append(f"    {name} ({type_text(annotation)}; {default})")
        lines.extend(f"        {line}" for line in docs[name].splitlines())
        if info.allowed:
            lines.append(f"        Allowed: {info.allowed}")
        if info.arm:
            lines.append(f"        ARM: {info.arm}")
    args_type.__doc__ = "\n".join(lines)


def document_nested(args_type: type) -> None:
    """Append every field and its doc to a nested spec's docstring (its parent's ArgInfo maps it)."""
    docs = field_docs(args_type)
    lines = [inspect.cleandoc(args_type.__doc__ or ""), "", "Fields:"]
    for name, (annotation, required) in fields(args_type).items():
        lines.append(f"    {name} ({type_text(annotation)}{'; required' if required else ''})")
        lines.extend(f"        {line}" for line in docs.get(name, "").splitlines())
    args_type.__doc__ = "\n".join(lines)
