import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from amlkit.policies.azure import (
    CLUSTER,
    COMPUTE,
    INSTANCE,
    MANAGED,
    WORKSPACE,
    ComputeView,
    Input,
    WorkspaceView,
    absent,
    compute_of,
    compute_subject,
    compute_view,
    deployment_view,
    is_type,
    same_region,
    same_value,
    type_parts,
    workspace_view,
)
from amlkit.policies.framework import CannotLink, StackResource
from amlkit.policies.links import workspace_of, workspaces_by_key
from tests.policies.compute_fixtures import (
    USER_IDENTITY_ID,
    WORKSPACE_TYPE,
    attached_props,
    cluster,
    instance_props,
    with_unknown,
    workspace,
)
from tests.policies.helpers import DELETE, changed, cluster_props

INNER = "properties.properties"


# --- compute_of ------------------------------------------------------------------------------------

COMPUTE_TOKEN = "azure-native:machinelearningservices:Compute"


@pytest.mark.parametrize(("token", "compute_type", "kinds", "found"), [
    (COMPUTE_TOKEN, "AmlCompute", CLUSTER, True),
    (COMPUTE_TOKEN, "AmlCompute", MANAGED, True),
    (COMPUTE_TOKEN, "ComputeInstance", INSTANCE, True),
    (COMPUTE_TOKEN, "ComputeInstance", CLUSTER, False),
    (COMPUTE_TOKEN, "AKS", MANAGED, False),
    ("azure-native:machinelearningservices/v20240401:Compute", "AmlCompute", CLUSTER, True),
    ("azure-native:storage:StorageAccount", "AmlCompute", MANAGED, False),
], ids=["cluster", "cluster-managed", "instance", "instance-not-cluster", "attached-not-managed", "versioned",
        "other-type"])
def test_compute_of(token, compute_type, kinds, found):
    props = changed(cluster_props(), "properties.computeType", compute_type)
    view = compute_of(token, props, kinds)
    assert (view is not None) is found
    if found:
        assert view.compute_type == compute_type


# --- type tokens -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("token", "parts"), [
    ("azure-native:machinelearningservices:Compute", ("machinelearningservices", None, "Compute")),
    ("azure-native:machinelearningservices/v20240401preview:Compute",
     ("machinelearningservices", "v20240401preview", "Compute")),
    ("azure-native_machinelearningservices_v20240401preview:machinelearningservices:Compute",
     ("machinelearningservices", "v20240401preview", "Compute")),
    ("azure-native_storage_v20240101:storage:StorageAccount", ("storage", "v20240101", "StorageAccount")),
    ("azure-native_storage_v20240101:keyvault:Vault", None),
    ("aws:s3:Bucket", None),
])
def test_type_parts(token, parts):
    assert type_parts(token) == parts


@pytest.mark.parametrize(("token", "kind", "expected"), [
    ("azure-native:machinelearningservices:Compute", COMPUTE, True),
    ("azure-native:machinelearningservices/v20250101:Compute", COMPUTE, True),
    ("azure-native_machinelearningservices_v20250101:machinelearningservices:Compute", COMPUTE, True),
    ("azure-native:machinelearningservices:Workspace", COMPUTE, False),
    (WORKSPACE_TYPE, WORKSPACE, True),
    ("azure-native:storage:StorageAccount", COMPUTE, False),
])
def test_is_type(token, kind, expected):
    assert is_type(token, kind) is expected


# --- ComputeView: values given and Azure's defaults when missing ----------------------------------

def view(props):
    return ComputeView(props)


GIVEN = [
    ("compute_type", cluster_props(), "AmlCompute"),
    ("min_nodes", changed(cluster_props(), f"{INNER}.scaleSettings.minNodeCount", 2.0), 2),
    ("max_nodes", cluster_props(), 4),
    ("idle_time_before_scale_down", cluster_props(), "PT120S"),
    ("vm_size", cluster_props(), "Standard_D4ds_v5"),
    ("vm_priority", cluster_props(vmPriority="LowPriority"), "LowPriority"),
    ("enable_node_public_ip", cluster_props(), False),
    ("remote_login_port_public_access", cluster_props(), "Disabled"),
    ("disable_local_auth", cluster_props(), True),
    ("identity_type", cluster_props(), "SystemAssigned"),
    ("workspace_name", cluster_props(), "mlw-prod"),
    ("resource_group_name", cluster_props(), "rg-ml-prod"),
    ("compute_name", cluster_props(), "cpu-cluster"),
    ("admin_password_set", cluster_props(userAccountCredentials={"adminUserName": "azureuser",
                                                                 "adminUserPassword": "hunter2"}), True),
    ("ssh_public_access", instance_props(sshSettings={"sshPublicAccess": "Enabled"}), "Enabled"),
    ("idle_time_before_shutdown", instance_props(), "PT60M"),
    ("remote_login_port_public_access_given", cluster_props(), "Disabled"),
    ("enable_node_public_ip_given", cluster_props(), False),
    ("disable_local_auth_given", cluster_props(), True),
    ("resource_id", attached_props(), "/subscriptions/0000/resourceGroups/rg-aks/providers/"
     "Microsoft.ContainerService/managedClusters/aks-prod"),
]


