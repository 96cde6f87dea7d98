import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from amlkit.policies.azure import (
    CLUSTER,
    COMPUTE,
    INSTANCE,
    MANAGED,
    WORKSPACE,
    ComputeView,
    WorkspaceView,
    compute_of,
    compute_subject,
    is_type,
    same_region,
    same_value,
    type_parts,
    workspace_of,
    workspaces_by_key,
)
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
    ("vm_size", cluster_props(), "Standard_D4ds_v4"),
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
    with pytest.raises(UnknownValueError):
        workspace_of(cluster(props=props), workspaces_by_key([workspace("mlw")]))
