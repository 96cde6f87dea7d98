import datetime

import pytest

from amlkit.errors import ConfigError
from amlkit.policies.framework import ResourceInput
from amlkit.policies.rules.aml_compute_vm_series_retiring import RULE, findings
from tests.policies.compute_fixtures import attached_props, instance_props
from tests.policies.examples import Example
from tests.policies.helpers import COMPUTE_TYPE, DELETE, Public, changed, cluster_props, messages

PUBLIC = Public("AMLK-0028", "aml-compute-vm-series-retiring", level="advisory", kind="resource")

HAPPY = cluster_props()
SIZE = "properties.properties.vmSize"
CLUSTER = "AmlCompute cluster 'cpu-cluster'"
AS_OF = {"asOf": "2026-11-24"}
HBV2 = "successors to add to the default allowedSeries first: HBv5, HX, HBv4, HBv3"


def size(value):
    return changed(HAPPY, SIZE, value)


CASES = [
    ("happy-path-current-series", HAPPY, AS_OF, []),
    ("HBv2-within-365-days", size("Standard_HB120rs_v2"), AS_OF,
     [f"{CLUSTER} must not use a VM series that retires within 365 days; found Standard_HB120rs_v2 of series HBv2, "
      f"which retires on 2027-05-31 (in 188 days); {HBV2}."]),
    ("NP-within-365-days", size("Standard_NP10s"), AS_OF,
     [f"{CLUSTER} must not use a VM series that retires within 365 days; found Standard_NP10s of series NP, which "
      "retires on 2027-05-31 (in 188 days); successors in the default allowedSeries: NCads_H100_v5, NCasT4_v3; "
      "successors to add to the default allowedSeries first: NDv2."]),
    ("DSv2-2028-beyond-default-lead", size("Standard_DS3_v2"), AS_OF, []),
    ("DSv2-with-longer-lead", size("Standard_DS3_v2"), {**AS_OF, "leadDays": 600},
     [f"{CLUSTER} must not use a VM series that retires within 600 days; found Standard_DS3_v2 of series DSv2, "
      "which retires on 2028-05-01 (in 524 days); successors in the default allowedSeries: Dsv5, Ddsv5, Dasv5, "
      "Dadsv5, Dasv6, Dadsv6, Dsv6, "
      "Ddsv6, Dasv7, Dadsv7, Esv6, Edsv6, Easv6, Eadsv6, Easv7, Eadsv7."]),
    ("exactly-lead-days-ahead", size("Standard_HB120rs_v2"), {"asOf": "2026-05-31"},
     [f"{CLUSTER} must not use a VM series that retires within 365 days; found Standard_HB120rs_v2 of series HBv2, "
      f"which retires on 2027-05-31 (in 365 days); {HBV2}."]),
    ("one-day-beyond-lead", size("Standard_HB120rs_v2"), {"asOf": "2026-05-30"}, []),
    ("on-the-day-it-is-retired-not-retiring", size("Standard_HB120rs_v2"), {"asOf": "2027-05-31"}, []),
    ("already-retired-is-the-other-rules", size("Standard_NC6"), AS_OF, []),
    ("size-level-retirement", size("Standard_M192is_v2"), AS_OF,
     [f"{CLUSTER} must not use a VM series that retires within 365 days; found Standard_M192is_v2 of series Msv2, "
      "which retires on 2027-03-31 (in 127 days)."]),
    ("lead-zero-never-fires", size("Standard_HB120rs_v2"), {**AS_OF, "leadDays": 0}, []),
    ("missing-size", size(DELETE), AS_OF, []),
    ("unknown-size", size("Standard_Foo9"), AS_OF, []),
    ("instance", instance_props(vmSize="Standard_HC44rs"), AS_OF,
     ["Compute instance 'cpu-cluster' must not use a VM series that retires within 365 days; found Standard_HC44rs "
      "of series HC, which retires on 2027-05-31 (in 188 days); successors to add to the default allowedSeries "
      "first: HBv5, HBv4, HX, HBv3."]),
    ("attached-ignored", attached_props(), AS_OF, []),
]

EXAMPLE = Example.of_cases(CASES, fails="HBv2-within-365-days", passes="happy-path-current-series")


@pytest.mark.parametrize(("props", "config", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_compute_vm_series_retiring(props, config, expected):
    assert messages(RULE, props, config) == expected


def test_findings_is_pure_in_today_and_lead():
    resource = ResourceInput(COMPUTE_TYPE, "hpc", "urn", size("Standard_HB120rs_v2"))
    assert list(findings(resource, datetime.date(2020, 1, 1), 365)) == []
    assert len(list(findings(resource, datetime.date(2020, 1, 1), 3000))) == 1


def test_defaults_and_level():
    assert (RULE.level, RULE.defaults()) == ("advisory", {"leadDays": 365})


@pytest.mark.parametrize(("config", "key"), [({"leadDays": -1}, "leadDays"), ({"leadDays": "30"}, "leadDays"),
                                              ({"leadDays": True}, "leadDays"), ({"asOf": "soon"}, "asOf")])
def test_bad_config_fails_closed(config, key):
    with pytest.raises(ConfigError) as caught:
        messages(RULE, HAPPY, config)
    assert caught.value.key_path == f"aml-compute-vm-series-retiring.{key}"


@pytest.mark.parametrize(("compute_type", "twin"), [("Managed", True), ("managed", True), ("Kubernetes", False)],
                         ids=["managed", "managed-lowercase", "kubernetes-instance-type-is-no-vm-size"])
def test_a_managed_online_deployment_is_judged_by_its_instance_type_like_a_cluster_of_that_size(compute_type, twin):
    from tests.policies.compute_fixtures import DEPLOYMENT_TYPE, deployment_props

    config = {"asOf": "2026-11-24"}
    size = "Standard_HB120rs_v2"
    cluster = messages(RULE, changed(cluster_props(), "properties.properties.vmSize", size), config, name="blue")
    deployment = messages(RULE, deployment_props(size, compute_type), config, name="blue", type_=DEPLOYMENT_TYPE)
    found = "found Standard_HB120rs_v2 of series HBv2, which retires on 2027-05-31 (in 188 days)"
    must = "must not use a VM series that retires within 365 days"
    assert cluster == [f"AmlCompute cluster 'blue' {must}; {found}; successors to add to the default allowedSeries "
                       "first: HBv5, HX, HBv4, HBv3."]
    # no successor of HBv2 is on the managed online endpoints SKU list: a deployment is told none
    assert deployment == ([f"Managed online deployment 'blue' {must}; {found}."] if twin else [])
