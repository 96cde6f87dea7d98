import pytest

from amlkit.policies.rules.aml_online_deployment_supported_size import RULE
from tests.policies.compute_fixtures import DEPLOYMENT_TYPE, deployment_props
from tests.policies.examples import Example
from tests.policies.helpers import Public, cluster_props, messages

PUBLIC = Public("AMLK-0037", "aml-online-deployment-supported-size", level="mandatory", kind="resource")

DEPLOYMENT = "Managed online deployment 'blue'"
LIST = "reference-managed-online-endpoints-vm-sku-list.md"


def refused(size: str, closest: str) -> list[str]:
    return [f"{DEPLOYMENT} must use a VM size that managed online endpoints support; found {size}, which is not on "
            f"Azure's managed online endpoints SKU list ({LIST}); closest listed: {closest}."]


# every CPU series of the SKU list, one size each, passes; so do its GPU sizes
LISTED = ["Standard_D4as_v4", "Standard_D4a_v4", "Standard_DS3_v2", "Standard_E8s_v3", "Standard_F8s_v2",
          "Standard_FX12mds", "Standard_L8as_v3", "Standard_L8s_v2", "Standard_L8s_v3", "STANDARD_NC4AS_T4_V3",
          "Standard_NC24ads_A100_v4", "Standard_NC40ads_H100_v5", "Standard_ND96amsr_A100_v4",
          "Standard_ND96asr_v4", "Standard_ND40rs_v2", "Standard_ND96is_H100_v5", "Standard_NV6ads_A10_v5",
          "Standard_NC6s_v3"]

CASES = [
    *[(f"listed-{size}", deployment_props(size), []) for size in LISTED],
    ("training-size-D4ds_v5", deployment_props("Standard_D4ds_v5"),
     refused("Standard_D4ds_v5", "Standard_DS3_v2, Standard_D4a_v4, Standard_D4as_v4")),
    ("H200-not-offered", deployment_props("Standard_ND96isr_H200_v5"),
     refused("Standard_ND96isr_H200_v5", "Standard_ND96isr_H100_v5, Standard_ND96is_H100_v5, "
             "Standard_NC80adis_H100_v5")),
    ("constrained-compared-by-its-quota-vcpus", deployment_props("Standard_E8-2s_v5"),
     refused("Standard_E8-2s_v5", "Standard_E8s_v3, Standard_E4s_v3, Standard_E2s_v3")),
    ("DS11_v2-not-listed", deployment_props("Standard_DS11_v2"),
     refused("Standard_DS11_v2", "Standard_DS2_v2, Standard_D2a_v4, Standard_D2as_v4")),
    ("E20s_v3-not-listed", deployment_props("Standard_E20s_v3"),
     refused("Standard_E20s_v3", "Standard_E16s_v3, Standard_E8s_v3, Standard_E32s_v3")),
    ("unknown-size-is-the-approved-rules", deployment_props("Standard_Foo9"), []),
    ("missing-size-is-the-approved-rules", deployment_props(None), []),
    ("kubernetes-instance-type-is-no-vm-size", deployment_props("Standard_D4ds_v5", "Kubernetes"), []),
]

EXAMPLE = Example.of_cases(CASES, fails="training-size-D4ds_v5", passes="listed-Standard_DS3_v2",
                           type_=DEPLOYMENT_TYPE)


@pytest.mark.parametrize(("props", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_online_deployment_supported_size(props, expected):
    assert messages(RULE, props, name="blue", type_=DEPLOYMENT_TYPE) == expected


def test_a_cluster_is_not_judged_by_the_online_list():
    assert messages(RULE, cluster_props(vmSize="Standard_D4ds_v5")) == []


def test_extra_families_can_list_a_size():
    extra = [{"series": "Ddsv5", "online_sizes": {"sizes": ["Standard_D4ds_v5"], "source": "https://example.com/x"}}]
    assert messages(RULE, deployment_props("Standard_D4ds_v5"), {"extraFamilies": extra}, name="blue",
                    type_=DEPLOYMENT_TYPE) == []
