"""The amlkit components as a Pulumi component provider, for TypeScript, Go, C#, Java and YAML programs.

`PulumiPlugin.yaml` (repository root) points the Python language host at `main()` here, which hosts
`Workspace`, `ComputeCluster`, `ComputeInstance`, `KubernetesCompute`, `VirtualMachineCompute` and
`SynapseSparkCompute` with `pulumi.provider.experimental.component_provider_host`. `pulumi package add
<repo>` then asks it for
the package schema and generates an SDK in the consumer's language; the resource tokens are
`amlkit:index:<Component>`, the same the components register in Python.

The SDK's schema analyzer reads the components' type annotations, and three things in them do not
survive it as written (see `package_schema` and tests/test_provider.py):

- the component modules use `from __future__ import annotations`, so the analyzer sees strings
  (`'str' object has no attribute '__mro__'`), and `Required[...]` inside a string is invisible to
  `TypedDict`, so every input would become optional;
- `Literal[...]` fields fail (`issubclass() arg 1 must be a class`);
- `pulumi.Input[str] | bool` (Workspace.container_registry) is silently narrowed to a string.

So the host does not hand the component classes to the analyzer directly. It hands it *schema views*:
for each component, a class of the same name whose annotations are the components' own, resolved,
with `Literal[...]` turned into a string enum and a mixed union into `Any`, and without the Python-only
`workspace` argument (a Workspace component object; other languages pass `resource_group_name`,
`workspace_name` and `workspace_location` instead). Building a view
constructs the real component (with enum members turned back into plain strings), so behaviour,
validation and child resources are exactly those of the Python component.
"""

from __future__ import annotations

import enum
import re
import types
import typing
from collections.abc import Awaitable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Literal, NotRequired, Required, TypedDict, get_args, get_origin

import pulumi
import pulumi.output

from amlkit import __version__
from amlkit.components.args import field_help
from amlkit.components.args import fields as _fields
from amlkit.components.args import resolved_hints as _hints

__all__ = ["NAME", "NAMESPACE", "components", "main", "package_schema", "schema_view", "schema_views"]

NAME = "amlkit"
NAMESPACE = "amlkit"

_NONE = type(None)


def components() -> list[type[pulumi.ComponentResource]]:
    """The components offered to other languages (Environment takes a Python-only spec object)."""
    from amlkit.components import (
        ComputeCluster,
        ComputeInstance,
        KubernetesCompute,
        SynapseSparkCompute,
        VirtualMachineCompute,
        Workspace,
    )

    return [Workspace, ComputeCluster, ComputeInstance, KubernetesCompute, VirtualMachineCompute, SynapseSparkCompute]


# --- schema views ----------------------------------------------------------------------------------


