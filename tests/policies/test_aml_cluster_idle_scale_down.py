import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from amlkit.policies.framework import ResourceInput
from amlkit.policies.rules.aml_cluster_idle_scale_down import RULE
from tests.policies.compute_fixtures import instance_props, with_unknown
from tests.policies.examples import Example
from tests.policies.helpers import COMPUTE_TYPE, DELETE, Public, changed, cluster_props, messages

PUBLIC = Public("AMLK-0003", "aml-cluster-idle-scale-down", level="mandatory", kind="resource")

HAPPY = cluster_props()
IDLE = "properties.properties.scaleSettings.nodeIdleTimeBeforeScaleDown"
SUBJECT = "AmlCompute cluster 'cpu-cluster'"


def idle(value):
    return changed(HAPPY, IDLE, value)


def too_long(found):
    return [f"{SUBJECT} must release idle nodes within 900 seconds (nodeIdleTimeBeforeScaleDown); found {found}."]


def unparseable(value):
    return [f"{SUBJECT} must set nodeIdleTimeBeforeScaleDown as an ISO-8601 duration in weeks, days, hours, "
            f"minutes or seconds (e.g. PT120S, PT15M, P1D); found {value!r}."]


CASES = [
    ("happy-path-PT120S", HAPPY, None, []),
    ("omitted-is-azure-default-PT120S", idle(DELETE), None, []),
    ("at-limit-PT15M", idle("PT15M"), None, []),
    ("at-limit-PT900S", idle("PT900S"), None, []),
    ("minutes-and-seconds-PT2M30S", idle("PT2M30S"), None, []),
    ("fraction-over-PT900.5S", idle("PT900.5S"), None, too_long("PT900.5S (900.5 seconds)")),
    ("hour-PT1H", idle("PT1H"), None, too_long("PT1H (3600 seconds)")),
    ("hours-and-seconds-PT1H30S", idle("PT1H30S"), None, too_long("PT1H30S (3630 seconds)")),
    ("day-P1D", idle("P1D"), None, too_long("P1D (86400 seconds)")),
    ("day-and-hours-P1DT2H", idle("P1DT2H"), None, too_long("P1DT2H (93600 seconds)")),
    ("unparseable-seconds-number", idle("900"), None, unparseable("900")),
    ("unparseable-words", idle("15 minutes"), None, unparseable("15 minutes")),
    ("unparseable-years", idle("P1Y"), None, unparseable("P1Y")),
    ("config-60-seconds-exceeded", idle("PT2M"), {"maxIdleSeconds": 60.0},
     [f"{SUBJECT} must release idle nodes within 60 seconds (nodeIdleTimeBeforeScaleDown); "
      "found PT2M (120 seconds)."]),
    ("config-3600-met", idle("PT1H"), {"maxIdleSeconds": 3600}, []),
    ("instance-ignored", instance_props(), None, []),
]

EXAMPLE = Example.of_cases(CASES, fails="hour-PT1H", passes="happy-path-PT120S")


@pytest.mark.parametrize(("props", "config", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_cluster_idle_scale_down(props, config, expected):
    assert messages(RULE, props, config) == expected


def test_other_resource_types_are_ignored():
    assert messages(RULE, idle("P1D"), type_="azure-native:storage:StorageAccount") == []


def test_unknown_idle_time_is_unknown_not_a_pass():
    props = with_unknown(HAPPY, IDLE, UNKNOWN_STRING_VALUE)
    with pytest.raises(UnknownValueError):
        RULE.evaluate(ResourceInput(COMPUTE_TYPE, "cpu-cluster", "urn", props))
