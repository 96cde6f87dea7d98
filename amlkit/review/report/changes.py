"""A plan against deployed state (`--state` / `--base`) in each format, laid out as `pulumi preview --diff`.

Table: one row per resource under its parent with pulumi's markers (`+` create, `~` update, `+-`
replace, `-` delete), the root Stack row first, the property diffs of each changed resource, the
engine's errors, an Outputs section and pulumi's `Resources:` summary. Rows of resources that break
a policy carry `✖ <policy>`. JSON: `steps` shaped like `pulumi preview --json` plus `changeSummary`.
Markdown: destructive changes (replace, delete, a refused step) first. Values are already redacted
by amlkit.review.plan.diff: a secret is `[secret]`, an unknown value `[unknown]`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from rich.text import Text

from amlkit.review.model import StackReview
from amlkit.review.plan.diff import Change, Plan, Step
from amlkit.review.report.resources import settings
from amlkit.review.secrets import REDACTED, UNKNOWN_TEXT

__all__ = [
    "CHANGE_MARKERS", "MARKERS", "STYLES", "SUMMARY_WORDS", "change_summary", "markdown_rows", "render",
    "steps_json", "summary_text", "value_text",
]

MARKERS = {"create": "+ ", "update": "~ ", "replace": "+-", "delete": "- ", "same": "  "}
STYLES = {"create": "green", "update": "yellow", "replace": "magenta", "delete": "red", "same": ""}
CHANGE_MARKERS = {"add": "+", "delete": "-", "update": "~"}
SUMMARY_WORDS = (("create", "to create"), ("update", "to update"), ("replace", "to replace"),
                 ("delete", "to delete"))


def render(stack: StackReview) -> Text:
    """The plan of one stack as a table, then details, errors, outputs and the summary."""
    plan = stack.plan
    assert plan is not None, "a plan is rendered only for a stack that has one"
    rows = list(_rows(plan))
    stack_name = plan.stack_urn.rsplit("::", 1)[-1]
    type_width = max([len("Type"), len("pulumi:pulumi:Stack"), *(len(prefix + s.type) for prefix, s in rows)])
    name_width = max([len("Name"), len(stack_name), *(len(s.name) for _, s in rows)])
    broken = _broken(stack)
    out = Text(f"Plan against {plan.base}:\n", style="bold")
    if plan.azure:
        out.append(f"Azure ids: {plan.azure}\n")
    out.append(f"     {'Type'.ljust(type_width)}  {'Name'.ljust(name_width)}  Plan     Info\n", style="bold")
    out.append(_line(MARKERS[plan.stack_op], "pulumi:pulumi:Stack", type_width, stack_name, name_width,
                     plan.stack_op, ""), style=STYLES[plan.stack_op])
    for prefix, step in rows:
        info = "; ".join(_info(step, stack, broken.get(step.urn, [])))
        out.append(_line(MARKERS[step.op], prefix + step.type, type_width, step.name, name_width, step.op, info),
                   style=STYLES[step.op])
    details = [s for _, s in rows if s.changes or s.not_compared or s.op == "delete"]
    if details:
        out.append("\nChanges:\n", style="bold")
        for step in details:
            _details(out, step)
    if plan.errors:
        out.append("\nErrors (the engine refuses these steps; `pulumi up` would fail):\n", style="bold red")
        for step in plan.errors:
            out.append(f"    {step.type} ({step.name}):\n", style="red")
            first, *rest = (step.error or "").splitlines()
            out.append(f"      error: {first}\n", style="red")
            for line in rest:
                out.append(f"      {line}\n", style="red")
    if plan.outputs:
        out.append("\nOutputs:\n", style="bold")
        width = max(len(c.path) for c in plan.outputs)
        for change in plan.outputs:
            out.append(f"  {_output_line(change, width)}\n", style=STYLES.get(_OUTPUT_OPS[change.kind], ""))
    out.append("\n" + summary_text(plan) + "\n")
    return out


_OUTPUT_OPS = {"add": "create", "delete": "delete", "update": "update", "same": "same"}


def _output_line(change: Change, width: int) -> str:
    marker = " " if change.kind == "same" else CHANGE_MARKERS[change.kind]
    return f"{marker} {change.path.ljust(width)}: {_values_text(change)}"


def summary_text(plan: Plan) -> str:
    """pulumi's summary: `Resources:` then `+ 1 to create` ... and `N changes. M unchanged`."""
    counts = plan.summary()
    lines = ["Resources:"]
    lines += [f"    {MARKERS[op] if op == 'replace' else MARKERS[op].strip() + ' '}{counts[op]} {words}"
              for op, words in SUMMARY_WORDS if counts[op]]
    changes = plan.changes
    if changes and counts["same"]:
        lines.append(f"    {changes} change{'s' if changes != 1 else ''}. {counts['same']} unchanged")
    elif counts["same"]:
        lines.append(f"    {counts['same']} unchanged")
    return "\n".join(lines)


def _line(marker: str, type_: str, type_width: int, name: str, name_width: int, op: str, info: str) -> str:
    shown = op if op != "same" else ""
    text = f" {marker}  {type_.ljust(type_width)}  {name.ljust(name_width)}  {shown.ljust(7)}  {info}"
    return text.rstrip() + "\n"


def _rows(plan: Plan) -> Iterator[tuple[str, Step]]:
    """(tree prefix, step) depth first under the root Stack; children sorted by (type, name)."""
    urns = {s.urn for s in plan.steps}
    children: dict[str | None, list[Step]] = {}
    for s in plan.steps:
        parent = s.parent if s.parent in urns and s.parent != s.urn else None
        children.setdefault(parent, []).append(s)
    for siblings in children.values():
        siblings.sort(key=lambda s: (s.type, s.name, s.urn))

    def walk(parent: str | None, indent: str) -> Iterator[tuple[str, Step]]:
        siblings = children.get(parent, [])
        for i, step in enumerate(siblings):
            last = i == len(siblings) - 1
            yield indent + ("└─ " if last else "├─ "), step
            yield from walk(step.urn, indent + ("   " if last else "│  "))

    yield from walk(None, "")


