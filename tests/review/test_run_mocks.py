"""Azure-like mock outputs and engine URNs."""

from __future__ import annotations

import pytest
from google.protobuf import json_format, struct_pb2
from pulumi.runtime import rpc

from amlkit.review.arm import (
    _ARM,
    _EXTENSIONS,
    SUBSCRIPTION,
    TENANT,
    arm_id,
    derived_fields,
    lookup_type,
    physical_name,
    type_key,
)
from amlkit.review.run.mocks import CLIENT_CONFIG, UNKNOWN_MARK, AzureMocks, mark_unknown, principal_of, shaped_identity
from amlkit.review.run.sdk import with_output_only_unknown
from amlkit.review.secrets import SECRET_SIG, SECRET_SIG_KEY
from tests.components.harness import run

SUB = f"/subscriptions/{SUBSCRIPTION}"

ARM_CASES = [
    ("group", "azure-native:resources:ResourceGroup", "rg-ml", {}, f"{SUB}/resourceGroups/rg-ml"),
    ("workspace", "azure-native:machinelearningservices:Workspace", "mlw", {"resourceGroupName": "rg-ml"},
     f"{SUB}/resourceGroups/rg-ml/providers/Microsoft.MachineLearningServices/workspaces/mlw"),
    ("compute-versioned", "azure-native:machinelearningservices/v20240401:Compute", "cpu",
     {"resourceGroupName": "rg-ml", "workspaceName": "mlw"},
     f"{SUB}/resourceGroups/rg-ml/providers/Microsoft.MachineLearningServices/workspaces/mlw/computes/cpu"),
    ("compute-parameterized", "azure-native_machinelearningservices_v20240401:machinelearningservices:Compute",
     "cpu", {"resourceGroupName": "rg-ml", "workspaceName": "mlw"},
     f"{SUB}/resourceGroups/rg-ml/providers/Microsoft.MachineLearningServices/workspaces/mlw/computes/cpu"),
    ("unlisted-type", "azure-native:cache:Redis", "redis1", {"resourceGroupName": "rg"},
     f"{SUB}/resourceGroups/rg/providers/Microsoft.cache/rediss/redis1"),
    # every type the components and the fixtures create, with Azure's provider namespace casing
    ("app-insights", "azure-native:applicationinsights:Component", "appi", {"resourceGroupName": "rg"},
     f"{SUB}/resourceGroups/rg/providers/Microsoft.Insights/components/appi"),
    ("app-insights-v1-module", "azure-native:insights:Component", "appi", {"resourceGroupName": "rg"},
     f"{SUB}/resourceGroups/rg/providers/Microsoft.Insights/components/appi"),
    ("log-analytics", "azure-native:operationalinsights:Workspace", "log", {"resourceGroupName": "rg"},
     f"{SUB}/resourceGroups/rg/providers/Microsoft.OperationalInsights/workspaces/log"),
    ("storage", "azure-native:storage:StorageAccount", "st", {"resourceGroupName": "rg"},
     f"{SUB}/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/st"),
    ("key-vault", "azure-native:keyvault:Vault", "kv", {"resourceGroupName": "rg"},
     f"{SUB}/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/kv"),
    ("registry", "azure-native:containerregistry:Registry", "cr", {"resourceGroupName": "rg"},
     f"{SUB}/resourceGroups/rg/providers/Microsoft.ContainerRegistry/registries/cr"),
    ("identity", "azure-native:managedidentity:UserAssignedIdentity", "id", {"resourceGroupName": "rg"},
     f"{SUB}/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id"),
    ("vnet", "azure-native:network:VirtualNetwork", "vnet", {"resourceGroupName": "rg"},
     f"{SUB}/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet"),
    ("subnet", "azure-native:network:Subnet", "snet", {"resourceGroupName": "rg", "virtualNetworkName": "vnet"},
     f"{SUB}/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/snet"),
    ("group-lock", "azure-native:authorization:ManagementLockAtResourceGroupLevel", "lock",
     {"resourceGroupName": "rg"}, f"{SUB}/resourceGroups/rg/providers/Microsoft.Authorization/locks/lock"),
    ("diagnostic-setting-under-its-target", "azure-native:monitor:DiagnosticSetting", "diag",
     {"resourceUri": f"{SUB}/resourceGroups/rg/providers/Microsoft.MachineLearningServices/workspaces/mlw"},
     f"{SUB}/resourceGroups/rg/providers/Microsoft.MachineLearningServices/workspaces/mlw"
     "/providers/Microsoft.Insights/diagnosticSettings/diag"),
    ("lock-by-scope-under-its-scope", "azure-native:authorization:ManagementLockByScope", "kv-lock",
     {"scope": f"{SUB}/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/kv"},
     f"{SUB}/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/kv/providers/Microsoft.Authorization/locks/kv-lock"),
    ("role-assignment-under-its-scope", "azure-native:authorization:RoleAssignment", "ra",
     {"scope": f"{SUB}/resourceGroups/rg"},
     f"{SUB}/resourceGroups/rg/providers/Microsoft.Authorization/roleAssignments/ra"),
    ("resource-lock-under-its-resource", "azure-native:authorization:ManagementLockAtResourceLevel", "nsg-lock",
     {"resourceGroupName": "rg", "resourceProviderNamespace": "Microsoft.Network", "parentResourcePath": "",
      "resourceType": "networkSecurityGroups", "resourceName": "nsg"},
     f"{SUB}/resourceGroups/rg/providers/Microsoft.Network/networkSecurityGroups/nsg"
     "/providers/Microsoft.Authorization/locks/nsg-lock"),
]