@pytest.mark.parametrize(("accessor", "props", "expected"), GIVEN, ids=[g[0] for g in GIVEN])
def test_compute_accessor_reads_given_value(accessor, props, expected):
    assert getattr(view(props), accessor) == expected


DEFAULTS = [
    ("min_nodes", f"{INNER}.scaleSettings.minNodeCount", 0),
    ("max_nodes", f"{INNER}.scaleSettings.maxNodeCount", None),
    ("idle_time_before_scale_down", f"{INNER}.scaleSettings.nodeIdleTimeBeforeScaleDown", None),
    ("vm_priority", f"{INNER}.vmPriority", "Dedicated"),
    ("enable_node_public_ip", f"{INNER}.enableNodePublicIp", True),
    ("remote_login_port_public_access", f"{INNER}.remoteLoginPortPublicAccess", "NotSpecified"),
    ("disable_local_auth", "properties.disableLocalAuth", False),
    ("subnet_id", f"{INNER}.subnet", None),
    ("identity_type", "identity", None),
    ("user_assigned_identities", "identity", []),
    ("admin_password_set", f"{INNER}.userAccountCredentials", False),
    ("ssh_public_access", f"{INNER}.sshSettings", "Disabled"),
    ("idle_time_before_shutdown", f"{INNER}.idleTimeBeforeShutdown", None),
    ("resource_id", "properties.resourceId", None),
    ("location", "location", None),
    ("remote_login_port_public_access_given", f"{INNER}.remoteLoginPortPublicAccess", None),
    ("enable_node_public_ip_given", f"{INNER}.enableNodePublicIp", None),
    ("disable_local_auth_given", "properties.disableLocalAuth", None),
]


@pytest.mark.parametrize(("accessor", "path", "default"), DEFAULTS, ids=[d[0] for d in DEFAULTS])
def test_compute_accessor_missing_means_azure_default(accessor, path, default):
    assert getattr(view(changed(cluster_props(), path, DELETE)), accessor) == default


def test_null_value_means_default_too():
    assert view(changed(cluster_props(), f"{INNER}.enableNodePublicIp", None)).enable_node_public_ip is True


def test_admin_password_without_value_is_not_set():
    props = cluster_props(userAccountCredentials={"adminUserName": "azureuser", "adminUserSshPublicKey": "ssh-rsa"})
    assert view(props).admin_password_set is False


def test_missing_properties_block_gives_defaults():
    compute = view({"location": "westeurope"})
    assert (compute.compute_type, compute.is_cluster, compute.is_instance) == (None, False, False)
    assert compute.enable_node_public_ip is True and compute.max_nodes is None


def test_location_prefers_compute_location():
    props = changed(cluster_props(), "properties.computeLocation", "northeurope")
    assert view(props).location == "northeurope"
    assert view(cluster_props()).location == "westeurope"


@pytest.mark.parametrize(("value", "ids"), [
    ([USER_IDENTITY_ID], [USER_IDENTITY_ID]),
    ({USER_IDENTITY_ID: {}}, [USER_IDENTITY_ID]),
    ([], []),
])
def test_user_assigned_identities_list_or_map(value, ids):
    props = changed(cluster_props(), "identity.userAssignedIdentities", value)
    assert view(props).user_assigned_identities == ids


def test_kinds():
    assert view(cluster_props()).is_cluster and not view(cluster_props()).is_instance
    assert view(instance_props()).is_instance and not view(instance_props()).is_cluster


def test_unknown_value_propagates_from_accessor():
    props = with_unknown(cluster_props(), f"{INNER}.userAccountCredentials.adminUserPassword",
                         UNKNOWN_STRING_VALUE)
    with pytest.raises(UnknownValueError):
        _ = view(props).admin_password_set


def test_unknown_elsewhere_is_not_read():
    props = with_unknown(cluster_props(), f"{INNER}.vmSize", UNKNOWN_STRING_VALUE)
    assert view(props).enable_node_public_ip is False


