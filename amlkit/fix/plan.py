"""What `amlkit fix` changes for one reviewed stack, and what it only prints.

The set and the values are the pack's remediations: for each live finding (not waived), and each change a policy at
level `remediate` made (the source still has the old value), of amlkit's pack whose rule
has a `fix` (`amlkit.policies.fixes`), the rule's own `fix` is asked, with the stack's effective pack config, what it
sets on the finding's resource, as `amlkit check` with the level `remediate` would set it. Where that resource was
built from the stack file (it descends from amlkit's `Environment` component, which builds every resource from the
stack's `amlkit:` keys), the setting becomes an edit of the stack-file key the rule is about (`Rule.stack_key`,
the key findings are located at: `amlkit.review.report.locate`) in the entry the finding is located at; a tag
becomes a key of `amlkit:tags`, which reaches every resource the component builds. Any other resource was declared
by a program: the change is printed at the program line that declared it, never made.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from amlkit.fix.yamledit import Edit, Key
from amlkit.policies.durations import duration_seconds
from amlkit.policies.framework import PACK_NAME, ResourceInput, Rule
from amlkit.review.model import Remediation, ResourceRecord, StackReview, Violation
from amlkit.review.report.locate import (
    Entry,
    ancestry,
    children_index,
    find_entry_line,
    related_names,
    source_of,
)

__all__ = ["ENVIRONMENT", "SECTIONS", "Change", "EntryAt", "StackFile", "plan_stack", "stack_value"]

ENVIRONMENT = "amlkit:index:Environment"
"""The component that builds a stack's resources from its `amlkit:` keys (components/environment.py)."""
SECTIONS = ("amlkit:clusters", "amlkit:instances")
TAGS = ("config", "amlkit:tags")

STACK_VALUES: Mapping[str, Callable[[Any], Any]] = {
    "minNodeCount": int,
    "remoteLoginPortPublicAccess": lambda value: value == "Enabled",
    "sshPublicAccess": lambda value: value == "Enabled",
    "enableNodePublicIp": bool,
    "disableLocalAuth": lambda value: not value,
    "nodeIdleTimeBeforeScaleDown": lambda value: int(duration_seconds(value)),
    "idleTimeBeforeShutdown": lambda value: int(duration_seconds(value)) // 60,
}
"""A remediated input (its last key) -> the stack-file value of the same setting (amlkit.schema.compute)."""


@dataclass(frozen=True)
class Change:
    """One change for a finding: made in the stack file (`edit`), or only printed (`why_not` says why)."""

    policy: str
    resource: str
    file: str
    line: int
    what: str
    edit: Edit | None = None
    why_not: str = ""

    def text(self) -> str:
        """`file:line: what (policy)`, and why it is not made when it is not."""
        tail = f" (not changed: {self.why_not})" if self.why_not else ""
        return f"{self.file}:{self.line}: {self.what} ({self.policy}, resource {self.resource}){tail}"


@dataclass(frozen=True)
class EntryAt:
    """One entry of `amlkit:clusters` / `amlkit:instances`: where it is, its name and its keys' values."""

    section: str
    index: int
    name: str
    lines: frozenset[int]
    values: Mapping[str, Any]


@dataclass(frozen=True)
class StackFile:
    """What planning reads of a stack file: its path as printed, locate's index of its entries, its clusters and
    instances, and its `amlkit:tags` with the line of that key (1 when it has none)."""

    shown: str
    entries: Mapping[str, Entry]
    entries_at: Sequence[EntryAt]
    tags: Mapping[str, Any]
    tags_line: int = 1


def stack_value(fix_path: Sequence[str], value: Any) -> Any:
    """The stack-file value of a remediated input; KeyError when the stack file has no such setting."""
    return STACK_VALUES[fix_path[-1]](value)


