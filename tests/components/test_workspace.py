"""Workspace component: children, exact inputs, options, reuse vs create, locks, names, validation."""

from __future__ import annotations

from typing import Any

import pytest

from amlkit.components import Workspace, WorkspaceArgs
from amlkit.errors import ComponentArgError
from tests.components.harness import RG_ID, TENANT, Recorded, arm_id, principal_of, run

WS = "azure-native:machinelearningservices:Workspace"
STORAGE = "azure-native:storage:StorageAccount"
VAULT = "azure-native:keyvault:Vault"
LOGS = "azure-native:operationalinsights:Workspace"
APPI = "azure-native:applicationinsights:Component"
ACR = "azure-native:containerregistry:Registry"
DIAG = "azure-native:monitor:DiagnosticSetting"
LOCK = "azure-native:authorization:ManagementLockByScope"
COMPONENT = "amlkit:index:Workspace"

# The names derived for component "mlw" in project "amlkit", stack "test".
ST_NAME = "stmlwb09487"
KV_NAME = "kv-mlw-b09487"
CR_NAME = "crmlwb09487"
ST_ID = arm_id("Microsoft.Storage/storageAccounts", ST_NAME)
KV_ID = arm_id("Microsoft.KeyVault/vaults", KV_NAME)
LOG_ID = arm_id("Microsoft.OperationalInsights/workspaces", "log-mlw")
APPI_ID = arm_id("Microsoft.Insights/components", "appi-mlw")
CR_ID = arm_id("Microsoft.ContainerRegistry/registries", CR_NAME)
WS_ID = arm_id("Microsoft.MachineLearningServices/workspaces", "mlw")
OTHER = "/subscriptions/0000/resourceGroups/rg-shared/providers"
UAI = f"{OTHER}/Microsoft.ManagedIdentity/userAssignedIdentities/uai-ml"
UAI2 = f"{OTHER}/Microsoft.ManagedIdentity/userAssignedIdentities/uai-two"
USER_IDENTITY = {"type": "user_assigned", "user_assigned_identities": [{"resource_id": UAI}, {"resource_id": UAI2}]}

OUTPUT_NAMES = {
    "workspace_id", "workspace_name", "storage_account_id", "key_vault_id", "application_insights_id",
    "log_analytics_workspace_id", "container_registry_id", "principal_id", "resource_group_name", "location",
}


def build(resource: str = "mlw", **extra: Any) -> Recorded:
    args: WorkspaceArgs = {"resource_group_name": "rg-ml", "location": "westeurope", **extra}  # type: ignore[typeddict-item]

    def program() -> dict[str, Any]:
        ws = Workspace(resource, args)
        return {key: getattr(ws, key) for key in OUTPUT_NAMES}

    return run(program)


def test_default_children_are_exactly_the_dependencies_the_workspace_and_its_diagnostics() -> None:
    assert build().names() == sorted([
        (COMPONENT, "mlw"), (LOGS, "mlw-logs"), (STORAGE, "mlw-storage"), (VAULT, "mlw-keyvault"),
        (APPI, "mlw-appinsights"), (WS, "mlw-workspace"), (DIAG, "mlw-diagnostics"),
    ])


def test_every_child_is_parented_to_the_component_and_unprotected_by_default() -> None:
    rec = build(container_registry=True, locks=True, managed_network={"isolation_mode": "disabled"})
    children = [r for r in rec.registrations if r.type != COMPONENT]
    assert len(children) == 10
    for child in children:
        assert (child.name, child.parent, child.protect, child.retain_on_delete) == (
            child.name, "mlw", False, False)


def test_storage_account_inputs_are_secure() -> None:
    assert build().get(STORAGE, "mlw-storage").inputs == {
        "accountName": ST_NAME,
        "resourceGroupName": "rg-ml",
        "location": "westeurope",
        "tags": {},
        "kind": "StorageV2",
        "sku": {"name": "Standard_LRS"},
        "allowBlobPublicAccess": False,
        "allowSharedKeyAccess": False,
        "defaultToOAuthAuthentication": True,
        "allowCrossTenantReplication": False,
        "enableHttpsTrafficOnly": True,
        "minimumTlsVersion": "TLS1_2",
        "isHnsEnabled": False,
        "publicNetworkAccess": "Disabled",
    }