class View:
    def __init__(self, props):
        self.props = props


def read(declared, props):
    """What a view declaring `field = declared` reads from `props`."""
    return type("OneInput", (View,), {"field": declared})(props).field


INPUTS = [
    ("top-level", Input("a"), {"a": "x"}, "x"),
    ("nested", Input("a.b.c"), {"a": {"b": {"c": 3}}}, 3),
    ("omitted-is-the-default", Input("a.b", "dflt"), {"a": {}}, "dflt"),
    ("null-is-the-default", Input("a.b", "dflt"), {"a": {"b": None}}, "dflt"),
    ("null-parent-is-the-default", Input("a.b", "dflt"), {"a": None}, "dflt"),
    ("non-object-parent-is-the-default", Input("a.b", "dflt"), {"a": "text"}, "dflt"),
    ("converted", Input("n", None, int), {"n": 2.0}, 2),
    ("default-converted-too", Input("flag", True, lambda flag: "on" if flag else "off"), {}, "on"),
    ("none-never-converted", Input("n", None, int), {}, None),
    ("absent-never-reads", absent("fixed"), {"": "x"}, "fixed"),
]


@pytest.mark.parametrize(("declared", "props", "expected"), [c[1:] for c in INPUTS], ids=[c[0] for c in INPUTS])
def test_input(declared, props, expected):
    assert read(declared, props) == expected


def test_input_reads_only_its_path():
    props = with_unknown({"a": {"b": 1, "c": 2}}, "a.c", UNKNOWN_STRING_VALUE)
    assert read(Input("a.b"), props) == 1
    with pytest.raises(UnknownValueError):
        read(Input("a.c"), props)


# --- subjects and comparisons ----------------------------------------------------------------------

@pytest.mark.parametrize(("props", "subject"), [
    (cluster_props(), "AmlCompute cluster 'c'"),
    (instance_props(), "Compute instance 'c'"),
    (attached_props("AKS"), "AKS compute 'c'"),
    ({}, "Compute 'c'"),
])
def test_compute_subject(props, subject):
    assert compute_subject("c", view(props)) == subject


@pytest.mark.parametrize(("first", "second", "expected"), [
    ("West Europe", "westeurope", True),
    ("westeurope", "WESTEUROPE", True),
    ("westeurope", "northeurope", False),
])
def test_same_region(first, second, expected):
    assert same_region(first, second) is expected


@pytest.mark.parametrize(("value", "expected"), [("Disabled", True), ("disabled", True), ("Enabled", False),
                                                 (None, False), (False, False)])
def test_same_value(value, expected):
    assert same_value(value, "Disabled") is expected


# --- WorkspaceView and workspace lookup ------------------------------------------------------------

def test_workspace_defaults():
    ws = WorkspaceView({})
    assert (ws.kind, ws.public_network_access, ws.managed_network_isolation_mode) == ("Default", "Enabled",
                                                                                      "Disabled")
    assert (ws.allow_public_access_when_behind_vnet, ws.serverless_no_public_ip_given, ws.hbi_workspace) == (
        False, None, False)
    assert (ws.cmk_key_identifier, ws.identity_type, ws.serverless_custom_subnet) == (None, None, None)
    assert ws.user_assigned_identities == []


def test_workspace_values():
    ws = WorkspaceView(workspace("mlw").props)
    assert (ws.name, ws.resource_group_name, ws.location) == ("mlw-prod", "rg-ml-prod", "westeurope")
    assert ws.managed_network_isolation_mode == "AllowOnlyApprovedOutbound"


def test_workspaces_by_key_is_case_insensitive():
    found = workspaces_by_key([workspace("mlw", workspaceName="MLW-Prod"), cluster()])
    assert list(found) == [("rg-ml-prod", "mlw-prod")]


def test_workspace_of_by_name():
    ws = workspace("mlw")
    assert workspace_of(cluster(), workspaces_by_key([ws])) is ws


def test_workspace_of_not_in_stack():
    ws = workspace("mlw", workspaceName="mlw-other")
    assert workspace_of(cluster(), workspaces_by_key([ws])) is None


def test_workspace_of_by_dependency_when_name_unknown():
    ws = workspace("mlw")
    props = with_unknown(cluster_props(), "workspaceName", UNKNOWN_STRING_VALUE)
    compute = cluster(props=props, depends={"workspaceName": [ws.urn]})
    assert workspace_of(compute, workspaces_by_key([ws])) is ws