@pytest.mark.parametrize(("type_", "name", "inputs", "expected"), [c[1:] for c in ARM_CASES],
                         ids=[c[0] for c in ARM_CASES])
def test_arm_ids(type_, name, inputs, expected):
    assert arm_id(type_, name, inputs) == expected


def test_physical_name_prefers_the_types_name_input():
    assert physical_name("azure-native:machinelearningservices:Compute", "logical", {"computeName": "cpu"}) == "cpu"
    assert physical_name("azure-native:machinelearningservices:Compute", "logical", {}) == "logical"


def test_user_assigned_identities_become_a_map_as_azure_returns_them():
    shaped = shaped_identity({"type": "UserAssigned", "userAssignedIdentities": ["/id/a", "/id/b"]})
    assert sorted(shaped["userAssignedIdentities"]) == ["/id/a", "/id/b"]
    assert shaped["userAssignedIdentities"]["/id/a"] == {"principalId": principal_of("/id/a"),
                                                          "clientId": principal_of("client/id/a")}
    assert "principalId" not in shaped


def test_system_identity_gets_a_principal_per_resource():
    shaped = shaped_identity({"type": "SystemAssigned"}, "cpu-compute")
    assert (shaped["principalId"], shaped["tenantId"]) == (principal_of("cpu-compute"), TENANT)
    assert principal_of("cpu-compute") != principal_of("gpu-compute")


EXTENSION_NAME_CASES = [
    ("diagnostic-setting", "azure-native:monitor:DiagnosticSetting", {"name": "diag"}, "diag"),
    ("lock-by-scope", "azure-native:authorization:ManagementLockByScope", {"lockName": "l"}, "l"),
    ("role-assignment", "azure-native:authorization:RoleAssignment", {"roleAssignmentName": "g"}, "g"),
    ("no-name-input", "azure-native:monitor:DiagnosticSetting", {}, "logical"),
]


@pytest.mark.parametrize(("type_", "inputs", "expected"), [c[1:] for c in EXTENSION_NAME_CASES],
                         ids=[c[0] for c in EXTENSION_NAME_CASES])
def test_extension_resources_take_their_name_input(type_, inputs, expected):
    assert physical_name(type_, "logical", inputs) == expected


