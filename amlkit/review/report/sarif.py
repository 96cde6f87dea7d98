"""SARIF 2.1.0 for GitHub code scanning.

One run, tool `amlkit` (its driver), each policy pack run as a tool extension (name, version, its
policies as rules), one driver rule per policy of the packs (id = the rule's stable opaque reference,
e.g. `AMLK-0001`, with the policy name as `name` and in `deprecatedIds`, the ids of amlkit 0.1.0's
logs; a policy of another pack, which has no reference, keeps its name as id; help = remediation;
`defaultConfiguration.level` from the enforcement level; `security-severity` for policies tagged
`security`, which is when GitHub reads it). One result per finding, located in the stack file at the
line of the offending key when it can be found (see `amlkit.review.report.locate`); for a program that is
not driven by amlkit's stack-file schema, at the program line that declared the resource; else line 1
of the stack file:

Each result names its pack in `properties.pack`.

- mandatory -> level `error`, advisory -> `warning`;
- waived -> level `note` with a SARIF `suppressions` entry (kind `external`, the waiver's reason as
  justification, its expiry in the suppression's properties), so code scanning shows it as dismissed;
- unknown at preview -> kind `open`, level `none`: the policy could not tell, which is not a pass;
- a remediation (a policy at level `remediate` set a property before the analysis) -> kind `informational`,
  level `none`, with a `fixes` entry describing the change (before -> after, a secret as `[secret]`);
- a stack whose review failed (a config error, a program or a pack failure) -> an `error` result of
  rule `amlkit-review-failed` (at the program line that built the component for a component argument
  error, at the stack-file line of the config key for another config error, else line 1),
  `executionSuccessful: false` and a tool notification naming the stack: a failed review never uploads
  as a clean one. The invocation's `properties.policyConfig` names each stack's policy config (of its first
  pack) and `properties.packConfigs` the config of every pack run on it (`{stack: {pack: config}}`).
- each lookup the review could not answer -> a `note` notification of the invocation (descriptor
  `amlkit-lookup-unanswered`, the stack, token, args and the calling program line's file and line in its
  properties).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from amlkit import __version__
from amlkit.review.model import PolicyInfo, Remediation, Review, StackReview, Unknown, Violation
from amlkit.review.report.locate import (
    ancestry,
    children_index,
    find_entry_line,
    index_stack_file,
    related_names,
    source_of,
)

__all__ = [
    "FAILED_RULE", "RESULT_LEVELS", "RULE_LEVELS", "SCHEMA_URI", "SECURITY_SEVERITY", "config_error_line", "render",
    "rule_id", "to_sarif",
]

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
RESULT_LEVELS = {"mandatory": "error", "advisory": "warning", "waived": "note"}
RULE_LEVELS = {"mandatory": "error", "advisory": "warning", "disabled": "none", "remediate": "error"}
# GitHub buckets security-severity: critical >= 9.0, high >= 7.0, medium >= 4.0, low >= 0.1.
SECURITY_SEVERITY = {"critical": "9.5", "high": "8.0", "medium": "5.5", "low": "2.0"}
FAILED_RULE = PolicyInfo(
    name="amlkit-review-failed",
    description="The stack's config, its program or the policy pack failed, so the stack was not reviewed.",
    level="mandatory",
    severity="high",
    remediation="Run `amlkit check --stack <name> --verbose` locally, fix the error it names, and re-run.",
)


def to_sarif(review: Review, project_dir: Path = Path("."), uri_root: Path | None = None) -> dict[str, Any]:
    """The SARIF log. Stack-file URIs are relative to `uri_root` (default: `project_dir`)."""
    stacks = review.ordered_stacks()
    rules = _rules(stacks)
    index = {rule.name: (i, rule_id(rule)) for i, rule in enumerate(rules)}
    results = [r for stack in stacks for r in _results(stack, index, project_dir, uri_root or project_dir)]
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "amlkit", "version": __version__, "semanticVersion": __version__,
                                    "rules": [_rule(rule) for rule in rules]},
                         "extensions": _extensions(stacks)},
                "invocations": [_invocation(stacks)],
                "results": results,
                "columnKind": "unicodeCodePoints",
            }
        ],
    }


def render(review: Review, project_dir: Path = Path("."), uri_root: Path | None = None) -> str:
    """Compact JSON (one line): SARIF is read by tools, and json's C encoder only runs without indent."""
    return json.dumps(to_sarif(review, project_dir, uri_root), ensure_ascii=False, separators=(",", ":")) + "\n"


