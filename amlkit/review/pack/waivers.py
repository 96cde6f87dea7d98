"""The review's warnings about amlkit's waivers, from the pack's config and what the pack reported.

The pack decides which findings a waiver covers (`amlkit.policies.waivers.apply_waivers`) and says, for each
waived finding, which waiver covered it (`waiver`, carried by the not-applicable contract). So the review can tell
the user about a waiver that waives nothing:

- it names no resource of the stack (by logical name, URN, stack entry or component): usually a typo;
- it names resources but covers no finding of its policy (e.g. a component whose finding is on its `-compute`
  child was named on another policy, or the finding was fixed): it is stale;

and about a waiver that covers a finding but expires within the policy's `waiverExpiryWarningDays`. Each is a
warning in every format (an error under `--strict`).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from amlkit.policies.waivers import VIA, Subject, Waiver, WaiverError, azure_names, parse_waivers, warn_days
from amlkit.review.model import Unknown, Violation
from amlkit.review.pack.config import PolicyConfig

__all__ = ["subjects", "waiver_warnings"]


def subjects(resources: Sequence[Mapping[str, Any]]) -> list[Subject]:
    """What a waiver can name of each recorded registration (the pack builds the same from its requests)."""
    return [Subject(r["urn"], azure_names(r.get("inputs") or {}), r.get("parent") or None) for r in resources]


def waiver_warnings(config: Mapping[str, PolicyConfig], resources: Sequence[Mapping[str, Any]],
                    findings: Sequence[Violation | Unknown], file: str, stack: str, today: date) -> list[str]:
    """A warning per waiver of amlkit's pack config that waives nothing, and per waiver that covers a finding and
    expires within its policy's `waiverExpiryWarningDays` (`findings`: this pack's violations and unknowns)."""
    known = subjects(resources)
    names = sorted({s.urn.rsplit("::", 1)[-1] for s in known})
    warnings: list[str] = []
    for policy, entry in sorted(config.items()):
        try:
            waivers = parse_waivers(policy, (entry.properties or {}).get("waivers"))
        except WaiverError:  # not amlkit's waivers (another pack's setting of that name)
            continue
        mine = [f for f in findings if f.policy == policy]
        for index, waiver in enumerate(waivers):
            where = f"{file}: {policy}.waivers[{index}]: resource {waiver.resource!r}"
            problem = _unused(waiver, known, mine, names, stack, today)
            if problem:
                warnings.append(f"{where} {problem}")
            soon = _expiring(waiver, mine, today, warn_days(entry.properties))
            if soon:
                warnings.append(f"{where} {soon}")
    return warnings


def _unused(waiver: Waiver, known: Sequence[Subject], findings: Sequence[Violation | Unknown], names: list[str],
            stack: str, today: date) -> str | None:
    """Why the waiver waives nothing, or None when it covered a finding (or may have: an unknown of its policy on
    a resource it names hides what the policy would find; an expired one is already told in the violation)."""
    if any(isinstance(f, Violation) and f.level == "waived" and f.waiver == waiver.resource for f in findings):
        return None
    order = list(VIA)  # the resource the waiver names itself first, then by stack entry, then by component
    named = sorted((s for s in known if s.named_by(waiver)), key=lambda s: order.index(s.named_by(waiver) or ""))
    if not named:
        bare = waiver.resource.replace("*", "").replace("?", "")
        close = difflib.get_close_matches(bare, names, n=3, cutoff=0.3)
        return f"matches no resource of stack {stack}" + (f"; closest: {', '.join(close)}" if close else "")
    urns = {s.urn for s in named}
    if any(isinstance(f, Unknown) and f.urn in urns for f in findings):
        return None
    if waiver.expired(today) and any(f.urn in urns for f in findings):
        return None
    shown = named[0].urn.rsplit("::", 1)[-1] + (f" and {len(named) - 1} more" if len(named) > 1 else "")
    return (f"names {shown} but covers no finding of this policy in stack {stack}: it waives nothing (a finding on "
            "a child is covered by naming the child, its stack entry or its component)")


def _expiring(waiver: Waiver, findings: Sequence[Violation | Unknown], today: date, within: int) -> str | None:
    """The warning for a waiver that covers findings and has `within` days or fewer left, else None."""
    left = waiver.days_left(today)
    if left is None or left < 0 or left > within:
        return None
    covered = sorted({f.resource for f in findings
                      if isinstance(f, Violation) and f.level == "waived" and f.waiver == waiver.resource})
    if not covered:
        return None
    return (f"expires on {waiver.expires} (in {left} day(s), within waiverExpiryWarningDays {within}): after it "
            f"the finding(s) on {', '.join(covered)} fail again; fix them or renew the waiver with a reason")
