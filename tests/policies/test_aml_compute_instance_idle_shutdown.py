import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from amlkit.policies.framework import ResourceInput
from amlkit.policies.rules.aml_compute_instance_idle_shutdown import RULE
from tests.policies.compute_fixtures import instance_props, with_unknown
from tests.policies.examples import Example
from tests.policies.helpers import COMPUTE_TYPE, DELETE, Public, changed, cluster_props, messages

PUBLIC = Public("AMLK-0013", "aml-compute-instance-idle-shutdown", level="advisory", kind="resource")

HAPPY = instance_props()
IDLE = "properties.properties.idleTimeBeforeShutdown"
SUBJECT = "Compute instance 'ci-alice'"


def idle(value):
    return changed(HAPPY, IDLE, value)


def schedules(*entries):
    """No idleTimeBeforeShutdown, and these `schedules.computeStartStop` entries (action, status; None: omitted)."""
    props = idle(DELETE)
    rows = [{"triggerType": "Cron", "cron": {"expression": "0 18 * * *", "timeZone": "UTC"},
             **({} if action is None else {"action": action}), **({} if status is None else {"status": status})}
            for action, status in entries]
    return changed(props, "properties.properties.schedules", {"computeStartStop": rows})


RUNS = "none (the instance runs and bills until stopped)"
SCHEDULED = "none (a schedule stops it at fixed times; between them it bills while idle)"


def out_of_range(found, limit=4320):
    return [f"{SUBJECT} must shut down after 15 to {limit} idle minutes (idleTimeBeforeShutdown); found {found}."]


CASES = [
    ("happy-path-PT60M", HAPPY, None, []),
    ("minimum-PT15M", idle("PT15M"), None, []),
    ("maximum-P3D", idle("P3D"), None, []),
    ("hours-PT2H30M", idle("PT2H30M"), None, []),
    ("missing-is-a-violation", idle(DELETE), None, out_of_range(RUNS)),
    # a stop schedule is not idle shutdown (Azure Policy 679ddf89, PSRule AZR-000403): still a finding, but its text
    # says what the instance does instead (how-to-create-compute-instance.md, "Schedule automatic start and stop")
    ("missing-with-enabled-stop-schedule", schedules(("Stop", "Enabled")), None, out_of_range(SCHEDULED)),
    ("missing-with-start-and-stop", schedules(("Start", "Enabled"), ("Stop", "Enabled")), None,
     out_of_range(SCHEDULED)),
    ("missing-with-enum-case", schedules(("stop", "enabled")), None, out_of_range(SCHEDULED)),
    ("missing-with-disabled-stop-schedule", schedules(("Stop", "Disabled")), None, out_of_range(RUNS)),
    ("missing-with-start-schedule-only", schedules(("Start", "Enabled")), None, out_of_range(RUNS)),
    ("missing-with-stop-status-omitted", schedules(("Stop", None)), None, out_of_range(RUNS)),
    ("missing-with-action-omitted", schedules((None, "Enabled")), None, out_of_range(RUNS)),
    ("missing-with-no-schedules", changed(idle(DELETE), "properties.properties.schedules", {}), None,
     out_of_range(RUNS)),
    ("set-with-stop-schedule", changed(schedules(("Stop", "Enabled")), IDLE, "PT60M"), None, []),
    ("below-minimum-PT10M", idle("PT10M"), None, out_of_range("PT10M (10 minutes)")),
    ("below-minimum-fraction", idle("PT14M59.5S"), None, out_of_range("PT14M59.5S (14.99 minutes)")),
    ("above-maximum-P3DT1M", idle("P3DT1M"), None, out_of_range("P3DT1M (4321 minutes)")),
    ("unparseable", idle("60"), None,
     [f"{SUBJECT} must set idleTimeBeforeShutdown as an ISO-8601 duration in weeks, days, hours, minutes or "
      "seconds (e.g. PT120S, PT15M, P1D); found '60'."]),
    ("config-8-hours-exceeded", idle("P1D"), {"maxIdleMinutes": 480.0}, out_of_range("P1D (1440 minutes)", 480)),
    ("config-8-hours-met", idle("PT8H"), {"maxIdleMinutes": 480}, []),
    ("cluster-ignored", cluster_props(), None, []),
]

EXAMPLE = Example.of_cases(CASES, fails="missing-is-a-violation", passes="happy-path-PT60M")


@pytest.mark.parametrize(("props", "config", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_compute_instance_idle_shutdown(props, config, expected):
    assert messages(RULE, props, config, name="ci-alice") == expected


def test_other_resource_types_are_ignored():
    assert messages(RULE, idle(DELETE), name="ci-alice", type_="azure-native:storage:StorageAccount") == []


def test_unknown_schedules_keep_the_finding_and_say_so():
    props = with_unknown(schedules(("Stop", "Enabled")), "properties.properties.schedules.computeStartStop",
                         UNKNOWN_STRING_VALUE)
    assert messages(RULE, props, name="ci-alice") == out_of_range(
        "none (its schedules are unknown until apply; without a stop schedule it runs and bills until stopped)")


def test_unknown_idle_time_is_unknown_not_a_pass():
    props = with_unknown(HAPPY, IDLE, UNKNOWN_STRING_VALUE)
    with pytest.raises(UnknownValueError):
        RULE.evaluate(ResourceInput(COMPUTE_TYPE, "ci-alice", "urn", props))