def _rules(stacks: list[StackReview]) -> list[PolicyInfo]:
    """Every policy of every pack, plus a stand-in for any finding's policy the pack did not describe."""
    rules: dict[str, PolicyInfo] = {}
    for stack in stacks:
        for policy in stack.pack.policies if stack.pack else ():
            rules.setdefault(policy.name, policy)
    for stack in stacks:
        findings: list[Violation | Unknown] = [*stack.violations, *stack.unknown]
        for finding in findings:
            rules.setdefault(finding.policy, PolicyInfo(name=finding.policy, description=finding.policy,
                                                        level="advisory", severity="unspecified"))
    if any(stack.error for stack in stacks):
        rules.setdefault(FAILED_RULE.name, FAILED_RULE)
    return sorted(rules.values(), key=lambda p: p.name)


def _extensions(stacks: list[StackReview]) -> list[dict[str, Any]]:
    """Each policy pack run, as a tool extension (SARIF 2.1.0 §3.18.3) with its own policies as rules, in
    the order the packs ran; a pack run on several stacks is listed once (name and version)."""
    packs: dict[tuple[str, str], Any] = {}
    for stack in stacks:
        for pack in stack.all_packs():
            packs.setdefault((pack.name, pack.version), pack)
    return [{"name": pack.name, "version": pack.version,
             "rules": [_rule(policy) for policy in sorted(pack.policies, key=lambda p: p.name)]}
            for pack in packs.values()]


def rule_id(policy: PolicyInfo) -> str:
    """The SARIF rule id: the stable opaque reference when the policy has one, else its name."""
    return policy.ref or policy.name


def _rule(policy: PolicyInfo) -> dict[str, Any]:
    rule: dict[str, Any] = {"id": rule_id(policy)}
    if policy.ref:
        rule.update(name=policy.name, deprecatedIds=[policy.name])
    rule.update({
        "shortDescription": {"text": policy.display_name or policy.description},
        "fullDescription": {"text": policy.description},
        "help": {"text": policy.remediation or policy.description},
        "defaultConfiguration": {"level": RULE_LEVELS.get(policy.level, "warning"),
                                 "enabled": policy.level != "disabled"},
    })
    if policy.url:
        rule["helpUri"] = policy.url
    properties: dict[str, Any] = {"tags": list(policy.tags), "severity": policy.severity}
    if "security" in policy.tags and policy.severity in SECURITY_SEVERITY:
        properties["security-severity"] = SECURITY_SEVERITY[policy.severity]
    if policy.framework:
        properties["compliance"] = dict(zip(("name", "version", "reference", "specification"), policy.framework,
                                            strict=True))
    rule["properties"] = properties
    return rule


def _invocation(stacks: list[StackReview]) -> dict[str, Any]:
    failed = [s for s in stacks if s.error]
    invocation: dict[str, Any] = {"executionSuccessful": not failed,
                                  "properties": {"policyConfig": {s.stack: s.policy_config for s in stacks},
                                                 "packConfigs": {s.stack: _pack_configs(s) for s in stacks}}}
    if failed:
        invocation["toolExecutionNotifications"] = [
            {"level": "error", "message": {"text": f"stack {s.stack}: {_unprefixed(s)}"},
             "properties": {"stack": s.stack, "kind": s.error_kind}} for s in failed
        ]
    lookups = _lookup_notifications(stacks)
    if lookups:
        invocation.setdefault("toolExecutionNotifications", []).extend(lookups)
    warnings = [{"level": "warning", "descriptor": {"id": "amlkit-review-warning"},
                 "message": {"text": f"stack {s.stack}: {warning}"}, "properties": {"stack": s.stack}}
                for s in stacks for warning in s.warnings]
    if warnings:
        invocation.setdefault("toolExecutionNotifications", []).extend(warnings)
    return invocation