@pytest.mark.slow
def test_every_type_the_components_create_has_an_exact_arm_shape():
    """A full component program: no registration falls back to the guessed `Microsoft.<module>` path."""
    from amlkit.components import ComputeCluster, ComputeInstance, Workspace

    def build():
        workspace = Workspace("mlw", {"resource_group_name": "rg-ml", "location": "westeurope", "locks": True,
                                      "managed_network": {"isolation_mode": "disabled"},
                                      "container_registry": True})
        ComputeCluster("cpu", {"workspace": workspace, "size": "Standard_D4ds_v5", "max_instances": 2,
                               "network_settings": {"subnet": SUBNET_ID},
                               "role_assignments": {"reader": {"scope": SUB, "role": "Reader"}}})
        ComputeInstance("alice", {"workspace": workspace, "size": "Standard_D4ds_v5",
                                  "network_settings": {"subnet": SUBNET_ID},
                                  "assigned_user": {"object_id": TENANT, "tenant_id": TENANT}})

    recorded = run(build)
    types = {type_key(r.type) for r in recorded.registrations if r.custom}
    assert types == {
        "storage:StorageAccount", "keyvault:Vault", "operationalinsights:Workspace", "applicationinsights:Component",
        "containerregistry:Registry", "machinelearningservices:Workspace", "machinelearningservices:Compute",
        "monitor:DiagnosticSetting", "authorization:ManagementLockByScope", "authorization:RoleAssignment",
    }
    assert types <= set(_ARM) | set(_EXTENSIONS)
    setting = recorded.get("azure-native:monitor:DiagnosticSetting", "mlw-diagnostics")
    workspace = recorded.get("azure-native:machinelearningservices:Workspace", "mlw-workspace")
    assert setting.id == f"{workspace.id}/providers/Microsoft.Insights/diagnosticSettings/{setting.inputs['name']}"
    insights = recorded.of_type("azure-native:applicationinsights:Component")[0]
    assert "/providers/Microsoft.Insights/components/" in insights.id


LOOKUP_TYPE_CASES = [
    ("get", "azure-native:network:getSubnet", "network:Subnet"),
    ("versioned", "azure-native:network/v20240301:getVirtualNetwork", "network:VirtualNetwork"),
    ("list", "azure-native:storage:listStorageAccountKeys", None),
    ("bare-get", "azure-native:network:get", None),
    ("not-azure-native", "aws:ec2:getVpc", None),
]


@pytest.mark.parametrize(("token", "expected"), [c[1:] for c in LOOKUP_TYPE_CASES],
                         ids=[c[0] for c in LOOKUP_TYPE_CASES])
def test_lookup_type(token, expected):
    assert lookup_type(token) == expected


SUBNET_ID = f"{SUB}/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/snet"
DERIVED_CASES = [
    ("subnet", "azure-native:network:getSubnet",
     {"resourceGroupName": "rg-net", "virtualNetworkName": "vnet", "subnetName": "snet"},
     {"id": SUBNET_ID, "name": "snet"}),
    ("resource-group", "azure-native:resources:getResourceGroup", {"resourceGroupName": "rg-net"},
     {"id": f"{SUB}/resourceGroups/rg-net", "name": "rg-net"}),
    ("workspace", "azure-native:machinelearningservices:getWorkspace",
     {"resourceGroupName": "rg", "workspaceName": "mlw"},
     {"id": f"{SUB}/resourceGroups/rg/providers/Microsoft.MachineLearningServices/workspaces/mlw", "name": "mlw"}),
    ("missing-parent", "azure-native:network:getSubnet", {"resourceGroupName": "rg-net", "subnetName": "snet"}, {}),
    ("missing-group", "azure-native:network:getVirtualNetwork", {"virtualNetworkName": "vnet"}, {}),
    ("type-not-in-the-arm-table", "azure-native:network:getNetworkSecurityGroup",
     {"resourceGroupName": "rg", "networkSecurityGroupName": "nsg"}, {}),
    ("not-a-get", "azure-native:storage:listStorageAccountKeys", {"resourceGroupName": "rg", "accountName": "st"}, {}),
]


@pytest.mark.parametrize(("token", "args", "expected"), [c[1:] for c in DERIVED_CASES],
                         ids=[c[0] for c in DERIVED_CASES])
def test_a_lookups_id_and_name_follow_from_its_arm_path_arguments(token, args, expected):
    assert derived_fields(token, args) == expected


SUBNET_ARGS = {"resourceGroupName": "rg-net", "virtualNetworkName": "vnet", "subnetName": "snet"}


@pytest.mark.slow
def test_an_unanswered_get_lookup_has_its_id_and_name_and_every_other_string_unknown():
    result, answered = AzureMocks().answer("azure-native:network:getSubnet", SUBNET_ARGS)
    assert answered is False
    assert (result["id"], result["name"]) == (SUBNET_ID, "snet")
    assert result["addressPrefix"] == f"{UNKNOWN_MARK}azure-native:network:getSubnet:addressPrefix"
    assert "addressPrefixes" not in result and "delegations" not in result  # not strings: left out
    strings = {key for key, value in result.items() if value.startswith(UNKNOWN_MARK)}
    assert strings == {"addressPrefix", "azureApiVersion", "etag", "privateEndpointNetworkPolicies",
                       "privateLinkServiceNetworkPolicies", "provisioningState", "purpose", "sharingScope", "type"}


