"""The human report, laid out like the Policies section of `pulumi preview --policy-pack`.

Renderers return `rich.text.Text`: `.plain` is the exact text (files, pipes, tests); printing it with
a rich Console adds colour only on a terminal and never under NO_COLOR.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text

from amlkit.policies.framework import PACK_NAME
from amlkit.policies.waivers import HOW_TO_WAIVE
from amlkit.review.model import (
    PACK_DEFAULTS,
    PackInfo,
    PolicyInfo,
    Remediation,
    Review,
    StackReview,
    Unknown,
    Violation,
)

__all__ = [
    "INDENT", "LOOKUPS_HEADING", "PACK_STATES", "PackSource", "STYLES", "failure_kind", "outcome", "pack_label",
    "render", "render_policies", "render_rules", "source_of", "stack_header", "summary_line",
]

INDENT = "    "
PackSource = str | Mapping[str, str]  # one label for every pack, or one per pack name
STYLES = {"mandatory": "bold red", "advisory": "yellow", "waived": "dim", "unknown": "cyan", "error": "bold red"}


def render(review: Review, pack_source: PackSource = "", plans: dict[str, Text] | None = None) -> Text:
    """Every stack (sorted), each with its plan when `plans` has one, then the overall summary line.
    `pack_source` names where each pack was loaded from: one label (every pack) or one per pack name."""
    out = Text()
    for stack in review.ordered_stacks():
        out.append(stack_header(stack) + "\n\n", style="bold")
        if stack.audited_state is not None:
            out.append(f"Audit of the deployed state {stack.audited_state} (no program ran; every resource "
                       "as deployed)\n\n")
        if plans and stack.stack in plans:
            out.append_text(plans[stack.stack])
            out.append("\n")
        out.append_text(render_policies(stack, pack_source))
        out.append("\n")
    out.append(summary_line(review) + "\n", style="bold")
    return out


def stack_header(stack: StackReview) -> str:
    """`Stack <name> (project <p>, environment <e>, <file>)`, naming only what is known: a state file that could
    not be read is `State <file> (not read)`, never a header with empty fields."""
    if stack.audited_state and not stack.project:
        return f"State {stack.audited_state} (not read)"
    fields = [f"project {stack.project}" if stack.project else "",
              f"environment {stack.environment}" if stack.environment else "",
              stack.stack_file if stack.stack_file != stack.stack else ""]
    known = ", ".join(field for field in fields if field)
    return f"Stack {stack.stack}" + (f" ({known})" if known else "")


def render_policies(stack: StackReview, pack_source: PackSource = "") -> Text:
    """The `Policies:` section of one stack: per pack, as pulumi groups it, its verdict and findings."""
    out = Text("Policies:\n")
    if stack.error or stack.pack is None:
        reason = stack.error or "no policy pack result"
        out.append(f"{INDENT}❌ review failed: {reason}\n", style=STYLES["error"])
        out.append(f"{INDENT}{failure_kind(stack)}: this stack was NOT reviewed.\n", style=STYLES["error"])
        return out
    packs = stack.all_packs()
    ordered, unknown = stack.ordered_violations(), stack.ordered_unknown()
    for pack in packs:
        if len(packs) > 1:
            mine = [v for v in ordered if v.pack == pack.name]
            mine_unknown = [u for u in unknown if u.pack == pack.name]
            config = pack.policy_config or PACK_DEFAULTS
        else:  # one pack: every finding is its own
            mine, mine_unknown, config = ordered, unknown, stack.policy_config
        label = pack_label(pack, source_of(pack_source, pack))
        out.append(f"{INDENT}{PACK_STATES[outcome(mine, mine_unknown)]} {label}\n")
        out.append(f"{INDENT}Policy config: {config}\n")
        _remediations(out, [r for r in stack.remediations if r.pack == pack.name or len(packs) == 1])
        _findings(out, mine, mine_unknown)
    _lookups(out, stack)
    for warning in stack.warnings:
        out.append(f"{INDENT}⚠ warning: {warning}\n", style=STYLES["unknown"])
    counts = _counts(stack.count("mandatory"), stack.count("advisory"), stack.count("waived"), len(unknown))
    remediated = f", {len(stack.remediations)} remediated" if stack.remediations else ""
    out.append(f"{INDENT}{counts}{remediated}\n")
    return out


def _findings(out: Text, ordered: list[Violation], unknown: list[Unknown]) -> None:
    for v in ordered:
        if v.level != "waived":
            _violation(out, v)
    waived = [v for v in ordered if v.level == "waived"]
    if waived:
        out.append(f"{INDENT}Waived:\n", style=STYLES["waived"])
        for v in waived:
            _violation(out, v)
    if unknown:
        out.append(f"{INDENT}Unknown at preview (not a pass):\n", style=STYLES["unknown"])
        for u in unknown:
            _unknown(out, u)


def outcome(violations: list[Violation], unknown: list[Unknown]) -> str:
    """A pack's verdict on its findings: mandatory, warnings (advisory or unknown) or passed."""
    if any(v.level == "mandatory" for v in violations):
        return "mandatory"
    if any(v.level == "advisory" for v in violations) or unknown:
        return "warnings"
    return "passed"


def source_of(pack_source: PackSource, pack: PackInfo) -> str:
    """Where a pack was loaded from, as the pack line names it."""
    if isinstance(pack_source, str):
        return pack_source
    return pack_source.get(pack.name, "")


