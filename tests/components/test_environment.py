"""Environment component: children, merged tags, existing resource group, exact Args for each child."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pulumi
import pytest

from amlkit.components.environment import (
    Environment,
    cluster_args,
    instance_args,
    schedule_spec,
    secret_output,
    workspace_args,
)
from amlkit.schema import EnvironmentSpec, Secret, validate_environment
from tests.components.harness import SUBSCRIPTION, DeployedMocks, Recorded, RecordingMonitor, _registration

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


def build(spec: EnvironmentSpec) -> Recorded:
    mocks = DeployedMocks()
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


def test_the_environment_registers_exactly_what_it_exposes():
    rec = build(spec_of())
    assert rec.component_outputs["qa"] == rec.outputs
    assert sorted(rec.outputs) == ["attached_ids", "attached_names", "cluster_ids", "cluster_names", "instance_ids",
                                   "instance_names", "project_ids", "resource_group_name", "workspace_id",
                                   "workspace_name"]


HUB = {"name": "mlw-hub", "kind": "hub", "tags": {"tier": "workspace"}, "public_network_access": "disabled",
       "projects": [{"name": "mlw-fraud", "description": "Fraud models", "tags": {"team": "fraud"}}]}


def test_a_hubs_projects_are_project_workspaces_under_the_hub_in_its_group_and_region():
    rec = build(spec_of(workspace=HUB))
    project = rec.get("amlkit:index:Workspace", "qa-project-mlw-fraud")
    assert project.parent == "qa-workspace"  # under the hub: previews show it there
    inputs = rec.get(WS, "qa-project-mlw-fraud-workspace").inputs
    hub = rec.get(WS, "qa-workspace-workspace")
    assert (inputs["kind"], inputs["workspaceName"], inputs["resourceGroupName"], inputs["location"]) == (
        "Project", "mlw-fraud", "rg-ml-qa", "westeurope")
    assert inputs["hubResourceId"] == hub.outputs["id"]  # the hub's id, a dependency of the project
    assert (inputs["publicNetworkAccess"], inputs["description"]) == ("Disabled", "Fraud models")
    assert "managedNetwork" not in inputs and "storageAccount" not in inputs  # the hub's
    assert inputs["tags"] == {"owner": "ml-platform", "tier": "workspace", "team": "fraud", "environment": "qa"}
    assert rec.outputs["project_ids"] == {"mlw-fraud": hub.outputs["id"].rsplit("/", 1)[0] + "/mlw-fraud"}


def test_existing_resource_group_is_only_referenced():
    rec = build(spec_of(resourceGroup={"name": "rg-shared", "existing": True}))
    assert rec.of_type(RG) == []
    assert rec.get(WS, "qa-workspace-workspace").inputs["resourceGroupName"] == "rg-shared"
    assert rec.outputs["resource_group_name"] == "rg-shared"


@pytest.mark.slow
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
        "resource_group_name": "rg-ml-qa", "location": "westeurope", "name": "mlw-qa", "kind": "hub",
        "container_registry": True,
        "identity": {"type": "user_assigned", "user_assigned_identities": [{"resource_id": UAI}]},
        "primary_user_assigned_identity": UAI, "public_network_access": "enabled",
        "managed_network": {"isolation_mode": "allow_internet_outbound"},
        "serverless_compute": {"custom_subnet": SUBNET, "no_public_ip": True},
        "customer_managed_key": {"key_vault": f"{SUB}/rg/providers/Microsoft.KeyVault/vaults/kv-cmk",
                                 "key_uri": "https://kv-cmk.vault.azure.net/keys/cmk"},
        "hbi_workspace": True, "locks": True,
        "protect_data": False, "tags": {"owner": "ml-platform", "tier": "stack", "environment": "qa"},
    }


def test_workspace_args_defaults_are_secure():
    args = workspace_args(spec_of(), "rg")
    assert (args["public_network_access"], args["managed_network"], args["container_registry"], args["locks"],
            args["identity"]) == ("disabled", {"isolation_mode": "allow_only_approved_outbound"}, False, False,
                                  {"type": "system_assigned"})
    assert "hbi_workspace" not in args


def test_cluster_args_map_the_az_ml_vocabulary():
    spec = spec_of(clusters=[{
        "name": "gpu", "size": "Standard_NC4as_T4_v3", "min_instances": 0, "max_instances": 2,
        "idle_time_before_scale_down": 600, "tier": "low_priority", "location": "northeurope",
        "identity": {"type": "user_assigned", "user_assigned_identities": [{"resource_id": UAI}]},
        "network_settings": {"subnet": SUBNET}, "enable_node_public_ip": False, "description": "gpu jobs",
    }])
    assert cluster_args(spec, spec.clusters[0], "rg-ml-qa", "mlw-qa") == {
        "resource_group_name": "rg-ml-qa", "workspace_name": "mlw-qa", "workspace_location": "westeurope",
        "workspace_managed_network": True, "size": "Standard_NC4as_T4_v3", "max_instances": 2, "name": "gpu",
        "location": "northeurope", "description": "gpu jobs", "tier": "low_priority", "min_instances": 0,
        "idle_time_before_scale_down": 600, "network_settings": {"subnet": SUBNET},
        "enable_node_public_ip": False, "ssh_public_access_enabled": False, "local_auth_enabled": False,
        "identity": {"type": "user_assigned", "user_assigned_identities": [{"resource_id": UAI}]},
        "tags": {"owner": "ml-platform", "tier": "stack", "environment": "qa"},
    }


def test_a_cluster_in_another_region_reaches_azure_as_compute_location():
    spec = spec_of(clusters=[{"name": "gpu", "size": "Standard_DS3_v2", "location": "northeurope"}])
    compute = build(spec).get(COMPUTE, "qa-cluster-gpu-compute").inputs
    assert (compute["location"], compute["properties"]["computeLocation"]) == ("westeurope", "northeurope")


def test_cluster_ssh_settings_enable_local_auth_and_wrap_the_password():
    spec = spec_of(clusters=[{"name": "cpu", "size": "Standard_DS3_v2", "ssh_public_access_enabled": True,
                              "ssh_settings": {"ssh_key_value": "ssh-ed25519 AAAA me",
                                               "admin_password": Secret("pw")}}])
    args = cluster_args(spec, spec.clusters[0], "rg", "ws")
    ssh = args["ssh_settings"]
    assert (args["ssh_public_access_enabled"], ssh["admin_username"], ssh["ssh_key_value"],
            args["local_auth_enabled"]) == (True, "azureuser", "ssh-ed25519 AAAA me", True)
    assert isinstance(ssh["admin_password"], pulumi.Output)


def test_cluster_local_auth_enabled_without_ssh_settings():
    spec = spec_of(clusters=[{"name": "cpu", "size": "Standard_DS3_v2", "local_auth_enabled": True,
                              "network_settings": {"subnet": SUBNET}}])
    args = cluster_args(spec, spec.clusters[0], "rg", "ws")
    assert (args["local_auth_enabled"], "ssh_settings" in args) == (True, False)


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
        "resource_group_name": "rg-ml-qa", "workspace_name": "mlw-qa", "workspace_location": "westeurope",
        "workspace_managed_network": True, "size": "Standard_DS3_v2", "name": "ci-alice",
        "idle_time_before_shutdown_minutes": 30,
        "schedules": [
            {"action": "stop", "state": "enabled",
             "trigger": {"type": "cron", "expression": "0 19 * * *", "time_zone": "UTC"}},
            {"action": "start", "state": "disabled", "trigger": {
                "type": "recurrence", "frequency": "week", "interval": 1,
                "schedule": {"hours": [8], "minutes": [0], "week_days": ["monday", "friday"]},
                "time_zone": "W. Europe Standard Time"}},
        ],
        "assigned_user": {"object_id": GUID, "tenant_id": GUID}, "ssh_public_access_enabled": False,
        "tags": {"owner": "ml-platform", "tier": "stack", "environment": "qa"},
    }


def test_schedule_spec_keeps_the_start_time():
    spec = spec_of(instances=[{"name": "ci-bob", "size": "Standard_DS3_v2", "schedules": [
        {"action": "stop", "trigger": {"type": "cron", "expression": "0 19 * * *",
                                       "start_time": "2026-01-05T08:00:00"}}]}])
    assert schedule_spec(spec.instances[0].schedules[0])["trigger"] == {
        "type": "cron", "expression": "0 19 * * *", "time_zone": "UTC", "start_time": "2026-01-05T08:00:00"}


def test_offline_secret_is_an_unknown_secret_and_a_known_one_stays_secret():
    assert asyncio.run(_in_loop(lambda: secret_output(Secret(None)))) == (False, True)
    assert asyncio.run(_in_loop(lambda: secret_output(Secret("pw")))) == (True, True)


async def _in_loop(make: Any) -> tuple[bool, bool]:
    output = make()
    return await output.is_known(), await output.is_secret()


def test_an_instance_without_identity_gets_a_system_assigned_one_as_documented():
    from amlkit.schema import InstanceSpec

    compute = build(spec_of()).get(COMPUTE, "qa-instance-ci-alice-compute").inputs
    assert compute["identity"] == {"type": "SystemAssigned"}
    assert InstanceSpec.model_fields["identity"].description == (
        "The instance's managed identity; unset: a system-assigned identity.")