def test_shared_key_access_opt_in_turns_keys_on_and_leaves_datastore_auth_to_azure() -> None:
    rec = build(storage_shared_key_access=True)
    storage = rec.get(STORAGE, "mlw-storage").inputs
    assert (storage["allowSharedKeyAccess"], storage["defaultToOAuthAuthentication"]) == (True, False)
    assert "systemDatastoresAuthMode" not in rec.get(WS, "mlw-workspace").inputs


def test_key_vault_uses_rbac_soft_delete_and_purge_protection() -> None:
    assert build().get(VAULT, "mlw-keyvault").inputs == {
        "vaultName": KV_NAME,
        "resourceGroupName": "rg-ml",
        "location": "westeurope",
        "tags": {},
        "properties": {
            "tenantId": TENANT,
            "sku": {"family": "A", "name": "standard"},
            "enableRbacAuthorization": True,
            "enableSoftDelete": True,
            "softDeleteRetentionInDays": 90.0,
            "enablePurgeProtection": True,
            "publicNetworkAccess": "disabled",
            # SDK defaults, sent explicitly by pulumi-azure-native
            "enabledForDeployment": False,
            "enabledForDiskEncryption": False,
            "enabledForTemplateDeployment": False,
        },
    }


def test_key_vault_takes_the_given_tenant_instead_of_the_client_config() -> None:
    rec = build(tenant_id="22222222-2222-2222-2222-222222222222")
    assert rec.get(VAULT, "mlw-keyvault").inputs["properties"]["tenantId"] == (
        "22222222-2222-2222-2222-222222222222")


def test_monitoring_is_a_workspace_based_application_insights_over_log_analytics() -> None:
    rec = build(log_retention_days=90)
    assert rec.get(LOGS, "mlw-logs").inputs == {
        "workspaceName": "log-mlw", "resourceGroupName": "rg-ml", "location": "westeurope", "tags": {},
        "sku": {"name": "PerGB2018"}, "retentionInDays": 90.0,
    }
    appi = rec.get(APPI, "mlw-appinsights").inputs
    assert (appi["workspaceResourceId"], appi["ingestionMode"], appi["kind"], appi["applicationType"]) == (
        LOG_ID, "LogAnalytics", "web", "web")


def test_workspace_inputs_have_secure_defaults() -> None:
    assert build().get(WS, "mlw-workspace").inputs == {
        "workspaceName": "mlw",
        "resourceGroupName": "rg-ml",
        "location": "westeurope",
        "tags": {},
        "kind": "Default",
        "identity": {"type": "SystemAssigned"},
        "storageAccount": ST_ID,
        "keyVault": KV_ID,
        "applicationInsights": APPI_ID,
        "publicNetworkAccess": "Disabled",
        "allowPublicAccessWhenBehindVnet": False,
        "managedNetwork": {"isolationMode": "AllowOnlyApprovedOutbound", "enableNetworkMonitor": False},
        "serverlessComputeSettings": {"serverlessComputeNoPublicIP": True},
        "hbiWorkspace": True,
        "systemDatastoresAuthMode": "identity",
    }


def test_diagnostic_setting_sends_all_logs_and_metrics_to_log_analytics() -> None:
    assert build().get(DIAG, "mlw-diagnostics").inputs == {
        "name": "to-log-analytics",
        "resourceUri": WS_ID,
        "workspaceId": LOG_ID,
        "logs": [{"categoryGroup": "allLogs", "enabled": True}],
        "metrics": [{"category": "AllMetrics", "enabled": True}],
    }


def test_diagnostics_can_be_turned_off() -> None:
    assert build(enable_diagnostics=False).of_type(DIAG) == []


