"""The preview's plan: a tree under each parent with the settings people review, secrets never shown."""

from __future__ import annotations

import dataclasses

import pytest

from amlkit.review.model import ResourceRecord, StackReview
from amlkit.review.report.resources import render_plan, settings, show
from tests.data.reviews import COMPUTE, SECRET_SIG, SECRET_VALUE, UNKNOWN, WORKSPACE, prod_stack

PROD_PLAN = """\
     Type                                                    Name           Plan    Info
 +   amlkit:index:Environment                                prod           create
 +   ├─ amlkit:index:ComputeCluster                          cpu-cluster    create
 +   │  └─ azure-native:machinelearningservices:Compute      cpu-cluster    create  AmlCompute; size Standard_DS3_v2; min nodes 2; max nodes 4; priority Dedicated; identity SystemAssigned; subnet vnet-prod/aml; node public IP false; SSH NotSpecified (default)
 +   └─ amlkit:index:Workspace                               mlw-prod       create
 +      ├─ azure-native:authorization:ManagementLockByScope  mlw-prod-lock  create  lock CanNotDelete on scope (unknown)
 +      └─ azure-native:machinelearningservices:Workspace    mlw-prod       create  public network access Disabled; managed network AllowOnlyApprovedOutbound; identity SystemAssigned; protect

Resources:
    + 6 to create
"""  # noqa: E501


def test_plan_of_a_stack() -> None:
    assert render_plan(prod_stack()).plain == PROD_PLAN


def test_plan_does_not_depend_on_registration_order() -> None:
    stack = prod_stack()
    stack = dataclasses.replace(stack, resources=stack.resources[::-1])
    assert render_plan(stack).plain == PROD_PLAN


def test_empty_plan() -> None:
    stack = StackReview(stack="s", project="p", environment="e", stack_file="f")
    assert render_plan(stack).plain == "     Type  Name  Plan    Info\n\nResources:\n    + 0 to create\n"


def test_orphans_and_cycles_are_shown_once_as_roots() -> None:
    a = ResourceRecord(urn="a", type="t:a", name="a", parent="missing")
    b = ResourceRecord(urn="b", type="t:b", name="b", parent="b")
    stack = StackReview(stack="s", project="p", environment="e", stack_file="f", resources=[b, a])
    assert [line.split()[1] for line in render_plan(stack).plain.splitlines()[1:3]] == ["t:a", "t:b"]


def _cluster(**inner) -> dict:
    return {"properties": {"computeType": "AmlCompute", "properties": inner}}


