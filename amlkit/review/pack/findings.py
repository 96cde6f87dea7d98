"""From what a stack's program registered and what the analyzer said to the report's records: resources
in a stable order, unanswered lookups, the pack's policies, violations, unknowns and waivers (secrets scrubbed).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, cast

from amlkit.errors import ReviewFailed
from amlkit.policies.framework import PACK_NAME
from amlkit.policies.metadata import read_tags
from amlkit.policies.waivers import WaiverContractError, parse_waived
from amlkit.review.model import Lookup, PackInfo, PolicyInfo, ResourceRecord, StackReview, Unknown, Violation
from amlkit.review.pack import diagnostics
from amlkit.review.pack.config import PolicyConfig
from amlkit.review.pack.proto import analyzer_pb2
from amlkit.review.pack.unknowns import what_is_unknown
from amlkit.review.secrets import Secrets
from amlkit.review.urns import STACK_TYPE, stack_urn, urn_name, urn_type

__all__ = ["add_findings", "pack_info_of", "resource_record", "stable", "unanswered_lookups"]


def stable(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The SDK registers concurrently: order resources by URN and dependency lists, so runs are identical."""
    for record in records:
        record["dependencies"] = sorted(set(record["dependencies"]))
        record["propertyDependencies"] = {k: sorted(set(v)) for k, v in record["propertyDependencies"].items()}
    return sorted(records, key=lambda r: r["urn"])


def resource_record(raw: dict[str, Any], secrets: Secrets) -> ResourceRecord:
    options = dict(raw["options"])
    options.update(dependencies=raw["dependencies"], propertyDependencies=raw["propertyDependencies"],
                   provider=raw["provider"])
    source = raw.get("source") or {}
    return ResourceRecord(
        urn=raw["urn"], type=raw["type"], name=raw["name"], parent=raw["parent"], custom=raw["custom"],
        inputs=secrets.redact(raw["inputs"]), options=options,
        source_file=_uri_path(source.get("uri")), source_line=source.get("line") or None,
    )


def _uri_path(uri: str | None) -> str | None:
    """`file:///a/b.py` -> `/a/b.py` (None for anything else)."""
    if not uri or not uri.startswith("file://"):
        return None
    from urllib.parse import unquote, urlparse

    return str(Path(unquote(urlparse(uri).path)))


def unanswered_lookups(raw: list[dict[str, Any]], secrets: Secrets) -> list[Lookup]:
    """Unanswered lookups in a stable order, every secret value seen in the stack scrubbed from the args."""
    lookups = [Lookup(item["token"], _scrubbed(item.get("args") or {}, secrets), item.get("file"), item.get("line"))
               for item in raw]
    return sorted(lookups, key=Lookup.order)


def _scrubbed(value: Any, secrets: Secrets) -> Any:
    if isinstance(value, str):
        return secrets.scrub(value)
    if isinstance(value, dict):
        return {key: _scrubbed(value[key], secrets) for key in sorted(value)}
    if isinstance(value, list):
        return [_scrubbed(item, secrets) for item in value]
    return value


def pack_info_of(analysis: diagnostics.Analysis) -> PackInfo:
    policies = tuple(_policy_info(analysis, p) for p in analysis.policies)
    return PackInfo(analysis.pack_name, analysis.pack_version, policies)


def _policy_info(analysis: diagnostics.Analysis, p: Any) -> PolicyInfo:
    """One policy as the pack's GetAnalyzerInfo describes it, at the level it runs with. What the protocol has no
    field for (the stable reference, the group, the peer equivalents...) is in its tags (`amlkit.policies.metadata`):
    read the same way for amlkit's pack and another, so no rule is imported."""
    meta = read_tags(tuple(p.tags))
    return PolicyInfo(
        name=p.name, description=p.description,
        level=analysis.config.get(p.name, PolicyConfig()).level or "advisory",
        severity=diagnostics.severity_name(p.severity), remediation=p.remediation_steps,
        url=p.url, tags=meta.tags, stack_policy=p.policy_type == analyzer_pb2.POLICY_TYPE_STACK,
        display_name=p.displayName, framework=_framework(p),
        ref=meta.ref, group=meta.group, equivalents=meta.equivalents, since=meta.since, remediates=meta.remediates,
        stack_key=meta.stack_key,
    )


def _framework(policy: Any) -> tuple[str, str, str, str] | None:
    f = policy.framework
    fields = (f.name, f.version, f.reference, f.specification)
    return fields if policy.HasField("framework") and any(fields) else None


def add_findings(result: StackReview, analysis: diagnostics.Analysis, records: list[dict[str, Any]], secrets: Secrets,
                 project: str) -> StackReview:
    """The stack's review with one pack's findings added after those it has."""
    by_urn = {r["urn"]: r for r in records}
    root = stack_urn(project, result.stack)

    def where(urn: str) -> tuple[str, str, str]:
        urn = urn or root
        record = by_urn.get(urn)
        if record is not None:
            return urn, record["type"], record["name"]
        if urn == root:
            return urn, STACK_TYPE, urn_name(root)
        return urn, urn_type(urn), urn_name(urn)

    # amlkit's own pack redacts by value (amlkit.policies.secret_reads): its text is never rewritten, so a
    # resource `c3` stays `c3` when a secret is 3, but only when its process confirmed the hook is active
    # (fail closed). Any other text gets the whole-token safety net.
    scrub = (lambda text: text) if analysis.pack_name == PACK_NAME and analysis.by_value else secrets.scrub
    violations: list[Violation] = []
    unknown: list[Unknown] = []
    for diag in analysis.diagnostics:
        urn, type_, name = where(diag.urn)
        message = scrub(diag.message)
        if diag.unknown:
            what = what_is_unknown(message, by_urn.get(diag.urn) if diag.urn else None, records)
            message = message if what is None else f"{what}. {message}"
            unknown.append(Unknown(diag.policy, urn, type_, name, message, pack=analysis.pack_name))
        else:
            level = cast("Literal['mandatory', 'advisory']", diag.level)  # the driver sets only these two
            violations.append(Violation(diag.policy, level, diag.severity, urn, type_, name, message,
                                        pack=analysis.pack_name))
    severities = diagnostics.policy_severities(analysis)
    for entry in analysis.not_applicable:
        for waived in _waived(entry):
            urn, type_, name = where(waived["urn"] or entry.urn)
            violations.append(Violation(
                entry.policy, "waived", severities.get(entry.policy, "unspecified"), urn, type_, name,
                scrub(waived["message"] or ""), pack=analysis.pack_name,
                waiver_reason=scrub(waived["reason"] or ""), waiver_expires=waived["expires"],
                waiver=waived["waiver"], waiver_via=waived["via"]))
    return replace(result, violations=(*result.violations, *violations), unknown=(*result.unknown, *unknown))


def _waived(entry: diagnostics.NotApplicable) -> list[dict[str, str | None]]:
    try:
        return parse_waived(entry.reason)
    except WaiverContractError as error:
        raise ReviewFailed(f"policy {entry.policy}: {error}") from None