def _pack_configs(stack: StackReview) -> dict[str, str]:
    """Every pack run on the stack -> the policy config applied to it (`policyConfig` names the first pack's)."""
    return {pack.name: pack.policy_config or stack.policy_config for pack in stack.all_packs()}


def _lookup_notifications(stacks: list[StackReview]) -> list[dict[str, Any]]:
    return [
        {"level": "note", "descriptor": {"id": "amlkit-lookup-unanswered"},
         "message": {"text": f"stack {s.stack}: lookup not answered offline, what the program derived from it "
                             f"is unknown: {lookup.text()}"},
         "properties": {"stack": s.stack, "token": lookup.token, "args": lookup.args, "file": lookup.file,
                        "line": lookup.line}}
        for s in stacks for lookup in s.ordered_lookups()
    ]


def _unprefixed(stack: StackReview) -> str:
    return (stack.error or "").removeprefix(f"stack {stack.stack}: ")


def _results(stack: StackReview, index: dict[str, tuple[int, str]], project_dir: Path,
             uri_root: Path) -> Iterable[dict[str, Any]]:
    uri = _uri(project_dir / stack.stack_file, uri_root)
    entries = index_stack_file(project_dir / stack.stack_file)
    by_urn = {r.urn: r for r in stack.resources}
    children = children_index(stack.resources)
    keys = stack.stack_keys()

    def where(urn: str, policy: str, resource: str) -> list[dict[str, Any]]:
        chain = ancestry(urn, by_urn)
        line = find_entry_line(entries, chain, keys.get(policy, ""), related_names(chain, children))
        source = source_of(chain) if line is None and not entries else None  # not stack-file driven
        file_uri, line = (_uri(Path(source[0]), uri_root), source[1]) if source else (uri, line or 1)
        return [{
            "physicalLocation": {"artifactLocation": {"uri": file_uri}, "region": {"startLine": line}},
            "logicalLocations": [{"name": resource, "fullyQualifiedName": urn, "kind": "resource"}],
        }]

    if stack.error:
        detail = stack.error_detail or {}
        failed_uri, failed_line = uri, config_error_line(stack, project_dir)
        if detail.get("file") and detail.get("line"):  # a component argument: the program line that built it
            failed_uri, failed_line = _uri(project_dir / str(detail["file"]), uri_root), int(detail["line"])
        yield {
            "ruleId": FAILED_RULE.name, "ruleIndex": index[FAILED_RULE.name][0], "level": "error",
            "message": {"text": f"Stack {stack.stack} was not reviewed: {_unprefixed(stack)}"},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": failed_uri},
                                                "region": {"startLine": failed_line}}}],
            "partialFingerprints": _fingerprint(stack.stack, FAILED_RULE.name, ""),
            "properties": {"stack": stack.stack, "environment": stack.environment, "errorKind": stack.error_kind,
                           "policyConfig": stack.policy_config, "packConfigs": _pack_configs(stack)},
        }
    for v in stack.ordered_violations():
        result: dict[str, Any] = {
            "ruleId": index[v.policy][1], "ruleIndex": index[v.policy][0],
            "level": RESULT_LEVELS.get(v.level, "warning"),
            "message": {"text": v.message},
            "locations": where(v.urn, v.policy, v.resource),
            "partialFingerprints": _fingerprint(stack.stack, v.policy, v.urn),
            "properties": {"stack": stack.stack, "environment": stack.environment, "policy": v.policy,
                           "pack": v.pack, "enforcementLevel": v.level, "severity": v.severity,
                           "resourceType": v.type, "urn": v.urn},
        }
        if v.level == "waived":
            result["suppressions"] = [_suppression(v)]
        yield result
    for r in stack.remediations:
        yield _remediated(stack, r, index, where(r.urn, r.policy, r.resource))
    for u in stack.ordered_unknown():
        yield {
            "ruleId": index[u.policy][1], "ruleIndex": index[u.policy][0], "kind": "open", "level": "none",
            "message": {"text": f"Not evaluated at preview (not a pass): {u.message}"},
            "locations": where(u.urn, u.policy, u.resource),
            "partialFingerprints": _fingerprint(stack.stack, u.policy, u.urn),
            "properties": {"stack": stack.stack, "environment": stack.environment, "policy": u.policy,
                           "pack": u.pack, "enforcementLevel": "unknown", "resourceType": u.type, "urn": u.urn},
        }


