"""Environment component: children, merged tags, existing resource group, exact Args for each child."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pulumi

from amlkit.components.environment import (
    Environment,
    cluster_args,
    instance_args,
    schedule_spec,
    secret_output,
    workspace_args,
)
from amlkit.schema import EnvironmentSpec, Secret, validate_environment
from tests.components.harness import SUBSCRIPTION, AzureMocks, Recorded, RecordingMonitor, _registration

RG = "azure-native:resources:ResourceGroup"
COMPUTE = "azure-native:machinelearningservices:Compute"
WS = "azure-native:machinelearningservices:Workspace"
SUB = f"/subscriptions/{SUBSCRIPTION}/resourceGroups"
SUBNET = f"{SUB}/rg-net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/aml"
UAI = f"{SUB}/rg-id/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-ml"
GUID = "3f2b6c1e-8d4a-4e7b-9c0d-1a2b3c4d5e6f"

RAW: dict[str, Any] = {
    "location": "westeurope",
    "environment": "qa",
    "resourceGroup": {"name": "rg-ml-qa"},
    "tags": {"owner": "ml-platform", "tier": "stack"},
    "workspace": {"name": "mlw-qa", "tags": {"tier": "workspace"}},
    "clusters": [{"name": "cpu", "size": "Standard_DS3_v2", "max_instances": 4, "tags": {"tier": "cluster"}}],
    "instances": [{"name": "ci-alice", "size": "Standard_DS3_v2"}],
}


def spec_of(**changes: Any) -> EnvironmentSpec:
    raw = copy.deepcopy(RAW)
    raw.update(changes)
    return validate_environment(raw, "Pulumi.qa.yaml")


class EnvironmentMocks(AzureMocks):
    """The components' Azure mocks, plus resource groups."""

    def _id_and_name(self, typ: str, logical: str, inputs: dict[str, Any]) -> tuple[str, str]:
        if typ == RG:
            return f"{SUB}/{inputs['resourceGroupName']}", inputs["resourceGroupName"]
        return super()._id_and_name(typ, logical, inputs)


def build(spec: EnvironmentSpec) -> Recorded:
    mocks = EnvironmentMocks()
    monitor = RecordingMonitor(mocks)
    pulumi.runtime.set_mocks(mocks, project="amlkit", stack="qa", preview=False, monitor=monitor)
    resolved: dict[str, Any] = {}

    @pulumi.runtime.test
    def program() -> pulumi.Output[Any]:
        return pulumi.Output.all(**Environment("qa", {"spec": spec}).outputs()).apply(resolved.update)

    program()
    return Recorded([_registration(r, monitor) for r in monitor.requests], resolved, monitor.component_outputs)


def test_children_are_the_resource_group_workspace_and_computes_named_after_the_component():
    rec = build(spec_of())
    children = sorted((r.type, r.name) for r in rec.registrations if r.parent == "qa")
    assert children == sorted([
        (RG, "qa-rg"), ("amlkit:index:Workspace", "qa-workspace"),
        ("amlkit:index:ComputeCluster", "qa-cluster-cpu"), ("amlkit:index:ComputeInstance", "qa-instance-ci-alice"),
    ])
    # a top-level resource: its parent is the root Stack (named <project>-<stack>; the mocks reuse the
    # first test's stack), not any resource the program registered
    parent = rec.get("amlkit:index:Environment", "qa").parent
    assert parent.startswith("amlkit-") and parent not in {r.name for r in rec.registrations}


def test_stack_tags_are_merged_under_resource_tags_with_the_environment_tag():
    rec = build(spec_of())
    assert rec.get(RG, "qa-rg").inputs["tags"] == {"owner": "ml-platform", "tier": "stack", "environment": "qa"}
    assert rec.get(WS, "qa-workspace-workspace").inputs["tags"] == {
        "owner": "ml-platform", "tier": "workspace", "environment": "qa"}
    computes = {r.inputs["computeName"]: r.inputs["tags"] for r in rec.of_type(COMPUTE)}
    assert computes == {
        "cpu": {"owner": "ml-platform", "tier": "cluster", "environment": "qa"},
        "ci-alice": {"owner": "ml-platform", "tier": "stack", "environment": "qa"},
    }
    assert all(r.inputs["tags"]["environment"] == "qa" for r in rec.registrations if "tags" in r.inputs)