def failure_kind(stack: StackReview) -> str:
    """What kind of failure kept a stack from being reviewed, in words."""
    if stack.error_kind == "config":
        return "A config error (fix the file and key named above)"
    return "The program or the policy pack failed"


def pack_label(pack: PackInfo, pack_source: str = "") -> str:
    """`amlkit-guardrails@v0.2.0 (local: policies)`, as pulumi prints a local pack."""
    where = f" (local: {pack_source})" if pack_source else ""
    return f"{pack.name}@v{pack.version}{where}"


def summary_line(review: Review) -> str:
    counts = review.summary()
    stacks = len(review.stacks)
    text = f"Summary: {stacks} stack{'s' if stacks != 1 else ''}, " + _counts(
        counts["mandatory"], counts["advisory"], counts["waived"], counts["unknown"]
    )
    if counts["failed"]:
        text += f"; {counts['failed']} FAILED and NOT reviewed"
    return text


def render_rules(pack: PackInfo, pack_source: str = "") -> Text:
    """`amlkit rules`: every policy with its effective level, severity, description, remediation."""
    policies = sorted(pack.policies, key=lambda p: p.name)
    levels = {level: sum(1 for p in policies if p.level == level)
              for level in ("mandatory", "advisory", "disabled", "remediate")}
    remediate = f", {levels['remediate']} remediate" if levels["remediate"] else ""
    out = Text(f"{pack_label(pack, pack_source)}: {len(policies)} policies "
               f"({levels['mandatory']} mandatory, {levels['advisory']} advisory, {levels['disabled']} disabled"
               f"{remediate})\n", style="bold")
    for policy in policies:
        out.append("\n")
        _rule(out, policy)
    if pack.name == PACK_NAME:
        out.append("\n")
        _indented(out, HOW_TO_WAIVE, "")
    return out


def _rule(out: Text, policy: PolicyInfo) -> None:
    kind = "stack" if policy.stack_policy else "resource"
    ref = f"  {policy.ref}" if policy.ref else ""
    since = f" [since {policy.since}]" if policy.since else ""
    since += " [remediates]" if policy.remediates else ""
    out.append(f"{policy.name}{ref}  [{policy.level}] [severity: {policy.severity}] [{kind}]{since}\n",
               style=STYLES.get(policy.level, "dim"))
    title = f"{policy.display_name}: " if policy.display_name else ""
    out.append(f"{INDENT}{title}{policy.description}\n")
    if policy.remediation:
        _indented(out, "Remediation: " + policy.remediation, INDENT)
    if policy.tags:
        out.append(f"{INDENT}Tags: {', '.join(policy.tags)}\n")
    if policy.framework:
        name, version, reference, specification = policy.framework
        out.append(f"{INDENT}Compliance: {name} {version} {reference} ({specification})\n")
    if policy.url:
        out.append(f"{INDENT}More: {policy.url}\n")


PACK_STATES = {"mandatory": "❌", "warnings": "⚠️", "passed": "✅"}


def _violation(out: Text, v: Violation) -> None:
    style = STYLES.get(v.level, "")
    out.append(f"{INDENT * 2}- [{v.level}] [severity: {v.severity}]  {v.policy}  ({v.type}: {v.resource})\n",
               style=style)
    if v.level == "waived":
        expiry = f" (expires {v.waiver_expires})" if v.waiver_expires else ""
        _indented(out, f"reason: {v.waiver_reason or 'none given'}{expiry}", INDENT * 2 + "  ")
        if v.waived_by():
            _indented(out, v.waived_by(), INDENT * 2 + "  ")
    _indented(out, v.message, INDENT * 2 + "  ")


def _remediations(out: Text, remediations: list[Remediation]) -> None:
    """What the pack's policies at level remediate set before the analysis, first (they happen first), one line per
    changed property, as `pulumi preview --policy-pack` lists them (`[remediate]  <policy>  (<type>: <name>)`)."""
    if remediations:
        out.append(f"{INDENT}Remediated (set before the analysis, as `pulumi up` sets them):\n")
    for r in remediations:
        out.append(f"{INDENT * 2}- [remediate]  {r.policy}  ({r.type}: {r.resource})\n")
        _indented(out, r.text(), INDENT * 2 + "  ")


def _unknown(out: Text, u: Unknown) -> None:
    out.append(f"{INDENT * 2}- {u.policy}  ({u.type}: {u.resource})\n", style=STYLES["unknown"])
    _indented(out, u.message, INDENT * 2 + "  ")


LOOKUPS_HEADING = "Lookups not answered offline (what the program derived from them is unknown):"


def _lookups(out: Text, stack: StackReview) -> None:
    lookups = stack.ordered_lookups()
    if lookups:
        out.append(f"{INDENT}{LOOKUPS_HEADING}\n", style=STYLES["unknown"])
        for lookup in lookups:
            out.append(f"{INDENT * 2}- {lookup.text()}\n", style=STYLES["unknown"])


def _indented(out: Text, text: str, prefix: str) -> None:
    for line in text.splitlines() or [""]:
        out.append(f"{prefix}{line}\n")


def _counts(mandatory: int, advisory: int, waived: int, unknown: int) -> str:
    return f"{mandatory} mandatory, {advisory} advisory, {waived} waived, {unknown} unknown"

