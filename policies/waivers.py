"""Waivers: a reason to accept one rule's findings on named resources, shared by every rule and carried from the
pack to the offline review (the not-applicable contract, `describe_waived` / `parse_waived`).

A waiver names a resource, the stack entry it was built from or the component that contains it (`Subject`); the
pack decides which findings it covers (`apply_waivers`), so `pulumi preview --policy-pack` and `amlkit check` agree.
"""

from __future__ import annotations

import difflib
import fnmatch
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from amlkit.policies.framework import Finding, from_wire, urn_name

__all__ = [
    "ANALYZED_NAMES",
    "AZURE_NAME_INPUTS", "HOW_TO_WAIVE", "Subject", "VIA", "WAIVER_CONTRACT", "WAIVER_CONTRACT_VERSION", "WAIVER_KEYS",
    "WAIVER_SCHEMA", "WARN_DAYS", "WARN_DAYS_SCHEMA", "Waived", "Waiver", "WaiverContractError", "WaiverError",
    "apply_waivers", "azure_names", "describe_waived", "edge_schema", "parse_waived", "parse_waivers", "warn_days",
]

# The contract between the pack and the offline review for waived findings (see `describe_waived`).
WAIVER_CONTRACT = "amlkit-waivers"
WAIVER_CONTRACT_VERSION = 2

WAIVER_SCHEMA: dict[str, Any] = {
    "type": "array",
    "description": "Findings to waive: each names a resource (logical name, URN or glob), the stack entry it was "
    "built from (its Azure name, e.g. aks-batch) or the component that contains it (e.g. prod-attached-aks-batch), "
    "a reason and optionally an expiry date (YYYY-MM-DD, inclusive).",
    "items": {
        "type": "object",
        "properties": {
            "resource": {"type": "string", "minLength": 1},
            "reason": {"type": "string", "minLength": 1},
            "expires": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
        },
        "required": ["resource", "reason"],
        "additionalProperties": False,
    },
    "default": [],
}


WARN_DAYS = "waiverExpiryWarningDays"
WARN_DAYS_SCHEMA: dict[str, Any] = {
    "type": "integer",
    "minimum": 0,
    "description": "A waiver that covers a finding and expires within this many days is a warning.",
    "default": 14,
}


def edge_schema() -> dict[str, dict[str, Any]]:
    """The settings every rule takes besides its own knobs, added at the edge: `waivers` and `WARN_DAYS`."""
    return {"waivers": dict(WAIVER_SCHEMA), WARN_DAYS: dict(WARN_DAYS_SCHEMA)}


def warn_days(config: Mapping[str, Any] | None) -> int:
    """The policy's `waiverExpiryWarningDays` as the engine delivers it (a float on the wire), else its default."""
    value = from_wire((config or {}).get(WARN_DAYS, WARN_DAYS_SCHEMA["default"]))
    return value if isinstance(value, int) and not isinstance(value, bool) else int(WARN_DAYS_SCHEMA["default"])


class WaiverError(ValueError):
    """A waiver in the pack config is malformed. The policy fails (closed) rather than guess; the offline
    review reports it as a config error naming the file and `key_path`."""

    def __init__(self, key_path: str, problem: str, value: Any = None) -> None:
        self.key_path, self.problem, self.value = key_path, problem, value
        super().__init__(f"{key_path}: {problem}")


@dataclass(frozen=True)
class Waiver:
    resource: str
    reason: str
    expires: date | None = None

    def matches(self, name: str, urn: str | None) -> bool:
        return fnmatch.fnmatchcase(name, self.resource) or (
            urn is not None and fnmatch.fnmatchcase(urn, self.resource)
        )

    def expired(self, today: date) -> bool:
        return self.expires is not None and today > self.expires

    def days_left(self, today: date) -> int | None:
        """Days until the expiry (0 on its last day), None without one."""
        return None if self.expires is None else (self.expires - today).days


AZURE_NAME_INPUTS = ("computeName", "workspaceName")
"""The inputs that carry a resource's Azure name: the `name` of the stack entry it was built from."""


@dataclass(frozen=True)
class Subject:
    """What a waiver may name about the resource a finding is on: the resource itself (logical name or URN), its
    stack entry (the Azure name the entry gives it, `computeName` / `workspaceName`: `aks-batch`), or the component
    that contains it (its parent's logical name or URN: `prod-attached-aks-batch`). The pack sees a resource's
    parent, not its grandparents, so these three are what a waiver can name on both paths."""

    urn: str
    azure_names: tuple[str, ...] = ()
    parent: str | None = None

    def named_by(self, waiver: Waiver) -> str | None:
        """How `waiver` names this resource: `resource`, `entry` or `component`; None when it does not."""
        if waiver.matches(urn_name(self.urn), self.urn):
            return "resource"
        if any(fnmatch.fnmatchcase(name, waiver.resource) for name in self.azure_names):
            return "entry"
        if self.parent and "::pulumi:pulumi:Stack::" not in self.parent and waiver.matches(
                urn_name(self.parent), self.parent):
            return "component"
        return None


