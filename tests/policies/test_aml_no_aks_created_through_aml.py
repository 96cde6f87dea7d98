import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from amlkit.policies.framework import ResourceInput
from amlkit.policies.rules.aml_no_aks_created_through_aml import RULE
from tests.policies.compute_fixtures import attached_props, instance_props, with_unknown
from tests.policies.examples import Example
from tests.policies.helpers import COMPUTE_TYPE, DELETE, Public, changed, cluster_props, messages

PUBLIC = Public("AMLK-0015", "aml-no-aks-created-through-aml", level="advisory", kind="resource")

KUBERNETES = attached_props("Kubernetes")
AKS = attached_props("AKS")
RESOURCE_ID = "properties.resourceId"


def creates(kind):
    return [f"{kind} compute 'k8s' must attach an existing cluster through resourceId, not have Azure ML create "
            "one; found no resourceId."]


CASES = [
    ("happy-path-kubernetes-attached", KUBERNETES, []),
    ("aks-attached", AKS, []),
    ("kubernetes-created", changed(KUBERNETES, RESOURCE_ID, DELETE), creates("Kubernetes")),
    ("aks-created", changed(AKS, RESOURCE_ID, DELETE), creates("AKS")),
    ("aks-empty-resource-id", changed(AKS, RESOURCE_ID, ""), creates("AKS")),
    ("aks-type-lower-case", changed(changed(AKS, RESOURCE_ID, DELETE), "properties.computeType", "aks"),
     creates("aks")),
    ("cluster-ignored", cluster_props(), []),
    ("instance-ignored", instance_props(), []),
]

EXAMPLE = Example.of_cases(CASES, fails="kubernetes-created", passes="happy-path-kubernetes-attached")


@pytest.mark.parametrize(("props", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_no_aks_created_through_aml(props, expected):
    assert messages(RULE, props, name="k8s") == expected


def test_other_resource_types_are_ignored():
    assert messages(RULE, changed(AKS, RESOURCE_ID, DELETE), name="k8s",
                    type_="azure-native:containerservice:ManagedCluster") == []


def test_unknown_resource_id_is_unknown_not_a_pass():
    props = with_unknown(AKS, RESOURCE_ID, UNKNOWN_STRING_VALUE)
    with pytest.raises(UnknownValueError):
        RULE.evaluate(ResourceInput(COMPUTE_TYPE, "k8s", "urn", props))