ANSWER_CASES = [
    ("client-config", CLIENT_CONFIG, {}, ({"subscriptionId": SUBSCRIPTION, "tenantId": TENANT,
                                          "clientId": SUBSCRIPTION, "objectId": SUBSCRIPTION}, True)),
    ("classic-client-config", "azure:core/getClientConfig:getClientConfig", {}, (
        {"subscriptionId": SUBSCRIPTION, "tenantId": TENANT, "clientId": SUBSCRIPTION, "objectId": SUBSCRIPTION},
        True)),
    ("classic-lookup-typed-placeholder", "azure:machinelearning/getWorkspace:getWorkspace",
     {"name": "mlw", "resourceGroupName": "rg"}, ({
         wire: f"{UNKNOWN_MARK}azure:machinelearning/getWorkspace:getWorkspace:{wire}"
         for wire in ("id", "location", "name", "resourceGroupName", "storageAccountAccessType")},
        False)),
    ("unknown-args", "azure-native:network:getSubnet",
     {**SUBNET_ARGS, "subnetName": f"{UNKNOWN_MARK}azure-native:x:getY:name"}, (None, False)),
    ("no-typed-result", "azure-native:network:getNoSuchThing", {}, (None, False)),
    ("not-azure-native", "aws:ec2:getVpc", {"id": "vpc-1"}, (None, False)),
]


@pytest.mark.parametrize(("token", "args", "expected"), [c[1:] for c in ANSWER_CASES],
                         ids=[c[0] for c in ANSWER_CASES])
def test_answers(token, args, expected):
    assert AzureMocks().answer(token, args) == expected


KEYS = "azure-native:storage:listStorageAccountKeys"
KEYS_MARK = f"{UNKNOWN_MARK}{KEYS}:.keys"


@pytest.mark.parametrize(("form", "expected"), [
    # the plain form must return a value: its typed result, every string unknown, a list holding one item
    ("plain", {"keys": [{wire: f"{KEYS_MARK}.{wire}" for wire in ("creationTime", "keyName", "permissions",
                                                                 "value")}]}),
    ("output", None),  # wholly unknown: no apply over it runs
], ids=["plain", "output"])
def test_a_credentials_lookup_is_never_answered(form, expected):
    from amlkit.review.run.lookups import Lookups
    from amlkit.review.run.mocks import FORM

    args = {"accountName": "st", "resourceGroupName": "rg"}
    pins = Lookups(invokes=[{"function": KEYS, "args": args, "result": {"keys": []}}])  # a file refuses this pin
    token = FORM.set(form)
    try:
        assert AzureMocks(pins).answer(KEYS, args) == (expected, False)
    finally:
        FORM.reset(token)


@pytest.mark.parametrize(("args", "shown"), [
    ({"name": "rg", "count": 2.0}, {"name": "rg", "count": 2.0}),
    ({"name": rpc.UNKNOWN}, {"name": "<unknown>"}),
    ({"name": f"rg-{UNKNOWN_MARK}azure:x:getY:location"}, {"name": "<unknown>"}),
    ({"filter": {"ids": ["a", rpc.UNKNOWN]}}, {"filter": {"ids": ["a", "<unknown>"]}}),
    ({"password": {SECRET_SIG_KEY: SECRET_SIG, "value": "hunter2"}}, {"password": "[secret]"}),
], ids=["known", "unknown", "marked", "nested", "secret"])
def test_a_lookups_arguments_as_reports_show_them(args, shown):
    from amlkit.review.run.mocks import shown_args

    assert shown_args(args) == shown


