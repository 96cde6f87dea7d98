"""The edge: turns amlkit rules into pulumi-policy policies. Only `__main__.py` builds the PolicyPack."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from pulumi_policy import (
    EnforcementLevel,
    Policy,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    Severity,
    StackValidationArgs,
    StackValidationPolicy,
)

from amlkit.policies.framework import (
    WAIVER_SCHEMA,
    Finding,
    ResourceInput,
    Rule,
    StackResource,
    Waived,
    apply_waivers,
    parse_waivers,
)

PACK_NAME = "amlkit-guardrails"

LEVELS = {
    "mandatory": EnforcementLevel.MANDATORY,
    "advisory": EnforcementLevel.ADVISORY,
    "disabled": EnforcementLevel.DISABLED,
}
SEVERITIES = {
    "low": Severity.LOW,
    "medium": Severity.MEDIUM,
    "high": Severity.HIGH,
    "critical": Severity.CRITICAL,
}


def config_schema(rule: Rule) -> PolicyConfigSchema:
    return PolicyConfigSchema(properties={**rule.config, "waivers": WAIVER_SCHEMA})


def build_policies(rules: Sequence[Rule]) -> list[Policy]:
    return [_stack_policy(rule) if rule.is_stack_rule else _resource_policy(rule) for rule in rules]


def _metadata(rule: Rule) -> dict:
    return {
        "name": rule.name,
        "description": rule.description,
        "enforcement_level": LEVELS[rule.level],
        "config_schema": config_schema(rule),
        "severity": SEVERITIES[rule.severity],
        "tags": list(rule.tags),
        "remediation_steps": rule.remediation,
        "url": rule.url,
    }


def _resource_policy(rule: Rule) -> ResourceValidationPolicy:
    def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
        given = args.get_config()
        resource = ResourceInput(args.resource_type, args.name, args.urn, args.props)
        findings = rule.evaluate(resource, given)
        _report(rule, findings, given, args.urn, report, args.not_applicable)

    return ResourceValidationPolicy(validate=validate, **_metadata(rule))


def _stack_policy(rule: Rule) -> StackValidationPolicy:
    def validate(args: StackValidationArgs, report: ReportViolation) -> None:
        given = args.get_config()
        resources = [_stack_resource(r) for r in args.resources]
        findings = rule.evaluate_stack(resources, given)
        _report(rule, findings, given, "", report, args.not_applicable)

    return StackValidationPolicy(validate=validate, **_metadata(rule))


def _stack_resource(resource) -> StackResource:
    return StackResource(
        resource.resource_type,
        resource.name,
        resource.urn,
        resource.props,
        resource.parent.urn if resource.parent else None,
        {key: tuple(dep.urn for dep in deps) for key, deps in resource.property_dependencies.items()},
    )


def _report(rule: Rule, findings: list[Finding], given, default_urn, report, not_applicable) -> None:
    """Report live findings as violations; waived ones go out as the policy's not-applicable reason.

    pulumi-policy reports every violation at the policy's level, so a waived finding cannot be a
    lower-level violation; "not applicable, with the waiver's reason" is the protocol's own way to say
    the policy was deliberately not applied. It never fails a deployment, whatever the level.
    """
    waivers = parse_waivers(rule.name, (given or {}).get("waivers"))
    active, waived = apply_waivers(findings, waivers, default_urn, date.today())
    for finding in active:
        report(finding.message, finding.urn)
    if waived:
        not_applicable("\n".join(w.describe() for w in waived))


__all__ = ["PACK_NAME", "build_policies", "config_schema", "Waived"]
