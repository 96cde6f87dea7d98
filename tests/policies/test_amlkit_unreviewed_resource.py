import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from amlkit.policies.framework import ResourceInput
from amlkit.policies.rules.amlkit_unreviewed_resource import RULE
from tests.policies.compute_fixtures import attached_props, instance_props, with_unknown
from tests.policies.examples import Example
from tests.policies.helpers import COMPUTE_TYPE, DELETE, Public, changed, cluster_props, messages

PUBLIC = Public("AMLK-0032", "amlkit-unreviewed-resource", level="mandatory", kind="resource")

EXPECTATION = "be of a type and shape amlkit's rules read, or it is not reviewed at all"
NO_TYPE = changed(changed(cluster_props(), "properties.computeType", DELETE), "properties.properties",
                  {"vmSize": "Standard_DS3_v2"})


def reported(type_, why, name="cpu-cluster"):
    return [f"Resource '{name}' ({type_}) must {EXPECTATION}; found {why}."]


# (id, type, props, expected)
CASES = [
    ("happy-path-cluster", COMPUTE_TYPE, cluster_props(), []),
    ("instance", COMPUTE_TYPE, instance_props(), []),
    ("attached-kubernetes", COMPUTE_TYPE, attached_props("Kubernetes"), []),
    ("no-compute-type-instance-fields", COMPUTE_TYPE,
     changed(instance_props(), "properties.computeType", DELETE), []),
    ("no-compute-type-cluster-fields", COMPUTE_TYPE, changed(cluster_props(), "properties.computeType", DELETE), []),
    ("no-compute-type-neither", COMPUTE_TYPE, NO_TYPE, reported(
        COMPUTE_TYPE, "no properties.computeType, and its properties say neither compute instance nor AmlCompute "
        "cluster")),
    ("unknown-compute-type", COMPUTE_TYPE, changed(cluster_props(), "properties.computeType", "Synapse"), reported(
        COMPUTE_TYPE, "computeType 'Synapse', which is none of AmlCompute, ComputeInstance, Kubernetes, AKS, "
        "VirtualMachine, SynapseSpark, HDInsight, Databricks, DataFactory, DataLakeAnalytics")),
    ("explicit-version-2x", "azure-native:machinelearningservices/v20230401:Compute", cluster_props(), []),
    ("native-1x-type", "azure-native:machinelearningservices:MachineLearningCompute", {}, reported(
        "azure-native:machinelearningservices:MachineLearningCompute",
        "azure-native type machinelearningservices:MachineLearningCompute, which no view maps")),
    ("native-studio-workspace", "azure-native:machinelearning:Workspace", {}, reported(
        "azure-native:machinelearning:Workspace", "azure-native type machinelearning:Workspace, which no view maps")),
    ("classic-cluster", "azure:machinelearning/computeCluster:ComputeCluster", {}, []),
    ("classic-lock", "azure:management/lock:Lock", {}, []),
    ("other-provider-workspace", "mlcloud:index/workspace:Workspace", {}, []),
    ("other-provider-ml-compute", "acme:machinelearning/compute:Compute", {}, reported(
        "acme:machinelearning/compute:Compute", "provider 'acme', whose resources no view maps")),
    ("other-provider-lock", "azurerm2:management/lock:Lock", {}, reported(
        "azurerm2:management/lock:Lock", "provider 'azurerm2', whose resources no view maps")),
    ("azapi-ml-compute", "azapi:index/resource:Resource",
     {"type": "Microsoft.MachineLearningServices/workspaces/computes@2024-04-01"}, reported(
         "azapi:index/resource:Resource", "ARM type Microsoft.MachineLearningServices/workspaces/computes@2024-04-01 "
         "through the azapi provider, whose generic body no view maps")),
    ("azapi-storage", "azapi:index/resource:Resource", {"type": "Microsoft.Storage/storageAccounts@2023-01-01"}, []),
    ("workspace-sub-resource", "azure-native:machinelearningservices:WorkspaceConnection", {}, []),
    ("batch-deployment", "azure-native:machinelearningservices:BatchDeployment", {}, []),
    ("storage", "azure-native:storage:StorageAccount", {}, []),
]

EXAMPLE = Example.of_cases([(c[0], c[2], c[3]) for c in CASES if c[1] == COMPUTE_TYPE],
                           fails="no-compute-type-neither", passes="happy-path-cluster")


@pytest.mark.parametrize(("type_", "props", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_amlkit_unreviewed_resource(type_, props, expected):
    assert messages(RULE, props, type_=type_) == expected


def test_unknown_compute_type_is_unknown_not_a_pass():
    props = with_unknown(cluster_props(), "properties.computeType", UNKNOWN_STRING_VALUE)
    with pytest.raises(UnknownValueError):
        RULE.evaluate(ResourceInput(COMPUTE_TYPE, "c", "urn", props))
