"""Remediate before Analyze, as the engine does, and what each remediation changed.

pulumi/pulumi `pkg/resource/deploy/step_generator.go` (the pass before `analyzeAll`): for each resource,
before any Analyze, the engine calls `Remediate` on every pack in turn, each pack seeing the inputs the
previous one left. A remediation with a `diagnostic` is reported as an advisory policy violation; one with
`properties` is reported (`OnPolicyRemediation`, the resource's inputs before and after) and those
properties become the resource's inputs from then on: what Analyze sees, what the provider gets, what is
deployed. Analyze then runs on the remediated inputs; a policy at level `remediate` still reports what its
fix did not cure, as mandatory (pulumi-policy `policy.py` Analyze, and the engine's `analyzeResource`,
downgrade remediate to mandatory). Stack policies cannot remediate.

The offline review does the same: `remediate` runs before `session.Session.submit` (whose Analyze request,
and later AnalyzeStack entry, carry the remediated inputs), across the packs in their order
(`multi.Sessions.submit`). The Remediate call is sent only to a pack with a policy at level `remediate`:
pulumi-policy answers nothing else (its `Remediate` skips every policy whose level is not remediate), so
the answer is the same and the common case costs no extra call. What the program registered (the records,
and the report's resources) stays as written; `Remediation` entries say what was changed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from google.protobuf import json_format

from amlkit.review.model import Remediation, StackReview
from amlkit.review.pack.diagnostics import Analysis, Diagnostic, one_version, policy_severities
from amlkit.review.pack.session import Session
from amlkit.review.pack.wire import analyze_request
from amlkit.review.secrets import REDACTED, UNKNOWN, UNKNOWN_TEXT, Secrets, is_secret

__all__ = ["Remediated", "add_remediations", "changes", "remediate", "remediates"]

_ABSENT = object()


@dataclass(frozen=True)
class Remediated:
    """One remediation a pack answered: the resource's inputs before it and after it (engine wire form)."""

    policy: str
    urn: str
    before: dict[str, Any]
    after: dict[str, Any]


def remediates(analysis: Analysis) -> bool:
    """Whether the pack has a policy at level remediate (else its Remediate answers nothing)."""
    return any(entry.level == "remediate" for entry in analysis.config.values())


def remediate(session: Session, resource: dict[str, Any]) -> dict[str, Any]:
    """The resource after this pack's remediations (itself when none changed it); the answers are kept on the
    session's analysis (`Analysis.remediations`, diagnostics as advisory findings or unknowns)."""
    analysis = session.analysis
    if not remediates(analysis):
        return resource
    urn = resource["urn"]
    request = analyze_request(resource, {**session.by_urn, urn: resource}, session.stack, session.project)
    response = session.pack.call("Remediate", request, f"Remediate of {urn}")
    severities = policy_severities(analysis)
    inputs = resource["inputs"]
    for answer in response.remediations:
        if answer.diagnostic:
            unknown = answer.diagnostic.startswith(f"can't run remediation '{answer.policyName}'") \
                and " during preview" in answer.diagnostic
            analysis.diagnostics.append(Diagnostic(
                answer.policyName, "advisory", severities.get(answer.policyName, "unspecified"), urn,
                one_version(analysis, answer.diagnostic), unknown))
        elif answer.HasField("properties"):
            after = json_format.MessageToDict(answer.properties)
            analysis.remediations.append(Remediated(answer.policyName, urn, inputs, after))
            inputs = after
    if inputs is resource["inputs"]:
        return resource
    return {**resource, "inputs": inputs, "outputs": overlay(resource.get("outputs", {}), resource["inputs"], inputs)}


def overlay(outputs: Any, before: Any, after: Any) -> Any:
    """The outputs AnalyzeStack gets for a remediated resource: the provider previews the remediated inputs, and
    an input mirrors to the output of its name (azure-native `PreviewOutputs`), so each input a remediation
    changed is set in the outputs at the same path (objects merged key by key, anything else replaced)."""
    if not (_is_map(outputs) and _is_map(before) and _is_map(after)):
        return after
    merged = dict(outputs)
    for key, value in after.items():
        if key not in before or not _same(before[key], value):
            merged[key] = overlay(outputs.get(key), before.get(key), value)
    return merged


def add_remediations(result: StackReview, analysis: Analysis, records: list[dict[str, Any]],
                     secrets: Secrets) -> StackReview:
    """The stack's review with each property a pack's remediations changed added, as `Remediation` entries:
    resources in the records' (stable) order, a resource's changes in the order they were made; a secret value
    is `[secret]`, never shown."""
    order = {record["urn"]: index for index, record in enumerate(records)}
    by_urn = {record["urn"]: record for record in records}
    made = sorted(enumerate(analysis.remediations), key=lambda item: (order.get(item[1].urn, len(order)), item[0]))
    added = [Remediation(answer.policy, answer.urn, by_urn.get(answer.urn, {}).get("type", ""),
                         by_urn.get(answer.urn, {}).get("name", ""), path, _shown(before, secrets),
                         _shown(after, secrets), pack=analysis.pack_name)
             for _, answer in made for path, before, after in changes(answer.before, answer.after)]
    return replace(result, remediations=(*result.remediations, *added)) if added else result


def changes(before: Any, after: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """The changed leaves between two property maps: (dotted path, before, after), `_ABSENT` for a missing side;
    a secret is a leaf (its value is never compared into the report)."""
    if _is_map(before) and _is_map(after):
        found = []
        for key in sorted({*before, *after}):
            inner = f"{path}.{key}" if path else key
            found += changes(before.get(key, _ABSENT), after.get(key, _ABSENT), inner)
        return found
    if _is_map(after) and before is _ABSENT:
        return changes({}, after, path) or [(path, before, after)]
    return [] if _same(before, after) else [(path, before, after)]


def _is_map(value: Any) -> bool:
    return isinstance(value, dict) and not is_secret(value)


def _same(before: Any, after: Any) -> bool:
    if isinstance(before, bool) or isinstance(after, bool):
        return before is after
    return bool(before == after)


def _shown(value: Any, secrets: Secrets) -> Any:
    """A value as reports show it: None when absent, `[secret]` for a secret (or anything holding one),
    `[unknown]` for an unknown, integral numbers as ints (the wire carries floats), known secrets scrubbed."""
    if value is _ABSENT:
        return None
    if is_secret(value) or (isinstance(value, (dict, list)) and _holds_secret(value)):
        return REDACTED
    if value == UNKNOWN:
        return UNKNOWN_TEXT
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        return secrets.scrub(value)
    return secrets.redact(value) if isinstance(value, (dict, list)) else value


def _holds_secret(value: Any) -> bool:
    if is_secret(value):
        return True
    if isinstance(value, dict):
        return any(_holds_secret(item) for item in value.values())
    if isinstance(value, list):
        return any(_holds_secret(item) for item in value)
    return False