def test_created_resource_group_feeds_every_child_and_outputs():
    rec = build(spec_of())
    assert rec.get(RG, "qa-rg").inputs == {
        "resourceGroupName": "rg-ml-qa", "location": "westeurope",
        "tags": {"owner": "ml-platform", "tier": "stack", "environment": "qa"}}
    assert {r.inputs["resourceGroupName"] for r in rec.of_type(COMPUTE)} == {"rg-ml-qa"}
    assert rec.outputs["resource_group_name"] == "rg-ml-qa"
    assert rec.outputs["workspace_name"] == "mlw-qa"
    assert rec.outputs["cluster_names"] == {"cpu": "cpu"}
    assert rec.outputs["instance_names"] == {"ci-alice": "ci-alice"}
    assert rec.outputs["cluster_ids"]["cpu"].endswith("/workspaces/mlw-qa/computes/cpu")


def test_existing_resource_group_is_only_referenced():
    rec = build(spec_of(resourceGroup={"name": "rg-shared", "existing": True}))
    assert rec.of_type(RG) == []
    assert rec.get(WS, "qa-workspace-workspace").inputs["resourceGroupName"] == "rg-shared"
    assert rec.outputs["resource_group_name"] == "rg-shared"


def test_protect_data_protects_the_resource_group_and_the_workspace():
    rec = build(spec_of(protectData=True))
    assert rec.get(RG, "qa-rg").protect is True
    assert rec.get(WS, "qa-workspace-workspace").protect is True
    unprotected = build(spec_of())
    assert (unprotected.get(RG, "qa-rg").protect, unprotected.get(WS, "qa-workspace-workspace").protect) == (
        False, False)


def test_workspace_args_map_the_az_ml_vocabulary():
    spec = spec_of(workspace={
        "name": "mlw-qa", "kind": "hub", "public_network_access": "enabled",
        "managed_network": {"isolation_mode": "allow_internet_outbound"},
        "serverless_compute": {"custom_subnet": SUBNET, "no_public_ip": True},
        "identity": {"type": "user_assigned", "user_assigned_identities": [{"resource_id": UAI}]},
        "primary_user_assigned_identity": UAI, "hbi_workspace": True, "container_registry": True, "locks": True,
        "customer_managed_key": {"key_vault": f"{SUB}/rg/providers/Microsoft.KeyVault/vaults/kv-cmk",
                                 "key_uri": "https://kv-cmk.vault.azure.net/keys/cmk"},
    })
    assert workspace_args(spec, "rg-ml-qa") == {
        "resource_group_name": "rg-ml-qa", "location": "westeurope", "workspace_name": "mlw-qa", "kind": "Hub",
        "container_registry": True, "user_assigned_identity_ids": [UAI],
        "primary_user_assigned_identity_id": UAI, "public_network_access": "Enabled",
        "managed_network_isolation_mode": "AllowInternetOutbound", "serverless_compute_subnet_id": SUBNET,
        "serverless_compute_no_public_ip": True,
        "cmk_key_vault_id": f"{SUB}/rg/providers/Microsoft.KeyVault/vaults/kv-cmk",
        "cmk_key_uri": "https://kv-cmk.vault.azure.net/keys/cmk", "hbi_workspace": True, "lock_resources": True,
        "protect_data": False, "tags": {"owner": "ml-platform", "tier": "stack", "environment": "qa"},
    }


def test_workspace_args_defaults_are_secure():
    args = workspace_args(spec_of(), "rg")
    assert (args["public_network_access"], args["managed_network_isolation_mode"], args["container_registry"],
            args["lock_resources"]) == ("Disabled", "AllowOnlyApprovedOutbound", False, False)
    assert "user_assigned_identity_ids" not in args and "hbi_workspace" not in args


def test_cluster_args_map_the_az_ml_vocabulary():
    spec = spec_of(clusters=[{
        "name": "gpu", "size": "Standard_NC4as_T4_v3", "min_instances": 0, "max_instances": 2,
        "idle_time_before_scale_down": 600, "tier": "low_priority", "location": "northeurope",
        "identity": {"type": "user_assigned", "user_assigned_identities": [{"resource_id": UAI}]},
        "network_settings": {"subnet": SUBNET}, "enable_node_public_ip": False, "description": "gpu jobs",
    }])
    assert cluster_args(spec, spec.clusters[0], "rg-ml-qa", "mlw-qa") == {
        "resource_group_name": "rg-ml-qa", "workspace_name": "mlw-qa", "vm_size": "Standard_NC4as_T4_v3",
        "max_nodes": 2, "compute_name": "gpu", "location": "westeurope", "compute_location": "northeurope",
        "description": "gpu jobs", "vm_priority": "LowPriority", "min_nodes": 0,
        "idle_seconds_before_scale_down": 600, "subnet_id": SUBNET, "workspace_managed_network": True,
        "enable_node_public_ip": False, "remote_login_port_public_access": "Disabled", "disable_local_auth": True,
        "system_assigned_identity": False, "user_assigned_identity_ids": [UAI],
        "tags": {"owner": "ml-platform", "tier": "stack", "environment": "qa"},
    }