def test_pinned_answers_win_and_the_lookup_counts_as_answered():
    from amlkit.review.run.lookups import Lookups

    pins = Lookups(invokes=[{"function": "azure-native:network:getSubnet", "args": SUBNET_ARGS,
                             "result": {"addressPrefix": "10.0.1.0/24"}}],
                   stack_references={"acme/net/prod": {"subnetId": SUBNET_ID}})
    result, answered = AzureMocks(pins).answer("azure-native:network:getSubnet", SUBNET_ARGS)
    assert answered is True
    assert (result["addressPrefix"], result["id"]) == ("10.0.1.0/24", SUBNET_ID)
    assert result["etag"].startswith(UNKNOWN_MARK)  # what the file does not pin stays unknown
    other, answered = AzureMocks(pins).answer("azure-native:network:getSubnet", {**SUBNET_ARGS, "subnetName": "b"})
    assert answered is False and other["addressPrefix"].startswith(UNKNOWN_MARK)
    assert AzureMocks(pins).stack_reference("acme/net/prod") == (
        "acme/net/prod", {"name": "acme/net/prod", "outputs": {"subnetId": SUBNET_ID}, "secretOutputNames": []})
    assert AzureMocks(pins).stack_reference("acme/net/dev") == ("acme/net/dev", {"name": "acme/net/dev"})


def test_strings_carrying_the_unknown_mark_become_the_engines_unknown_sentinel():
    struct = json_format.ParseDict({
        "a": f"x-{UNKNOWN_MARK}t:f-y", "b": "known", "c": {"d": [f"{UNKNOWN_MARK}t:f", 1.0]}, "e": True,
    }, struct_pb2.Struct())
    mark_unknown(struct)
    assert json_format.MessageToDict(struct) == {"a": rpc.UNKNOWN, "b": "known", "c": {"d": [rpc.UNKNOWN, 1.0]},
                                                 "e": True}


def test_a_pinned_client_config_wins_over_the_stacks_ids():
    from amlkit.review.run.lookups import Lookups

    tenant = "9c8b7a6d-5e4f-4321-8765-0fedcba98765"
    pins = Lookups(invokes=[{"function": CLIENT_CONFIG, "args": {}, "result": {"tenantId": tenant}}])
    assert AzureMocks(pins).answer(CLIENT_CONFIG, {}) == ({
        "subscriptionId": SUBSCRIPTION, "tenantId": tenant, "clientId": SUBSCRIPTION, "objectId": SUBSCRIPTION}, True)


CLASSIC_WS = ("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-ml/providers/"
              "Microsoft.MachineLearningServices/workspaces/mlw")
CLASSIC_ID_CASES = [
    ("resource-group", "azure:core/resourceGroup:ResourceGroup", "rg-ml", {"location": "westeurope"},
     "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-ml"),
    ("workspace", "azure:machinelearning/workspace:Workspace", "mlw", {"resourceGroupName": "rg-ml"}, CLASSIC_WS),
    ("cluster", "azure:machinelearning/computeCluster:ComputeCluster", "gpu",
     {"machineLearningWorkspaceId": CLASSIC_WS}, f"{CLASSIC_WS}/computes/gpu"),
    ("subnet", "azure:network/subnet:Subnet", "snet", {"resourceGroupName": "rg-net", "virtualNetworkName": "vnet"},
     "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-net/providers/Microsoft.Network/"
     "virtualNetworks/vnet/subnets/snet"),
    ("lock", "azure:management/lock:Lock", "l", {"scope": CLASSIC_WS},
     f"{CLASSIC_WS}/providers/Microsoft.Authorization/locks/l"),
]


@pytest.mark.parametrize(("token", "name", "inputs", "expected"), [c[1:] for c in CLASSIC_ID_CASES],
                         ids=[c[0] for c in CLASSIC_ID_CASES])
def test_classic_resources_get_arm_shaped_ids(token, name, inputs, expected):
    assert arm_id(token, name, inputs) == expected


OUTPUT_ONLY_CASES = [
    ("nested-list-of-output-types", "azure-native:network:PrivateDnsZoneGroup",
     {"privateDnsZoneConfigs": [{"name": "api", "privateDnsZoneId": "zone"}], "resourceGroupName": "rg"},
     {"privateDnsZoneConfigs": [{"name": "api", "privateDnsZoneId": "zone", "recordSets": rpc.UNKNOWN}],
      "resourceGroupName": "rg"}),
    ("no-nested-outputs", "azure-native:resources:ResourceGroup", {"location": "westeurope", "tags": {"a": "b"}},
     {"location": "westeurope", "tags": {"a": "b"}}),
    ("identity-left-as-shaped", "azure:machinelearning/computeCluster:ComputeCluster",
     {"identity": {"type": "SystemAssigned"}, "scaleSettings": {"minNodeCount": 0, "maxNodeCount": 1}},
     {"identity": {"type": "SystemAssigned"}, "scaleSettings": {"minNodeCount": 0, "maxNodeCount": 1}}),
    ("no-sdk-class", "acme:index/thing:Thing", {"a": {"b": 1}}, {"a": {"b": 1}}),
]


