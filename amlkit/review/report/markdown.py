"""Markdown for pull-request comments: an overview table of the stacks, then per stack a table of its
findings and a collapsible `<details>` section per finding (message, resource, waiver, remediation).

Messages go into fenced code blocks and table cells are escaped, so no finding text can inject
Markdown or HTML into the comment.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping

from amlkit.policies.framework import PACK_NAME
from amlkit.policies.waivers import HOW_TO_WAIVE
from amlkit.review.model import PackInfo, PolicyInfo, Review, StackReview, Unknown, Violation

__all__ = ["ICONS", "MAX_CHARS", "STATES", "TITLE", "render", "render_rules"]

TITLE = "## amlkit policy review"
ICONS = {"mandatory": "❌", "advisory": "⚠️", "waived": "💤", "unknown": "❔"}


MAX_CHARS = 60_000  # GitHub rejects comments over 65,536 characters


class _Budget:
    """Characters left for optional parts (plans, finding rows, details); counts what was left out."""

    def __init__(self, chars: int) -> None:
        self.chars = chars
        self.omitted = 0

    def take(self, text: str) -> bool:
        if len(text) + 2 > self.chars:
            self.omitted += 1
            return False
        self.chars -= len(text) + 2
        return True


def render(review: Review, plans: Mapping[str, str] | None = None, max_chars: int = MAX_CHARS) -> str:
    """The whole comment; `plans` (stack -> plain-text plan) adds a collapsed plan per stack.

    Stays under `max_chars`: the headline, the overview and each stack's state always appear; plans,
    finding rows and details that do not fit are left out, and a closing note says how many.
    """
    stacks = review.ordered_stacks()
    parts = [TITLE, _headline(review), _overview(review)]
    fixed = sum(len(_stack_head(s)) + 300 + len("".join(_lookups(s))) for s in stacks)
    budget = _Budget(max_chars - len("\n\n".join(parts)) - fixed - 300)
    parts += [_stack_section(stack, (plans or {}).get(stack.stack), budget) for stack in stacks]
    if budget.omitted:
        parts.append(f"_{budget.omitted} item(s) left out to keep this comment within GitHub's size limit; "
                     "the JSON and SARIF reports list every finding._")
    return "\n\n".join(parts) + "\n"


def render_rules(pack: PackInfo) -> str:
    rows = [
        [f"`{_code(p.name)}`", _cell(p.ref), _cell(p.since), _cell(p.level), _cell(p.severity),
         "stack" if p.stack_policy else "resource", "yes" if p.remediates else "-", _cell(", ".join(p.tags)),
         _cell(p.description),
         _cell(p.remediation) + (f" ([docs]({_cell(p.url)}))" if p.url else "")]
        for p in sorted(pack.policies, key=lambda p: p.name)
    ]
    header = ["Policy", "Ref", "Since", "Level", "Severity", "Scope", "Remediates", "Tags", "Description",
              "Remediation"]
    waivers = f"\n{HOW_TO_WAIVE}\n" if pack.name == PACK_NAME else ""
    return f"## {_cell(pack.name)}@v{_cell(pack.version)}\n\n{_table(header, rows)}\n{waivers}"


def _headline(review: Review) -> str:
    counts = review.summary()
    stacks = len(review.stacks)
    text = (f"{counts['mandatory']} mandatory, {counts['advisory']} advisory, {counts['waived']} waived, "
            f"{counts['unknown']} unknown across {stacks} stack{'s' if stacks != 1 else ''}")
    if counts["failed"]:
        return f"❌ **Review failed**: {counts['failed']} stack(s) were NOT reviewed. {text}."
    if counts["mandatory"]:
        return f"❌ **Mandatory policy violations**: {text}."
    if counts["advisory"] or counts["unknown"]:
        return f"⚠️ **Passed with warnings**: {text}."
    return f"✅ **Passed**: {text}."


def _overview(review: Review) -> str:
    rows = []
    for s in review.ordered_stacks():
        if s.error:
            state = "❌ config error" if s.error_kind == "config" else "❌ review failed"
            rows.append([_cell(s.stack), _cell(s.environment), state, "-", "-", "-", "-"])
            continue
        rows.append([_cell(s.stack), _cell(s.environment), _state(s), str(s.count("mandatory")),
                     str(s.count("advisory")), str(s.count("waived")), str(len(s.unknown))])
    return _table(["Stack", "Environment", "Result", "Mandatory", "Advisory", "Waived", "Unknown"], rows)


STATES = {"mandatory": "❌ mandatory violations", "warnings": "⚠️ warnings", "passed": "✅ passed"}


def _state(stack: StackReview) -> str:
    return STATES[stack.outcome]


def _stack_head(stack: StackReview) -> str:
    head = (f"### {_cell(stack.stack)}\n\nProject `{_code(stack.project)}`, environment `{_code(stack.environment)}`, "
            f"stack file `{_code(stack.stack_file)}`, policy config `{_code(stack.policy_config)}`.")
    if stack.audited_state is not None:
        head += f" Audit of the deployed state `{_code(stack.audited_state)}` (no program ran)."
    packs = stack.all_packs()
    if len(packs) > 1:
        head += " Packs: " + ", ".join(f"`{_code(p.name)}@v{_code(p.version)}` (policy config "
                                       f"`{_code(p.policy_config or stack.policy_config)}`)" for p in packs) + "."
    return head


def _stack_section(stack: StackReview, plan: str | None, budget: _Budget) -> str:
    parts = [_stack_head(stack)]
    if stack.plan is not None and not stack.error:
        parts.append(_changes(stack, budget))
    if plan is not None and budget.take(plan_part := _details("Plan", _fence(plan))):
        parts.append(plan_part)
    if stack.error:
        what = "Config error" if stack.error_kind == "config" else "Review failed"
        parts.append(f"**{what}, this stack was NOT reviewed:**\n\n" + _fence(stack.error[:2000]))
        return "\n\n".join(parts)
    parts += _remediated(stack, budget)
    violations, unknown = stack.ordered_violations(), stack.ordered_unknown()
    if not violations and not unknown:
        parts.append("No findings.")
        parts += _lookups(stack) + _warnings(stack)
        return "\n\n".join(parts)
    several = len(stack.all_packs()) > 1  # then each finding names its pack
    rows = [[f"{ICONS.get(v.level, '')} {v.level}", _cell(v.severity), f"`{_code(v.policy)}`",
             f"`{_code(v.resource)}`", f"`{_code(v.type)}`", *([f"`{_code(v.pack)}`"] if several else [])]
            for v in violations]
    rows += [[f"{ICONS['unknown']} unknown", "", f"`{_code(u.policy)}`", f"`{_code(u.resource)}`",
              f"`{_code(u.type)}`", *([f"`{_code(u.pack)}`"] if several else [])] for u in unknown]
    parts.append(_table(["Level", "Severity", "Policy", "Resource", "Type", *(["Pack"] if several else [])],
                        [row for row in rows if budget.take(_row(row))]))
    policies = {(pack.name, p.name): p for pack in stack.all_packs() for p in pack.policies}
    details = [_violation_details(v, policies.get((v.pack, v.policy)) or _only_pack(stack, v.policy))
               for v in violations]
    details += [_unknown_details(u) for u in unknown]
    parts += [part for part in details if budget.take(part)]
    parts += _lookups(stack) + _warnings(stack)
    return "\n\n".join(parts)


def _changes(stack: StackReview, budget: _Budget) -> str:
    """The plan's changes, destructive first. Refused, replace and delete rows always appear (a reviewer
    must see each); creates and updates that do not fit the size limit are left out and counted."""
    from amlkit.review.report import changes

    plan = stack.plan
    assert plan is not None, "a plan is rendered only for a stack that has one"
    summary_text = changes.summary_text(plan).replace("\n   ", ",").replace("Resources:,", "Resources:")
    head = f"**Plan** against {_cell(plan.base)}: {_cell(summary_text)}"
    rows = [[_cell(op), f"`{_code(name)}`", f"`{_code(type_)}`", _cell(why)]
            for op, name, type_, why in changes.markdown_rows(plan)]
    rows = [row for row in rows if row[0].startswith(("⛔", "replace", "delete")) or budget.take(_row(row))]
    if not rows:
        return head + "\n\nNo changes."
    return head + "\n\n" + _table(["Change", "Resource", "Type", "Why"], rows)


def _warnings(stack: StackReview) -> list[str]:
    return ["\n".join(f"⚠️ **Warning:** {_cell(warning)}" for warning in stack.warnings)] if stack.warnings else []


def _lookups(stack: StackReview) -> list[str]:
    """The stack's unanswered lookups (always shown, like the stack's state)."""
    lookups = stack.ordered_lookups()
    if not lookups:
        return []
    lines = [f"- `{_code(lookup.text())}`" for lookup in lookups]
    return [f"{ICONS['unknown']} **Lookups not answered offline** (what the program derived from them is "
            "unknown):\n\n" + "\n".join(lines)]


def _only_pack(stack: StackReview, policy: str) -> PolicyInfo | None:
    """A policy of the stack's one pack by name (a finding built without its pack's name)."""
    packs = stack.all_packs()
    return next((p for p in packs[0].policies if p.name == policy), None) if len(packs) == 1 else None


def _violation_details(v: Violation, policy: PolicyInfo | None) -> str:
    lines = [_fence(v.message), "", f"- Resource: `{_code(v.urn)}`", f"- Severity: {v.severity}"]
    if v.level == "waived":
        expiry = f" (expires {v.waiver_expires})" if v.waiver_expires else ""
        by = f"; {_cell(v.waived_by())}" if v.waived_by() else ""
        lines.append(f"- Waived: {_cell(v.waiver_reason or 'no reason given')}{expiry}{by}")
    if policy and policy.remediation:
        lines.append(f"- Remediation: {_cell(policy.remediation)}")
    if policy and policy.url:
        lines.append(f"- Reference: {policy.url}")
    return _details(f"{ICONS.get(v.level, '')} {v.level}: {v.policy} on {v.resource}", "\n".join(lines))


def _remediated(stack: StackReview, budget: _Budget) -> list[str]:
    """What the policies at level remediate set before the analysis (as `pulumi up` sets it), one row per property."""
    if not stack.remediations:
        return []
    rows = [[f"`{_code(r.policy)}`", f"`{_code(r.resource)}`", f"`{_code(r.property)}`",
             f"`{_code(r.text().removeprefix(r.property + ': '))}`"] for r in stack.remediations]
    kept = [row for row in rows if budget.take(_row(row))]
    table = _table(["Policy", "Resource", "Property", "Before -> after"], kept)
    return [f"**Remediated** (level remediate: set before the analysis, as `pulumi up` sets it):\n\n{table}"]


def _unknown_details(u: Unknown) -> str:
    body = "\n".join([_fence(u.message), "", "Not evaluated at preview: this is not a pass.",
                      "", f"- Resource: `{_code(u.urn)}`"])
    return _details(f"{ICONS['unknown']} unknown: {u.policy} on {u.resource}", body)


def _details(summary_text: str, body: str) -> str:
    return f"<details>\n<summary>{html.escape(summary_text)}</summary>\n\n{body}\n\n</details>"


def _fence(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text.rstrip()}\n{fence}"


def _table(header: list[str], rows: list[list[str]]) -> str:
    """Cells are already Markdown (escaped with `_cell` / `_code` by the caller)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += [_row(row) for row in rows]
    return "\n".join(lines)


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


_CODE_SPAN = re.compile(r"(`[^`\n]+`)")


def _cell(text: str) -> str:
    """Plain text safe in a table cell or a line: no HTML, no pipes, no line breaks. Outside `code spans`
    HTML is escaped; inside them it is kept as written (a code span shows `&lt;` literally, and is no HTML)."""
    parts = _CODE_SPAN.split(text)
    escaped = "".join(part if index % 2 else html.escape(part, quote=False) for index, part in enumerate(parts))
    return escaped.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    """Text inside single backticks: no backticks, pipes or line breaks."""
    return text.replace("`", "'").replace("|", "\\|").replace("\n", " ")