def test_outputs_are_the_ids_names_and_system_principal() -> None:
    rec = build(container_registry=True)
    assert rec.outputs == {
        "workspace_id": WS_ID, "workspace_name": "mlw", "storage_account_id": ST_ID, "key_vault_id": KV_ID,
        "application_insights_id": APPI_ID, "log_analytics_workspace_id": LOG_ID,
        "container_registry_id": CR_ID, "principal_id": principal_of("mlw-workspace"),
        "resource_group_name": "rg-ml", "location": "westeurope",
    }
    # register_outputs carries exactly the attributes (None values are not serialized)
    assert rec.component_outputs["mlw"] == rec.outputs


def test_registered_outputs_never_name_anything_but_the_attributes() -> None:
    rec = build(identity={"type": "user_assigned", "user_assigned_identities": [{"resource_id": UAI}]})
    assert set(rec.component_outputs["mlw"]) == OUTPUT_NAMES - {"container_registry_id", "principal_id"}
    assert (rec.outputs["container_registry_id"], rec.outputs["principal_id"]) == (None, None)


REUSE_CASES = [
    ("storage_account", f"{OTHER}/Microsoft.Storage/storageAccounts/stshared", STORAGE, "storageAccount"),
    ("key_vault", f"{OTHER}/Microsoft.KeyVault/vaults/kv-shared", VAULT, "keyVault"),
    ("application_insights", f"{OTHER}/Microsoft.Insights/components/appi-shared", APPI,
     "applicationInsights"),
    ("container_registry", f"{OTHER}/Microsoft.ContainerRegistry/registries/crshared", ACR,
     "containerRegistry"),
]


@pytest.mark.parametrize(("arg", "existing", "typ", "ws_input"), REUSE_CASES, ids=[c[0] for c in REUSE_CASES])
def test_an_existing_dependency_is_reused_not_created(arg: str, existing: str, typ: str, ws_input: str) -> None:
    rec = build(**{arg: existing})
    assert rec.of_type(typ) == []
    assert rec.get(WS, "mlw-workspace").inputs[ws_input] == existing


def test_an_existing_log_analytics_workspace_feeds_app_insights_and_diagnostics() -> None:
    existing = f"{OTHER}/Microsoft.OperationalInsights/workspaces/log-shared"
    rec = build(log_analytics_workspace=existing)
    assert rec.of_type(LOGS) == []
    assert rec.get(APPI, "mlw-appinsights").inputs["workspaceResourceId"] == existing
    assert rec.get(DIAG, "mlw-diagnostics").inputs["workspaceId"] == existing
    assert rec.outputs["log_analytics_workspace_id"] == existing


def test_reused_storage_keeps_the_workspace_default_datastore_auth() -> None:
    rec = build(storage_account=f"{OTHER}/Microsoft.Storage/storageAccounts/stshared")
    assert "systemDatastoresAuthMode" not in rec.get(WS, "mlw-workspace").inputs


@pytest.mark.parametrize("choice", [False, None], ids=["false", "none"])
def test_no_container_registry_when_not_asked(choice: bool | None) -> None:
    rec = build(container_registry=choice)
    assert rec.of_type(ACR) == []
    assert "containerRegistry" not in rec.get(WS, "mlw-workspace").inputs


def test_created_container_registry_has_no_admin_user() -> None:
    rec = build(container_registry=True)
    assert rec.get(ACR, "mlw-registry").inputs == {
        "registryName": CR_NAME, "resourceGroupName": "rg-ml", "location": "westeurope", "tags": {},
        "sku": {"name": "Premium"}, "adminUserEnabled": False, "publicNetworkAccess": "Disabled",
        # SDK defaults, sent explicitly by pulumi-azure-native
        "anonymousPullEnabled": False, "networkRuleBypassOptions": "AzureServices", "zoneRedundancy": "Disabled",
    }
    assert rec.get(WS, "mlw-workspace").inputs["containerRegistry"] == CR_ID


