"""What a component exposes: its annotated Output attributes, set and registered in one call.

A component class annotates the Outputs it exposes (`compute_id: pulumi.Output[str]`); docs/components.md
lists them and the provider's schema offers them to other languages. `expose` sets them and passes
exactly them to `register_outputs`, so what a component registers cannot drift from what it exposes.
"""

from __future__ import annotations

import inspect
from typing import Any

import pulumi

__all__ = ["expose", "exposed", "principal_id"]


def exposed(component_type: type) -> list[str]:
    """The public attributes a component class annotates, in declaration order."""
    return [name for name in inspect.get_annotations(component_type) if not name.startswith("_")]


def expose(component: pulumi.ComponentResource, **outputs: pulumi.Input[Any]) -> None:
    """Set each output as an attribute of the component and register exactly them.

    The names must be the class's annotated attributes: one missing or one more is a TypeError (a bug
    in the component, never a user's mistake).
    """
    declared = exposed(type(component))
    if sorted(outputs) != sorted(declared):
        raise TypeError(f"{type(component).__name__} exposes {declared}, not {list(outputs)}")
    for name, value in outputs.items():
        setattr(component, name, value)
    component.register_outputs(outputs)


def principal_id(resource: Any) -> pulumi.Output[str | None]:
    """The principal id of a resource's system-assigned identity; None without one."""
    principal: pulumi.Output[str | None] = resource.identity.apply(
        lambda identity: identity.principal_id if identity else None)
    return principal