def plan_stack(stack: StackReview, stack_file: StackFile, configs: Mapping[str, Mapping[str, Any]],
               rules: Mapping[str, Rule], shown: Callable[[str], str]) -> list[Change]:
    """Every change for the stack's live findings of rules that fix (see the module doc), one per edit or
    printed change. `configs` is each rule's effective config, `shown` how a program path is printed."""
    by_urn = {record.urn: record for record in stack.resources}
    children = children_index(stack.resources)
    changes: dict[tuple[Any, ...], Change] = {}
    for violation in _live(stack):
        rule = rules.get(violation.policy)
        if violation.pack not in ("", PACK_NAME) or rule is None:
            continue
        chain = ancestry(violation.urn, by_urn)
        if rule.fix is None or not chain:
            continue
        fixes = list(rule.fix(_input(chain[0]), configs[rule.name]))
        if any(record.type == ENVIRONMENT for record in chain):  # built from the stack file
            file = stack_file.shown
            line = find_entry_line(stack_file.entries, chain, rule.stack_key, related_names(chain, children)) or 1
            found = [_stack_change(violation, rule, item.path, item.value, stack_file, line) for item in fixes]
        else:
            file, line = _program_line(chain, stack_file.shown, shown)
            found = [Change(rule.name, violation.resource, file, line, f"set {'.'.join(item.path)} to "
                            f"{json.dumps(item.value)}", why_not="a program file: amlkit fix edits stack files only")
                     for item in fixes]
        if not fixes:
            message = violation.message if isinstance(violation, Violation) else violation.text()
            found = [Change(rule.name, violation.resource, file, line, message,
                            why_not="no safe value: it needs a human choice")]
        for change in found:
            key = (change.edit.path,) if change.edit else (change.file, change.line, change.what, change.why_not)
            changes.setdefault(key, change)
    return list(changes.values())


def _live(stack: StackReview) -> list[Violation | Remediation]:
    """What to fix: the live (not waived) findings, and what a policy at level `remediate` set before the analysis
    (the pack fixes the resource at every deployment; the source still has the old value)."""
    return [*(v for v in stack.ordered_violations() if v.level != "waived"), *stack.remediations]


def _input(record: ResourceRecord) -> ResourceInput:
    return ResourceInput(type=record.type, name=record.name, urn=record.urn, props=record.inputs)


def _program_line(chain: Sequence[ResourceRecord], stack_file: str, shown: Callable[[str], str]) -> tuple[str, int]:
    source = source_of(chain)
    return (shown(source[0]), source[1]) if source else (stack_file, 1)


def _stack_change(violation: Violation | Remediation, rule: Rule, path: Sequence[str], value: Any,
                  stack_file: StackFile, line: int) -> Change:
    """The stack-file edit of one remediated input, or why there is none."""
    if path[0] == "tags" and len(path) == 2:
        return _tag_change(violation, rule, path[1], value, stack_file)
    file = stack_file.shown
    key = rule.stack_key or None
    entry = next((entry for entry in stack_file.entries_at if line in entry.lines), None)
    where = f"{entry.section}[{entry.name}].{key}" if entry and key else ".".join(path)
    try:
        new = stack_value(path, value)
    except (KeyError, ValueError, TypeError):
        return Change(rule.name, violation.resource, file, line, f"set {'.'.join(path)} to {json.dumps(value)}",
                      why_not="the stack file has no key for it")
    what = f"{where}: {_show(entry.values.get(key) if entry and key else None)} -> {_show(new)}"
    if key is None:
        return Change(rule.name, violation.resource, file, line, what, why_not="the rule names no stack-file key")
    if entry is None:
        return Change(rule.name, violation.resource, file, line, what,
                      why_not="no entry of amlkit:clusters or amlkit:instances is about the resource")
    if key in entry.values and entry.values[key] == new and type(entry.values[key]) is type(new):
        return Change(rule.name, violation.resource, file, line, what,
                      why_not="the key already has that value: the finding needs a human choice")
    path_to: tuple[Key, ...] = ("config", entry.section, entry.index, key)
    return Change(rule.name, violation.resource, file, line, what, edit=Edit(path_to, new))


def _tag_change(violation: Violation | Remediation, rule: Rule, tag: str, value: Any, stack_file: StackFile) -> Change:
    """A missing required tag goes into `amlkit:tags` (under the spelling it already has there)."""
    file, line, tags = stack_file.shown, stack_file.tags_line, stack_file.tags
    spelling = next((key for key in tags if str(key).lower() == tag.lower()), tag)
    current = tags.get(spelling)
    what = f"amlkit:tags.{spelling}: {_show(current)} -> {_show(value)}"
    if current is not None and str(current).strip():
        return Change(rule.name, violation.resource, file, line, what,
                      why_not="amlkit:tags already sets it: an entry's own tags override it")
    return Change(rule.name, violation.resource, file, line, what, edit=Edit((*TAGS, spelling), value))


def _show(value: Any) -> str:
    if value is None:
        return "(unset)"
    return json.dumps(value) if isinstance(value, (bool, str)) else str(value)
