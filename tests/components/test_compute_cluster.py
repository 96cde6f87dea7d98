"""ComputeCluster component: exact compute inputs, options, identity, role assignments, validation."""

from __future__ import annotations

import uuid
from typing import Any

import pulumi
import pytest
from pulumi.runtime import rpc

from amlkit.components import ComputeCluster, ComputeClusterArgs, Workspace
from amlkit.components.compute_cluster import BUILT_IN_ROLES
from amlkit.errors import ConfigError
from tests.components.harness import Recorded, arm_id, principal_of, run

COMPUTE = "azure-native:machinelearningservices:Compute"
ROLE = "azure-native:authorization:RoleAssignment"
COMPONENT = "amlkit:index:ComputeCluster"
SUBNET = "/subscriptions/0000/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/aml"
UAI = "/subscriptions/0000/resourceGroups/rg-id/providers/Microsoft.ManagedIdentity/userAssignedIdentities/uai"
ACR_ID = "/subscriptions/0000/resourceGroups/rg-ml/providers/Microsoft.ContainerRegistry/registries/cr"
ST_ID = "/subscriptions/0000/resourceGroups/rg-ml/providers/Microsoft.Storage/storageAccounts/st"
CPU_ID = arm_id("Microsoft.MachineLearningServices/workspaces", "mlw") + "/computes/cpu"

REPLACE_PATHS = [
    "location",
    "properties.computeLocation",
    "properties.disableLocalAuth",
    "properties.properties.vmSize",
    "properties.properties.vmPriority",
    "properties.properties.subnet",
    "properties.properties.enableNodePublicIp",
    "properties.properties.remoteLoginPortPublicAccess",
    "properties.properties.userAccountCredentials",
]


def base(**extra: Any) -> ComputeClusterArgs:
    args = {"resource_group_name": "rg-ml", "workspace_name": "mlw", "vm_size": "Standard_DS3_v2",
            "max_nodes": 4, "subnet_id": SUBNET, **extra}
    return args  # type: ignore[return-value]


def build(name: str = "cpu", **extra: Any) -> Recorded:
    def program() -> dict[str, Any]:
        cluster = ComputeCluster(name, base(**extra))
        return {"compute_id": cluster.compute_id, "compute_name": cluster.compute_name,
                "principal_id": cluster.principal_id}

    return run(program)


def inner(rec: Recorded, name: str = "cpu-compute") -> dict[str, Any]:
    return rec.get(COMPUTE, name).inputs["properties"]["properties"]


def test_default_cluster_inputs_are_secure_and_scale_to_zero() -> None:
    assert build().get(COMPUTE, "cpu-compute").inputs == {
        "resourceGroupName": "rg-ml",
        "workspaceName": "mlw",
        "computeName": "cpu",
        "tags": {},
        "identity": {"type": "SystemAssigned"},
        "properties": {
            "computeType": "AmlCompute",
            "disableLocalAuth": True,
            "properties": {
                "vmSize": "Standard_DS3_v2",
                "vmPriority": "Dedicated",
                "scaleSettings": {"minNodeCount": 0.0, "maxNodeCount": 4.0,
                                  "nodeIdleTimeBeforeScaleDown": "PT120S"},
                "subnet": {"id": SUBNET},
                "enableNodePublicIp": False,
                "remoteLoginPortPublicAccess": "Disabled",
                "osType": "Linux",  # SDK default, sent explicitly by pulumi-azure-native
            },
        },
    }


def test_compute_options_replace_what_azure_cannot_update_and_delete_first() -> None:
    compute = build().get(COMPUTE, "cpu-compute")
    assert (compute.parent, compute.replace_on_changes, compute.delete_before_replace, compute.protect) == (
        "cpu", REPLACE_PATHS, True, False)


def test_scale_settings_identity_and_tags_update_in_place() -> None:
    replace = build().get(COMPUTE, "cpu-compute").replace_on_changes
    assert not [p for p in replace if "scaleSettings" in p or p.startswith(("identity", "tags"))]


def test_scale_and_placement_settings_reach_the_compute() -> None:
    rec = build(min_nodes=1, max_nodes=10, idle_seconds_before_scale_down=900, vm_priority="LowPriority",
                location="westeurope", compute_location="northeurope", description="batch", tags={"team": "a"})
    compute = rec.get(COMPUTE, "cpu-compute").inputs
    assert inner(rec)["scaleSettings"] == {"minNodeCount": 1.0, "maxNodeCount": 10.0,
                                           "nodeIdleTimeBeforeScaleDown": "PT900S"}
    assert inner(rec)["vmPriority"] == "LowPriority"
    assert (compute["location"], compute["properties"]["computeLocation"], compute["properties"]["description"],
            compute["tags"]) == ("westeurope", "northeurope", "batch", {"team": "a"})


