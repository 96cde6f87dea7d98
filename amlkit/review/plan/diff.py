"""The plan: what `pulumi up` would do to each resource, decided as the engine and azure-native would.

Each resource the program registers is compared with the deployed resource of the same URN (from a
`pulumi stack export`, or from the program at a base revision): `create` when there is none, `same`
when the new inputs equal the old `inputs`, `update` when they differ, `replace` when a changed
property cannot change in place. Deployed resources the program no longer registers are `delete`s.

A changed property forces a replacement when (first match gives the reason):
1. it is an ARM path parameter of an azure-native resource (resource group, parent names, the
   resource's own name): azure-native replaces a resource whose id changes;
2. it is `location`: an Azure resource cannot move to another region (azure-native replaces);
3. Azure cannot change it on an existing resource of that kind: `amlkit.azure_facts.REPLACE_ON_CHANGES`
   (the same table the components pass as `replaceOnChanges`), applied to raw `Compute` resources too.
   For AmlCompute, ClusterUpdateParameters carry only scale settings: https://learn.microsoft.com/javascript/api/@azure/arm-machinelearning/clusterupdateparameters;
   an attached Kubernetes, VirtualMachine or SynapseSpark compute changes only by re-attaching
   (everything but tags).
4. the resource's `replaceOnChanges` option names it (or `*`).

As the engine does, replacing a resource that is protected in the state and in the program, or
deleting one protected in the state, is an error (`Step.error`, the engine's own message). Property
values are kept redacted: a secret is `[secret]`, an unknown value `[unknown]`; a secret the state
keeps encrypted cannot be compared and is listed in `Step.not_compared`, never reported as a change.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from amlkit.azure_facts import ATTACHED_KINDS, REPLACE_ON_CHANGES
from amlkit.review.arm import path_parameters, type_key
from amlkit.review.plan.deployed import find_deployed
from amlkit.review.plan.state import ENCRYPTED, StateResource
from amlkit.review.secrets import REDACTED, UNKNOWN, Secrets, is_secret
from amlkit.review.urns import STACK_TYPE

__all__ = [
    "AZURE_PREFIX", "Change", "DESTRUCTIVE", "OPS", "Plan", "REATTACH_SOURCE", "Step", "UPDATABLE_CLUSTER_SOURCE",
    "base_from_records", "compare", "deleted", "make_plan", "output_changes", "planned_op", "replace_reason", "step",
]

OPS = ("create", "update", "replace", "delete", "same")
DESTRUCTIVE = ("replace", "delete")
AZURE_PREFIX = "azure-native:"
UPDATABLE_CLUSTER_SOURCE = (
    "https://learn.microsoft.com/javascript/api/@azure/arm-machinelearning/clusterupdateparameters"
)
REATTACH_SOURCE = "https://learn.microsoft.com/azure/machine-learning/how-to-attach-compute-targets#limitations"
_IDENTIFIER = re.compile(r"^[A-Za-z_$][\w$]*$")


@dataclass(frozen=True)
class Change:
    """One property difference. `old` / `new` are redacted display values; `replace` says why it replaces."""

    path: str
    kind: str  # add | delete | update
    old: Any = None
    new: Any = None
    replace: str | None = None

    @property
    def detailed_kind(self) -> str:
        """pulumi's detailedDiff kind: add, delete, update, or the same with `-replace`."""
        return f"{self.kind}-replace" if self.replace else self.kind


@dataclass(frozen=True)
class Step:
    op: str  # create | update | replace | delete | same
    urn: str
    type: str
    name: str
    parent: str | None = None
    custom: bool = True
    changes: tuple[Change, ...] = ()
    protect: bool = False
    retain_on_delete: bool = False
    delete_before_replace: bool = False
    error: str | None = None  # the engine refuses this step (a protected resource)
    not_compared: tuple[str, ...] = ()  # paths of secrets the state keeps encrypted
    aliased_from: str | None = None  # the deployed URN when found through one of the resource's aliases

    @property
    def diff_reasons(self) -> list[str]:
        return list(dict.fromkeys(_top(c.path) for c in self.changes))

    @property
    def replace_reasons(self) -> list[str]:
        return list(dict.fromkeys(_top(c.path) for c in self.changes if c.replace))

    @property
    def destructive(self) -> bool:
        return self.op in DESTRUCTIVE or self.error is not None


@dataclass(frozen=True)
class Plan:
    """Every step of one stack, and what the plan was made against (`state FILE` or `git REV`)."""

    base: str
    steps: tuple[Step, ...] = ()
    stack_urn: str = ""
    stack_op: str = "same"  # the root Stack: create when the base has none
    outputs: tuple[Change, ...] = ()  # the stack outputs: changed ones with their kind, the rest "same"
    azure: str = ""  # the subscription and tenant the program ran with, and where each came from
    azure_ids: dict[str, Any] | None = None  # the same as {"subscriptionId": {"value", "from"}, "tenantId": ...}

    def summary(self) -> dict[str, int]:
        """Step counts by op, the root Stack row included (as pulumi counts it)."""
        counts = dict.fromkeys(OPS, 0)
        for step in self.steps:
            counts[step.op] += 1
        counts[self.stack_op] += 1
        return counts

    @property
    def errors(self) -> list[Step]:
        return [s for s in self.steps if s.error]

    @property
    def changes(self) -> int:
        return sum(n for op, n in self.summary().items() if op != "same")


