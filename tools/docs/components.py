"""The component reference block of docs/components.md, from the components' Args TypedDicts: every
argument with its type, default, doc (the field's docstring) and the ARM input it sets (the module's
`ARGS`), every nested type, and every output."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Mapping
from typing import Any

from tools.docs.markdown import REQUIRED, inline, table


def all_components() -> list[tuple[type, type, Mapping[str, Any]]]:
    """(component, Args type, ArgInfo by argument) of each public component: the ones the provider offers,
    each with the `<Name>Args` and `ARGS` of its module."""
    from amlkit.provider import components

    modules = [(component, sys.modules[component.__module__]) for component in components()]
    return [(component, getattr(module, f"{component.__name__}Args"), module.ARGS) for component, module in modules]


def _summary(owner: type) -> str:
    """The docstring before the generated `Fields:` list."""
    return inspect.cleandoc(owner.__doc__ or "").split("\nFields:\n")[0].strip()


def _code(text: str) -> str:
    return f"`{text}`"


def argument_rows(args_type: type, infos: Mapping[str, Any]) -> list[list[str]]:
    """One row per argument: name, type, default, doc, ARM input."""
    from amlkit.components.args import field_docs, fields, type_text

    docs = field_docs(args_type)
    rows = []
    for name, (annotation, required) in fields(args_type).items():
        info = infos[name]
        default = REQUIRED if required else inline(info.default)
        doc = inline(docs[name]) + (f" Allowed: {inline(info.allowed)}." if info.allowed else "")
        arm = inline(info.arm) or "(component behaviour)"
        rows.append([f"`{name}`", _code(type_text(annotation)), default, doc, arm])
    return rows


def nested_rows(spec_type: type) -> list[list[str]]:
    from amlkit.components.args import field_docs, fields, type_text

    docs = field_docs(spec_type)
    return [[f"`{name}`", _code(type_text(annotation)), "yes" if required else "no", inline(docs[name])]
            for name, (annotation, required) in fields(spec_type).items()]


def component_section(component: type, args_type: type, infos: Mapping[str, Any]) -> list[str]:
    from amlkit.components.args import nested_types, resolved_hints, type_text

    token = inspect.getmodule(component).TYPE_TOKEN  # type: ignore[union-attr]
    lines = [f"### `{component.__name__}`", "", f"Pulumi type `{token}`; arguments: `{args_type.__name__}`.", ""]
    lines += [inline(paragraph) + "\n" for paragraph in _summary(component).split("\n\n")]
    lines += table(["Argument", "Type", "Default", "Description", "ARM input (azure-native)"],
                    argument_rows(args_type, infos))
    for spec_type in nested_types(args_type):
        lines += ["", f"`{spec_type.__name__}`: {inline(_summary(spec_type))}", ""]
        lines += table(["Key", "Type", "Required", "Description"], nested_rows(spec_type))
    outputs = [f"`{name}` ({_code(type_text(annotation))})"
               for name, annotation in resolved_hints(component).items() if not name.startswith("_")]
    lines += ["", "Outputs: " + ", ".join(outputs) + ".", ""]
    return lines


def component_reference() -> str:
    """Every component: summary, arguments (type, default, doc, ARM input), nested types, outputs."""
    lines: list[str] = []
    for component, args_type, infos in all_components():
        lines += component_section(component, args_type, infos)
    return "\n".join(lines).rstrip("\n")