def test_public_workspace_leaves_its_dependencies_public_too() -> None:
    rec = build(public_network_access="enabled", container_registry=True)
    assert rec.get(WS, "mlw-workspace").inputs["publicNetworkAccess"] == "Enabled"
    assert rec.get(STORAGE, "mlw-storage").inputs["publicNetworkAccess"] == "Enabled"
    assert rec.get(VAULT, "mlw-keyvault").inputs["properties"]["publicNetworkAccess"] == "enabled"
    assert rec.get(ACR, "mlw-registry").inputs["publicNetworkAccess"] == "Enabled"


IDENTITY_CASES = [
    ({}, {"type": "SystemAssigned"}, None),
    ({"identity": USER_IDENTITY},
     {"type": "UserAssigned", "userAssignedIdentities": [UAI, UAI2]}, UAI),
    ({"identity": USER_IDENTITY, "primary_user_assigned_identity": UAI2},
     {"type": "UserAssigned", "userAssignedIdentities": [UAI, UAI2]}, UAI2),
]


@pytest.mark.parametrize(("extra", "identity", "primary"), IDENTITY_CASES,
                         ids=["system", "user-first-is-primary", "user-explicit-primary"])
def test_identity_shapes(extra: dict[str, Any], identity: dict[str, Any], primary: str | None) -> None:
    inputs = build(**extra).get(WS, "mlw-workspace").inputs
    assert inputs["identity"] == identity
    assert inputs.get("primaryUserAssignedIdentity") == primary


def test_locks_are_can_not_delete_on_each_created_resource_never_on_the_group() -> None:
    rec = build(locks=True, managed_network={"isolation_mode": "disabled"})
    locks = {r.name: r.inputs for r in rec.of_type(LOCK)}
    assert {name: (i["scope"], i["level"]) for name, i in locks.items()} == {
        "mlw-workspace-lock": (WS_ID, "CanNotDelete"),
        "mlw-storage-lock": (ST_ID, "CanNotDelete"),
        "mlw-keyvault-lock": (KV_ID, "CanNotDelete"),
    }
    assert all(i["scope"] != RG_ID for i in locks.values())
    assert not [r for r in rec.registrations if "ManagementLockAt" in r.type]


def test_reused_resources_are_never_locked() -> None:
    rec = build(locks=True, managed_network={"isolation_mode": "disabled"},
                storage_account=f"{OTHER}/Microsoft.Storage/storageAccounts/stx",
                key_vault=f"{OTHER}/Microsoft.KeyVault/vaults/kvx")
    assert [r.name for r in rec.of_type(LOCK)] == ["mlw-workspace-lock"]


def test_no_locks_by_default() -> None:
    assert build().of_type(LOCK) == []


def test_protect_data_protects_workspace_storage_and_vault_and_retains_storage() -> None:
    rec = build(protect_data=True, container_registry=True)
    flags = {r.name: (r.protect, r.retain_on_delete) for r in rec.registrations}
    assert flags == {
        "mlw": (False, False),
        "mlw-workspace": (True, False),
        "mlw-storage": (True, True),
        "mlw-keyvault": (True, False),
        "mlw-logs": (False, False),
        "mlw-appinsights": (False, False),
        "mlw-registry": (False, False),
        "mlw-diagnostics": (False, False),
    }


def test_two_instances_never_collide() -> None:
    def program() -> None:
        for name in ("team-a", "team-b"):
            Workspace(name, {"resource_group_name": "rg-ml", "location": "westeurope",
                             "container_registry": True, "locks": True,
                             "managed_network": {"isolation_mode": "disabled"}})

    rec = run(program)
    logical = [(r.type, r.name) for r in rec.registrations]
    assert len(logical) == len(set(logical)) == 2 * 11
    arm_ids = [r.id for r in rec.registrations if r.custom]
    assert len(arm_ids) == len(set(arm_ids)) == 2 * 10
    global_names = [r.outputs["name"] for r in rec.registrations if r.type in (STORAGE, VAULT, ACR)]
    assert len(global_names) == len(set(global_names)) == 2 * 3