def _pascal(text: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[_\W]+", text) if part)


def _base_name(owner: Any) -> str:
    return re.sub(r"(Args|Spec)$", "", owner.__name__)


# Generic types parameterised with types built at run time (the views), which a type checker cannot see
_RUNTIME_GENERIC: dict[str, Any] = {"list": list, "dict": dict, "Output": pulumi.Output, "Awaitable": Awaitable,
                                    "TypedDict": TypedDict}


class _Views:
    """Builds schema views of TypedDicts and Literal enums, once each."""

    def __init__(self) -> None:
        self.typed_dicts: dict[type, type] = {}
        self.enums: dict[str, type[enum.Enum]] = {}

    def view(self, annotation: Any, owner: Any, field: str) -> Any:
        origin = get_origin(annotation)
        if origin in (Required, NotRequired):
            return origin[self.view(get_args(annotation)[0], owner, field)]
        if origin is Literal:
            return self.literal(annotation, owner, field)
        if origin in (typing.Union, types.UnionType):
            return self.union(annotation, owner, field)
        if origin in (list, Sequence, typing.Sequence):
            return _RUNTIME_GENERIC["list"][self.view(get_args(annotation)[0], owner, field)]
        if origin in (dict, Mapping, typing.Mapping):
            key, value = get_args(annotation)
            return _RUNTIME_GENERIC["dict"][key, self.view(value, owner, field)]
        if origin is pulumi.Output:
            return _RUNTIME_GENERIC["Output"][self.view(get_args(annotation)[0], owner, field)]
        if origin is Awaitable:
            return _RUNTIME_GENERIC["Awaitable"][self.view(get_args(annotation)[0], owner, field)]
        if typing.is_typeddict(annotation):
            return self.typed_dict(annotation)
        return annotation

    def union(self, annotation: Any, owner: Any, field: str) -> Any:
        members = get_args(annotation)
        plain = {m for m in members if m is not _NONE and get_origin(m) not in (Awaitable, pulumi.Output)
                 and not isinstance(m, typing.ForwardRef)}
        if len(plain) > 1:  # e.g. `pulumi.Input[str] | bool`: no single schema type
            return Any | None if _NONE in members else Any
        return typing.Union[tuple(self.view(m, owner, field) for m in members)]  # noqa: UP007

    def literal(self, annotation: Any, owner: Any, field: str) -> type[enum.Enum]:
        values = get_args(annotation)
        name = f"{_base_name(owner)}{_pascal(field)}"
        if name not in self.enums:
            members = {_pascal(str(value)) or str(value): value for value in values}
            created = enum.Enum(name, members, type=str, module=__name__)  # type: ignore[misc]
            created.__doc__ = f"Allowed values of {owner.__name__}.{field}."
            self.enums[name] = created
        return self.enums[name]

    def typed_dict(self, source: type) -> type:
        if source in self.typed_dicts:
            return self.typed_dicts[source]
        fields = {name: self.view(Required[annotation] if required else NotRequired[annotation], source, name)
                  for name, (annotation, required) in _fields(source).items() if not _python_only(annotation)}
        view: type = _RUNTIME_GENERIC["TypedDict"](source.__name__, fields)
        view.__module__, view.__qualname__, view.__doc__ = source.__module__, source.__qualname__, source.__doc__
        self.typed_dicts[source] = view
        return view


def _python_only(annotation: Any) -> bool:
    """A field that takes a Python component object (e.g. `workspace: Workspace`): other languages
    pass the plain arguments it stands for instead."""
    if get_origin(annotation) in (Required, NotRequired):
        annotation = get_args(annotation)[0]
    return isinstance(annotation, type) and issubclass(annotation, pulumi.ComponentResource)


def _plain(value: Any) -> Any:
    """Inputs as the components expect them: plain strings for enum members, int for whole numbers.

    The engine sends every number as a float, and pulumi 3.272's `map_input_properties` converts
    integer inputs to int and then overwrites them with the float. No component input is a float,
    so a whole float is an int; any other float stays as it is and the component refuses it.
    """
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def schema_view(component: type[pulumi.ComponentResource], views: _Views) -> type[pulumi.ComponentResource]:
    """A class the analyzer can read that builds the real `component` when constructed."""
    init_hints = _hints(component.__init__)
    args_view = views.view(init_hints["args"], component, "args")
    outputs = {name: views.view(annotation, component, name)
               for name, annotation in _hints(component).items() if not name.startswith("_")}

    def __new__(cls: type, name: str, args: Mapping[str, Any], opts: pulumi.ResourceOptions | None = None) -> Any:
        return component(name, _plain(args), opts)  # type: ignore[arg-type]

    def __init__(self: Any, name: str, args: Any, opts: pulumi.ResourceOptions | None = None) -> None:
        raise AssertionError("never called: __new__ returns the real component")  # pragma: no cover

    __init__.__annotations__ = {"name": str, "args": args_view, "opts": pulumi.ResourceOptions | None,
                                "return": None}
    namespace = {"__new__": __new__, "__init__": __init__, "__doc__": component.__doc__,
                 "__module__": component.__module__, "__qualname__": component.__qualname__,
                 "__annotations__": outputs}
    return type(component.__name__, (pulumi.ComponentResource,), namespace)


def schema_views(views: _Views | None = None) -> list[type[pulumi.ComponentResource]]:
    views = views or _Views()
    return [schema_view(component, views) for component in components()]


@contextmanager
def _field_docs_of_args(views: _Views) -> Iterator[None]:
    """While the schema is built, the SDK's analyzer takes a view's field docs from `field_help`.

    The analyzer reads a field's docstring from the source of the class it is given (a view points at
    its Args class), so it sees only the fields that class declares, not those it inherits
    (`placement.WorkspaceRefArgs`...). `field_help` reads both, with what Azure allows, as help() and
    docs/components.md show them.
    Other types (the components' outputs, the enums) keep the analyzer's own reading.
    """
    from pulumi.provider.experimental.analyzer import Analyzer

    sources = {view: source for source, view in views.typed_dicts.items()}
    original = Analyzer.get_docstring

    def get_docstring(self: Analyzer, typ: type, name: str) -> str | None:
        source = sources.get(typ)
        return field_help(source).get(name) if source is not None else original(self, typ, name)

    Analyzer.get_docstring = get_docstring  # type: ignore[method-assign]
    try:
        yield
    finally:
        Analyzer.get_docstring = original  # type: ignore[method-assign]


def package_schema() -> dict[str, Any]:
    """The Pulumi package schema the host serves (what `pulumi package add` turns into SDKs), offline."""
    import json

    from pulumi.provider.experimental.component import ComponentProvider

    views = _Views()
    hosted = schema_views(views)
    with _field_docs_of_args(views):
        provider = ComponentProvider(hosted, NAME, NAMESPACE, __version__)
    schema: dict[str, Any] = json.loads(provider.schema or "{}")
    return schema


def main() -> None:
    """Entry point of the plugin (PulumiPlugin.yaml): serve the components to the Pulumi engine."""
    from pulumi.provider.experimental import component_provider_host

    views = _Views()
    hosted = schema_views(views)
    with _field_docs_of_args(views):
        component_provider_host(components=hosted, name=NAME, namespace=NAMESPACE, version=__version__)


if __name__ == "__main__":
    main()
