"""docs/rules/README.md and one docs/rules/<rule-name>.md per rule, from `amlkit.policies.ALL_RULES`:
reference, level, severity, tags, description, sources, compliance reference, peer equivalents, config
knobs, examples (the EXAMPLE each rule's test module declares, evaluated now) and remediation."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from amlkit.errors import UsageError
from amlkit.policies import ALL_RULES
from amlkit.policies.framework import Change, Rule, StackResource
from amlkit.policies.waivers import WAIVER_SCHEMA
from tests.policies.examples import Example, example_of, rule_test_path
from tools.docs.configuration import UndocumentedError
from tools.docs.markdown import GENERATED, UNSET, cell, inline, table

_KNOWN_SCHEMA_KEYS = frozenset({
    "type", "description", "default", "minimum", "maximum", "pattern", "enum", "items", "minItems",
    "maxItems", "uniqueItems", "minLength", "maxLength", "additionalProperties", "properties", "required",
})


def knob_type(spec: Mapping[str, Any], knob: str = "") -> str:
    """A JSON-schema property in words, e.g. `integer, at least 1` or `list of: Dedicated, LowPriority`."""
    unknown = sorted(set(spec) - _KNOWN_SCHEMA_KEYS)
    if unknown:
        raise UndocumentedError(f"{knob}: JSON-schema keyword(s) the rule reference cannot show: {', '.join(unknown)}")
    kind = spec.get("type")
    if "enum" in spec:
        text = "one of " + ", ".join(f"`{value}`" for value in spec["enum"])
    elif kind == "array":
        text = "list of " + knob_type(spec.get("items", {}), knob)
    elif kind == "object" and "properties" in spec:  # a record: its keys (each documented where it is used)
        text = "object with keys " + ", ".join(f"`{key}`" for key in spec["properties"])
        text += f" (required: {', '.join(f'`{key}`' for key in spec['required'])})" if spec.get("required") else ""
    elif kind == "object":
        text = "mapping of text to " + knob_type(spec.get("additionalProperties", {}), knob)
    elif kind in ("integer", "string", "number", "boolean"):
        text = {"string": "text"}.get(kind, kind)
    else:
        raise UndocumentedError(f"{knob}: JSON-schema type {kind!r} the rule reference cannot show")
    return text + _limits(spec)


def _limits(spec: Mapping[str, Any]) -> str:
    low, high = spec.get("minimum"), spec.get("maximum")
    parts = []
    if low is not None and high is not None:
        parts.append(f"from {low} to {high}")
    elif low is not None:
        parts.append(f"at least {low}")
    elif high is not None:
        parts.append(f"at most {high}")
    if "pattern" in spec:
        parts.append(f"matching `{spec['pattern']}`")
    if "minLength" in spec or "maxLength" in spec:
        parts.append(f"{spec.get('minLength', 0)}-{spec.get('maxLength', '…')} characters")
    if "minItems" in spec:
        parts.append(f"at least {spec['minItems']} item(s)")
    if "maxItems" in spec:
        parts.append(f"at most {spec['maxItems']} item(s)")
    if spec.get("uniqueItems"):
        parts.append("no repeats")
    return "".join(f", {part}" for part in parts)


def knob_rows(rule: Rule) -> list[list[str]]:
    """Knob | Type | Default | Description rows of a rule's config schema."""
    rows = []
    for knob, spec in rule.config.items():
        default = f"`{json.dumps(spec['default'])}`" if "default" in spec else UNSET
        rows.append([f"`{knob}`", knob_type(spec, f"{rule.name}.{knob}"), default,
                     inline(spec.get("description", ""))])
    return rows


def _waiver_keys() -> str:
    """`{resource, reason, expires}` with the optional keys marked, from WAIVER_SCHEMA."""
    items = WAIVER_SCHEMA["items"]
    keys = [key if key in items["required"] else f"{key}?" for key in items["properties"]]
    return "`{" + ", ".join(keys) + "}`"


def _kinds() -> list[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]]:
    """(kind, names a rule module uses to read it, azure-native types, classic pulumi-azure types). The
    `amlkit.policies.value_check` runners (`compute_check`, ...) read their kind's view."""
    from amlkit.policies import azure

    return [
        ("computes", ("compute_of", "compute_view", "ComputeView", "subnet_groups", "compute_check"),
         (azure.COMPUTE,), tuple(azure.CLASSIC_COMPUTES)),
        ("workspaces", ("workspace_view", "workspaces_by_key", "workspace_props", "WorkspaceView", "workspace_groups",
                        "workspace_check", "workspace_stack_check"),
         (azure.WORKSPACE,), (azure.CLASSIC_WORKSPACE,)),
        ("management locks", ("LockView", "is_lock"), azure.NATIVE_LOCKS, azure.CLASSIC_LOCKS),
        ("online deployments", ("deployment_view",), (azure.ONLINE_DEPLOYMENT,), ()),
        ("diagnostic settings", ("diagnostic_setting_view",), azure.DIAGNOSTIC_SETTINGS,
         (azure.CLASSIC_DIAGNOSTIC_SETTING,)),
        ("role assignments", ("role_assignment_view",), (azure.ROLE_ASSIGNMENT,), (azure.CLASSIC_ROLE_ASSIGNMENT,)),
    ]