def test_names_are_stable_valid_and_overridable() -> None:
    rec = build(storage_account_name="stmine", key_vault_name="kv-mine", container_registry=True,
                container_registry_name="crmine01", name="mlw-mine",
                log_analytics_workspace_name="log-mine", application_insights_name="appi-mine")
    assert [rec.outputs[k].rsplit("/", 1)[1] for k in (
        "storage_account_id", "key_vault_id", "container_registry_id", "workspace_id",
        "log_analytics_workspace_id", "application_insights_id")] == [
        "stmine", "kv-mine", "crmine01", "mlw-mine", "log-mine", "appi-mine"]


def test_long_component_names_still_give_valid_azure_names() -> None:
    rec = build(resource="Research_Platform-Europe-Workspace-Production-01", container_registry=True)
    st = rec.of_type(STORAGE)[0].outputs["name"]
    kv = rec.of_type(VAULT)[0].outputs["name"]
    ws = rec.of_type(WS)[0].outputs["name"]
    assert len(st) <= 24 and st.isalnum() and st.islower()
    assert len(kv) <= 24 and kv.startswith("kv-") and "--" not in kv
    assert len(ws) <= 33


def test_project_workspace_uses_its_hub_and_creates_no_dependencies() -> None:
    hub = arm_id("Microsoft.MachineLearningServices/workspaces", "hub")
    rec = build(kind="project", hub_id=hub)
    assert rec.names() == sorted([(COMPONENT, "mlw"), (LOGS, "mlw-logs"), (WS, "mlw-workspace"),
                                  (DIAG, "mlw-diagnostics")])
    inputs = rec.get(WS, "mlw-workspace").inputs
    assert (inputs["kind"], inputs["hubResourceId"]) == ("Project", hub)
    assert not {"storageAccount", "keyVault", "applicationInsights", "managedNetwork"} & set(inputs)


def test_network_and_encryption_settings_reach_the_workspace() -> None:
    subnet = f"{OTHER}/Microsoft.Network/virtualNetworks/vnet/subnets/serverless"
    key_vault = f"{OTHER}/Microsoft.KeyVault/vaults/kv-cmk"
    inputs = build(
        managed_network={"isolation_mode": "allow_internet_outbound"}, serverless_compute={"custom_subnet": subnet},
        customer_managed_key={"key_vault": key_vault, "key_uri": "https://kv-cmk.vault.azure.net/keys/ml/1",
                              "user_assigned_identity": UAI},
        identity={"type": "user_assigned", "user_assigned_identities": [{"resource_id": UAI}]}, hbi_workspace=False,
        kind="hub", display_name="ML hub", description="shared hub", tags={"env": "prod"},
    ).get(WS, "mlw-workspace").inputs
    assert inputs["managedNetwork"]["isolationMode"] == "AllowInternetOutbound"
    assert inputs["serverlessComputeSettings"] == {
        "serverlessComputeCustomSubnet": subnet, "serverlessComputeNoPublicIP": True}
    assert inputs["encryption"] == {
        "status": "Enabled",
        "keyVaultProperties": {"keyVaultArmId": key_vault,
                               "keyIdentifier": "https://kv-cmk.vault.azure.net/keys/ml/1"},
        "identity": {"userAssignedIdentity": UAI},
    }
    assert (inputs["hbiWorkspace"], inputs["kind"], inputs["friendlyName"], inputs["description"],
            inputs["tags"]) == (False, "Hub", "ML hub", "shared hub", {"env": "prod"})


def test_serverless_settings_are_left_out_when_there_is_no_private_network() -> None:
    inputs = build(managed_network={"isolation_mode": "disabled"}).get(WS, "mlw-workspace").inputs
    assert "serverlessComputeSettings" not in inputs
    assert inputs["managedNetwork"] == {"isolationMode": "Disabled", "enableNetworkMonitor": False}


