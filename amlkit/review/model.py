"""What one review produces, and the one order every report shows it in. The engine builds it (frozen); the report
formats only read it (in the order the `ordered_*` methods give).

The JSON format is `asdict`-shaped from these classes (see amlkit.review.report.json), so renaming a
field here is a breaking change of the documented JSON output.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from amlkit.policies.framework import Equivalent

if TYPE_CHECKING:  # the plan's module is the plan layer's; a review without a plan never loads it
    from amlkit.review.plan.diff import Plan

__all__ = [
    "LEVEL_ORDER", "ErrorKind", "Level", "Lookup", "NAME_INPUTS", "PACK_DEFAULTS", "PackInfo", "PolicyInfo",
    "Remediation", "ResourceRecord", "Review", "Severity", "StackReview", "Unknown", "Violation",
]

Level = Literal["mandatory", "advisory", "waived"]
# a policy's severity as the analyzer protocol's PolicySeverity names it; "unspecified" when the pack set none
Severity = Literal["low", "medium", "high", "critical", "unspecified"]
# why a stack was not reviewed: "config" (stack file, policy config or component argument: exit 2), "program",
# "pack" or "internal" (an unexpected error of the review itself) (exit 3)
ErrorKind = Literal["config", "program", "pack", "internal"]
PACK_DEFAULTS = "pack defaults"  # what a stack reviewed without a policy pack config file is told
LEVEL_ORDER = {"mandatory": 0, "advisory": 1, "waived": 2}  # violations in reports: mandatory first
# the inputs that hold a resource's Azure name: what a report reads to place a finding on its stack-file entry
# (amlkit.review.report.locate), and all of a resource's inputs a state audit or a shard file keeps
NAME_INPUTS = ("computeName", "workspaceName")


@dataclass(frozen=True)
class PolicyInfo:
    """One policy as the pack describes it (GetAnalyzerInfo) after config reconciliation: all the reports know of a
    policy, for amlkit's pack and another pack alike (the reports import no rule)."""

    name: str
    description: str
    level: str  # effective level: mandatory | advisory | disabled
    severity: Severity
    remediation: str = ""
    url: str = ""
    tags: tuple[str, ...] = ()
    stack_policy: bool = False
    display_name: str = ""
    framework: tuple[str, str, str, str] | None = None  # (name, version, reference, specification)
    ref: str = ""  # the rule's stable opaque reference (AMLK-0001) when it is one of amlkit's rules
    group: str = ""  # the rule's group (compute, locks, workspace, general) when it is one of amlkit's rules
    equivalents: tuple[Equivalent, ...] = ()  # peer tools' checks of the same fact, for amlkit's rules
    since: str = ""  # the amlkit release the rule arrived in, for amlkit's rules (rule baselines read it)
    remediates: bool = False  # amlkit's rule has a fix its level `remediate` sets (amlkit.policies.fixes)
    stack_key: str = ""  # the stack-file key a finding points at (an amlkit rule's `stack_key`), else its entry


@dataclass(frozen=True)
class PackInfo:
    name: str
    version: str
    policies: tuple[PolicyInfo, ...]
    directory: str = ""  # where the pack was started from (absolute), when a review ran it
    policy_config: str = ""  # the config file applied to it in one stack's review, or PACK_DEFAULTS


@dataclass(frozen=True)
class ResourceRecord:
    """One registration the program made, as the recording monitor saw it."""

    urn: str
    type: str
    name: str
    parent: str | None = None
    custom: bool = True
    inputs: dict[str, Any] = field(default_factory=dict)  # secrets already redacted
    options: dict[str, Any] = field(default_factory=dict)  # protect, retainOnDelete, replaceOnChanges...
    source_file: str | None = None  # absolute path of the program file that declared the resource
    source_line: int | None = None  # its line there