ANALYZED_NAMES: dict[str, tuple[str, ...]] = {}
"""The Azure names each resource's Analyze request gave (`computeName`, `workspaceName`), by URN. The engine sends
AnalyzeStack outputs, which lack those inputs (and a created resource's `name` output is unknown in a preview), but
it sends every resource's Analyze to this same pack process first: so a waiver naming a stack entry still covers
a stack finding on the resource that entry built, on the CLI's path and the offline one alike. Filled once per
resource by the pack's resource policies, emptied by each Configure (the start of a stack's review), so a reused
pack neither grows it across stacks nor keeps a name a later run of the stack changed."""


def azure_names(props: Mapping[str, Any]) -> tuple[str, ...]:
    """The resource's Azure name inputs that are known strings (an unknown one names nothing yet)."""
    names = []
    for key in AZURE_NAME_INPUTS:
        try:
            value = props.get(key)
        except Exception:  # noqa: BLE001 - pulumi-policy's proxy raises UnknownValueError on an unknown value
            continue
        if isinstance(value, str) and value:
            names.append(value)
    return tuple(names)


def parse_waivers(policy: str, raw: Any) -> list[Waiver]:
    """Waivers from a rule's config; malformed entries raise `WaiverError` naming the key path."""
    if raw in (None, []):
        return []
    if not isinstance(raw, list):
        raise WaiverError(f"{policy}.waivers", f"expected a list of waivers, got {type(raw).__name__}", raw)
    return [_parse_waiver(f"{policy}.waivers[{index}]", entry) for index, entry in enumerate(raw)]


WAIVER_KEYS = ("resource", "reason", "expires")
HOW_TO_WAIVE = (
    "Waivers: every policy also takes `waivers`, a list of {resource, reason, expires (YYYY-MM-DD, optional)}; "
    "`resource` names a resource (logical name, URN or glob), its stack entry (e.g. aks-batch: the resource that "
    "entry names in Azure) or its component (e.g. prod-attached-aks-batch: every resource it directly contains). "
    "A waiver that waives nothing is a warning (an error with --strict), and so is one that expires within the "
    "policy's `waiverExpiryWarningDays` (default 14). See docs/waivers.md."
)
"""How amlkit's pack takes waivers, as `amlkit rules` prints it under the policies."""


def _parse_waiver(path: str, entry: Any) -> Waiver:
    if not isinstance(entry, Mapping):
        raise WaiverError(path, "expected an object with resource, reason and optional expires", entry)
    unknown = sorted(set(entry) - set(WAIVER_KEYS))
    if unknown:
        raise WaiverError(f"{path}.{unknown[0]}", f"unknown key{_closest(unknown[0], WAIVER_KEYS)}; allowed: "
                          f"{', '.join(WAIVER_KEYS)}")
    for key in ("resource", "reason"):
        if not isinstance(entry.get(key), str) or not entry[key].strip():
            raise WaiverError(f"{path}.{key}", "required, a non-empty string", entry.get(key))
    expires = entry.get("expires")
    if expires is None:
        return Waiver(entry["resource"], entry["reason"])
    try:
        return Waiver(entry["resource"], entry["reason"], date.fromisoformat(str(expires)))
    except ValueError:
        shown = repr(expires) if len(repr(expires)) <= 80 else repr(str(expires)[:77] + "...")
        raise WaiverError(f"{path}.expires", f"{shown} is not a date (YYYY-MM-DD)", expires) from None


def _closest(word: str, known: Sequence[str]) -> str:
    matches = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean {matches[0]!r}?)" if matches else ""


VIA = {"resource": "", "entry": "its stack entry", "component": "its component"}
"""How a waiver named the resource it covered (`Subject.named_by`), as readable text."""


@dataclass(frozen=True)
class Waived:
    """A finding a waiver covers: reported as waived, with the waiver's reason, never as a pass. `via` says how
    the waiver named the resource (`Subject.named_by`); `soon` is the days left when within the warning window."""

    urn: str
    finding: Finding
    waiver: Waiver
    via: str = "resource"
    soon: int | None = None

    def describe(self) -> str:
        """One readable line (for `pulumi preview`): not the contract, which `describe_waived` adds."""
        expiry = self.waiver.expires.isoformat() if self.waiver.expires else "never"
        if self.soon is not None:
            expiry += f", in {self.soon} day(s)"
        by = f" (by the waiver for {VIA[self.via]} {self.waiver.resource})" if self.via != "resource" else ""
        return f"waived on {urn_name(self.urn)}{by}: {_one_line(self.waiver.reason)} (expires {expiry})"

    def entry(self) -> dict[str, str | None]:
        return {"urn": self.urn, "reason": self.waiver.reason,
                "expires": self.waiver.expires.isoformat() if self.waiver.expires else None,
                "message": self.finding.message, "waiver": self.waiver.resource, "via": self.via}


