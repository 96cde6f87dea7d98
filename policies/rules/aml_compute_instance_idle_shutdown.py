"""aml-compute-instance-idle-shutdown: compute instances stop themselves when idle."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit import azure_facts as facts
from amlkit.policies.azure import INSTANCE, compute_of, compute_subject
from amlkit.policies.durations import FORMAT, DurationError, duration_seconds
from amlkit.policies.framework import Finding, ResourceInput, Rule, azure_policy, must, psrule

MIN_MINUTES = facts.INSTANCE_IDLE_MINUTES_MIN
MAX_MINUTES = facts.INSTANCE_IDLE_MINUTES_MAX


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    compute = compute_of(resource.type, resource.props, INSTANCE)
    if compute is None:
        return
    subject = compute_subject(resource.name, compute)
    limit = config["maxIdleMinutes"]
    expectation = f"shut down after {MIN_MINUTES} to {limit} idle minutes (idleTimeBeforeShutdown)"
    value = compute.idle_time_before_shutdown
    if value is None:
        yield Finding(must(subject, expectation, "none (the instance runs and bills until stopped)"))
        return
    try:
        minutes = duration_seconds(value) / 60
    except DurationError:
        yield Finding(must(subject, f"set idleTimeBeforeShutdown as {FORMAT}", repr(value)))
        return
    if not MIN_MINUTES <= minutes <= limit:
        yield Finding(must(subject, expectation, f"{value} ({_minutes(minutes)} minutes)"))


def _minutes(minutes: float) -> str:
    return str(int(minutes)) if minutes.is_integer() else f"{minutes:.2f}".rstrip("0")


RULE = Rule(
    name="aml-compute-instance-idle-shutdown",
    ref="AMLK-0013",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="Compute instance idle shutdown",
    group="compute",
    equivalents=(
        azure_policy("679ddf89-ab8f-48a5-9029-e76054077449",
            "Azure Machine Learning Compute Instance should have idle shutdown"),
        psrule("AZR-000403", "Azure.ML.ComputeIdleShutdown"),
    ),
    stack_key="idle_time_before_shutdown_minutes",
    description=f"Compute instances must set idleTimeBeforeShutdown between {MIN_MINUTES} minutes and maxIdleMinutes "
    f"(default {MAX_MINUTES} = 3 days, Azure's limit). Azure Policy 679ddf89, PSRule Azure.ML.ComputeIdleShutdown "
    "(AZR-000403).",
    severity="medium",
    level="advisory",
    tags=("cost",),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-create-compute-instance#configure-idle-shutdown",
    remediation="Set properties.idle_time_before_shutdown to an ISO-8601 duration between PT15M and the "
    "allowed maximum, e.g. PT60M. An instance without idle shutdown bills around the clock until someone "
    "stops it; add start/stop schedules for predictable working hours.",
    check=check,
    config={
        "maxIdleMinutes": {
            "type": "integer",
            "minimum": MIN_MINUTES,
            "maximum": MAX_MINUTES,
            "default": MAX_MINUTES,
            "description": f"Longest idle time before shutdown, in minutes ({MIN_MINUTES} to {MAX_MINUTES}).",
        },
    },
)
