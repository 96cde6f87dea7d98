"""`amlkit.provider`: the package schema other languages get, built offline, and construct through it."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pulumi
import pytest
import yaml
from pulumi.errors import InputPropertyError
from pulumi.provider.experimental.analyzer import Analyzer
from pulumi.provider.experimental.component import ComponentProvider
from pulumi.provider.server import ComponentInitError
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc

from amlkit import __version__
from amlkit.components import ComputeCluster
from amlkit.provider import NAME, NAMESPACE, package_schema, schema_views
from tests.components.harness import run

ROOT = Path(__file__).resolve().parents[1]
SUBNET = ("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-net/providers/"
          "Microsoft.Network/virtualNetworks/vnet/subnets/snet")


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return package_schema()


def test_package_identity(schema: dict[str, Any]) -> None:
    # the package other languages add (docs/embedding.md: `pulumi package add`, tokens `amlkit:index:<Component>`)
    assert (schema["name"], schema["namespace"]) == ("amlkit", "amlkit")
    # the release pyproject.toml declares (amlkit.__version__, which the provider passes, is a second copy)
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert schema["version"] == pyproject["project"]["version"]
    assert schema["dependencies"] == []


def test_resource_tokens_are_the_components_own(schema: dict[str, Any]) -> None:
    assert sorted(schema["resources"]) == [
        "amlkit:index:ComputeCluster", "amlkit:index:ComputeInstance", "amlkit:index:KubernetesCompute",
        "amlkit:index:SynapseSparkCompute", "amlkit:index:VirtualMachineCompute", "amlkit:index:Workspace"]
    assert all(resource["isComponent"] for resource in schema["resources"].values())


@pytest.mark.parametrize(("token", "required"), [
    ("amlkit:index:Workspace", ["location", "resourceGroupName"]),
    # resource group and workspace name are required without the Python-only `workspace`: the component
    # says so (test_construct_names_what_other_languages_must_pass)
    ("amlkit:index:ComputeCluster", ["maxInstances", "size"]),
    ("amlkit:index:ComputeInstance", ["size"]),
    ("amlkit:index:KubernetesCompute", ["resourceId"]),
    ("amlkit:index:VirtualMachineCompute", ["resourceId", "sshSettings"]),
    ("amlkit:index:SynapseSparkCompute", ["resourceId"]),
])
def test_required_inputs(schema: dict[str, Any], token: str, required: list[str]) -> None:
    assert schema["resources"][token]["requiredInputs"] == required


@pytest.mark.parametrize(("token", "outputs", "required"), [
    ("amlkit:index:Workspace", ["workspaceId", "workspaceName", "storageAccountId", "keyVaultId",
                                "applicationInsightsId", "logAnalyticsWorkspaceId", "containerRegistryId",
                                "principalId", "resourceGroupName", "location"],
     ["location", "resourceGroupName", "workspaceId", "workspaceName"]),
    ("amlkit:index:ComputeCluster", ["computeId", "computeName", "principalId"], ["computeId", "computeName"]),
    ("amlkit:index:ComputeInstance", ["computeId", "computeName", "principalId"], ["computeId", "computeName"]),
    ("amlkit:index:KubernetesCompute", ["computeId", "computeName", "principalId"], ["computeId", "computeName"]),
    ("amlkit:index:VirtualMachineCompute", ["computeId", "computeName"], ["computeId", "computeName"]),
    ("amlkit:index:SynapseSparkCompute", ["computeId", "computeName", "principalId"], ["computeId", "computeName"]),
])
def test_outputs(schema: dict[str, Any], token: str, outputs: list[str], required: list[str]) -> None:
    resource = schema["resources"][token]
    assert list(resource["properties"]) == outputs
    assert all(prop == {"type": "string"} for prop in resource["properties"].values())
    assert resource["required"] == required


def test_inputs_keep_their_docstrings_and_types(schema: dict[str, Any]) -> None:
    cluster = schema["resources"]["amlkit:index:ComputeCluster"]["inputProperties"]
    assert cluster["maxInstances"] == {"description": "Most nodes the cluster scales to (at least 1).",
                                       "type": "integer", "plain": True}
    assert cluster["resourceGroupName"] == {
        "description": "Resource group of the ML workspace (required without `workspace`).", "type": "string"}
    assert cluster["tier"]["$ref"] == "#/types/amlkit:index:ComputeClusterTier"
    assert cluster["roleAssignments"]["additionalProperties"]["$ref"] == "#/types/amlkit:index:RoleAssignmentSpec"
    assert cluster["tags"]["additionalProperties"]["type"] == "string"
    assert cluster["identity"]["$ref"] == "#/types/amlkit:index:IdentitySpec"
    assert cluster["networkSettings"]["$ref"] == "#/types/amlkit:index:NetworkSettings"
    assert "workspace" not in cluster
    assert cluster["name"]["description"] == (
        "Azure name of the compute.\nAllowed: 2-16 letters, digits and hyphens, starting with a letter")
    instance = schema["resources"]["amlkit:index:ComputeInstance"]["inputProperties"]
    assert instance["schedules"]["items"]["$ref"] == "#/types/amlkit:index:ScheduleSpec"
    workspace = schema["resources"]["amlkit:index:Workspace"]["inputProperties"]
    assert workspace["containerRegistry"]["$ref"] == "pulumi.json#/Any"


@pytest.mark.parametrize(("token", "inherited"), [
    ("ComputeCluster", ["resourceGroupName", "workspaceName", "workspaceLocation", "workspaceManagedNetwork"]),
    ("ComputeInstance", ["resourceGroupName", "workspaceName", "workspaceLocation", "workspaceManagedNetwork"]),
    ("KubernetesCompute", ["resourceGroupName", "workspaceName"]),
    ("VirtualMachineCompute", ["resourceGroupName", "workspaceName"]),
    ("SynapseSparkCompute", ["resourceGroupName", "workspaceName"]),
])
def test_inherited_workspace_inputs_keep_their_docstrings(
    schema: dict[str, Any], token: str, inherited: list[str],
) -> None:
    inputs = schema["resources"][f"amlkit:index:{token}"]["inputProperties"]
    assert [name for name in inherited if "description" not in inputs[name]] == []
    assert inputs["workspaceName"]["description"] == (
        "Name of the ML workspace the compute belongs to (required without `workspace`).")
    assert ("workspaceLocation" in inputs) == ("workspaceLocation" in inherited)


@pytest.mark.parametrize(("token", "values"), [
    ("WorkspaceKind", ["default", "hub", "project"]),
    ("WorkspacePublicNetworkAccess", ["enabled", "disabled"]),
    ("ManagedNetworkIsolationMode", ["disabled", "allow_internet_outbound", "allow_only_approved_outbound"]),
    ("WorkspaceContainerRegistrySku", ["Basic", "Standard", "Premium"]),
    ("ComputeClusterTier", ["dedicated", "low_priority"]),
    ("IdentityType", ["system_assigned", "user_assigned", "none"]),
    ("ScheduleAction", ["start", "stop"]),
    ("ScheduleState", ["enabled", "disabled"]),
    ("TriggerType", ["cron", "recurrence"]),
    ("TriggerFrequency", ["minute", "hour", "day", "week", "month"]),
    ("RecurrenceScheduleWeekDays", ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]),
])
def test_literal_fields_become_string_enums(schema: dict[str, Any], token: str, values: list[str]) -> None:
    enum_type = schema["types"][f"amlkit:index:{token}"]
    assert enum_type["type"] == "string"
    assert [member["value"] for member in enum_type["enum"]] == values


@pytest.mark.parametrize(("token", "required", "properties"), [
    ("RoleAssignmentSpec", ["role", "scope"], ["scope", "role"]),
    ("ScheduleSpec", ["action", "trigger"], ["action", "trigger", "state"]),
    ("TriggerSpec", ["type"], ["type", "expression", "frequency", "interval", "schedule", "startTime", "timeZone"]),
    ("RecurrenceScheduleSpec", None, ["hours", "minutes", "weekDays"]),
    ("IdentitySpec", ["type"], ["type", "userAssignedIdentities"]),
    ("UserAssignedIdentity", ["resourceId"], ["resourceId"]),
    ("NetworkSettings", ["subnet"], ["subnet"]),
    ("ClusterSshSettings", None, ["adminUsername", "sshKeyValue", "adminPassword"]),
    ("AssignedUserSpec", ["objectId", "tenantId"], ["objectId", "tenantId"]),
    ("ManagedNetwork", ["isolationMode"], ["isolationMode"]),
    ("CustomerManagedKey", ["keyUri", "keyVault"], ["keyVault", "keyUri", "userAssignedIdentity"]),
])
def test_nested_types(schema: dict[str, Any], token: str, required: list[str] | None, properties: list[str]) -> None:
    object_type = schema["types"][f"amlkit:index:{token}"]
    assert object_type["type"] == "object"
    assert object_type.get("required") == required
    assert list(object_type["properties"]) == properties


def test_the_components_as_written_fail_the_analyzer() -> None:
    """Why the schema views exist: string annotations (from __future__ import annotations)."""
    with pytest.raises(AttributeError, match="'str' object has no attribute '__mro__'"):
        Analyzer(NAME).analyze([ComputeCluster])


def test_plugin_manifest_points_at_the_provider() -> None:
    manifest = yaml.safe_load((ROOT / "PulumiPlugin.yaml").read_text(encoding="utf-8"))
    assert manifest["runtime"]["name"] == "python"
    assert manifest["main"] == "amlkit/provider.py"
    assert (ROOT / manifest["main"]).is_file()


# --- construct through the provider (what a TypeScript or YAML program triggers) ------------------


def provider() -> ComponentProvider:
    return ComponentProvider(schema_views(), NAME, NAMESPACE, __version__)


@pytest.mark.slow
def test_construct_builds_the_real_cluster_with_plain_strings() -> None:
    inputs = {"resourceGroupName": "rg-ml", "workspaceName": "mlw-dev", "workspaceLocation": "westeurope",
              "size": "Standard_DS3_v2", "maxInstances": 4.0, "tier": "low_priority",
              "networkSettings": {"subnet": SUBNET}, "enableNodePublicIp": False}
    recorded = run(lambda: {"state": provider().construct("gpu", "amlkit:index:ComputeCluster", inputs).state})
    compute = recorded.get("azure-native:machinelearningservices:Compute", "gpu-compute")
    assert compute.parent == "gpu"
    assert compute.inputs["properties"]["properties"]["vmPriority"] == "LowPriority"
    assert compute.inputs["properties"]["properties"]["scaleSettings"] == {
        "maxNodeCount": 4, "minNodeCount": 0, "nodeIdleTimeBeforeScaleDown": "PT120S"}
    assert compute.inputs["properties"]["properties"]["subnet"] == {"id": SUBNET}
    assert recorded.get("amlkit:index:ComputeCluster", "gpu").custom is False
    assert recorded.outputs["state"]["computeName"] == compute.inputs["computeName"]


def test_construct_refuses_a_missing_required_input() -> None:
    with pytest.raises(InputPropertyError, match="Missing required input 'maxInstances' on 'ComputeCluster'"):
        provider().construct("gpu", "amlkit:index:ComputeCluster",
                             {"resourceGroupName": "rg", "workspaceName": "ws", "size": "Standard_DS3_v2"})


AKS = ("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-aks/providers/"
       "Microsoft.ContainerService/managedClusters/aks")
VM = ("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-vm/providers/"
      "Microsoft.Compute/virtualMachines/vm")
POOL = ("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-syn/providers/"
        "Microsoft.Synapse/workspaces/syn/bigDataPools/pool")


@pytest.mark.parametrize(("token", "inputs"), [
    ("amlkit:index:ComputeCluster", {"size": "Standard_DS3_v2", "maxInstances": 2.0}),
    ("amlkit:index:KubernetesCompute", {"resourceId": AKS}),
    ("amlkit:index:SynapseSparkCompute", {"resourceId": POOL}),
], ids=lambda v: v.split(":")[-1] if isinstance(v, str) else "")
@pytest.mark.slow
def test_construct_names_what_other_languages_must_pass(token: str, inputs: dict[str, Any]) -> None:
    with pytest.raises(ComponentInitError) as caught:
        run(lambda: {"state": provider().construct("gpu", token, {"workspaceName": "ws", **inputs}).state})
    assert str(caught.value) == (
        f'{token.split(":")[-1]} "gpu": resource_group_name: is required without workspace (the Workspace component)')


def test_construct_refuses_a_value_outside_the_enum() -> None:
    with pytest.raises(InputPropertyError, match="for enum 'ComputeClusterTier'"):
        provider().construct("gpu", "amlkit:index:ComputeCluster",
                             {"resourceGroupName": "rg", "workspaceName": "ws", "size": "Standard_DS3_v2",
                              "maxInstances": 2.0, "tier": "LowPriority"})


@pytest.mark.slow
def test_construct_instance_with_nested_enums_and_numbers() -> None:
    inputs = {"resourceGroupName": "rg-ml", "workspaceName": "mlw-dev", "location": "westeurope",
              "size": "Standard_DS3_v2", "enableNodePublicIp": True, "idleTimeBeforeShutdownMinutes": 30.0,
              "schedules": [{"action": "stop", "trigger": {"type": "recurrence", "frequency": "day", "interval": 1.0,
                                                           "schedule": {"hours": [19.0], "minutes": [0.0]}}}]}
    recorded = run(lambda: {"state": provider().construct("alice", "amlkit:index:ComputeInstance", inputs).state})
    properties = recorded.get("azure-native:machinelearningservices:Compute", "alice-compute").inputs["properties"]
    assert properties["properties"]["idleTimeBeforeShutdown"] == "PT30M"
    schedule = properties["properties"]["schedules"]["computeStartStop"][0]
    assert schedule["action"] == "Stop"
    assert schedule["recurrence"]["frequency"] == "Day"
    assert schedule["recurrence"]["schedule"]["hours"] == [19]


def test_construct_attaches_a_kubernetes_cluster_with_instance_types_and_identity() -> None:
    inputs = {"resourceGroupName": "rg-ml", "workspaceName": "mlw", "resourceId": AKS, "namespace": "team-a",
              "instanceTypes": [{"name": "gpu", "nodeSelector": {"pool": "gpu"}}], "defaultInstanceType": "gpu",
              "identity": {"type": "system_assigned"}}
    recorded = run(lambda: {"state": provider().construct("k8s", "amlkit:index:KubernetesCompute", inputs).state})
    compute = recorded.get("azure-native:machinelearningservices:Compute", "k8s-compute")
    assert compute.inputs["properties"] == {
        "computeType": "Kubernetes", "resourceId": AKS, "disableLocalAuth": True,
        "properties": {"namespace": "team-a", "defaultInstanceType": "gpu",
                       "instanceTypes": {"gpu": {"nodeSelector": {"pool": "gpu"}}}}}
    assert compute.inputs["identity"] == {"type": "SystemAssigned"}


def vm_inputs(password: Any) -> dict[str, Any]:
    return {"resourceGroupName": "rg-ml", "workspaceName": "mlw", "resourceId": VM,
            "sshSettings": {"adminUsername": "ml", "adminPassword": password}}


COMPUTE_AT = {"resourceGroupName": "rg-ml", "workspaceName": "mlw", "workspaceLocation": "westeurope"}
SMALLEST_INPUTS: list[tuple[str, Callable[[], dict[str, Any]]]] = [  # token, the fewest inputs that construct it
    ("amlkit:index:Workspace", lambda: {"resourceGroupName": "rg-ml", "location": "westeurope"}),
    ("amlkit:index:ComputeCluster", lambda: {**COMPUTE_AT, "size": "Standard_DS3_v2", "maxInstances": 2.0,
                                             "networkSettings": {"subnet": SUBNET}}),
    ("amlkit:index:ComputeInstance", lambda: {**COMPUTE_AT, "size": "Standard_DS3_v2",
                                              "networkSettings": {"subnet": SUBNET}}),
    ("amlkit:index:KubernetesCompute", lambda: {**COMPUTE_AT, "resourceId": AKS}),
    ("amlkit:index:VirtualMachineCompute", lambda: vm_inputs(pulumi.Output.secret("pw"))),
    ("amlkit:index:SynapseSparkCompute", lambda: {**COMPUTE_AT, "resourceId": POOL}),
]


@pytest.mark.parametrize(("token", "inputs"), SMALLEST_INPUTS,
                         ids=[token.split(":")[-1] for token, _ in SMALLEST_INPUTS])
@pytest.mark.slow
def test_construct_registers_the_component_under_its_schema_token(
        token: str, inputs: Callable[[], dict[str, Any]]) -> None:
    """What another language asks for by a schema token is the component that registers under that token."""
    recorded = run(lambda: {"state": provider().construct("amlc", token, inputs()).state})
    assert [(r.type, r.name) for r in recorded.registrations if not r.custom] == [(token, "amlc")]


def test_construct_attaches_a_vm_and_keeps_its_password_secret() -> None:
    recorded = run(lambda: {"state": provider().construct(
        "vm", "amlkit:index:VirtualMachineCompute", vm_inputs(pulumi.Output.secret("pw"))).state})
    properties = recorded.get("azure-native:machinelearningservices:Compute", "vm-compute").inputs["properties"]
    assert properties["4dabf18193072939515e22adb298388d"] == "1b47061264138c4ac30d75fd1eb44270"  # secret
    assert properties["value"]["properties"]["administratorAccount"] == {"username": "ml", "password": "pw"}


def test_construct_refuses_a_plain_vm_password() -> None:
    with pytest.raises(ComponentInitError) as caught:
        run(lambda: {"state": provider().construct("vm", "amlkit:index:VirtualMachineCompute",
                                                   vm_inputs("hunter2")).state})
    assert str(caught.value) == (
        'VirtualMachineCompute "vm": ssh_settings.admin_password: must be a pulumi secret Output '
        "(pulumi.Output.secret or a secret config value), never a plain string, got a plain value")


@pytest.mark.slow
def test_the_plugin_entry_point_serves_the_schema_over_grpc() -> None:
    """Run amlkit/provider.py as the language host does (a script with the engine address) and ask it."""
    process = subprocess.Popen([sys.executable, "-u", str(ROOT / "amlkit" / "provider.py"), "127.0.0.1:1"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        port = process.stdout.readline().strip() if process.stdout else ""
        assert port.isdigit(), process.stderr.read() if process.stderr else ""
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            response = provider_pb2_grpc.ResourceProviderStub(channel).GetSchema(provider_pb2.GetSchemaRequest())
        assert json.loads(response.schema) == package_schema()
    finally:
        process.terminate()
        process.wait()
        for stream in (process.stdout, process.stderr):
            if stream:
                stream.close()