class WaiverContractError(ValueError):
    """A not-applicable reason that claims to carry waivers but cannot be read: the review fails closed."""


def describe_waived(waived: Sequence[Waived]) -> str:
    """The not-applicable reason for waived findings: readable lines, then ONE contract line.

    The last line is `amlkit-waivers/v2 <JSON>`, the JSON being `{"version": 2, "waived": [{"urn", "reason",
    "expires" (YYYY-MM-DD or null), "message", "waiver" (the waiver's `resource` as written), "via" (`resource`,
    `entry` or `component`: how it named the resource)}]}` in ASCII (every other character escaped), so any reason or
    message (`|`, quotes, newlines, unicode) round-trips exactly and the line never breaks. The readable
    lines above it are for people (`pulumi preview`) and are never parsed.
    """
    payload = {"version": WAIVER_CONTRACT_VERSION, "waived": [w.entry() for w in waived]}
    contract = f"{WAIVER_CONTRACT}/v{WAIVER_CONTRACT_VERSION} " + json.dumps(payload, separators=(",", ":"))
    return "\n".join([*(w.describe() for w in waived), contract])


def parse_waived(text: str) -> list[dict[str, str | None]]:
    """The waived findings of a not-applicable reason written by `describe_waived` (the offline review
    reads them back). A reason without the contract line is not a waiver: []. A contract line of another
    version, or one that does not parse, raises WaiverContractError (never read as "nothing waived")."""
    last = text.rsplit("\n", 1)[-1]
    if not last.startswith(f"{WAIVER_CONTRACT}/"):
        return []
    tag, _, body = last.partition(" ")
    if tag != f"{WAIVER_CONTRACT}/v{WAIVER_CONTRACT_VERSION}":
        raise WaiverContractError(f"waived findings in format {tag!r}; this amlkit reads "
                                  f"{WAIVER_CONTRACT}/v{WAIVER_CONTRACT_VERSION} (use the same amlkit version for "
                                  "the pack and the review)")
    try:
        data = json.loads(body)
        entries = data["waived"]
        if data.get("version") != WAIVER_CONTRACT_VERSION or not isinstance(entries, list):
            raise ValueError("unexpected shape")
        return [_waived_entry(entry) for entry in entries]
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise WaiverContractError(f"unreadable waived findings ({error}): {last[:200]}") from None


def _waived_entry(entry: Any) -> dict[str, str | None]:
    keys = ("urn", "reason", "expires", "message", "waiver", "via")
    if not isinstance(entry, dict) or set(entry) != set(keys):
        raise ValueError(f"expected an object with {', '.join(keys)}")
    for key in keys:
        if not isinstance(entry[key], str) and not (key == "expires" and entry[key] is None):
            raise ValueError(f"{key} must be a string")
    if entry["via"] not in VIA:
        raise ValueError(f"via must be one of {', '.join(VIA)}")
    return {key: entry[key] for key in keys}


def _one_line(text: str) -> str:
    return " ".join(text.split())


def apply_waivers(
    findings: Iterable[Finding],
    waivers: Sequence[Waiver],
    subject_of: Callable[[str], Subject],
    default_urn: str,
    today: date,
    warn_within: int = WARN_DAYS_SCHEMA["default"],
) -> tuple[list[Finding], list[Waived]]:
    """Split findings into the ones still reported and the ones a live waiver covers (the first live waiver that
    names the finding's resource, its stack entry or its component: `Subject.named_by`).

    A finding whose only matching waiver has expired stays reported, and says so. A waiver with `warn_within` days
    or fewer left marks its waived findings `soon`.
    """
    active: list[Finding] = []
    waived: list[Waived] = []
    for finding in findings:
        urn = finding.urn or default_urn
        subject = subject_of(urn)
        named = [(w, via) for w in waivers if (via := subject.named_by(w)) is not None]
        matching = [w for w, _ in named]
        live = [(w, via) for w, via in named if not w.expired(today)]
        if live:
            waiver, via = live[0]
            left = waiver.days_left(today)
            waived.append(Waived(urn, finding, waiver, via, left if left is not None and left <= warn_within else None))
        elif matching:
            expired = matching[0]
            note = f" (waiver expired on {expired.expires}: {expired.reason})"
            active.append(Finding(finding.message + note, finding.urn))
        else:
            active.append(finding)
    return active, waived
