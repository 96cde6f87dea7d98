"""The rule model: metadata plus a pure validator (the waivers every rule takes: `amlkit.policies.waivers`).

A rule never touches pulumi-policy objects. `amlkit.policies.pack` wraps rules into
`ResourceValidationPolicy` / `StackValidationPolicy` at the edge; tests call `Rule.evaluate` or
`Rule.evaluate_stack` with plain dicts.

At run time `props` is pulumi-policy's unknown-checking proxy: reading a value that is unknown at
preview raises `UnknownValueError`, which the analyzer reports as "can't be known during preview".
So validators read only what they need and never catch that exception: an unknown is neither a pass
nor a violation.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal

__all__ = [
    "CannotLink", "Change", "Compliance", "DOCS_URL", "EQUIVALENT_TOOLS", "Equivalent", "Finding", "Fix", "GROUPS",
    "Group", "Level", "MCSB", "MCSB_URL", "MCSB_VERSION", "PACK_NAME", "REF_PATTERN", "REVIEW_DATE_ENV",
    "ResourceCheck", "ResourceFix", "ResourceInput", "Rule", "Severity", "StackCheck", "StackResource", "TAGS",
    "alz", "as_written", "azure_policy", "cannot_tell", "checkov", "equivalent", "from_wire", "mcsb", "must", "psrule",
    "review_date", "urn_name",
]

Severity = Literal["low", "medium", "high", "critical"]
Level = Literal["mandatory", "advisory", "disabled"]
Group = Literal["compute", "locks", "workspace", "general"]
GROUPS: tuple[Group, ...] = ("compute", "locks", "workspace", "general")
"""The order of rules in reports, `amlkit rules` and docs: by group, then by `ref` within a group."""
TAGS = ("cost", "security", "reliability", "network", "identity", "governance")
PACK_NAME = "amlkit-guardrails"
"""The name of amlkit's own policy pack (as GetAnalyzerInfo reports it)."""

DOCS_URL = "https://github.com/amlkit/amlkit/blob/main/docs/rules/"
"""Where each rule's page lives (generated into docs/rules/ by tools/gen_docs.py)."""


@dataclass(frozen=True)
class Finding:
    """One violation. Stack rules set `urn` to the offending resource; resource rules leave it None.

    `unknown` marks a finding the rule cannot decide ("cannot tell", e.g. a fact the stack does not
    show). The edge reports it as unknown, the third outcome: never a pass, never a violation, and
    without hiding the rule's other findings (see `amlkit.policies.pack`).
    """

    message: str
    urn: str | None = None
    unknown: bool = False


def must(subject: str, expectation: str, found: str | None = None) -> str:
    """The one message template: `<subject> must <expectation>[; found <found>].`"""
    text = f"{subject} must {expectation}"
    if found is not None:
        text += f"; found {found}"
    return text + "."


def as_written(given: Any, default: Any) -> str:
    """A setting as a message shows it: the value written (booleans lower-case, as ARM spells them), or, when
    omitted (`given` None), `none (Azure then uses <default>)`."""
    value = default if given is None else given
    shown = str(value).lower() if isinstance(value, bool) else str(value)
    return f"none (Azure then uses {shown})" if given is None else shown


def cannot_tell(subject: str, expectation: str, reason: str, urn: str | None = None) -> Finding:
    """An unknown finding in the same template: `<subject> must <expectation>; cannot tell: <reason>.`"""
    return Finding(f"{subject} must {expectation}; cannot tell: {reason}.", urn, unknown=True)


class CannotLink(Exception):
    """Preview cannot tell which resource an input names (`amlkit.policies.links`). A rule reports it as an unknown
    finding on the resource, or lets it out: the edge then reports the rule as unknown, as pulumi-policy reports an
    unknown value (`amlkit.policies.pack`), and `azure.read_known` reads it as an unknown value. Not pulumi-policy's
    `UnknownValueError` itself, so that reading the rules imports no Pulumi SDK."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class ResourceInput:
    """What a resource rule sees: the resource's type token, logical name, URN and inputs."""

    type: str
    name: str
    urn: str
    props: Mapping[str, Any]


@dataclass(frozen=True)
class StackResource:
    """What a stack rule sees of each resource in the stack."""

    type: str
    name: str
    urn: str
    props: Mapping[str, Any]
    parent_urn: str | None = None
    property_dependencies: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def depends_on(self, prop: str, urn: str) -> bool:
        """True when input `prop` was built from an output of resource `urn` (known even at preview)."""
        return urn in self.property_dependencies.get(prop, ())


REF_PATTERN = r"^AMLK-\d{4}$"
"""A rule's stable opaque reference: `AMLK-` and four digits, assigned once, never reused."""