W = 'Workspace "mlw": '
INVALID = [
    ({"kind": "Lakehouse"}, W + "kind: must be one of 'default', 'hub', 'project', got 'Lakehouse'"),
    ({"kind": "project"}, W + "hub_id: is required when kind is project"),
    ({"hub_id": "/x/hub"}, W + "hub_id: is only allowed when kind is project, got '/x/hub'"),
    ({"public_network_access": "Enabled"},
     W + "public_network_access: must be one of 'enabled', 'disabled', got 'Enabled'"),
    ({"managed_network": {"isolation_mode": "On"}},
     W + "managed_network.isolation_mode: must be one of 'disabled', 'allow_internet_outbound', "
         "'allow_only_approved_outbound', got 'On'"),
    ({"managed_network_isolation_mode": "Disabled"},
     W + "managed_network_isolation_mode: unknown argument; did you mean managed_network? "
         "(help(WorkspaceArgs) lists every argument)"),
    ({"lock_resources": True},
     W + "lock_resources: unknown argument; did you mean locks? (help(WorkspaceArgs) lists every argument)"),
    ({"container_registry": 3},
     W + "container_registry: must be a string or True or False (or a pulumi Output), got 3"),
    ({"container_registry": ""}, W + "container_registry: an empty id: give an ARM id, True or False"),
    ({"customer_managed_key": {"key_vault": "/x/kv"}}, W + "customer_managed_key.key_uri: is required"),
    ({"primary_user_assigned_identity": UAI},
     W + "primary_user_assigned_identity: needs identity.user_assigned_identities"),
    ({"identity": {"type": "user_assigned", "user_assigned_identities": [{"resource_id": UAI}]},
      "primary_user_assigned_identity": UAI2},
     W + "primary_user_assigned_identity: must be one of identity.user_assigned_identities, got "  # elided to 80
     "'/subscriptions/0000/resourceGroups/rg...dentity/userAssignedIdentities/uai-two'"),
    ({"identity": {"type": "none"}},
     W + "identity.type: must be system_assigned or user_assigned (a workspace needs an identity), got 'none'"),
    ({"identity": {"type": "user_assigned"}},
     W + "identity.user_assigned_identities: is required when type is user_assigned"),
    ({"identity": {"type": "system_assigned", "user_assigned_identities": [{"resource_id": UAI}]}},
     W + "identity.type: must be user_assigned to use user_assigned_identities, got 'system_assigned'"),
    ({"storage_account_name": "St-Bad"},
     W + "storage_account_name: invalid Azure name 'St-Bad': allowed is 3-24 lowercase letters and digits"),
    ({"key_vault_name": "kv--x"}, W + "key_vault_name: invalid Azure name 'kv--x': allowed is 3-24 letters, "
                                      "digits and single hyphens, starting with a letter, ending with a letter or "
                                      "digit"),
    ({"image_build_compute": "cpu_cluster"}, W + "image_build_compute: invalid compute name 'cpu_cluster': allowed is "
     "a cluster's name (2-16 letters, digits and hyphens, starting with a letter) or an instance's (3-24 letters, "
     "digits and hyphens, starting with a letter, ending with a letter or digit) of this workspace"),
    ({"location": ""}, W + "location: is required"),
    ({"location": None}, W + "location: is required"),
    ({"log_retention_days": "30"}, W + "log_retention_days: must be a whole number, got '30'"),
    # how-to-managed-network.md, Limitations: no scope locks on the Azure ML resources (issue 30); the default
    # workspace has a managed network
    ({"locks": True}, W + "locks: must be false when the workspace has a managed network: how-to-managed-network.md "
     "(Limitations) asks for no scope locks on the Azure Machine Learning resources and resource group; set "
     "managed_network.isolation_mode: disabled to lock them, got True"),
]


@pytest.mark.parametrize(("extra", "message"), INVALID, ids=[m.split(": ")[1] + "-" + str(i)
                                                             for i, (_, m) in enumerate(INVALID)])