def _remediated(stack: StackReview, r: Remediation, index: dict[str, tuple[int, str]],
                locations: list[dict[str, Any]]) -> dict[str, Any]:
    """A remediation the pack applied (level remediate): an informational result with its `fixes` entry. The fix
    is applied by the pack at deployment, not by editing a file: its artifact change is an empty replacement at
    the located line (SARIF requires one), so a tool that applies fixes changes nothing."""
    location = locations[0]["physicalLocation"]
    line = location["region"]["startLine"]
    return {
        "ruleId": index[r.policy][1], "ruleIndex": index[r.policy][0], "kind": "informational", "level": "none",
        "message": {"text": f"Remediated before the analysis (level remediate): {r.resource} {r.text()}"},
        "locations": locations,
        "partialFingerprints": _fingerprint(stack.stack, r.policy, f"{r.urn}\n{r.property}"),
        "fixes": [{
            "description": {"text": f"The pack sets {r.text()} on {r.resource} before deployment "
                                    "(pulumi up --policy-pack with this level does the same)."},
            "artifactChanges": [{"artifactLocation": location["artifactLocation"], "replacements": [
                {"deletedRegion": {"startLine": line, "startColumn": 1, "endLine": line, "endColumn": 1}}]}],
        }],
        "properties": {"stack": stack.stack, "environment": stack.environment, "policy": r.policy, "pack": r.pack,
                       "enforcementLevel": "remediate", "resourceType": r.type, "urn": r.urn,
                       "property": r.property, "before": r.before, "after": r.after},
    }


def config_error_line(stack: StackReview, project_dir: Path) -> int:
    """The stack-file line of the top-level config key a config error is about (`amlkit:clusters` for
    `amlkit:clusters[0].max_instances`, `amlkt:tags` for `config.amlkt:tags`), else 1."""
    detail = stack.error_detail or {}
    if detail.get("file") != stack.stack_file or not detail.get("key_path"):
        return 1
    key = re.split(r"[.\[]", str(detail["key_path"]).removeprefix("config."), maxsplit=1)[0]
    pattern = re.compile(rf"^\s+{re.escape(key)}\s*:")
    try:
        lines = (project_dir / stack.stack_file).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return 1
    return next((number for number, line in enumerate(lines, 1) if pattern.match(line)), 1)


def _suppression(v: Violation) -> dict[str, Any]:
    suppression: dict[str, Any] = {"kind": "external", "status": "accepted",
                                   "justification": v.waiver_reason or "waived without a reason"}
    properties = {key: value for key, value in (("expires", v.waiver_expires), ("waiver", v.waiver),
                                                ("waiverVia", v.waiver_via)) if value}
    if properties:
        suppression["properties"] = properties
    return suppression


def _fingerprint(stack: str, policy: str, urn: str) -> dict[str, str]:
    """Stable across line moves, so code scanning tracks one alert per (stack, policy, resource)."""
    digest = hashlib.sha256(f"{stack}\n{policy}\n{urn}".encode()).hexdigest()[:32]
    return {"amlkitFinding/v1": digest}


def _uri(path: Path, root: Path) -> str:
    """Relative POSIX path from root when the file is under it, else an absolute file URI."""
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(Path(os.path.abspath(root))).as_posix()
    except ValueError:
        return absolute.as_uri()