@pytest.mark.parametrize(("token", "inputs", "expected"), [c[1:] for c in OUTPUT_ONLY_CASES],
                         ids=[c[0] for c in OUTPUT_ONLY_CASES])
def test_output_only_fields_nested_in_echoed_inputs_are_unknown(token, inputs, expected):
    assert with_output_only_unknown(token, inputs) == expected


U = rpc.UNKNOWN
PREVIEW_CASES = [
    # azure-native: inputs mirrored to the outputs of the same name; `name` (a response property, not the
    # `workspaceName` path input), principal ids and every other output unknown
    ("native-workspace", "azure-native:machinelearningservices:Workspace",
     {"workspaceName": "mlw", "resourceGroupName": "rg", "location": "westeurope", "publicNetworkAccess": "Disabled",
      "identity": {"type": "SystemAssigned"}},
     {"name": U, "location": "westeurope", "publicNetworkAccess": "Disabled", "kind": U, "hubResourceId": U,
      "identity": {"type": "SystemAssigned", "principalId": U, "tenantId": U, "userAssignedIdentities": U}}),
    # a list of identity ids in, a map out: the shapes differ, so unknown (previewOutputValue)
    ("native-user-identities", "azure-native:machinelearningservices:Compute",
     {"computeName": "cpu", "identity": {"type": "UserAssigned", "userAssignedIdentities": ["/uai/a"]},
      "properties": {"computeType": "AmlCompute", "properties": {"vmSize": "STANDARD_DS3_V2"}}},
     {"name": U, "location": U, "identity": {"type": "UserAssigned", "principalId": U, "tenantId": U,
                                             "userAssignedIdentities": U},
      "properties": {"computeType": "AmlCompute", "properties": {"vmSize": "STANDARD_DS3_V2"}}}),
    # the classic provider: the configured attributes planned, the computed ones unknown
    ("classic-cluster", "azure:machinelearning/computeCluster:ComputeCluster",
     {"name": "cpu", "machineLearningWorkspaceId": "/mlw", "vmSize": "Standard_DS3_v2",
      "scaleSettings": {"maxNodeCount": 2.0}},
     {"name": "cpu", "machineLearningWorkspaceId": "/mlw", "vmSize": "Standard_DS3_v2", "identity": U,
      "scaleSettings": {"maxNodeCount": 2.0, "minNodeCount": U, "scaleDownNodesAfterIdleDuration": U}}),
]


@pytest.mark.parametrize(("token", "inputs", "expected"), [c[1:] for c in PREVIEW_CASES],
                         ids=[c[0] for c in PREVIEW_CASES])
def test_a_created_resource_gets_the_providers_preview_outputs_and_no_id(token, inputs, expected):
    from pulumi.runtime.mocks import MockResourceArgs

    resource_id, outputs = AzureMocks().new_resource(MockResourceArgs(token, "x", inputs, "", "", True))
    assert resource_id is None
    assert {key: outputs[key] for key in expected} == expected
    assert "id" not in outputs


def test_an_update_keeps_the_old_name_and_location_in_azure_native_and_the_old_outputs_in_classic():
    from amlkit.review.run.statemocks import updated_outputs

    old = {"name": "mlw", "location": "westeurope", "workspaceId": "guid", "publicNetworkAccess": "Enabled"}
    native = updated_outputs("azure-native:machinelearningservices:Workspace",
                             {"workspaceName": "mlw", "publicNetworkAccess": "Disabled"}, old)
    assert (native["name"], native["location"], native["publicNetworkAccess"], native["workspaceId"]) == (
        "mlw", "westeurope", "Disabled", U)
    classic = updated_outputs("azure:machinelearning/computeCluster:ComputeCluster",
                              {"name": "cpu", "vmSize": "Standard_DS4_v2"},
                              {"id": "/c/cpu", "name": "cpu", "vmSize": "Standard_DS3_v2", "identity": {"x": 1}})
    assert classic == {"id": "/c/cpu", "name": "cpu", "vmSize": "Standard_DS4_v2", "identity": {"x": 1}}