def _info(step: Step, stack: StackReview, policies: list[str]) -> list[str]:
    found = []
    if step.op in ("update", "replace"):
        marks = " ".join(f"{CHANGE_MARKERS[c.kind]}{c.path}" for c in step.changes)
        found.append(f"[diff: {marks}]")
    if step.aliased_from:
        found.append(f"aliased from {step.aliased_from.split('::', 2)[2]}")
    if step.op == "replace" and step.delete_before_replace:
        found.append("delete before replace")
    if step.op == "create":
        record = next((r for r in stack.resources if r.urn == step.urn), None)
        shown = settings(record, stack.resources) if record else []  # the stack's records: a project's hub
        found += [s for s in shown if s not in ("protect", "retain on delete")]
    if step.protect:
        found.append("protect")
    if step.retain_on_delete:
        found.append("retain on delete (stays in Azure)" if step.op == "delete" else "retain on delete")
    if step.error:
        found.append("REFUSED: protected")
    if step.not_compared:
        found.append(f"{len(step.not_compared)} encrypted secret(s) not compared")
    if policies:
        found.append(f"✖ {policies[0]}" if len(policies) == 1 else f"✖ {len(policies)} policies")
    return found


def _details(out: Text, step: Step) -> None:
    out.append(f"  {MARKERS[step.op].strip() or ' '} {step.type}: ({step.op}) {step.name}\n", style=STYLES[step.op])
    out.append(f"      [urn={step.urn}]\n")
    for change in step.changes:
        out.append(f"    {_change_line(change)}\n", style=STYLES["replace" if change.replace else "update"])
        if change.replace:
            out.append(f"        replaces: {change.replace}\n")
    for path in step.not_compared:
        out.append(f"    ? {path}: [secret] (encrypted in the state: not compared)\n")


def _change_line(change: Change) -> str:
    return f"{CHANGE_MARKERS[change.kind]} {change.path}: {_values_text(change)}"


def _values_text(change: Change) -> str:
    """The new value (added or unchanged), the old one (deleted), or `old => new`."""
    if change.kind in ("same", "add"):
        return value_text(change.new)
    if change.kind == "delete":
        return value_text(change.old)
    return f"{value_text(change.old)} => {value_text(change.new)}"


def value_text(value: Any) -> str:
    """A redacted value as pulumi prints it: strings quoted, `[secret]` and `[unknown]` bare."""
    if value in (REDACTED, UNKNOWN_TEXT):
        return value if value == REDACTED else "output<unknown>"
    return json.dumps(_numbers(value), ensure_ascii=False, sort_keys=True)


def _numbers(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    return value


def _broken(stack: StackReview) -> dict[str, list[str]]:
    """urn -> the policies (mandatory or advisory) a resource breaks."""
    found: dict[str, list[str]] = {}
    for v in stack.violations:
        if v.level in ("mandatory", "advisory") and v.policy not in found.get(v.urn, []):
            found.setdefault(v.urn, []).append(v.policy)
    return found


# --- JSON ----------------------------------------------------------------------------------------------

def steps_json(plan: Plan) -> list[dict[str, Any]]:
    """`steps` as `pulumi preview --json` names them, plus amlkit's why and refusals."""
    return [_step_json(s) for s in plan.steps]


def _step_json(step: Step) -> dict[str, Any]:
    data: dict[str, Any] = {"op": step.op, "urn": step.urn, "type": step.type}
    if step.changes:
        data["diffReasons"] = step.diff_reasons
        data["detailedDiff"] = {
            c.path: {"kind": c.detailed_kind, "inputDiff": True, "old": _numbers(c.old), "new": _numbers(c.new)}
            for c in step.changes
        }
    if step.op == "replace":
        data["replaceReasons"] = step.replace_reasons
        data["replaceWhy"] = {c.path: c.replace for c in step.changes if c.replace}
        data["deleteBeforeReplace"] = step.delete_before_replace
    data["protect"] = step.protect
    data["retainOnDelete"] = step.retain_on_delete
    if step.not_compared:
        data["notCompared"] = list(step.not_compared)
    if step.aliased_from:
        data["aliasedFrom"] = step.aliased_from
    if step.error:
        data["error"] = step.error
    return data


def change_summary(plan: Plan) -> dict[str, int]:
    return {op: n for op, n in plan.summary().items() if n}


# --- Markdown --------------------------------------------------------------------------------------------

def markdown_rows(plan: Plan) -> list[list[str]]:
    """(op, resource, type, why) cells, destructive first: refused, replace, delete; then the rest changed."""
    order = {"replace": 1, "delete": 2, "create": 3, "update": 4}
    changed = [s for s in plan.steps if s.op != "same"]
    changed.sort(key=lambda s: (0 if s.error else order[s.op], s.urn))
    rows = []
    for s in changed:
        why = "; ".join(f"{c.path}: {c.replace}" for c in s.changes if c.replace) if s.op == "replace" else \
            ", ".join(f"{CHANGE_MARKERS[c.kind]}{c.path}" for c in s.changes)
        flags = [f for f, on in (("protected", s.protect), ("retained", s.retain_on_delete)) if on]
        op = ("⛔ " if s.error else "") + s.op + (f" ({', '.join(flags)})" if flags else "")
        refused = "REFUSED by the engine: protected" if s.error else ""
        rows.append([op, s.name, s.type, "; ".join(part for part in (refused, why) if part)])
    return rows
