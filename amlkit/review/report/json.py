"""The JSON report: stable, for scripts and CI (in the order amlkit.review.model gives).

Shape (format version 1; fields are only ever added, never renamed, within a version)::

    {
      "version": 1,
      "stacks": [
        {
          "stack": "prod", "project": "amlkit", "environment": "prod",
          "stack_file": "stacks/Pulumi.prod.yaml",
          "pack": {"name": "amlkit-guardrails", "version": "0.2.0"} | null,      # the first pack
          "policy_config": "policy-config/prod.json" | "pack defaults",          # the first pack's
          "packs": [{"name", "version", "policy_config"}],                        # every pack, in order
          "audited_state": null | "<the state file>",                            # check --state
          "error": null | "what failed: the review of this stack did not happen",
          "error_kind": null | "config" | "program" | "pack" | "internal",
          "error_detail": null | {"kind": "config", "stack", "file", "component", "key_path", "value",
                                  "problem", ...every other field of the ConfigError},
          "resources": [{"urn", "type", "name", "parent"}],          # sorted by urn
          "violations": [{"policy", "pack", "level", "severity", "urn", "type", "resource", "message"}
                         + {"reason", "expires", "waiver", "waiver_via"} when level is "waived"],
          "unknown": [{"policy", "pack", "urn", "type", "resource", "message"}],
          "remediations": [{"policy", "pack", "urn", "type", "resource", "property", "before", "after"}],
          "planBase": null | "state <file>" | "git <rev> (<commit>)",     # with --state / --base
          "planAzureIds": null | {"subscriptionId": {"value", "from"}, "tenantId": {"value", "from"}},
          "steps": null | [{"op", "urn", "type", "protect", "retainOnDelete"}
                           + {"diffReasons", "detailedDiff"} when properties changed
                           + {"replaceReasons", "replaceWhy", "deleteBeforeReplace"} when op is replace
                           + {"error"} when the engine refuses the step, {"notCompared"}],
          "changeSummary": null | {"create": 1, "update": 1, "replace": 1, "delete": 1, "same": 14},
          "lookups": [{"token", "args", "file", "line"}],
          "warnings": ["a waiver that waives nothing, or expires within waiverExpiryWarningDays, ..."]
        }
      ],
      "summary": {"mandatory": 0, "advisory": 0, "waived": 0, "unknown": 0, "failed": 0}
    }

`level` is mandatory | advisory | waived; `pack` is the name of the policy pack a finding comes
from (`packs` lists every pack run on the stack, each with the config applied to it);
`audited_state` is the `pulumi stack export` file a `check --state` audit read instead of running
the program (null for a review of the program); `expires` is an ISO date or null; `waiver` is the waiver's
`resource` as written and `waiver_via` how it named the finding's resource (`resource`, `entry`: its stack entry,
`component`: the component that contains it). Violations are sorted by
level (mandatory, advisory, waived), then policy, type, resource name, urn, message; unknowns by
policy, type, resource name, urn. `summary.failed` counts stacks whose review failed (`error` set):
such a review is never clean, whatever the counts say. `policy_config` is the policy pack config file
applied to the stack (relative to the project when inside it), or "pack defaults". `error_kind`
"config" is a stack file, policy pack config or component argument error (exit 2 when nothing else
failed); "program" and "pack" failures exit 3, and so does "internal": amlkit itself failed on that
stack (the other stacks are still reviewed). `error_detail` is set for config errors only. Resource
inputs are not part of the report, so no input value (secret or not) can leak through it; the plan's
`detailedDiff` carries `old` and `new` values already redacted (`[secret]`, `[unknown]`). `steps` are
sorted by urn; `op` is create | update | replace | delete | same; `detailedDiff` kinds are pulumi's
(add, delete, update, and the same with `-replace`); `changeSummary` counts the root Stack too and
leaves out zero counts.
`lookups` lists each lookup the review could not answer (an invoke: `token` is the function, `args`
its arguments; a stack reference: `token` is `pulumi:pulumi:StackReference`, `args` is
`{"name": <stack>}`; `file` and `line`: the program line that called it, `file` relative to the program's
directory, both null when no line of the program's own files called it), sorted by token, args, file, line:
whatever the program derived from them is unknown. The same lookup called from two lines is listed twice.
`remediations` (added in 0.3.0) lists what the policies at level `remediate` set on a resource before it was
analyzed, as `pulumi up --policy-pack` sets it before deploying: one entry per changed property (`property` its
dotted path in the inputs, `before` and `after` its JSON values, null when absent, `"[secret]"` for a secret),
resources in urn order, a resource's changes in the order the pack made them.
"""

from __future__ import annotations

import json
from typing import Any

from amlkit.review.model import PackInfo, Review, StackReview, Violation

__all__ = ["FORMAT_VERSION", "indented", "render", "render_rules", "rules_to_dict", "to_dict"]

FORMAT_VERSION = 1


def to_dict(review: Review) -> dict[str, Any]:
    return {
        "version": FORMAT_VERSION,
        "stacks": [_stack(s) for s in review.ordered_stacks()],
        "summary": review.summary(),
    }


def render(review: Review) -> str:
    return indented(to_dict(review)) + "\n"