@dataclass(frozen=True)
class Violation:
    policy: str
    level: Level
    severity: Severity
    urn: str
    type: str
    resource: str  # logical name
    message: str  # the reported text, without the policy description prefix
    pack: str = ""
    waiver_reason: str | None = None
    waiver_expires: str | None = None
    waiver: str | None = None  # the waiver's `resource` as written in the policy config
    waiver_via: str | None = None  # how it named this resource: resource, entry (stack entry) or component

    def waived_by(self) -> str:
        """`covered by the waiver for its component X` when a waiver named this resource through its stack entry or
        its component, which is how a report says which child a waiver covered; '' otherwise."""
        what = {"entry": "its stack entry", "component": "its component"}.get(self.waiver_via or "")
        return f"covered by the waiver for {what} {self.waiver}" if what and self.waiver else ""


@dataclass(frozen=True)
class Unknown:
    """A policy that could not run on a resource at preview: neither a pass nor a violation."""

    policy: str
    urn: str
    type: str
    resource: str
    message: str
    pack: str = ""


@dataclass(frozen=True)
class Remediation:
    """A property a policy at level `remediate` set on a resource before it was analyzed (and would be deployed):
    `property` is its dotted path in the inputs, `before` and `after` its values (None when absent; a secret is
    `[secret]`). The engine applies it in `pulumi preview/up --policy-pack` too (amlkit.review.pack.remediate)."""

    policy: str
    urn: str
    type: str
    resource: str
    property: str
    before: Any
    after: Any
    pack: str = ""

    def text(self) -> str:
        """`properties.properties.scaleSettings.minNodeCount: 2 -> 0` (an absent value is `none`)."""
        return f"{self.property}: {_value_text(self.before)} -> {_value_text(self.after)}"


def _value_text(value: Any) -> str:
    if value is None:
        return "none"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


@dataclass(frozen=True)
class Lookup:
    """A lookup the offline review could not answer: an invoke (`token` is the function) or a stack
    reference (`token` is `pulumi:pulumi:StackReference`, `args` is `{"name": <stack>}`). Whatever
    the program derived from it is unknown; `args` never carries a secret value. `file` and `line`: the
    program line that called it (`file` relative to the program's directory), None when not known."""

    token: str
    args: dict[str, Any] = field(default_factory=dict)
    file: str | None = None
    line: int | None = None

    def order(self) -> tuple[str, str, str, int]:
        """The reports' order: by token, then args, then the program line that called it."""
        return self.token, json.dumps(self.args, sort_keys=True), self.file or "", self.line or 0

    def text(self) -> str:
        """`azure-native:network:getSubnet(resourceGroupName="rg-net", subnetName="snet") (at __main__.py:7)`:
        args sorted; the program line that called it when known."""
        args = ", ".join(f"{key}={json.dumps(self.args[key], ensure_ascii=False)}" for key in sorted(self.args))
        at = f" (at {self.file}:{self.line})" if self.file is not None else ""
        return f"{self.token}({args}){at}"