def make_plan(records: Sequence[Mapping[str, Any]], base: Iterable[StateResource], label: str,
              stack_urn: str, secrets: Secrets, outputs: Mapping[str, Any] | None = None) -> Plan:
    """The plan of one stack: a step per registration, then a delete per deployed resource left over."""
    deployed = {r.urn: r for r in base if not r.pending_delete}
    declared = {record["urn"] for record in records}
    steps = []
    for record in records:
        old = find_deployed(record, deployed, stack_urn, declared)
        declared.add(old.urn if old else record["urn"])
        steps.append(step(record, old, secrets))
    steps += [deleted(old) for old in deployed.values() if old.urn not in declared and _plannable(old)]
    root = next((r for r in deployed.values() if r.type == STACK_TYPE), None)
    stack_op = "same" if root is not None else "create"
    shown = output_changes(root.outputs if root else {}, dict(outputs or {}), secrets)
    return Plan(label, tuple(sorted(steps, key=lambda s: s.urn)), stack_urn, stack_op, shown)


def output_changes(old: Mapping[str, Any], new: Mapping[str, Any], secrets: Secrets) -> tuple[Change, ...]:
    """Every stack output, by name: add, delete, update, or `same` (values redacted)."""
    found = []
    for name in sorted(set(old) | set(new)):
        changes, _ = compare(old.get(name), new.get(name))
        kind = "same" if not changes else _kind(old.get(name), new.get(name))
        found.append(Change(name, kind, _shown(old.get(name), secrets), _shown(new.get(name), secrets)))
    return tuple(found)


def _plannable(old: StateResource) -> bool:
    """Deployed resources a missing registration deletes: not the root Stack, not the engine's default
    providers (the program never registers those), not `external` (read) resources."""
    if old.type == STACK_TYPE or old.external:
        return False
    return not (old.type.startswith("pulumi:providers:") and old.name.startswith("default"))


def step(record: Mapping[str, Any], old: StateResource | None, secrets: Secrets) -> Step:
    """The step for one registration against its deployed resource (None: not deployed)."""
    options = record.get("options") or {}
    common = {
        "urn": record["urn"], "type": record["type"], "name": record["name"], "parent": record.get("parent"),
        "custom": bool(record.get("custom", True)), "protect": bool(options.get("protect")),
        "retain_on_delete": bool(options.get("retainOnDelete")),
        "delete_before_replace": bool(options.get("deleteBeforeReplace")),
    }
    if old is None:
        return Step("create", **common)
    if old.urn != record["urn"]:
        common["aliased_from"] = old.urn
    found, not_compared = compare(old.inputs, record.get("inputs") or {})
    found = [c for c in found if not _covered(options.get("ignoreChanges") or [], c[0])]
    changes = tuple(
        Change(path, kind, _shown(before, secrets), _shown(after, secrets), replace_reason(record, path))
        for path, kind, before, after in found
    )
    op = "same" if not changes else ("replace" if any(c.replace for c in changes) else "update")
    error = None
    if op == "replace" and old.protect and common["protect"]:
        error = (f'unable to replace resource "{old.urn}"\nas it is currently marked for protection. To unprotect '
                 "the resource, remove the `protect` flag from the resource in your Pulumi program and run `pulumi up`")
    return Step(op, changes=changes, error=error, not_compared=tuple(not_compared), **common)


def deleted(old: StateResource) -> Step:
    error = None
    if old.protect:
        error = (f'unable to delete resource "{old.urn}"\nas it is currently marked for protection. To unprotect the '
                 "resource, either remove the `protect` flag from the resource in your Pulumi program and run "
                 f"`pulumi up` or use the command:\n`pulumi state unprotect '{old.urn}'`")
    return Step("delete", old.urn, old.type, old.name, old.parent, old.custom, protect=old.protect,
                retain_on_delete=old.retain_on_delete, error=error)


# --- property comparison -------------------------------------------------------------------------------

def compare(old: Any, new: Any, path: str = "") -> tuple[list[tuple[str, str, Any, Any]], list[str]]:
    """(changes as (path, kind, old, new), paths not comparable). Keys starting with `__` are the
    engine's bookkeeping, not inputs; secrets compare by value; numbers 3 and 3.0 are equal."""
    changes: list[tuple[str, str, Any, Any]] = []
    not_compared: list[str] = []
    _walk(old, new, path, changes, not_compared)
    return changes, not_compared


