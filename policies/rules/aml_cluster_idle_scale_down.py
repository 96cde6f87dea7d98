"""aml-cluster-idle-scale-down: idle cluster nodes are released within the allowed time."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit import azure_facts as facts
from amlkit.policies.azure import CLUSTER, compute_of, compute_subject
from amlkit.policies.durations import FORMAT, DurationError, describe_seconds, duration_seconds
from amlkit.policies.fixes import Fix, compute_fix
from amlkit.policies.framework import Finding, ResourceInput, Rule, alz, must

__all__ = ["AZURE_DEFAULT", "RULE", "check"]

AZURE_DEFAULT = facts.CLUSTER_IDLE_DEFAULT_ISO


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    compute = compute_of(resource.type, resource.props, CLUSTER)
    if compute is None:
        return
    value = compute.idle_time_before_scale_down
    if value is None:
        return  # Azure releases idle nodes after AZURE_DEFAULT
    subject = compute_subject(resource.name, compute)
    try:
        seconds = duration_seconds(value)
    except DurationError:
        yield Finding(must(subject, f"set nodeIdleTimeBeforeScaleDown as {FORMAT}", repr(value)))
        return
    limit = config["maxIdleSeconds"]
    if seconds > limit:
        yield Finding(must(subject, f"release idle nodes within {describe_seconds(limit)} "
                                    f"(nodeIdleTimeBeforeScaleDown)", f"{value} ({describe_seconds(seconds)})"))


def fix(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Fix]:
    """An idle time over the limit becomes the limit (`PT<limit>S`). A value that is no duration is left to a
    human: what was meant is not known."""
    compute = compute_of(resource.type, resource.props, CLUSTER)
    value = compute.idle_time_before_scale_down if compute else None
    if compute is None or value is None:
        return
    try:
        seconds = duration_seconds(value)
    except DurationError:
        return
    limit = config["maxIdleSeconds"]
    change = compute_fix(compute, facts.NODE_IDLE_TIME, facts.seconds_iso(limit),
                         "scaleSettings.scaleDownNodesAfterIdleDuration")
    if seconds > limit and change:
        yield change


RULE = Rule(
    name="aml-cluster-idle-scale-down",
    ref="AMLK-0003",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="Idle nodes released promptly",
    group="compute",
    equivalents=(
        alz("Deny-MachineLearning-ComputeCluster-Scale"),
    ),
    stack_key="idle_time_before_scale_down",
    description="AmlCompute clusters must release idle nodes quickly: nodeIdleTimeBeforeScaleDown at most "
    f"maxIdleSeconds (default 900 s, the Azure Landing Zones cap). Omitted means Azure's default {AZURE_DEFAULT}.",
    severity="medium",
    level="mandatory",
    tags=("cost",),
    url="https://github.com/Azure/Enterprise-Scale/blob/main/src/resources/Microsoft.Authorization/"
    "policyDefinitions/Deny-MachineLearning-ComputeCluster-Scale.json",
    remediation="Set scale_settings.node_idle_time_before_scale_down (stack: idle_time_before_scale_down) "
    f"to an ISO-8601 duration within maxIdleSeconds, e.g. {AZURE_DEFAULT} or PT15M, or omit it for Azure's "
    f"{AZURE_DEFAULT}. "
    "Idle nodes above minNodeCount keep billing until this time passes. Equivalent to the idle-time part of "
    "ALZ Deny-MachineLearning-ComputeCluster-Scale, whose parser reads only the last number of the duration; "
    "this rule parses the whole duration (PT1H30S is 3630 s, not 30 s).",
    check=check,
    fix=fix,
    config={
        "maxIdleSeconds": {
            "type": "integer",
            "minimum": 0,
            "default": 900,
            "description": "Longest nodeIdleTimeBeforeScaleDown allowed, in seconds.",
        },
    },
)