def test_bad_input_is_an_error_naming_the_component_the_field_and_the_value(
    extra: dict[str, Any], message: str,
) -> None:
    with pytest.raises(ComponentArgError) as caught:
        build(**extra)
    assert str(caught.value) == message
    assert caught.value.component == 'Workspace "mlw"'


def test_an_invalid_workspace_registers_nothing() -> None:
    registered: list[str] = []

    def program() -> None:
        try:
            Workspace("mlw", {"resource_group_name": "rg-ml", "location": "westeurope", "kind": "Lakehouse"})
        except ComponentArgError as error:
            registered.append(str(error))

    assert run(program).registrations == []
    assert registered == [W + "kind: must be one of 'default', 'hub', 'project', got 'Lakehouse'"]


SHARED_ST = f"{OTHER}/Microsoft.Storage/storageAccounts/stshared"
KV_CMK = f"{OTHER}/Microsoft.KeyVault/vaults/kv-cmk"
# Each argument (stack file name) and the exact input of `mlw-workspace` it sets.
ARM_INPUTS = [
    ({"name": "mlw-team"}, "workspaceName", "mlw-team"),
    ({"kind": "hub"}, "kind", "Hub"),
    ({"kind": "project", "hub_id": WS_ID}, "hubResourceId", WS_ID),
    ({"display_name": "Team ML"}, "friendlyName", "Team ML"),
    ({"description": "team"}, "description", "team"),
    ({"public_network_access": "enabled"}, "publicNetworkAccess", "Enabled"),
    ({"managed_network": {"isolation_mode": "allow_internet_outbound"}}, "managedNetwork",
     {"isolationMode": "AllowInternetOutbound", "enableNetworkMonitor": False}),
    ({"serverless_compute": {"no_public_ip": False}}, "serverlessComputeSettings",
     {"serverlessComputeNoPublicIP": False}),
    ({"customer_managed_key": {"key_vault": KV_CMK, "key_uri": "https://k/keys/a"}}, "encryption",
     {"status": "Enabled", "keyVaultProperties": {"keyVaultArmId": KV_CMK, "keyIdentifier": "https://k/keys/a"}}),
    ({"identity": USER_IDENTITY}, "primaryUserAssignedIdentity", UAI),
    ({"identity": USER_IDENTITY, "primary_user_assigned_identity": UAI2}, "primaryUserAssignedIdentity", UAI2),
    ({"storage_account": SHARED_ST}, "storageAccount", SHARED_ST),
    ({"key_vault": KV_CMK}, "keyVault", KV_CMK),
    ({"application_insights": APPI_ID + "x"}, "applicationInsights", APPI_ID + "x"),
    ({"container_registry": True}, "containerRegistry", CR_ID),
    ({"hbi_workspace": False}, "hbiWorkspace", False),
    ({"image_build_compute": "cpu-cluster"}, "imageBuildCompute", "cpu-cluster"),
    ({"location": "swedencentral"}, "location", "swedencentral"),
]


@pytest.mark.parametrize(("extra", "key", "expected"), ARM_INPUTS,
                         ids=[f"{next(iter(e))}-{i}" for i, (e, _, _) in enumerate(ARM_INPUTS)])
def test_each_argument_sets_its_arm_input(extra: dict[str, Any], key: str, expected: Any) -> None:
    assert build(**extra).get(WS, "mlw-workspace").inputs.get(key) == expected


# --- private endpoints (Azure Verified Modules' `private_endpoints`) ------------------------------------------

PE = "azure-native:network:PrivateEndpoint"
PE_DNS = "azure-native:network:PrivateDnsZoneGroup"
PE_SUBNET = f"{OTHER}/Microsoft.Network/virtualNetworks/vnet-hub/subnets/snet-pe"
API_ZONE = f"{OTHER}/Microsoft.Network/privateDnsZones/privatelink.api.azureml.ms"
NOTEBOOK_ZONE = f"{OTHER}/Microsoft.Network/privateDnsZones/privatelink.notebooks.azure.net"