@pytest.mark.parametrize(
    ("type_", "inputs", "options", "expected"),
    [
        pytest.param(COMPUTE, _cluster(), {}, ["AmlCompute", "min nodes 0 (default)", "priority Dedicated (default)",
                                             "node public IP true (default)", "SSH NotSpecified (default)"],
                     id="cluster-defaults-are-spelled-out"),
        pytest.param(COMPUTE, _cluster(vmSize={SECRET_SIG: "x", "value": SECRET_VALUE}, vmPriority="LowPriority",
                                       scaleSettings={"maxNodeCount": 10.0, "nodeIdleTimeBeforeScaleDown": "PT120S"},
                                       enableNodePublicIp=UNKNOWN, remoteLoginPortPublicAccess="Disabled"),
                     {}, ["AmlCompute", "size [secret]", "min nodes 0 (default)", "max nodes 10",
                          "priority LowPriority", "idle PT120S", "node public IP (unknown)", "SSH Disabled"],
                     id="secret-and-unknown-values"),
        pytest.param(COMPUTE, {"identity": {"type": "UserAssigned", "userAssignedIdentities": ["/id/1", "/id/2"]},
                               "properties": {"computeType": "AmlCompute", "disableLocalAuth": True,
                                              "computeLocation": "northeurope",
                                              "properties": {"subnet": {"id": "[secret]"}}}},
                     {"protect": True, "retainOnDelete": True},
                     ["AmlCompute", "min nodes 0 (default)", "priority Dedicated (default)", "location northeurope",
                      "identity UserAssigned (2 user-assigned)", "subnet [secret]", "node public IP true (default)",
                      "SSH NotSpecified (default)", "local auth disabled true", "protect", "retain on delete"],
                     id="identity-location-options"),
        pytest.param(COMPUTE, {"properties": {"computeType": "ComputeInstance", "properties": {
            "vmSize": "Standard_DS3_v2", "idleTimeBeforeShutdown": "PT60M", "enableNodePublicIp": False,
            "sshSettings": {"sshPublicAccess": "Enabled"}}}}, {},
                     ["ComputeInstance", "size Standard_DS3_v2", "idle shutdown PT60M", "node public IP false",
                      "SSH Enabled"], id="instance"),
        pytest.param(WORKSPACE, {}, {},
                     ["public network access Enabled (default)", "managed network Disabled (default)"],
                     id="workspace-defaults"),
        pytest.param(WORKSPACE, {"kind": "Hub", "hbiWorkspace": True, "serverlessComputeSettings": {
            "serverlessComputeCustomSubnet": "/s/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/sl",
            "serverlessComputeNoPublicIP": True}}, {},
                     ["kind Hub", "public network access Enabled (default)", "managed network Disabled (default)",
                      "serverless subnet /s/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/sl",
                      "serverless no public IP true", "HBI true"], id="workspace-serverless-hbi"),
        pytest.param("azure-native:authorization:ManagementLockAtResourceGroupLevel",
                     {"level": "CanNotDelete", "resourceGroupName": "rg-ml"}, {},
                     ["lock CanNotDelete on resource group rg-ml"], id="resource-group-lock"),
        pytest.param("azure-native:authorization:ManagementLockAtResourceLevel",
                     {"level": "ReadOnly", "resourceName": "st1", "resourceGroupName": "rg-ml"}, {},
                     ["lock ReadOnly on resource st1"], id="resource-lock"),
        pytest.param("azure-native:authorization:ManagementLockAtSubscriptionLevel", {}, {},
                     ["lock (unset) on the subscription"], id="subscription-lock"),
        pytest.param("azure-native:storage:StorageAccount", {"accountName": "x"}, {"protect": True}, ["protect"],
                     id="other-types-only-options"),
    ],
)
def test_settings(type_: str, inputs: dict, options: dict, expected: list[str]) -> None:
    record = ResourceRecord(urn="u", type=type_, name="n", inputs=inputs, options=options)
    assert settings(record) == expected


@pytest.mark.parametrize(
    ("value", "text"),
    [(4.0, "4"), (0.5, "0.5"), (True, "true"), ("[secret]", "[secret]"), ({SECRET_SIG: "x", "value": "p"}, "[secret]"),
     (UNKNOWN, "(unknown)"), ({"a": 1}, "(set)"), ([1], "(set)"), ("West Europe", "West Europe")],
)
def test_show(value, text: str) -> None:
    assert show(value) == text


def test_secret_plaintext_never_in_the_plan() -> None:
    assert SECRET_VALUE not in render_plan(prod_stack()).plain


AKS_ID = "/subscriptions/0000/resourceGroups/rg-aks/providers/Microsoft.ContainerService/managedClusters/aks-ml"
POOL_ID = "/subscriptions/0000/resourceGroups/rg-syn/providers/Microsoft.Synapse/workspaces/syn/bigDataPools/pool1"


def _attached(kind: str, resource_id: object, inner: dict | None = None, **outer: object) -> dict:
    properties = {"computeType": kind, "resourceId": resource_id, **outer}
    if inner is not None:
        properties["properties"] = inner
    return {"properties": properties}


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        pytest.param({**_attached("Kubernetes", AKS_ID, {"namespace": "team-a"}, disableLocalAuth=True),
                      "identity": {"type": "SystemAssigned"}},
                     ["Kubernetes", "attaches managedClusters/aks-ml in rg-aks", "namespace team-a",
                      "identity SystemAssigned", "local auth disabled true"], id="kubernetes"),
        pytest.param(_attached("Kubernetes", AKS_ID), ["Kubernetes", "attaches managedClusters/aks-ml in rg-aks",
                                                       "namespace default (default)"], id="kubernetes-default-ns"),
        pytest.param(_attached("SynapseSpark", POOL_ID), ["SynapseSpark",
                                                          "attaches workspaces/syn/bigDataPools/pool1 in rg-syn"],
                     id="synapse-pool"),
        pytest.param(_attached("VirtualMachine", UNKNOWN, {"administratorAccount": {SECRET_SIG: "x", "value": "pw"}}),
                     ["VirtualMachine", "attaches (unknown)"], id="vm-unknown-target-credentials-not-shown"),
        pytest.param(_attached("AKS", "aks-by-name"), ["AKS", "attaches aks-by-name"], id="not-an-arm-id"),
    ],
)
def test_attached_compute_shows_its_target(inputs: dict, expected: list[str]) -> None:
    record = ResourceRecord(urn="u", type=COMPUTE, name="k8s", inputs=inputs)
    assert settings(record) == expected