def test_workspace_of_unknown_name_without_dependency_is_unknown():
    props = with_unknown(cluster_props(), "workspaceName", UNKNOWN_STRING_VALUE)
    with pytest.raises(CannotLink, match=r"^compute 'cpu-cluster' names workspace <unknown> \(resource group "
                                         r"rg-ml-prod\), and preview cannot tell whether that is workspace 'mlw' of "
                                         "this stack$"):
        workspace_of(cluster(props=props), workspaces_by_key([workspace("mlw")]))


# --- the provider-neutral view: classic provider, computeType inferred, online deployments -----------

CLASSIC_CLUSTER = "azure:machinelearning/computeCluster:ComputeCluster"
CLASSIC_INSTANCE = "azure:machinelearning/computeInstance:ComputeInstance"
CLASSIC_WORKSPACE = "azure:machinelearning/workspace:Workspace"
WORKSPACE_ID = ("/subscriptions/0000/resourceGroups/rg-ml-prod/providers/Microsoft.MachineLearningServices/"
                "workspaces/mlw-prod")
CLASSIC_CLUSTER_PROPS = {
    "name": "cpu-cluster", "location": "westeurope", "machineLearningWorkspaceId": WORKSPACE_ID,
    "vmSize": "Standard_NC6", "vmPriority": "LowPriority",
    "scaleSettings": {"minNodeCount": 4.0, "maxNodeCount": 8.0, "scaleDownNodesAfterIdleDuration": "PT30S"},
    "identity": {"type": "UserAssigned", "identityIds": [USER_IDENTITY_ID]},
    "subnetResourceId": "/subscriptions/0000/resourceGroups/rg-net/providers/Microsoft.Network/"
    "virtualNetworks/vnet/subnets/aml",
    "ssh": {"adminUsername": "azureuser", "adminPassword": "hunter2"}, "sshPublicAccessEnabled": True,
    "nodePublicIpEnabled": False, "localAuthEnabled": False,
}

CLASSIC_CASES = [
    ("compute_type", {}, "AmlCompute"),
    ("min_nodes", {}, 4),
    ("max_nodes", {}, 8),
    ("idle_time_before_scale_down", {}, "PT30S"),
    ("vm_size", {}, "Standard_NC6"),
    ("vm_priority", {}, "LowPriority"),
    ("location", {}, "westeurope"),
    ("subnet_id", {}, CLASSIC_CLUSTER_PROPS["subnetResourceId"]),
    ("enable_node_public_ip_given", {}, False),
    ("enable_node_public_ip_given", {"nodePublicIpEnabled": DELETE}, True),
    ("remote_login_port_public_access_given", {}, "Enabled"),
    ("remote_login_port_public_access_given", {"sshPublicAccessEnabled": DELETE}, "Disabled"),
    ("disable_local_auth_given", {}, True),
    ("disable_local_auth_given", {"localAuthEnabled": DELETE}, False),
    ("admin_password_set", {}, True),
    ("identity_type", {}, "UserAssigned"),
    ("user_assigned_identities", {}, [USER_IDENTITY_ID]),
    ("workspace_name", {}, "mlw-prod"),
    ("resource_group_name", {}, "rg-ml-prod"),
    ("compute_name", {}, "cpu-cluster"),
    ("workspace_input", {}, "machineLearningWorkspaceId"),
]


@pytest.mark.parametrize(("accessor", "change", "expected"), CLASSIC_CASES,
                         ids=[f"{c[0]}-{'given' if not c[1] else 'omitted'}" for c in CLASSIC_CASES])
def test_classic_cluster_reads_as_what_the_provider_sends(accessor, change, expected):
    props = dict(CLASSIC_CLUSTER_PROPS)
    for key, value in change.items():
        props.pop(key) if value is DELETE else props.__setitem__(key, value)
    assert getattr(compute_view(CLASSIC_CLUSTER, props), accessor) == expected


@pytest.mark.parametrize(("props", "expected"), [
    ({"virtualMachineSize": "STANDARD_DS3_V2", "machineLearningWorkspaceId": WORKSPACE_ID},
     ("ComputeInstance", "STANDARD_DS3_V2", "Disabled", None, None, True)),
    ({"virtualMachineSize": "Standard_DS3_v2", "ssh": {"publicKey": "ssh-rsa AAA"}, "nodePublicIpEnabled": False},
     ("ComputeInstance", "Standard_DS3_v2", "Enabled", None, None, False)),
], ids=["instance-defaults", "instance-ssh-block"])
def test_classic_instance(props, expected):
    compute = compute_view(CLASSIC_INSTANCE, props)
    assert (compute.compute_type, compute.vm_size, compute.ssh_public_access, compute.idle_time_before_shutdown,
            compute.location, compute.enable_node_public_ip_given) == expected