@pytest.mark.slow
def test_each_private_endpoint_key_creates_an_endpoint_and_its_dns_zone_group() -> None:
    rec = build(private_endpoints={
        "hub": {"subnet_resource_id": PE_SUBNET, "private_dns_zone_resource_ids": [API_ZONE, NOTEBOOK_ZONE]},
        "spoke": {"subnet_resource_id": PE_SUBNET, "name": "pe-custom", "private_dns_zone_group_name": "zones",
                  "private_dns_zone_resource_ids": [API_ZONE]},
        "bare": {"subnet_resource_id": PE_SUBNET},
    })
    assert [(typ, name) for typ, name in rec.names() if typ in (PE, PE_DNS)] == [
        (PE_DNS, "mlw-pe-hub-dns"), (PE_DNS, "mlw-pe-spoke-dns"),
        (PE, "mlw-pe-bare"), (PE, "mlw-pe-hub"), (PE, "mlw-pe-spoke")]
    assert rec.get(PE, "mlw-pe-hub").inputs == {
        "privateEndpointName": "pep-mlw-hub", "resourceGroupName": "rg-ml", "location": "westeurope", "tags": {},
        # SDK defaults of SubnetArgs, sent explicitly by pulumi-azure-native
        "subnet": {"id": PE_SUBNET, "privateEndpointNetworkPolicies": "Disabled",
                   "privateLinkServiceNetworkPolicies": "Enabled"},
        "privateLinkServiceConnections": [{"name": "pep-mlw-hub", "privateLinkServiceId": WS_ID,
                                           "groupIds": ["amlworkspace"]}],
    }
    assert rec.get(PE_DNS, "mlw-pe-hub-dns").inputs == {
        "privateEndpointName": "pep-mlw-hub", "resourceGroupName": "rg-ml", "privateDnsZoneGroupName": "default",
        "privateDnsZoneConfigs": [
            {"name": "privatelink.api.azureml.ms", "privateDnsZoneId": API_ZONE},
            {"name": "privatelink.notebooks.azure.net", "privateDnsZoneId": NOTEBOOK_ZONE},
        ],
    }
    assert rec.get(PE, "mlw-pe-spoke").inputs["privateEndpointName"] == "pe-custom"
    assert rec.get(PE_DNS, "mlw-pe-spoke-dns").inputs["privateDnsZoneGroupName"] == "zones"
    assert {r.parent for r in rec.registrations if r.type in (PE, PE_DNS)} == {"mlw"}


def test_no_private_endpoint_by_default() -> None:
    assert [name for typ, name in build().names() if typ in (PE, PE_DNS)] == []


@pytest.mark.parametrize(("extra", "message"), [
    ({"private_endpoints": {"a b": {"subnet_resource_id": PE_SUBNET}}},
     W + "private_endpoints.a b: invalid key: allowed is 1-32 letters, digits, '-' or '_', starting with a letter "
         "or digit, got 'a b'"),
    ({"private_endpoints": {"hub": {"subnet_resource_id": PE_SUBNET, "name": "pe-"}}},
     W + "private_endpoints.hub.name: invalid Azure name 'pe-': allowed is 2-64 letters, digits, underscores, "
         "periods and hyphens, starting with a letter or digit, ending with a letter, digit or underscore"),
    ({"private_endpoints": {"hub": {"name": "pe-x"}}},
     W + "private_endpoints.hub.subnet_resource_id: is required"),
    ({"kind": "project", "hub_id": WS_ID, "private_endpoints": {"hub": {"subnet_resource_id": PE_SUBNET}}},
     W + "private_endpoints: is not allowed when kind is project (a project is reached through its hub's private "
         "endpoint), got ['hub']"),
], ids=["bad-key", "bad-name", "no-subnet", "project"])
def test_bad_private_endpoints_are_refused(extra: dict[str, Any], message: str) -> None:
    with pytest.raises(ComponentArgError) as caught:
        build(**extra)
    assert str(caught.value) == message