# --- the classic provider's ML resources, and a project's network from its hub ------------------------------

CLASSIC_SUBNET = ("/subscriptions/0000/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet/"
                  "subnets/aml")
CLASSIC_CLUSTER_INPUTS = {
    "name": "gpu", "location": "westeurope", "vmSize": "Standard_D4ds_v5", "vmPriority": "Dedicated",
    "scaleSettings": {"minNodeCount": 0.0, "maxNodeCount": 4.0, "scaleDownNodesAfterIdleDuration": "PT120S"},
    "identity": {"type": "SystemAssigned"}, "subnetResourceId": CLASSIC_SUBNET,
}


@pytest.mark.parametrize(
    ("type_", "inputs", "expected"),
    [
        pytest.param("azure:machinelearning/computeCluster:ComputeCluster", CLASSIC_CLUSTER_INPUTS,
                     ["AmlCompute", "size Standard_D4ds_v5", "min nodes 0", "max nodes 4", "priority Dedicated",
                      "idle PT120S", "location westeurope", "identity SystemAssigned", "subnet vnet/aml",
                      "node public IP true (default)", "SSH Disabled (default)", "local auth disabled false (default)"],
                     id="cluster-with-the-provider-defaults"),
        pytest.param("azure:machinelearning/computeCluster:ComputeCluster",
                     {"vmSize": {SECRET_SIG: "x", "value": SECRET_VALUE}, "nodePublicIpEnabled": UNKNOWN,
                      "sshPublicAccessEnabled": True, "localAuthEnabled": False, "vmPriority": "LowPriority"},
                     ["AmlCompute", "size [secret]", "min nodes 0 (default)", "priority LowPriority",
                      "node public IP (unknown)", "SSH Enabled", "local auth disabled true"],
                     id="cluster-secret-unknown-and-flags"),
        pytest.param("azure:machinelearning/computeInstance:ComputeInstance",
                     {"virtualMachineSize": "Standard_DS3_v2", "nodePublicIpEnabled": False,
                      "ssh": {"publicKey": "ssh-rsa AAAA"},
                      "identity": {"type": "UserAssigned", "identityIds": ["/id/1"]}},
                     ["ComputeInstance", "size Standard_DS3_v2", "identity UserAssigned (1 user-assigned)",
                      "node public IP false", "SSH Enabled"], id="instance"),
        pytest.param("azure:machinelearning/computeInstance:ComputeInstance", {},
                     ["ComputeInstance", "node public IP true (default)", "SSH Disabled (default)"],
                     id="instance-defaults"),
        pytest.param("azure:machinelearning/inferenceCluster:InferenceCluster",
                     {"kubernetesClusterId": AKS_ID, "clusterPurpose": "DevTest"},
                     ["AKS", "attaches managedClusters/aks-ml in rg-aks"], id="inference-cluster"),
        pytest.param("azure:machinelearning/synapseSpark:SynapseSpark",
                     {"synapseSparkPoolId": POOL_ID, "localAuthEnabled": False, "identity": {"type": "SystemAssigned"}},
                     ["SynapseSpark", "attaches workspaces/syn/bigDataPools/pool1 in rg-syn", "identity SystemAssigned",
                      "local auth disabled true"], id="synapse-spark"),
        pytest.param("azure:machinelearning/workspace:Workspace", {},
                     ["public network access Enabled (default)", "managed network Disabled (default)"],
                     id="workspace-defaults"),
        pytest.param("azure:machinelearning/workspace:Workspace",
                     {"kind": "Default", "publicNetworkAccessEnabled": False, "highBusinessImpact": True,
                      "managedNetwork": {"isolationMode": "AllowOnlyApprovedOutbound"},
                      "serverlessCompute": {"subnetId": CLASSIC_SUBNET, "publicIpEnabled": False},
                      "identity": {"type": "SystemAssigned"}},
                     ["kind Default", "public network access Disabled", "managed network AllowOnlyApprovedOutbound",
                      f"serverless subnet {CLASSIC_SUBNET}", "serverless no public IP true", "HBI true",
                      "identity SystemAssigned"], id="workspace"),
        pytest.param("azure:management/lock:Lock",
                     {"name": "lock", "scope": "/subscriptions/0000/resourceGroups/rg-ml", "lockLevel": "CanNotDelete"},
                     ["lock CanNotDelete on scope /subscriptions/0000/resourceGroups/rg-ml"], id="lock"),
    ],
)
def test_classic_settings(type_: str, inputs: dict, expected: list[str]) -> None:
    assert settings(ResourceRecord(urn="u", type=type_, name="n", inputs=inputs)) == expected