@dataclass(frozen=True)
class Compliance:
    """The control of a compliance framework a rule helps meet (pulumi-policy's `PolicyComplianceFramework`:
    `name`, `version`, `reference` = the control id, `specification` = the control's title)."""

    name: str
    version: str
    reference: str
    specification: str
    url: str


@dataclass(frozen=True)
class Equivalent:
    """A peer tool's check of the same fact: `tool` is one of `EQUIVALENT_TOOLS`, `id` its identifier there."""

    tool: str
    id: str
    title: str = ""
    url: str = ""


MCSB = "Microsoft cloud security benchmark"
MCSB_VERSION = "v1"
MCSB_URL = "https://learn.microsoft.com/security/benchmark/azure/"


def mcsb(control: str, title: str, page: str) -> Compliance:
    """A Microsoft cloud security benchmark v1 control; `page` is its page under MCSB_URL, e.g.
    `mcsb-network-security`. The anchor is the control id and title, as the benchmark's pages spell it."""
    anchor = "-".join(f"{control} {title}".lower().replace(",", "").split())
    return Compliance(MCSB, MCSB_VERSION, control, title, f"{MCSB_URL}{page}#{anchor}")


_EQUIVALENT_URLS: dict[str, Callable[[str, str], str]] = {
    "Azure Policy": lambda id_, title: "https://portal.azure.com/#blade/Microsoft_Azure_Policy/PolicyDetailBlade/"
                                       "definitionId/" + id_.replace("/", "%2F"),
    "PSRule for Azure": lambda id_, title: f"https://azure.github.io/PSRule.Rules.Azure/en/rules/{title}/",
    "Checkov": lambda id_, title: "https://www.checkov.io/5.Policy%20Index/terraform.html",
    "Azure Landing Zones": lambda id_, title: "https://github.com/Azure/Enterprise-Scale/wiki/ALZ-Policies",
}
EQUIVALENT_TOOLS = tuple(_EQUIVALENT_URLS)


def equivalent(tool: str, id_: str, title: str = "") -> Equivalent:
    """A peer tool's check with its url, which follows from the tool, the id and the title (none for a tool not in
    `EQUIVALENT_TOOLS`): what a policy's `equivalent:` tag names is enough (`amlkit.policies.metadata`)."""
    url = _EQUIVALENT_URLS.get(tool)
    return Equivalent(tool, id_, title, url(id_, title) if url else "")


def azure_policy(guid: str, title: str) -> Equivalent:
    """An Azure Policy built-in definition by its GUID (the last segment of its definition id)."""
    return equivalent("Azure Policy", f"/providers/Microsoft.Authorization/policyDefinitions/{guid}", title)


def psrule(ref: str, name: str) -> Equivalent:
    """A PSRule for Azure rule: its opaque ref (`AZR-000404`) and its name (`Azure.ML.DisableLocalAuth`)."""
    return equivalent("PSRule for Azure", ref, name)


def checkov(check_id: str, title: str = "") -> Equivalent:
    """A Checkov check by id (`CKV_AZURE_150`)."""
    return equivalent("Checkov", check_id, title)


def alz(name: str) -> Equivalent:
    """An Azure Landing Zones custom policy definition by name (`Deny-MachineLearning-Aks`)."""
    return equivalent("Azure Landing Zones", name)


@dataclass(frozen=True)
class Change:
    """A release that changed a rule's default level or facts, with the defaults it had before that release.

    Under a rule baseline older than `version` (see `at_baseline`), the rule keeps those old defaults: `level`
    is the default level before `version` (None when the level did not change), `config` the config defaults
    before it (only the keys that changed). `what` says what changed, with its source (its CHANGELOG line)."""

    version: str
    what: str
    level: Level | None = None
    config: Mapping[str, Any] = field(default_factory=dict)


ResourceCheck = Callable[[ResourceInput, Mapping[str, Any]], Iterable[Finding]]
StackCheck = Callable[[Sequence[StackResource], Mapping[str, Any]], Iterable[Finding]]


@dataclass(frozen=True)
class Fix:
    """Set `value` at `path` (keys from the top of the resource's inputs, camelCase as the engine sends
    them); the dicts on the way are created when missing."""

    path: tuple[str, ...]
    value: Any

    @property
    def shown(self) -> str:
        """The path as reports write it: `properties.properties.scaleSettings.minNodeCount`."""
        return ".".join(self.path)


ResourceFix = Callable[[ResourceInput, Mapping[str, Any]], Iterable[Fix]]
"""A rule's remediation (`amlkit.policies.fixes`): the properties to set so the resource passes."""