def _walk(old: Any, new: Any, path: str, changes: list[tuple[str, str, Any, Any]],
          not_compared: list[str]) -> None:
    if is_secret(old) or is_secret(new):
        before, after = _plain(old), _plain(new)
        if before == ENCRYPTED:
            not_compared.append(path)
        elif not _equal(before, after):
            changes.append((path, _kind(old, new), old, new))
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            if not key.startswith("__"):
                _walk(old.get(key), new.get(key), _join(path, key), changes, not_compared)
        return
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for index, (before, after) in enumerate(zip(old, new, strict=True)):
            _walk(before, after, f"{path}[{index}]", changes, not_compared)
        return
    if not _equal(old, new):
        changes.append((path, _kind(old, new), old, new))


def _plain(value: Any) -> Any:
    return value.get("value") if is_secret(value) else value


def _equal(old: Any, new: Any) -> bool:
    if new == UNKNOWN:  # a known value may change to anything; unknown at both ends (`--base`) is no change
        return bool(old == UNKNOWN)
    if isinstance(old, bool) or isinstance(new, bool):
        return type(old) is type(new) and old == new
    return bool(old == new)


def _kind(old: Any, new: Any) -> str:
    if old is None:
        return "add"
    return "delete" if new is None else "update"


def _join(path: str, key: str) -> str:
    if _IDENTIFIER.match(key):
        return f"{path}.{key}" if path else key
    quoted = key.replace("\\", "\\\\").replace('"', '\\"')
    return f'{path}["{quoted}"]'


def _top(path: str) -> str:
    return re.split(r"[.\[]", path, maxsplit=1)[0] or path


def _covered(patterns: Iterable[str], path: str) -> bool:
    return any(_covers(p, path) for p in patterns)


def _covers(pattern: str, path: str) -> bool:
    """A property path pattern (`a.b`, `a[*]`, `*`) covers the path itself and everything under it."""
    if pattern == "*":
        return True
    regex = re.escape(pattern).replace(r"\*", r"[^.\[\]]+")
    return re.match(rf"^{regex}(?:$|[.\[])", path) is not None


def _shown(value: Any, secrets: Secrets) -> Any:
    """A value fit for a report: secrets `[secret]` (however deep), unknowns `[unknown]`."""
    if is_secret(value):
        return REDACTED
    return secrets.redact(value)


# --- replacement -----------------------------------------------------------------------------------------

def replace_reason(record: Mapping[str, Any], path: str) -> str | None:
    """Why changing `path` replaces the resource, or None when it updates in place."""
    type_ = record["type"]
    top = _top(path)
    if record.get("custom", True) and type_.startswith(AZURE_PREFIX):
        if top in path_parameters(type_):
            return f"{top} is a path parameter of the resource's ARM id: azure-native replaces the resource"
        if top == "location":
            return "an Azure resource cannot move to another region: azure-native replaces the resource"
        reason = _azure_reason(type_, record.get("inputs") or {}, path)
        if reason:
            return reason
    for pattern in (record.get("options") or {}).get("replaceOnChanges") or []:
        if _covers(pattern, path):
            return f"the resource's replaceOnChanges option lists {pattern!r}"
    return None


def _azure_reason(type_token: str, inputs: Mapping[str, Any], path: str) -> str | None:
    """The sourced table of properties Azure cannot change in place, per compute kind."""
    if type_key(type_token) != "machinelearningservices:Compute":
        return None
    properties = _plain(inputs.get("properties"))
    kind = _plain(properties.get("computeType")) if isinstance(properties, dict) else None
    fixed = REPLACE_ON_CHANGES.get(kind or "")
    if fixed is None:
        return None
    for pattern in fixed:
        if _covers(pattern, path):
            source = f" (only scale settings can change: {UPDATABLE_CLUSTER_SOURCE})" if kind == "AmlCompute" else ""
            if kind in ATTACHED_KINDS:
                source = f" (the old attachment is removed first: {REATTACH_SOURCE})"
            return f"Azure cannot change {pattern} of an existing {kind}{source}"
    return None


# --- a base made of the program's own registrations ------------------------------------------------------

def base_from_records(records: Iterable[Mapping[str, Any]], stack_urn: str,
                      outputs: Mapping[str, Any] | None = None) -> list[StateResource]:
    """Deployed resources as a program's registrations at a base revision describe them (for `--base`),
    with the root Stack the engine always has (and the stack outputs the program exported)."""
    return [StateResource(urn=stack_urn, type=STACK_TYPE, custom=False, outputs=dict(outputs or {}))] + [
        StateResource(
            urn=r["urn"], type=r["type"], custom=bool(r.get("custom", True)), parent=r.get("parent"),
            inputs=dict(r.get("inputs") or {}), protect=bool((r.get("options") or {}).get("protect")),
            retain_on_delete=bool((r.get("options") or {}).get("retainOnDelete")),
        )
        for r in records
    ]


def planned_op(record: Mapping[str, Any], old: StateResource) -> str:
    """The plan's own decision for a deployed resource: same, update or replace. The engine answers a `same`
    registration with the deployed outputs (SameStep), an `update` with the provider's preview of the update
    (the old id kept), a `replace` with the provider's preview of a create (amlkit.review.run.statemocks)."""
    return step(record, old, Secrets()).op