def test_classic_and_native_twins_show_the_same_settings() -> None:
    classic = ResourceRecord(urn="c", type="azure:machinelearning/computeCluster:ComputeCluster", name="gpu",
                             inputs={**CLASSIC_CLUSTER_INPUTS, "nodePublicIpEnabled": False,
                                     "sshPublicAccessEnabled": False, "localAuthEnabled": False})
    native = ResourceRecord(urn="n", type=COMPUTE, name="gpu", inputs={
        "identity": {"type": "SystemAssigned"},
        "properties": {"computeType": "AmlCompute", "computeLocation": "westeurope", "disableLocalAuth": True,
                       "properties": {"vmSize": "Standard_D4ds_v5", "vmPriority": "Dedicated",
                                      "scaleSettings": {"minNodeCount": 0.0, "maxNodeCount": 4.0,
                                                        "nodeIdleTimeBeforeScaleDown": "PT120S"},
                                      "enableNodePublicIp": False, "remoteLoginPortPublicAccess": "Disabled",
                                      "subnet": {"id": CLASSIC_SUBNET}}}})
    assert settings(classic) == settings(native)


HUB_ID = "/subscriptions/0000/resourceGroups/rg-ml/providers/Microsoft.MachineLearningServices/workspaces/mlw-hub"
HUB = ResourceRecord(urn="urn:hub", type=WORKSPACE, name="hub", inputs={
    "resourceGroupName": "rg-ml", "workspaceName": "mlw-hub", "kind": "Hub", "publicNetworkAccess": "Disabled",
    "managedNetwork": {"isolationMode": "AllowOnlyApprovedOutbound"}})


def _project(hub_id: object, built_from: list[str] | None = None) -> ResourceRecord:
    return ResourceRecord(urn="urn:project", type=WORKSPACE, name="project",
                          inputs={"resourceGroupName": "rg-ml", "workspaceName": "proj", "kind": "Project",
                                  "hubResourceId": hub_id},
                          options={"propertyDependencies": {"hubResourceId": built_from or []}})


FROM_HUB = ["kind Project", "public network access Disabled (from hub 'hub')",
            "managed network AllowOnlyApprovedOutbound (from hub 'hub')"]


@pytest.mark.parametrize(
    ("project", "stack", "expected"),
    [
        pytest.param(_project(HUB_ID), [HUB], FROM_HUB, id="hub-named-by-its-id"),
        pytest.param(_project(UNKNOWN, ["urn:hub"]), [HUB], FROM_HUB, id="hub-id-unknown-built-from-the-hub"),
        pytest.param(_project(HUB_ID), [],
                     ["kind Project",
                      "public network access from its hub workspaces/mlw-hub in rg-ml, not in this stack",
                      "managed network from its hub workspaces/mlw-hub in rg-ml, not in this stack"],
                     id="hub-in-another-stack"),
    ],
)
def test_a_project_shows_its_network_as_its_hubs(project: ResourceRecord, stack: list[ResourceRecord],
                                                 expected: list[str]) -> None:
    assert settings(project, [project, *stack]) == expected


def test_the_plan_shows_a_project_with_its_hubs_network() -> None:
    project = _project(HUB_ID)
    stack = StackReview(stack="s", project="p", environment="e", stack_file="f", resources=[HUB, project])
    (line,) = [line for line in render_plan(stack).plain.splitlines() if " project " in line]
    assert line.endswith("create  " + "; ".join(FROM_HUB))