def test_cluster_ssh_settings_enable_local_auth_and_wrap_the_password():
    spec = spec_of(clusters=[{"name": "cpu", "size": "Standard_DS3_v2", "ssh_public_access_enabled": True,
                              "ssh_settings": {"ssh_key_value": "ssh-ed25519 AAAA me",
                                               "admin_password": Secret("pw")}}])
    args = cluster_args(spec, spec.clusters[0], "rg", "ws")
    assert (args["remote_login_port_public_access"], args["admin_username"], args["admin_ssh_public_key"],
            args["disable_local_auth"]) == ("Enabled", "azureuser", "ssh-ed25519 AAAA me", False)
    assert isinstance(args["admin_password"], pulumi.Output)


def test_cluster_local_auth_enabled_without_ssh_settings():
    spec = spec_of(clusters=[{"name": "cpu", "size": "Standard_DS3_v2", "local_auth_enabled": True,
                              "network_settings": {"subnet": SUBNET}}])
    args = cluster_args(spec, spec.clusters[0], "rg", "ws")
    assert (args["disable_local_auth"], "admin_username" in args) == (False, False)


def test_instance_args_map_schedules_and_the_assigned_user():
    spec = spec_of(instances=[{
        "name": "ci-alice", "size": "Standard_DS3_v2", "idle_time_before_shutdown_minutes": 30,
        "assigned_user": {"object_id": GUID, "tenant_id": GUID},
        "schedules": [
            {"action": "stop", "trigger": {"type": "cron", "expression": "0 19 * * *"}},
            {"action": "start", "state": "disabled", "trigger": {
                "type": "recurrence", "frequency": "week", "interval": 1, "time_zone": "W. Europe Standard Time",
                "schedule": {"hours": [8], "minutes": [0], "week_days": ["monday", "friday"]}}},
        ],
    }])
    assert instance_args(spec, spec.instances[0], "rg-ml-qa", "mlw-qa") == {
        "resource_group_name": "rg-ml-qa", "workspace_name": "mlw-qa", "vm_size": "Standard_DS3_v2",
        "compute_name": "ci-alice", "location": "westeurope", "idle_minutes_before_shutdown": 30,
        "schedules": [
            {"action": "Stop", "enabled": True, "cron": {"expression": "0 19 * * *", "time_zone": "UTC"}},
            {"action": "Start", "enabled": False, "recurrence": {
                "frequency": "Week", "interval": 1, "hours": [8], "minutes": [0], "week_days": ["Monday", "Friday"],
                "time_zone": "W. Europe Standard Time"}},
        ],
        "assigned_user_object_id": GUID, "assigned_user_tenant_id": GUID, "workspace_managed_network": True,
        "ssh_public_access": "Disabled", "disable_local_auth": True,
        "tags": {"owner": "ml-platform", "tier": "stack", "environment": "qa"},
    }


def test_schedule_spec_keeps_the_start_time():
    spec = spec_of(instances=[{"name": "ci-bob", "size": "Standard_DS3_v2", "schedules": [
        {"action": "stop", "trigger": {"type": "cron", "expression": "0 19 * * *",
                                       "start_time": "2026-01-05T08:00:00"}}]}])
    assert schedule_spec(spec.instances[0].schedules[0])["cron"] == {
        "expression": "0 19 * * *", "time_zone": "UTC", "start_time": "2026-01-05T08:00:00"}


def test_offline_secret_is_an_unknown_secret_and_a_known_one_stays_secret():
    assert asyncio.run(_in_loop(lambda: secret_output(Secret(None)))) == (False, True)
    assert asyncio.run(_in_loop(lambda: secret_output(Secret("pw")))) == (True, True)


async def _in_loop(make: Any) -> tuple[bool, bool]:
    output = make()
    return await output.is_known(), await output.is_secret()