def providers_read(rule: Rule) -> list[str]:
    """Markdown lines: which providers' resources the rule reads, from the views its module uses
    (amlkit.policies.azure / arm); a rule that uses none reads every resource's type token or tags."""
    import importlib

    module = vars(importlib.import_module(f"amlkit.policies.rules.{rule.name.replace('-', '_')}"))
    if "unmapped" in module:
        return ["- Every resource of an ML-relevant type, of any provider: those no view maps are its findings."]
    lines = []
    for kind, names, native, classic in _kinds():
        if any(name in module for name in names):
            tokens = [f"azure-native `{token}`" for token in native]
            tokens += [f"pulumi-azure `{token}`" for token in classic] or ["(pulumi-azure has none)"]
            lines.append(f"- {kind}: " + ", ".join(tokens))
    return lines or ["- Every resource, of any provider, by its type token or `tags` (no provider's property path)."]


def rule_file(rule: Rule) -> str:
    return f"{rule.name}.md"


def rules_index(rules: Sequence[Rule] = ALL_RULES) -> str:
    """docs/rules/README.md: every rule with its reference and default level, in pack order."""
    rows = [[rule.group, f"[{rule.name}]({rule_file(rule)})", rule.ref, cell(rule.display_name), rule.level,
             rule.severity, ", ".join(rule.tags), rule.since, "yes" if rule.remediates else "-"] for rule in rules]
    lines = [
        GENERATED, "", "# Rules", "",
        f"{len(rules)} rules, in the order of `amlkit.policies.ALL_RULES` and of the reports (by group, then by",
        "reference). Each is one module of `policies/rules/`, found by the pack without a list. The name is the",
        "public interface (pack config keys, waivers, reports); the reference (`AMLK-0001`...) is a stable opaque",
        "id that is never reused, the SARIF rule id. The level is the default; a pack config file sets each",
        "rule's level and knobs, e.g. `{\"aml-cluster-max-nodes\": {\"enforcementLevel\": \"mandatory\",",
        "\"maxNodes\": 10}}` (`--policy-pack-config <file>` for `amlkit check` and `pulumi preview`; without it,",
        "`amlkit check` uses the project's `policy-config/<stack>.json` when there is one, else the pack's defaults).",
        f"Every rule also takes `waivers`, a list of {_waiver_keys()}: {inline(WAIVER_SCHEMA['description'])}",
        "See [waivers](../waivers.md). `Since` is the amlkit release a rule arrived in: a pack config's",
        "`baseline` holds back what came after it (see [upgrading](../upgrading.md)). `Remediates`: the rule has",
        "a fix the pack sets when its level is `remediate` (see",
        "[remediation](../review.md#remediation-level-remediate)); any other rule at that level runs as mandatory.",
        "",
        *table(("Group", "Rule", "Ref", "Title", "Level", "Severity", "Tags", "Since", "Remediates"), rows),
    ]
    return "\n".join(lines) + "\n"


def rule_page(rule: Rule) -> str:
    """docs/rules/<name>.md: what, why (sources), config, examples that fail and pass, remediation."""
    kind = "stack rule (sees every resource of the stack)" if rule.is_stack_rule else "resource rule"
    lines = [
        GENERATED, "", f"# {rule.name}", "",
        f"**{cell(rule.display_name)}** · reference `{rule.ref}` · default level **{rule.level}** · severity "
        f"**{rule.severity}** · tags {', '.join(rule.tags)} · {kind} · since amlkit **{rule.since}**", "",
        "## What it checks", "", inline(rule.description), "",
        "## Resources it reads", "", "azure-native 3.x (explicit-version tokens included) and the classic "
        "pulumi-azure 6.x provider, through one provider-neutral view per kind (see [providers and "
        "versions](../review.md#providers-and-versions)):", "", *providers_read(rule), "",
        "## Why: sources", "", f"- Primary source: <{rule.url}>",
    ]
    if rule.compliance:
        c = rule.compliance
        lines.append(f"- Compliance: {c.name} {c.version}, control [{c.reference}: {c.specification}]({c.url})")
    for e in rule.equivalents:
        title = f" ({e.title})" if e.title else ""
        lines.append(f"- {e.tool}: [`{e.id}`]({e.url}){title}")
    if not rule.equivalents:
        lines.append("- No peer tool checks this (Azure Policy built-ins, PSRule for Azure, Checkov, Azure Landing "
                     "Zones).")
    lines += ["", "## Configuration", ""]
    rows = knob_rows(rule)
    if rows:
        lines += table(("Knob", "Type", "Default", "Description"), rows)
    else:
        lines.append("No knobs besides `enforcementLevel` and `waivers` (see [waivers](../waivers.md)).")
    lines += ["", "## Examples", "", *examples(rule), "", "## Remediation", "", inline(rule.remediation), "",
              remediate_line(rule)]
    if rule.changed:
        lines += ["", "## Changes", "", "Under a `baseline` older than a change, the rule keeps the defaults it had "
                  "before it (see [upgrading](../upgrading.md)).", ""]
        lines += [f"- {change.version}: {inline(change.what)}{_old_defaults(change)}" for change in rule.changed]
    return "\n".join(lines) + "\n"