@pytest.mark.parametrize(("token", "compute_type", "resource_id"), [
    ("azure:machinelearning/inferenceCluster:InferenceCluster", "AKS", "aks-id"),
    ("azure:machinelearning/synapseSpark:SynapseSpark", "SynapseSpark", "pool-id"),
])
def test_classic_attached(token, compute_type, resource_id):
    compute = compute_view(token, {"kubernetesClusterId": "aks-id", "synapseSparkPoolId": "pool-id"})
    assert (compute.compute_type, compute.resource_id) == (compute_type, resource_id)


def test_not_a_compute_has_no_view():
    assert compute_view("azure:storage/account:Account", {}) is None
    assert compute_view("azure-native:storage:StorageAccount", {}) is None


@pytest.mark.parametrize(("inner", "expected"), [
    ({"vmSize": "Standard_DS3_v2", "sshSettings": {"sshPublicAccess": "Enabled"}}, "ComputeInstance"),
    ({"vmSize": "Standard_DS3_v2", "idleTimeBeforeShutdown": "PT30M"}, "ComputeInstance"),
    ({"vmSize": "Standard_DS3_v2", "scaleSettings": {"maxNodeCount": 2}}, "AmlCompute"),
    ({"vmSize": "Standard_DS3_v2"}, None),
    ({"scaleSettings": {"maxNodeCount": 2}, "sshSettings": {}}, None),
], ids=["ssh-settings-instance", "idle-instance", "scale-cluster", "neither", "both"])
def test_compute_without_compute_type_is_judged_by_its_properties(inner, expected):
    compute = view({"properties": {"properties": inner}})
    assert (compute.compute_type_given, compute.compute_type) == (None, expected)


def test_classic_workspace():
    ws = workspace_view(CLASSIC_WORKSPACE, {
        "name": "mlw-prod", "resourceGroupName": "rg-ml-prod", "location": "westeurope",
        "highBusinessImpact": True, "encryption": {"keyId": "https://kv/keys/k", "keyVaultId": "kv"},
        "serverlessCompute": {"subnetId": "snet"}, "identity": {"type": "UserAssigned", "identityIds": ["u"]},
        "primaryUserAssignedIdentity": "u", "managedNetwork": {"isolationMode": "AllowOnlyApprovedOutbound"},
    })
    assert (ws.name, ws.resource_group_name, ws.public_network_access, ws.hbi_workspace, ws.cmk_key_identifier,
            ws.encryption_status, ws.serverless_custom_subnet, ws.serverless_no_public_ip_given,
            ws.user_assigned_identities, ws.managed_network_isolation_mode) == (
        "mlw-prod", "rg-ml-prod", "Enabled", True, "https://kv/keys/k", "Enabled", "snet", True, ["u"],
        "AllowOnlyApprovedOutbound")
    assert workspace_view(CLASSIC_WORKSPACE, {"publicNetworkAccessEnabled": False}).public_network_access == "Disabled"


def test_workspace_of_classic_compute_by_dependency():
    ws = StackResource(CLASSIC_WORKSPACE, "ws", "urn:ws", {"name": "other", "resourceGroupName": "rg"})
    compute = StackResource(CLASSIC_CLUSTER, "c", "urn:c", CLASSIC_CLUSTER_PROPS,
                            property_dependencies={"machineLearningWorkspaceId": ("urn:ws",)})
    assert workspace_of(compute, workspaces_by_key([ws])) is ws


def test_online_deployment_view():
    deployment = deployment_view("azure-native:machinelearningservices:OnlineDeployment", {
        "location": "westeurope", "endpointName": "ep", "workspaceName": "mlw", "resourceGroupName": "rg",
        "sku": {"name": "Default", "capacity": 3.0},
        "properties": {"endpointComputeType": "Managed", "instanceType": "Standard_DS3_v2",
                       "egressPublicNetworkAccess": "Disabled",
                       "scaleSettings": {"scaleType": "TargetUtilization", "maxInstances": 5.0}},
    })
    assert (deployment.is_managed, deployment.instance_type, deployment.instance_count, deployment.scale_type,
            deployment.max_instances, deployment.egress_public_network_access, deployment.location,
            deployment.endpoint_name) == (
        True, "Standard_DS3_v2", 3, "TargetUtilization", 5, "Disabled", "westeurope", "ep")
    assert deployment_view("azure-native:machinelearningservices:Compute", {}) is None