@dataclass(frozen=True)
class StackReview:
    """One stack's review. Frozen: the engine builds it whole (`dataclasses.replace` for a changed copy)."""

    stack: str
    project: str
    environment: str
    stack_file: str  # path of Pulumi.<stack>.yaml, relative to the project dir when possible
    pack: PackInfo | None = None  # the first pack (amlkit's own unless --policy-pack named others)
    resources: tuple[ResourceRecord, ...] = ()
    violations: tuple[Violation, ...] = ()
    unknown: tuple[Unknown, ...] = ()
    error: str | None = None  # set when the stack could not be reviewed: never a clean review
    error_kind: ErrorKind | None = None  # set with `error`: "config" exits 2, the others 3
    # a config error's fields: stack, file, component, key_path, value, problem, and whatever else the
    # ConfigError carried (JSON-safe); None for other failures
    error_detail: dict[str, Any] | None = None
    policy_config: str = PACK_DEFAULTS  # the config file applied to the first pack, or PACK_DEFAULTS
    plan: Plan | None = None  # the plan against a deployed state or a git revision (--state / --base), else None
    lookups: tuple[Lookup, ...] = ()  # unanswered lookups (see amlkit.review.run.mocks)
    # every pack run on the stack, in the order given (each with its policy_config); `pack` is the first
    packs: tuple[PackInfo, ...] = ()
    warnings: tuple[str, ...] = ()  # e.g. a waiver that matches no resource of the stack
    audited_state: str | None = None  # `check --state`: the state file audited (no program ran), else None
    remediations: tuple[Remediation, ...] = ()  # in the order made, resources in stable order

    def __post_init__(self) -> None:
        _as_tuples(self, "resources", "violations", "unknown", "lookups", "packs", "warnings", "remediations")

    def all_packs(self) -> tuple[PackInfo, ...]:
        """The packs run on the stack: `packs`, or the one `pack` of a review built before packs existed."""
        return self.packs or ((self.pack,) if self.pack is not None else ())

    def stack_keys(self) -> dict[str, str]:
        """Policy name -> the stack-file key its findings point at, from the packs' PolicyInfo (amlkit.review.report.
        locate reads it; a policy without one points at its entry's `name:`)."""
        return {p.name: p.stack_key for pack in self.all_packs() for p in pack.policies if p.stack_key}

    def count(self, level: Level) -> int:
        return sum(1 for v in self.violations if v.level == level)

    def ordered_violations(self) -> list[Violation]:
        """The violations in report order (every format uses it): level (mandatory, advisory, waived),
        policy, type, resource name, urn, message."""
        return sorted(self.violations,
                      key=lambda v: (LEVEL_ORDER.get(v.level, 9), v.policy, v.type, v.resource, v.urn, v.message))

    def ordered_unknown(self) -> list[Unknown]:
        """The unknowns in report order: policy, type, resource name, urn, message."""
        return sorted(self.unknown, key=lambda u: (u.policy, u.type, u.resource, u.urn, u.message))

    def ordered_lookups(self) -> list[Lookup]:
        """The unanswered lookups in report order (`Lookup.order`)."""
        return sorted(self.lookups, key=Lookup.order)

    @property
    def outcome(self) -> Literal["mandatory", "warnings", "passed"]:
        """The pack's verdict: mandatory violations, warnings (advisory or unknown), or passed.
        A failed review (`error`) is reported apart, before this is asked."""
        if self.count("mandatory"):
            return "mandatory"
        if self.count("advisory") or self.unknown:
            return "warnings"
        return "passed"


@dataclass(frozen=True)
class Review:
    """What `review` and `audit` return: every stack's review, in the order the stacks were given."""

    stacks: tuple[StackReview, ...] = ()

    def __post_init__(self) -> None:
        _as_tuples(self, "stacks")

    def count(self, level: Level) -> int:
        return sum(s.count(level) for s in self.stacks)

    def ordered_stacks(self) -> list[StackReview]:
        """The stacks in report order: by name."""
        return sorted(self.stacks, key=lambda s: s.stack)

    def summary(self) -> dict[str, int]:
        """Findings by level over every stack, and the stacks whose review failed (never a clean review)."""
        return {
            "mandatory": self.count("mandatory"),
            "advisory": self.count("advisory"),
            "waived": self.count("waived"),
            "unknown": sum(len(s.unknown) for s in self.stacks),
            "failed": sum(1 for s in self.stacks if s.error),
        }

    @property
    def failed(self) -> bool:
        return any(s.error for s in self.stacks)

    def exit_code(self) -> int:
        """3 a program or pack failed; else 2 a stack has a config error; else 1 mandatory violations or a
        plan the engine would refuse (a protected resource replaced or deleted); else 0 (clean, advisory,
        waived or unknown only)."""
        if any(s.error and s.error_kind != "config" for s in self.stacks):
            return 3
        if any(s.error for s in self.stacks):
            return 2
        refused = any(s.plan is not None and s.plan.errors for s in self.stacks)
        return 1 if self.count("mandatory") or refused else 0


def _as_tuples(result: object, *names: str) -> None:
    """A result given lists (an embedder's or a test's) stores them as tuples: no sequence of a result can change."""
    for name in names:
        value = getattr(result, name)
        if not isinstance(value, tuple):
            object.__setattr__(result, name, tuple(value))
