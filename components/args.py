"""Typed, strict component arguments: one checker driven by the Args TypedDicts' own annotations.

Every component calls `check(ArgsType, label, args)` first. An unknown key is a `ComponentArgError`
naming the component, the key and the closest allowed key; a value whose type does not fit the
annotation is one naming the component, the argument, the value and what is allowed. `None` for an
optional argument means "unset" (the documented default applies). `pulumi.Input[...]` arguments take
Outputs and awaitables as they are: the engine resolves them later.

`ArgInfo` holds what the annotations cannot say (the default and the ARM input path an argument
sets); `document(ArgsType, infos)` writes every field, its type, default and doc into the class
docstring, so `help(ComputeClusterArgs)` shows them (a TypedDict's attribute docstrings alone are not).
"""

from __future__ import annotations

import difflib
import functools
import inspect
import re
import sys
import types
import typing
from collections.abc import Awaitable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NotRequired, Required, get_args, get_origin

import pulumi
import pulumi.output

from amlkit import regions
from amlkit.errors import ComponentArgError, ConfigError, show_value
from amlkit.suggest import VM_SIZE_ALLOWED, size_problem

__all__ = [
    "ArgInfo", "ProgramArgError", "REQUIRED", "check", "check_sourced", "closest_key", "describe", "document",
    "document_nested", "extra_regions", "field_docs", "field_help", "fields", "label", "named", "nested_types",
    "resolved_hints", "type_text", "typed_bases", "value_problem",
]

_NONE = type(None)


@dataclass(frozen=True)
class ArgInfo:
    """What an argument's annotation cannot say: its default (text), the ARM input it sets and, where Azure
    restricts the value beyond its type, what Azure allows (from `amlkit.azure_facts`, never retyped)."""

    default: str
    arm: str
    allowed: str = ""


REQUIRED = "required"


class ProgramArgError(ComponentArgError, pulumi.RunError):
    """The ComponentArgError the components raise: also a `pulumi.RunError`, so `pulumi preview` and
    `pulumi up` print its one line instead of a traceback (as for amlkit.program's StackConfigError)."""


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


def _is_input(annotation: Any) -> Any | None:
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
    inner = _is_input(annotation)
    if inner is not None:
        return f"{describe(inner)} (or a pulumi Output)"
    origin = get_origin(annotation)
    if origin is Literal:
        return "one of " + ", ".join(repr(v) for v in get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        members = [m for m in get_args(annotation) if m is not _NONE]
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
                          _NONE: "None"}


def type_text(annotation: Any) -> str:
    """A short type name for references: `int`, `Input[str]`, `'dedicated' | 'low_priority'`."""
    inner = _is_input(annotation)
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
    if annotation is _NONE:
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


# --- checking values -------------------------------------------------------------------------------


def _matches(value: Any, annotation: Any) -> bool:
    """Whether a value fits an annotation at the top level (nested TypedDicts are checked by `_check`)."""
    if annotation is Any:
        return True
    inner = _is_input(annotation)
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
    if annotation is _NONE:
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
    nested = _nested(annotation)
    if nested is None:
        return
    kind, typed_dict = nested
    if kind == "one":
        _check(typed_dict, component, value, f"{path}.")
    elif kind == "keyed":
        for key, item in value.items():
            _check(typed_dict, component, item, f"{path}.{key}.")
    else:
        for index, item in enumerate(value):
            _check(typed_dict, component, item, f"{path}[{index}].")


def _nested(annotation: Any) -> tuple[str, type] | None:
    """("one", TD) for a TypedDict field, ("many", TD) for a list of them, ("keyed", TD) for a map of
    them (`Mapping[str, TD]`: the keys name the children), else None."""
    inner = _is_input(annotation)
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
            nested = _nested(annotation)
            if nested and nested[1] not in found:
                found.append(nested[1])
                visit(nested[1])

    visit(args_type)
    return found


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