@dataclass(frozen=True)
class Rule:
    """A governance rule: its public name, metadata, config schema and ONE pure validator.

    `name` is the public interface (pack config keys, waivers, reports); `ref` is its stable opaque
    reference (like PSRule's `AZR-000404` next to `Azure.ML.DisableLocalAuth`).

    `config` holds JSON-schema properties (each with a "default" where it has one). Every rule also accepts
    `waivers` and `waiverExpiryWarningDays` (`amlkit.policies.waivers.edge_schema`), added at the edge.
    """

    name: str
    description: str
    severity: Severity
    level: Level
    tags: tuple[str, ...]
    url: str  # the primary public source (Azure docs, a built-in policy); the rule's page is `docs_url`
    remediation: str
    check: ResourceCheck | None = None
    check_stack: StackCheck | None = None
    config: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    ref: str = ""
    """Stable opaque reference (`AMLK-0001`), frozen once assigned; see `REF_PATTERN`."""
    display_name: str = ""
    """A short human title, e.g. "Clusters scale to zero"."""
    group: Group = "general"
    """What the rule is about (one of `GROUPS`): it places the rule in reports, `amlkit rules` and docs."""
    compliance: Compliance | None = None
    equivalents: tuple[Equivalent, ...] = ()
    """The same check in peer tools (Azure Policy built-ins, PSRule, Checkov, ALZ custom policies)."""
    stack_key: str = ""
    """The stack-file key (amlkit schema) the rule is about, e.g. `min_instances`: a finding on a stack-file
    driven resource points at that key of the entry when the entry sets it, else at the entry's `name:`."""
    since: str = ""
    """The amlkit release the rule arrived in (`0.1.0`); under an older rule baseline it runs as advisory."""
    changed: tuple[Change, ...] = ()
    """The releases that changed its default level or facts, oldest first, each with the defaults before it."""
    fix: ResourceFix | None = None
    """What makes a failing resource pass, set by the pack when the rule's level is `remediate`; None for a rule
    whose fix needs a human choice (`amlkit.policies.fixes`)."""

    @property
    def docs_url(self) -> str:
        """The rule's page: what, why (with `url`, its primary public source), config, examples, remediation.
        This is the `url` the pack reports to Pulumi and the SARIF `helpUri`."""
        return f"{DOCS_URL}{self.name}.md"

    @property
    def remediates(self) -> bool:
        """Whether the rule can remediate (its level `remediate` sets its fix; otherwise it runs as mandatory)."""
        return self.fix is not None

    @property
    def is_stack_rule(self) -> bool:
        return self.check_stack is not None

    def defaults(self) -> dict[str, Any]:
        return {key: spec["default"] for key, spec in self.config.items() if "default" in spec}

    def effective_config(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        """Schema defaults overlaid with the given config as the engine delivers it (see `from_wire`)."""
        merged = self.defaults()
        for key, value in (given or {}).items():
            merged[key] = from_wire(value)
        return merged

    def evaluate(self, resource: ResourceInput, config: Mapping[str, Any] | None = None) -> list[Finding]:
        assert self.check is not None, f"{self.name} is a stack rule"
        return list(self.check(resource, self.effective_config(config)))

    def evaluate_stack(
        self, resources: Sequence[StackResource], config: Mapping[str, Any] | None = None
    ) -> list[Finding]:
        assert self.check_stack is not None, f"{self.name} is a resource rule"
        return list(self.check_stack(resources, self.effective_config(config)))


def from_wire(value: Any) -> Any:
    """A config value as the engine delivers it, read as its JSON: the protobuf Struct carries every number
    as a float, so an integral float is an int at any depth (JSON itself does not tell 2 from 2.0)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [from_wire(item) for item in value]
    if isinstance(value, Mapping):
        return {key: from_wire(item) for key, item in value.items()}
    return value


# --- the review date -------------------------------------------------------------------------------

REVIEW_DATE_ENV = "AMLKIT_REVIEW_DATE"


def review_date() -> date:
    """The day a review judges dates against (waiver expiry, VM series retirement): `$AMLKIT_REVIEW_DATE`
    (YYYY-MM-DD) when set, else today. Set it for a reproducible review; the test suite sets it, so no
    test outcome depends on the real date. The pack inherits it from `amlkit check` or `pulumi preview`.
    A malformed value raises, and the policy fails (closed) rather than guess a day."""
    raw = os.environ.get(REVIEW_DATE_ENV, "").strip()
    if not raw:
        return date.today()
    return _review_day(raw)


@functools.lru_cache(maxsize=4)
def _review_day(raw: str) -> date:
    """`raw` as a day (parsed once per value: the pack reads it for every policy of every resource)."""
    try:
        return date.fromisoformat(raw)
    except ValueError:
        shown = raw if len(raw) <= 40 else raw[:37] + "..."
        raise ValueError(f"{REVIEW_DATE_ENV}={shown!r} is not a date; allowed: YYYY-MM-DD (a real day, e.g. "
                         "2026-11-28), or unset for today") from None


def urn_name(urn: str) -> str:
    """The logical name at the end of a URN (`urn:pulumi:stack::project::type::name`)."""
    return urn.rsplit("::", 1)[-1]