def remediate_line(rule: Rule) -> str:
    """What the rule sets at level `remediate` (its fix's docstring), or that it never remediates."""
    if rule.is_stack_rule:
        return ("At level `remediate` this rule sets nothing (stack policies cannot remediate): it runs as mandatory "
                "(see [remediation](../review.md#remediation-level-remediate)).")
    if rule.fix is None:
        return ("At level `remediate` this rule sets nothing (its fix needs a human choice): it runs as mandatory "
                "(see [remediation](../review.md#remediation-level-remediate)).")
    return ("At level `remediate` the pack sets this before the resource is analyzed (see [remediation]"
            f"(../review.md#remediation-level-remediate)): {inline(rule.fix.__doc__ or '')}")


def _old_defaults(change: Change) -> str:
    before = ([f"level {change.level}"] if change.level else []) + [
        f"`{key}` {json.dumps(value)}" for key, value in change.config.items()]
    return f" (before: {', '.join(before)})" if before else ""



# --- examples: the EXAMPLE each rule's test module declares (tests/policies/examples.py) --------------------


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, Mapping) and value:
        flat: dict[str, Any] = {}
        for key, item in value.items():
            flat.update(_flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    return {prefix: value}


def changes(base: Mapping[str, Any], other: Mapping[str, Any]) -> dict[str, Any]:
    """The input paths `other` sets differently from `base` (`(omitted)` for a path it leaves out)."""
    old, new = _flatten(base), _flatten(other)
    diff = {path: new.get(path, "(omitted)") for path in sorted(set(old) | set(new)) if old.get(path) != new.get(path)}
    return {path: value for path, value in diff.items() if value != "(omitted)" or path in old}


def _json(value: Any) -> list[str]:
    return ["```json", json.dumps(value, indent=2, sort_keys=True, default=str), "```"]


def stack_changes(example: Example) -> list[str]:
    """What the failing stack changes from the passing one: resources added, removed, retyped or re-input."""
    passes = {item.name: item for item in example.passes}
    fails = {item.name: item for item in example.fails}
    lines: list[str] = []
    for name, item in fails.items():
        before = passes.get(name)
        if before is None:
            lines += [f"- adds `{name}` (`{item.type}`):", "", *_json(item.props), ""]
        elif before.type != item.type:
            lines += [f"- declares `{name}` as `{item.type}` instead of `{before.type}`", ""]
        elif before.props != item.props:
            lines += [f"- changes `{name}` (`{item.type}`):", "", *_json(changes(before.props, item.props)), ""]
    lines += [f"- removes `{name}` (`{item.type}`)" for name, item in passes.items() if name not in fails]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def stack_table(stack: Sequence[StackResource]) -> list[str]:
    """A one-resource stack shows its inputs; a larger one lists its resources."""
    if len(stack) == 1:
        return [f"`{stack[0].name}` (`{stack[0].type}`) with the inputs:", "", *_json(stack[0].props)]
    return table(("Resource", "Type"), [[f"`{r.name}`", f"`{r.type}`"] for r in stack])


def examples(rule: Rule) -> list[str]:
    """The rule's EXAMPLE, evaluated now: the passing stack, what the failing one changes, what the rule reports."""
    path = rule_test_path(rule)
    example = example_of(rule)
    if example is None:
        raise UsageError(f"{path} declares no EXAMPLE (see tests/policies/examples.py)")
    lines = [f"From `EXAMPLE` in [`{path}`](../../{path}) (inputs as the policy sees them; the messages are the "
             "rule's output today).", ""]
    if example.config:
        lines += [f"With pack config `{json.dumps(dict(example.config), sort_keys=True)}`:", ""]
    lines += [f"Passes (`{example.passes_case}`), a stack of:", "", *stack_table(example.passes), "",
              f"Fails (`{example.fails_case}`), the same stack except that it:", "", *stack_changes(example),
              "", "Reports:", ""]
    return lines + [f"> {message}" for _, message in example.messages(rule, example.fails)]