NODE_IP_CASES = [
    ({"subnet_id": SUBNET}, False),
    ({"subnet_id": None, "workspace_managed_network": True}, False),
    ({"subnet_id": None, "enable_node_public_ip": True}, True),
    ({"subnet_id": SUBNET, "enable_node_public_ip": True}, True),
]


@pytest.mark.parametrize(("extra", "expected"), NODE_IP_CASES,
                         ids=["subnet", "managed-network", "explicit-public", "subnet-explicit-public"])
def test_node_public_ip(extra: dict[str, Any], expected: bool) -> None:
    assert inner(build(**extra))["enableNodePublicIp"] is expected


def test_managed_network_cluster_has_no_subnet() -> None:
    assert "subnet" not in inner(build(subnet_id=None, workspace_managed_network=True))


IDENTITY_CASES = [
    ({}, {"type": "SystemAssigned"}, principal_of("cpu-compute")),
    ({"system_assigned_identity": True}, {"type": "SystemAssigned"}, principal_of("cpu-compute")),
    ({"user_assigned_identity_ids": [UAI]}, {"type": "UserAssigned", "userAssignedIdentities": [UAI]}, None),
    ({"system_assigned_identity": False}, None, None),
]


@pytest.mark.parametrize(("extra", "identity", "principal"), IDENTITY_CASES,
                         ids=["default-system", "explicit-system", "user", "none"])
def test_identity_is_system_xor_user(extra: dict[str, Any], identity: Any, principal: str | None) -> None:
    rec = build(**extra)
    assert rec.get(COMPUTE, "cpu-compute").inputs.get("identity") == identity
    assert rec.outputs["principal_id"] == principal


def test_outputs_are_registered_exactly() -> None:
    rec = build()
    assert rec.outputs == {"compute_id": CPU_ID, "compute_name": "cpu", "principal_id": principal_of("cpu-compute")}
    assert rec.component_outputs["cpu"] == rec.outputs


def test_admin_user_with_ssh_key_needs_local_auth_on() -> None:
    rec = build(admin_username="azureuser", admin_ssh_public_key="ssh-rsa AAAA", disable_local_auth=False)
    assert inner(rec)["userAccountCredentials"] == {"adminUserName": "azureuser",
                                                    "adminUserSshPublicKey": "ssh-rsa AAAA"}
    assert rec.get(COMPUTE, "cpu-compute").inputs["properties"]["disableLocalAuth"] is False


def test_admin_password_is_sent_as_a_secret() -> None:
    rec = build(admin_username="azureuser", admin_password=pulumi.Output.secret("S3cret!pass"),
                disable_local_auth=False)
    properties = rec.get(COMPUTE, "cpu-compute").inputs["properties"]
    # the engine sees the whole `properties` input as a secret, the password inside it
    assert rpc.is_rpc_secret(properties)
    assert rpc.unwrap_rpc_secret(properties)["properties"]["userAccountCredentials"] == {
        "adminUserName": "azureuser", "adminUserPassword": "S3cret!pass"}


def test_role_assignments_are_deterministic_guids_for_the_system_identity() -> None:
    rec = build(role_assignments=[{"scope": ACR_ID, "role": "AcrPull"},
                                  {"scope": ST_ID, "role": "Storage Blob Data Reader"}])
    roles = {r.name: r for r in rec.of_type(ROLE)}
    assert set(roles) == {"cpu-role-0", "cpu-role-1"}
    assert roles["cpu-role-0"].inputs == {
        "principalId": principal_of("cpu-compute"),
        "principalType": "ServicePrincipal",
        "scope": ACR_ID,
        "roleDefinitionId": "/subscriptions/0000/providers/Microsoft.Authorization/roleDefinitions/"
                            "7f951dda-4ed3-4680-a7ca-43fe172d538d",
        "roleAssignmentName": str(uuid.uuid5(
            uuid.NAMESPACE_URL, f"amlkit/cpu/{ACR_ID}/7f951dda-4ed3-4680-a7ca-43fe172d538d")),
    }
    assert roles["cpu-role-1"].inputs["roleDefinitionId"].endswith("2a2b9908-6ea1-4ae2-8e65-a410df84e7d1")
    assert all(r.parent == "cpu" for r in roles.values())


def test_role_assignment_names_are_stable_across_runs_and_distinct_across_clusters() -> None:
    spec = [{"scope": ACR_ID, "role": "AcrPull"}]
    first = build(role_assignments=spec).get(ROLE, "cpu-role-0").inputs["roleAssignmentName"]
    again = build(role_assignments=spec).get(ROLE, "cpu-role-0").inputs["roleAssignmentName"]
    other = build(name="gpu", role_assignments=spec).get(ROLE, "gpu-role-0").inputs["roleAssignmentName"]
    assert first == again != other


def test_a_role_definition_guid_is_accepted() -> None:
    guid = "3913510d-42f4-4e42-8a64-420c390055eb"
    rec = build(role_assignments=[{"scope": ACR_ID, "role": guid.upper()}])
    assert rec.get(ROLE, "cpu-role-0").inputs["roleDefinitionId"].endswith(f"/roleDefinitions/{guid}")


