"""The "field must equal / be in" rules, declared: one field of a view, the value (or a config knob's values) it
must have, and the expectation its message states. Checkov's `BaseResourceValueCheck` (inspected key, expected
value or values) for amlkit's views.

A `ValueCheck` reads the field through a view accessor, so the platform default of an omitted property is the
view's, as everywhere else (`amlkit.policies.azure`). Its finding is the one template:
`<subject> must <expectation>; found <value>.` The value shows as written (booleans lower-case, as ARM spells
them); an omitted one (None) as `none (Azure then uses <default>)` when `default` names Azure's default, else
`none`. Strings compare as ARM enums do, case-insensitively; booleans by identity (0 is not false).

Three ways to run one, each a plain `ResourceCheck` / `StackCheck` for `Rule`:
- `compute_check(kinds, value)`: every compute whose computeType is one of `kinds` (`compute_of`), subject
  `compute_subject`;
- `workspace_check(value)`: every workspace, subject `Workspace '<name>'`;
- `workspace_stack_check(setting, value)`: a workspace setting a project takes from its hub
  (`amlkit.policies.hubs.deciding_workspaces`): the hub decides for its projects, and a project whose hub is
  not in the stack cannot be told. A workspace whose setting is unknown in a preview (an omitted classic
  `high_business_impact` is an output the provider computes) is that workspace's unknown (`workspace 'mlw': HBI
  setting can't be known during preview`), and the other workspaces are judged.

A rule whose judgement needs more than one field, a precondition or an explanation of its own keeps its own
check: this base is for the rules it makes shorter and clearer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from amlkit.policies.azure import (
    ComputeView,
    WorkspaceView,
    compute_of,
    compute_subject,
    read_known,
    same_value,
    workspace_props,
    workspace_view,
)
from amlkit.policies.framework import (
    Finding,
    ResourceCheck,
    ResourceInput,
    StackCheck,
    StackResource,
    as_written,
    cannot_tell,
    must,
)
from amlkit.policies.hubs import deciding_workspaces

__all__ = ["V", "ValueCheck", "compute_check", "workspace_check", "workspace_stack_check"]

V = TypeVar("V")
_UNSET: Any = object()


@dataclass(frozen=True)
class ValueCheck(Generic[V]):
    """One field of a view (`read`) that must equal `equals`, or be one of the values config knob `one_of` lists.

    `expectation` is the message's `must` clause: a text, or (with `one_of`) a function of the allowed values.
    `default` is Azure's default for an omitted field, shown in the message when `read` returns None."""

    read: Callable[[V], Any]
    expectation: str | Callable[[Sequence[Any]], str]
    equals: Any = _UNSET
    one_of: str = ""
    default: Any = None

    def __post_init__(self) -> None:
        if (self.equals is _UNSET) == (not self.one_of):
            raise TypeError("a ValueCheck takes exactly one of equals= and one_of=")

    def allowed(self, config: Mapping[str, Any]) -> list[Any]:
        return [self.equals] if self.one_of == "" else list(config[self.one_of])

    def expecting(self, config: Mapping[str, Any]) -> str:
        """The `must` clause under this config."""
        return self.expectation if isinstance(self.expectation, str) else self.expectation(self.allowed(config))

    def found(self, view: V, config: Mapping[str, Any]) -> str | None:
        """What the message says was found when the field is not as required; None when it is."""
        value = self.read(view)
        if any(_same(value, allowed) for allowed in self.allowed(config)):
            return None
        if value is None:
            return "none" if self.default is None else as_written(None, self.default)
        return as_written(value, None)


def _same(value: Any, expected: Any) -> bool:
    if isinstance(expected, bool):
        return value is expected
    if isinstance(expected, str):
        return same_value(value, expected)
    return not isinstance(value, bool) and value == expected


def compute_check(kinds: tuple[str, ...], value: ValueCheck[ComputeView]) -> ResourceCheck:
    """The resource check of `value` on every compute whose computeType is one of `kinds`."""

    def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
        compute = compute_of(resource.type, resource.props, kinds)
        if compute is None:
            return
        found = value.found(compute, config)
        if found is not None:
            yield Finding(must(compute_subject(resource.name, compute), value.expecting(config), found))

    return check


def workspace_check(value: ValueCheck[WorkspaceView]) -> ResourceCheck:
    """The resource check of `value` on every workspace (a project's own inputs included)."""

    def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
        workspace = workspace_view(resource.type, resource.props)
        if workspace is None:
            return
        found = value.found(workspace, config)
        if found is not None:
            yield Finding(must(f"Workspace '{resource.name}'", value.expecting(config), found))

    return check


def workspace_stack_check(setting: str, value: ValueCheck[WorkspaceView]) -> StackCheck:
    """The stack check of `value` on the workspaces that decide `setting` (a hub for its projects)."""

    def check_stack(resources: Sequence[StackResource], config: Mapping[str, Any]) -> Iterator[Finding]:
        expectation = value.expecting(config)
        for workspace, unknown in deciding_workspaces(resources, setting, expectation):
            if unknown is not None:
                yield unknown
                continue
            props = workspace_props(workspace)
            known, found = read_known(lambda: value.found(props, config))  # noqa: B023 - called at once
            if not known:  # this workspace's verdict is unknown, not the rule's: the others are judged
                reason = f"workspace '{workspace.name}': {setting} can't be known during preview"
                yield cannot_tell(f"Workspace '{workspace.name}'", expectation, reason, workspace.urn)
            elif found is not None:
                yield Finding(must(f"Workspace '{workspace.name}'", expectation, found), workspace.urn)

    return check_stack