def rules_to_dict(pack: PackInfo) -> dict[str, Any]:
    """`amlkit rules --format json`: {"version", "pack": {"name", "version"}, "policies": [...]} by name."""
    return {
        "version": FORMAT_VERSION,
        "pack": {"name": pack.name, "version": pack.version},
        "policies": [
            {
                "name": p.name,
                "ref": p.ref or None,
                "group": p.group or None,
                "display_name": p.display_name or None,
                "since": p.since or None,
                "level": p.level,
                "severity": p.severity,
                "description": p.description,
                "remediation": p.remediation,
                "url": p.url,
                "tags": list(p.tags),
                "stack_policy": p.stack_policy,
                "remediates": p.remediates,
                "compliance": dict(zip(("name", "version", "reference", "specification"), p.framework, strict=True))
                if p.framework else None,
                "equivalents": [{"tool": e.tool, "id": e.id, "title": e.title, "url": e.url} for e in p.equivalents],
            }
            for p in sorted(pack.policies, key=lambda p: p.name)
        ],
    }


def render_rules(pack: PackInfo) -> str:
    return json.dumps(rules_to_dict(pack), indent=2, ensure_ascii=False) + "\n"


def _stack(stack: StackReview) -> dict[str, Any]:
    return {
        "stack": stack.stack,
        "project": stack.project,
        "environment": stack.environment,
        "stack_file": stack.stack_file,
        "pack": {"name": stack.pack.name, "version": stack.pack.version} if stack.pack else None,
        "policy_config": stack.policy_config,
        "packs": [{"name": p.name, "version": p.version, "policy_config": p.policy_config or stack.policy_config}
                  for p in stack.all_packs()],
        "audited_state": stack.audited_state,
        "error": stack.error,
        "error_kind": stack.error_kind,
        "error_detail": stack.error_detail,
        "resources": [
            {"urn": r.urn, "type": r.type, "name": r.name, "parent": r.parent}
            for r in sorted(stack.resources, key=lambda r: r.urn)
        ],
        "violations": [_violation(v) for v in stack.ordered_violations()],
        "unknown": [
            {"policy": u.policy, "pack": u.pack, "urn": u.urn, "type": u.type, "resource": u.resource,
             "message": u.message}
            for u in stack.ordered_unknown()
        ],
        "remediations": [
            {"policy": r.policy, "pack": r.pack, "urn": r.urn, "type": r.type, "resource": r.resource,
             "property": r.property, "before": r.before, "after": r.after}
            for r in stack.remediations
        ],
        **_plan(stack),
        "lookups": [{"token": lookup.token, "args": lookup.args, "file": lookup.file, "line": lookup.line}
                    for lookup in stack.ordered_lookups()],
        "warnings": list(stack.warnings),
    }


def _plan(stack: StackReview) -> dict[str, Any]:
    from amlkit.review.report import changes

    if stack.plan is None:
        return {"planBase": None, "planAzureIds": None, "steps": None, "changeSummary": None}
    return {"planBase": stack.plan.base, "planAzureIds": stack.plan.azure_ids,
            "steps": changes.steps_json(stack.plan), "changeSummary": changes.change_summary(stack.plan)}


def _violation(v: Violation) -> dict[str, Any]:
    data: dict[str, Any] = {
        "policy": v.policy,
        "pack": v.pack,
        "level": v.level,
        "severity": v.severity,
        "urn": v.urn,
        "type": v.type,
        "resource": v.resource,
        "message": v.message,
    }
    if v.level == "waived":
        data["reason"] = v.waiver_reason
        data["expires"] = v.waiver_expires
        data["waiver"] = v.waiver
        data["waiver_via"] = v.waiver_via
    return data


# --- writing it ---------------------------------------------------------------------------------------

_CONTAINERS = (dict, list, tuple)


def indented(value: Any) -> str:
    """`json.dumps(value, indent=2, ensure_ascii=False)`, the same text, written faster: with an indent the json
    module encodes in Python, one generator step per token (~1 s of a 100,000-resource audit's report). Here each
    object or array without a nested one (a resource, a finding) is written by the json module's C encoder in one
    call, its item separator carrying the newline and indent; the rest walks as the json module does."""
    out: list[str] = []
    _write(value, "\n", out)
    return "".join(out)


def _write(value: Any, newline: str, out: list[str]) -> None:
    """`value` at the nesting whose lines start with `newline` (a newline and the indent)."""
    if isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = newline + "  "
        if not any(isinstance(item, _CONTAINERS) for item in value.values()):
            out.append("{" + inner + _flat(inner)(value)[1:-1] + newline + "}")
            return
        separator = "{" + inner
        for key, item in value.items():
            out.append(separator + _key(key) + ": ")
            _write(item, inner, out)
            separator = "," + inner
        out.append(newline + "}")
    elif isinstance(value, (list, tuple)):
        if not value:
            out.append("[]")
            return
        inner = newline + "  "
        if not any(isinstance(item, _CONTAINERS) for item in value):
            out.append("[" + inner + _flat(inner)(value)[1:-1] + newline + "]")
            return
        separator = "[" + inner
        for item in value:
            out.append(separator)
            _write(item, inner, out)
            separator = "," + inner
        out.append(newline + "]")
    else:
        out.append(json.dumps(value, ensure_ascii=False))


_FLAT: dict[str, Any] = {}


def _flat(inner: str) -> Any:
    """The C encoder (no indent) whose item separator is `,` then `inner`: a flat object or array's lines."""
    encode = _FLAT.get(inner)
    if encode is None:
        encode = _FLAT[inner] = json.JSONEncoder(ensure_ascii=False, separators=("," + inner, ": ")).encode
    return encode


def _key(key: Any) -> str:
    """An object's key as the json module writes it (a str, or an int, float, bool or None made one)."""
    if isinstance(key, str):
        return json.dumps(key, ensure_ascii=False)
    return json.dumps({key: None}, ensure_ascii=False)[1:-len(": null}")]
