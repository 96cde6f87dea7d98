"""What a pack answered, read as the engine reads it: each Analyze or AnalyzeStack answer's diagnostics and
not-applicable reasons, collected into one `Analysis` per pack and stack, before they become Violations and
Unknowns (amlkit.review.pack.findings)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from amlkit.review.model import Severity
from amlkit.review.pack.config import PolicyConfig
from amlkit.review.pack.proto import analyzer_pb2

__all__ = [
    "Analysis", "Diagnostic", "NotApplicable", "collect", "is_unknown", "one_version", "policy_severities",
    "reported_text", "severity_name",
]

_SEVERITY_NAMES: dict[int, Severity] = {
    analyzer_pb2.POLICY_SEVERITY_LOW: "low", analyzer_pb2.POLICY_SEVERITY_MEDIUM: "medium",
    analyzer_pb2.POLICY_SEVERITY_HIGH: "high", analyzer_pb2.POLICY_SEVERITY_CRITICAL: "critical"}


@dataclass(frozen=True)
class Diagnostic:
    """A pack's answer about one resource (or the stack), before it becomes a Violation/Unknown."""

    policy: str
    level: str  # mandatory | advisory
    severity: Severity
    urn: str  # empty for stack-level findings without a resource
    message: str  # the reported text only (description prefix removed)
    unknown: bool = False


@dataclass(frozen=True)
class NotApplicable:
    policy: str
    urn: str  # the analyzed resource ("" for AnalyzeStack)
    reason: str


@dataclass
class Analysis:
    pack_name: str
    pack_version: str
    policies: list[analyzer_pb2.PolicyInfo]
    config: dict[str, PolicyConfig]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    not_applicable: list[NotApplicable] = field(default_factory=list)
    reported_version: str = ""  # what the pack says of itself (pulumi-policy's Python packs: 0.0.1)
    by_value: bool = False  # amlkit's own pack confirmed it redacts secrets by value (policies.secret_reads)
    remediations: list[Any] = field(default_factory=list)  # remediate.Remediated answers, in the order made


def severity_name(severity: analyzer_pb2.PolicySeverity.ValueType) -> Severity:
    """A policy's or diagnostic's protocol severity as reports name it (`unspecified` when not set)."""
    return _SEVERITY_NAMES.get(severity, "unspecified")


def policy_severities(analysis: Analysis) -> dict[str, Severity]:
    """Policy name -> its severity, as the pack described it (GetAnalyzerInfo)."""
    return {p.name: severity_name(p.severity) for p in analysis.policies}


def collect(analysis: Analysis, response: analyzer_pb2.AnalyzeResponse, urn: str) -> None:
    """Add an Analyze or AnalyzeStack answer's diagnostics and not-applicable reasons to the analysis
    (`urn`: the analyzed resource, which a resource policy's diagnostic leaves out; "" for the stack)."""
    for diag in response.diagnostics:  # (the policies' severities are read only for a diagnostic without one)
        unknown = is_unknown(diag)
        level = "mandatory" if diag.enforcementLevel in (analyzer_pb2.MANDATORY, analyzer_pb2.REMEDIATE) \
            else "advisory"
        severity = _SEVERITY_NAMES.get(diag.severity) or policy_severities(analysis).get(diag.policyName, "unspecified")
        analysis.diagnostics.append(Diagnostic(
            diag.policyName, level, severity, diag.urn or urn,
            one_version(analysis, diag.message) if unknown else reported_text(diag.message, diag.description),
            unknown))
    for entry in response.not_applicable:
        analysis.not_applicable.append(NotApplicable(entry.policy_name, urn, entry.reason))


def is_unknown(diag: analyzer_pb2.AnalyzeDiagnostic) -> bool:
    """pulumi-policy's "can't run policy ... during preview" diagnostic: the protocol's unknown, never a finding.

    The protocol has no field for it, only this wording (pulumi-policy 1.21), so amlkit.review.pack.canary checks
    at the start of every review that the installed pulumi-policy still says it this way."""
    return diag.message.startswith(f"can't run policy '{diag.policyName}'") and " during preview" in diag.message


def one_version(analysis: Analysis, message: str) -> str:
    """pulumi-policy names the pack `<name>@v<its own version>` in "can't run policy" messages; the report
    names it by PulumiPolicy.yaml's version everywhere (as the header does)."""
    if not analysis.reported_version or analysis.reported_version == analysis.pack_version:
        return message
    return message.replace(f"'{analysis.pack_name}@v{analysis.reported_version}'",
                           f"'{analysis.pack_name}@v{analysis.pack_version}'")


def reported_text(message: str, description: str) -> str:
    """pulumi-policy sends `description + "\\n" + reported text`; keep the reported text."""
    if description and message.startswith(description + "\n"):
        return message[len(description) + 1:]
    if message == description:
        return ""
    return message
