"""aml-compute-instance-idle-shutdown: compute instances stop themselves when idle.

An instance without `idleTimeBeforeShutdown` is a finding whatever its schedules (Azure Policy 679ddf89 and
PSRule AZR-000403 check idle shutdown only), but the message says what the instance does instead: an enabled
start/stop schedule whose action is Stop (`schedules.computeStartStop`, azure-ai-docs
articles/machine-learning/how-to-create-compute-instance.md, "Schedule automatic start and stop") stops it at fixed
times and it bills while idle between them; without one it runs and bills until someone stops it. A schedule counts
when its status is `Enabled` as written (the docs' templates always set it; the REST API publishes no default).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit import azure_facts as facts
from amlkit.policies.azure import INSTANCE, ComputeView, compute_of, compute_subject, read_known, same_value
from amlkit.policies.durations import FORMAT, DurationError, duration_seconds
from amlkit.policies.fixes import Fix, compute_fix
from amlkit.policies.framework import Finding, ResourceInput, Rule, azure_policy, must, psrule

__all__ = ["ENABLED", "MAX_MINUTES", "MIN_MINUTES", "NO_IDLE_SHUTDOWN", "RULE", "STOP", "check"]

MIN_MINUTES = facts.INSTANCE_IDLE_MINUTES_MIN
MAX_MINUTES = facts.INSTANCE_IDLE_MINUTES_MAX
STOP, ENABLED = "Stop", "Enabled"
"""ComputeStartStopSchedule's `action` (ComputePowerAction Start|Stop) and `status` (ScheduleStatus
Enabled|Disabled) that make a schedule stop the instance (azure-native 3.29 machinelearningservices;
how-to-create-compute-instance.md)."""
NO_IDLE_SHUTDOWN = {
    False: "none (the instance runs and bills until stopped)",
    True: "none (a schedule stops it at fixed times; between them it bills while idle)",
    None: "none (its schedules are unknown until apply; without a stop schedule it runs and bills until stopped)",
}
"""What an instance without idle shutdown does, by whether an enabled Stop schedule stops it (None: unknown)."""


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    compute = compute_of(resource.type, resource.props, INSTANCE)
    if compute is None:
        return
    subject = compute_subject(resource.name, compute)
    limit = config["maxIdleMinutes"]
    expectation = f"shut down after {MIN_MINUTES} to {limit} idle minutes (idleTimeBeforeShutdown)"
    value = compute.idle_time_before_shutdown
    if value is None:
        yield Finding(must(subject, expectation, NO_IDLE_SHUTDOWN[_stopped_by_schedule(compute)]))
        return
    try:
        minutes = duration_seconds(value) / 60
    except DurationError:
        yield Finding(must(subject, f"set idleTimeBeforeShutdown as {FORMAT}", repr(value)))
        return
    if not MIN_MINUTES <= minutes <= limit:
        yield Finding(must(subject, expectation, f"{value} ({_minutes(minutes)} minutes)"))


def fix(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Fix]:
    """No idle shutdown, or one outside the allowed range: `remediationIdleMinutes` (at most maxIdleMinutes).
    A value that is no duration is left to a human; the classic provider has no idle shutdown input."""
    compute = compute_of(resource.type, resource.props, INSTANCE)
    if compute is None:
        return
    value = compute.idle_time_before_shutdown
    if value is not None:
        try:
            duration_seconds(value)
        except DurationError:
            return
    minutes = min(config["remediationIdleMinutes"], config["maxIdleMinutes"])
    change = compute_fix(compute, facts.IDLE_TIME_BEFORE_SHUTDOWN, facts.minutes_iso(minutes))
    if change:
        yield change


def _stopped_by_schedule(compute: ComputeView) -> bool | None:
    """Whether an enabled Stop schedule stops the instance; None when its schedules are unknown at preview."""
    known, stops = read_known(lambda: any(map(_stops, compute.start_stop_schedules)))
    return bool(stops) if known else None


def _stops(entry: Any) -> bool:
    return (isinstance(entry, Mapping) and same_value(entry.get("action"), STOP)
            and same_value(entry.get("status"), ENABLED))


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
    "allowed maximum, e.g. PT60M. An instance without idle shutdown bills while idle until someone, or a stop "
    "schedule, stops it; start/stop schedules (schedules.computeStartStop) suit predictable working hours and "
    "complement idle shutdown, they do not replace it.",
    check=check,
    fix=fix,
    config={
        "maxIdleMinutes": {
            "type": "integer",
            "minimum": MIN_MINUTES,
            "maximum": MAX_MINUTES,
            "default": MAX_MINUTES,
            "description": f"Longest idle time before shutdown, in minutes ({MIN_MINUTES} to {MAX_MINUTES}).",
        },
        "remediationIdleMinutes": {
            "type": "integer",
            "minimum": MIN_MINUTES,
            "maximum": MAX_MINUTES,
            "default": facts.INSTANCE_IDLE_MINUTES_DEFAULT,
            "description": "The idle shutdown the remediation sets (level remediate), in minutes, at most "
            "maxIdleMinutes; default amlkit's instance default, 60.",
        },
    },
)