def test_known_role_names_map_to_guids() -> None:
    assert len(set(BUILT_IN_ROLES.values())) == len(BUILT_IN_ROLES)
    assert BUILT_IN_ROLES["AcrPull"] == "7f951dda-4ed3-4680-a7ca-43fe172d538d"


def test_two_clusters_never_collide() -> None:
    def program() -> None:
        for name in ("cpu", "gpu"):
            ComputeCluster(name, base(role_assignments=[{"scope": ACR_ID, "role": "AcrPull"}]))

    rec = run(program)
    logical = [(r.type, r.name) for r in rec.registrations]
    assert len(logical) == len(set(logical)) == 6
    assert len({r.id for r in rec.registrations if r.custom}) == 4


def test_long_names_are_shortened_with_a_hash_and_overridable() -> None:
    long = build(name="training-cluster-for-team-europe")
    name = long.outputs["compute_name"]
    assert len(name) <= 16 and name.startswith("training-")
    assert build(compute_name="gpu-a100").outputs["compute_name"] == "gpu-a100"


INVALID = [
    ({"max_nodes": 0}, "max_nodes: must be a whole number >= 1"),
    ({"max_nodes": True}, "max_nodes: must be a whole number >= 1"),
    ({"min_nodes": 5}, "min_nodes: must not exceed max_nodes (4)"),
    ({"min_nodes": -1}, "min_nodes: must be a whole number >= 0"),
    ({"idle_seconds_before_scale_down": 1.5}, "idle_seconds_before_scale_down: must be a whole number >= 0"),
    ({"vm_priority": "Spot"}, "vm_priority: must be one of Dedicated, LowPriority"),
    ({"remote_login_port_public_access": "NotSpecified"},
     "remote_login_port_public_access: must be one of Enabled, Disabled"),
    ({"vm_size": ""}, "vm_size: is required"),
    ({"subnet_id": None}, "enable_node_public_ip: must be set when there is no subnet_id"),
    ({"subnet_id": None, "enable_node_public_ip": False},
     "enable_node_public_ip: False needs a subnet_id or a workspace managed network"),
    ({"user_assigned_identity_ids": [UAI], "system_assigned_identity": True},
     "system_assigned_identity: a compute takes a system-assigned identity or user-assigned identities"),
    ({"user_assigned_identity_ids": [UAI], "role_assignments": [{"scope": ACR_ID, "role": "AcrPull"}]},
     "role_assignments: need the system-assigned identity"),
    ({"role_assignments": [{"scope": ACR_ID, "role": "Owner-ish"}]}, "role_assignments.role: unknown role"),
    ({"role_assignments": [{"scope": "", "role": "AcrPull"}]}, "role_assignments[0].scope: is required"),
    ({"admin_username": "azureuser"}, "admin_ssh_public_key: is required with admin_username"),
    ({"admin_ssh_public_key": "ssh-rsa AAAA"}, "admin_username: is required with an SSH key or password"),
    ({"admin_username": "azureuser", "admin_ssh_public_key": "ssh-rsa AAAA"},
     "disable_local_auth: must be False to use an admin user"),
    ({"compute_name": "1cluster"}, "compute_name: invalid Azure name '1cluster'"),
]


@pytest.mark.parametrize(("extra", "message"), INVALID, ids=[f"{m.split(':')[0]}-{i}" for i, (_, m) in
                                                             enumerate(INVALID)])
def test_bad_input_is_a_config_error_naming_the_field(extra: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        build(**extra)
    assert str(caught.value).startswith(message)


def test_a_plain_password_is_refused_and_never_echoed() -> None:
    with pytest.raises(ConfigError) as caught:
        build(admin_username="azureuser", admin_password="hunter2-plain", disable_local_auth=False)
    assert str(caught.value).startswith("admin_password: must be a pulumi secret Output")
    assert "hunter2" not in str(caught.value) and caught.value.value is None


@pytest.mark.parametrize("preview", [False, True], ids=["up", "preview"])
def test_role_scope_may_be_another_resources_output(preview: bool) -> None:
    def program() -> None:
        ws = Workspace("mlw", {"resource_group_name": "rg-ml", "location": "westeurope", "container_registry": True})
        ComputeCluster("cpu", base(workspace_name=ws.workspace_name,
                                   role_assignments=[{"scope": ws.container_registry_id, "role": "AcrPull"}]))

    rec = run(program, preview=preview)
    role = rec.get(ROLE, "cpu-role-0").inputs
    registry = rec.get("azure-native:containerregistry:Registry", "mlw-registry").id
    assert role["scope"] == registry
    assert role["roleAssignmentName"] == str(uuid.uuid5(
        uuid.NAMESPACE_URL, f"amlkit/cpu/{registry}/7f951dda-4ed3-4680-a7ca-43fe172d538d"))
    assert rec.get(COMPUTE, "cpu-compute").inputs["workspaceName"] == "mlw"
