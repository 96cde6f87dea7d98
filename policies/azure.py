"""The provider-neutral view the rules read: one view per kind of resource, whatever provider declared it.

Kinds: a compute (`ComputeView`: cluster, instance or attached compute), a workspace (`WorkspaceView`), an
online deployment (`DeploymentView`); locks are in `amlkit.policies.arm` (`LockView`). Each view reads the
inputs of the providers amlkit maps, as the analyzer sees them (camelCase wire form):

- azure-native 3.x (`azure-native:machinelearningservices:Compute`), and its explicit-version tokens, which
  include the azure-native 2.x shape (`azure-native:machinelearningservices/v20230401:Compute`: same wire
  names for every property the rules read; identities may be a map there, read as its keys);
- the classic provider pulumi-azure 6.x (`azure:machinelearning/computeCluster:ComputeCluster`,
  `computeInstance`, `inferenceCluster`, `synapseSpark`, `workspace`), mapped to what that provider sends to
  ARM (terraform-provider-azurerm, `internal/services/machinelearning/*_resource.go`: e.g. a cluster's
  `ssh_public_access_enabled` false or omitted is sent as remoteLoginPortPublicAccess Disabled, an
  instance without an `ssh` block as sshPublicAccess Disabled, `local_auth_enabled` as
  disableLocalAuth = not it, `node_public_ip_enabled` (default true) as enableNodePublicIp).

`compute_view`, `workspace_view` and `deployment_view` pick the reader by type token; a resource of an
ML-relevant type none of them maps is reported by the policy amlkit-unreviewed-resource (`unmapped`). A rule
never reads a provider's property path itself.

Accessors return the platform default where Azure has one for a missing property
(docs/azure-facts.md, "Platform defaults"), so rules never re-implement "missing means ...". They
read lazily: an unknown value raises only when the rule actually reads it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from amlkit import azure_facts as facts
from amlkit.tokens import type_parts

COMPUTE = "machinelearningservices:Compute"
WORKSPACE = "machinelearningservices:Workspace"
ONLINE_DEPLOYMENT = "machinelearningservices:OnlineDeployment"

NATIVE = "azure-native"
CLASSIC = "azure"
"""The providers whose resources the views map (the package names are pulumi-azure-native and pulumi-azure)."""

CLASSIC_COMPUTES = {
    "azure:machinelearning/computeCluster:ComputeCluster": "AmlCompute",
    "azure:machinelearning/computeInstance:ComputeInstance": "ComputeInstance",
    "azure:machinelearning/inferenceCluster:InferenceCluster": "AKS",
    "azure:machinelearning/synapseSpark:SynapseSpark": "SynapseSpark",
}
"""Classic-provider compute types and the ARM computeType each creates."""
CLASSIC_WORKSPACE = "azure:machinelearning/workspace:Workspace"


def is_type(type_token: str, kind: str) -> bool:
    """True for `azure-native:<module>:<Name>` and its explicit-version variants, e.g. kind=COMPUTE."""
    parts = type_parts(type_token)
    return parts is not None and f"{parts[0]}:{parts[2]}" == kind


def provider_of(type_token: str) -> str:
    """The package a type token belongs to (`azure-native`, `azure`, `azuread`, `pulumi`...)."""
    return type_token.split(":", 1)[0].split("_", 1)[0]


CLUSTER = ("AmlCompute",)
INSTANCE = ("ComputeInstance",)
MANAGED = CLUSTER + INSTANCE
"""The compute types Azure ML manages itself: clusters and instances (attached computes are not)."""
ATTACHED = ("Kubernetes", "AKS", "VirtualMachine", "SynapseSpark", "HDInsight", "Databricks", "DataFactory",
            "DataLakeAnalytics")
"""The compute types that attach an existing resource (`properties.resourceId`)."""
WITH_IDENTITY = MANAGED + ("Kubernetes", "SynapseSpark")
"""The compute types that take a managed identity: clusters, instances, Kubernetes and Synapse Spark (az ml
attaches a virtual machine without one)."""
COMPUTE_TYPES = MANAGED + ATTACHED


def compute_view(type_token: str, props: Mapping[str, Any]) -> ComputeView | None:
    """The compute view of a resource of any mapped provider; None when it is not a compute."""
    if is_type(type_token, COMPUTE):
        return ComputeView(props)
    kind = CLASSIC_COMPUTES.get(type_token)
    return ClassicComputeView(props, kind) if kind else None


def compute_of(type_token: str, props: Mapping[str, Any], kinds: tuple[str, ...]) -> ComputeView | None:
    """The view of a compute (any provider) whose computeType is one of `kinds`, else None. A compute
    without computeType is judged by its properties (`ComputeView.compute_type`)."""
    compute = compute_view(type_token, props)
    return compute if compute is not None and compute.compute_type in kinds else None


def workspace_view(type_token: str, props: Mapping[str, Any]) -> WorkspaceView | None:
    """The workspace view of a resource of any mapped provider; None when it is not a workspace."""
    if is_type(type_token, WORKSPACE):
        return WorkspaceView(props)
    if type_token == CLASSIC_WORKSPACE:
        return ClassicWorkspaceView(props)
    return None


def deployment_view(type_token: str, props: Mapping[str, Any]) -> DeploymentView | None:
    """The online deployment view (azure-native; the classic provider has no online deployment)."""
    return DeploymentView(props) if is_type(type_token, ONLINE_DEPLOYMENT) else None


ML_MODULE = re.compile(r"machinelearning", re.IGNORECASE)
ML_KINDS = re.compile(r"^\w*(Workspace|Compute|Cluster|Instance|Spark|OnlineDeployment|Lock)$", re.IGNORECASE)
"""The resource kinds the pack is about: in an ML module of any provider, a type whose name ends in one of these
(a workspace's sub-resources, datastores, endpoints and batch deployments are not)."""
LOCK_MODULES = ("authorization", "management", "managementresource", "resources", "core")
NATIVE_LOCKS = ("authorization:ManagementLockAtResourceGroupLevel", "authorization:ManagementLockAtSubscriptionLevel",
                "authorization:ManagementLockAtResourceLevel", "authorization:ManagementLockByScope")
"""azure-native's four management lock types (amlkit.policies.arm reads them)."""
CLASSIC_LOCKS = ("azure:management/lock:Lock", "azure:managementresource/manangementLock:ManangementLock")
"""The classic provider's management locks: both lock whatever `scope` names (a ByScope lock), `lockLevel`."""
MAPPED_NATIVE = (COMPUTE, WORKSPACE, ONLINE_DEPLOYMENT, *NATIVE_LOCKS)
MAPPED_CLASSIC = (*CLASSIC_COMPUTES, CLASSIC_WORKSPACE, *CLASSIC_LOCKS)
ARM_ML_TYPE = re.compile(r"Microsoft\.MachineLearningServices/|Microsoft\.Authorization/locks", re.IGNORECASE)


def unmapped(type_token: str, props: Mapping[str, Any]) -> str | None:
    """Why a resource the pack is about cannot be reviewed (no view maps it); None when it is mapped or not
    ML-relevant. ML-relevant: a workspace, compute, cluster, instance, inference cluster, Spark pool, online
    deployment or lock type of any provider, and a generic ARM resource (azapi) of such an ARM type."""
    if type_token in MAPPED_CLASSIC or any(is_type(type_token, kind) for kind in MAPPED_NATIVE):
        compute = compute_view(type_token, props)
        if compute is None or compute.compute_type in COMPUTE_TYPES:
            return None
        given = compute.compute_type_given
        if given is None:
            return ("no properties.computeType, and its properties say neither compute instance nor AmlCompute "
                    "cluster")
        return f"computeType {given!r}, which is none of {', '.join(COMPUTE_TYPES)}"
    provider = provider_of(type_token)
    module, _, name = type_token.partition(":")[2].partition(":")
    if provider == "azapi":
        arm_type = _get(props, "type")
        if isinstance(arm_type, str) and ARM_ML_TYPE.search(arm_type):
            return f"ARM type {arm_type} through the azapi provider, whose generic body no view maps"
        return None
    module = module.split("/")[0]
    lock = "lock" in name.lower() and module.lower() in LOCK_MODULES
    if not (ML_MODULE.search(module) and ML_KINDS.search(name)) and not lock:
        return None
    if provider == NATIVE:
        if type_parts(type_token) is None:
            return "an azure-native type token of a shape amlkit does not read"
        return f"azure-native type {module}:{name}, which no view maps"
    if provider == CLASSIC:
        return f"pulumi-azure type {type_token}, which no view maps"
    return f"provider {provider!r}, whose resources no view maps"


def read_known(read: Callable[[], Any]) -> tuple[bool, Any]:
    """(True, value) when `read()` sees only known values; (False, None) when one is unknown at preview.

    For rules that report "cannot tell" per resource (`framework.cannot_tell`) instead of letting one
    unknown value stop the whole rule. The unknown is reported either way, never counted as a pass.
    """
    from pulumi_policy.proxy import UnknownValueError  # only when a rule runs: its metadata imports nothing

    try:
        return True, read()
    except UnknownValueError:
        return False, None


def _get(mapping: Any, key: str, default: Any = None) -> Any:
    if isinstance(mapping, Mapping) and key in mapping:
        value = mapping[key]
        return default if value is None else value
    return default


INSTANCE_ONLY = ("sshSettings", "idleTimeBeforeShutdown", "schedules", "setupScripts",
                 "personalComputeInstanceSettings", "applicationSharingPolicy", "computeInstanceAuthorizationType",
                 "enableRootAccess", "enableSSO", "enableOSPatching", "customServices", "releaseQuotaOnStop",
                 "autologgerSettings")
"""Inner properties only a compute instance has (ComputeInstanceProperties in the ARM schema)."""
CLUSTER_ONLY = ("scaleSettings", "vmPriority", "remoteLoginPortPublicAccess", "userAccountCredentials",
                "isolatedNetwork", "osType", "virtualMachineImage", "propertyBag", "targetNodeCount")
"""Inner properties only an AmlCompute cluster has (AmlComputeProperties in the ARM schema)."""


class ComputeView:
    """A compute's inputs: the azure-native `machinelearningservices:Compute` reader. `ClassicComputeView`
    reads the classic provider's computes into the same accessors."""

    provider = NATIVE
    workspace_input = "workspaceName"
    """The input that names (or holds the id of) the compute's workspace; dependencies on it are checked."""

    def __init__(self, props: Mapping[str, Any]) -> None:
        self.props = props

    @property
    def outer(self) -> Mapping[str, Any]:
        return _get(self.props, "properties", {})

    @property
    def compute_type_given(self) -> str | None:
        """`properties.computeType` as written; None when the program left it out."""
        return _get(self.outer, "computeType")

    @property
    def compute_type(self) -> str | None:
        """`properties.computeType`; without it, what the inner properties say: instance-only fields make a
        ComputeInstance, cluster-only fields an AmlCompute; None when they say neither or both (such a
        compute is reported by amlkit-unreviewed-resource, never dropped)."""
        given = self.compute_type_given
        return given if given is not None else self.inferred_compute_type

    @property
    def inferred_compute_type(self) -> str | None:
        inner = self.inner
        instance = any(key in inner for key in INSTANCE_ONLY)
        cluster = any(key in inner for key in CLUSTER_ONLY)
        if instance == cluster:
            return None
        return "ComputeInstance" if instance else "AmlCompute"

    @property
    def is_cluster(self) -> bool:
        return self.compute_type == "AmlCompute"

    @property
    def is_instance(self) -> bool:
        return self.compute_type == "ComputeInstance"

    @property
    def inner(self) -> Mapping[str, Any]:
        return _get(self.outer, "properties", {})

    @property
    def scale_settings(self) -> Mapping[str, Any]:
        return _get(self.inner, "scaleSettings", {})

    @property
    def min_nodes(self) -> int:
        """`minNodeCount`; Azure's default is 0."""
        return int(_get(self.scale_settings, "minNodeCount", facts.MIN_NODES_DEFAULT))

    @property
    def max_nodes(self) -> int | None:
        value = _get(self.scale_settings, "maxNodeCount")
        return None if value is None else int(value)

    @property
    def idle_time_before_scale_down(self) -> str | None:
        """ISO-8601 duration; None when omitted (Azure then uses `facts.CLUSTER_IDLE_DEFAULT_ISO`)."""
        return _get(self.scale_settings, "nodeIdleTimeBeforeScaleDown")

    @property
    def vm_size(self) -> str | None:
        return _get(self.inner, "vmSize")

    @property
    def vm_priority(self) -> str:
        """`vmPriority`; omitted means `facts.VM_PRIORITY_DEFAULT`."""
        return _get(self.inner, "vmPriority", facts.VM_PRIORITY_DEFAULT)

    @property
    def location(self) -> str | None:
        """Where the compute runs: `properties.computeLocation`, else the resource's `location`."""
        return _get(self.outer, "computeLocation") or _get(self.props, "location")

    @property
    def subnet_id(self) -> str | None:
        return _get(_get(self.inner, "subnet", {}), "id")

    @property
    def enable_node_public_ip(self) -> bool:
        """`enableNodePublicIp`; omitted means `facts.NODE_PUBLIC_IP_DEFAULT`."""
        return bool(_get(self.inner, "enableNodePublicIp", facts.NODE_PUBLIC_IP_DEFAULT))

    @property
    def remote_login_port_public_access(self) -> str:
        """`remoteLoginPortPublicAccess`; omitted means `facts.REMOTE_LOGIN_DEFAULT` (open on public nodes)."""
        return _get(self.inner, "remoteLoginPortPublicAccess", facts.REMOTE_LOGIN_DEFAULT)

    @property
    def remote_login_port_public_access_given(self) -> str | None:
        """`remoteLoginPortPublicAccess` as written; None when omitted (then `facts.REMOTE_LOGIN_DEFAULT`)."""
        return _get(self.inner, "remoteLoginPortPublicAccess")

    @property
    def enable_node_public_ip_given(self) -> bool | None:
        """`enableNodePublicIp` as written; None when omitted (Azure then uses `facts.NODE_PUBLIC_IP_DEFAULT`)."""
        return _get(self.inner, "enableNodePublicIp")

    @property
    def disable_local_auth_given(self) -> bool | None:
        """`disableLocalAuth` as written; None when omitted (Azure then uses `facts.LOCAL_AUTH_DISABLED_DEFAULT`)."""
        return _get(self.outer, "disableLocalAuth")

    @property
    def admin_password_set(self) -> bool:
        """True when `userAccountCredentials.adminUserPassword` is set. Never returns the secret itself."""
        credentials = _get(self.inner, "userAccountCredentials", {})
        return bool(_get(credentials, "adminUserPassword"))

    @property
    def ssh_public_access(self) -> str:
        """Instances: `sshSettings.sshPublicAccess`; the ARM default is Disabled."""
        return _get(_get(self.inner, "sshSettings", {}), "sshPublicAccess", facts.SSH_PUBLIC_ACCESS_DEFAULT)

    @property
    def idle_time_before_shutdown(self) -> str | None:
        """Instances: ISO-8601 `idleTimeBeforeShutdown`; None when omitted (no idle shutdown)."""
        return _get(self.inner, "idleTimeBeforeShutdown")

    @property
    def resource_id(self) -> str | None:
        """Attached computes: the ARM id of the existing compute (`properties.resourceId`)."""
        return _get(self.outer, "resourceId")

    @property
    def namespace(self) -> str:
        """Kubernetes: `properties.properties.namespace`; Azure's default is `default`."""
        return _get(self.inner, "namespace", "default")

    @property
    def disable_local_auth(self) -> bool:
        """`disableLocalAuth`; Azure's default is false (local auth on)."""
        return bool(_get(self.outer, "disableLocalAuth", False))

    @property
    def identity(self) -> Mapping[str, Any]:
        return _get(self.props, "identity", {})

    @property
    def identity_type(self) -> str | None:
        return _get(self.identity, "type")

    @property
    def user_assigned_identities(self) -> list[str]:
        """azure-native 3.x sends a LIST of ARM ids (a map in older/other shapes: its keys)."""
        value = _get(self.identity, "userAssignedIdentities", [])
        return list(value.keys()) if isinstance(value, Mapping) else list(value)

    @property
    def workspace_name(self) -> str | None:
        return _get(self.props, "workspaceName")

    @property
    def compute_name(self) -> str | None:
        return _get(self.props, "computeName")

    @property
    def resource_group_name(self) -> str | None:
        return _get(self.props, "resourceGroupName")


_WORKSPACE_ID = re.compile(r"/resourceGroups/([^/]+)/providers/Microsoft\.MachineLearningServices/workspaces/([^/]+)$",
                           re.IGNORECASE)


def _workspace_id_part(workspace_id: Any, index: int) -> str | None:
    """The resource group (1) or workspace name (2) of a workspace's ARM id; None when it is not one."""
    match = _WORKSPACE_ID.search(workspace_id.rstrip("/")) if isinstance(workspace_id, str) else None
    return match[index] if match else None


class ClassicComputeView(ComputeView):
    """A classic-provider (pulumi-azure) compute, read as what the provider sends to ARM.

    ComputeCluster -> AmlCompute, ComputeInstance -> ComputeInstance, InferenceCluster -> AKS (attaching
    `kubernetesClusterId`), SynapseSpark -> SynapseSpark (attaching `synapseSparkPoolId`). The workspace is
    `machineLearningWorkspaceId` (its resource group and name come from that ARM id). Defaults are the
    provider's, which it sends explicitly: `nodePublicIpEnabled` true, `localAuthEnabled` true, a cluster's
    `sshPublicAccessEnabled` false (remoteLoginPortPublicAccess Disabled), an instance's public SSH only with
    an `ssh` block.
    """

    provider = CLASSIC
    workspace_input = "machineLearningWorkspaceId"

    def __init__(self, props: Mapping[str, Any], kind: str) -> None:
        super().__init__(props)
        self.kind = kind

    @property
    def outer(self) -> Mapping[str, Any]:
        return self.props

    @property
    def inner(self) -> Mapping[str, Any]:
        return self.props

    @property
    def compute_type_given(self) -> str | None:
        return self.kind

    @property
    def scale_settings(self) -> Mapping[str, Any]:
        return _get(self.props, "scaleSettings", {})

    @property
    def idle_time_before_scale_down(self) -> str | None:
        return _get(self.scale_settings, "scaleDownNodesAfterIdleDuration")

    @property
    def vm_size(self) -> str | None:
        return _get(self.props, "virtualMachineSize" if self.is_instance else "vmSize")

    @property
    def location(self) -> str | None:
        """A cluster's `location` is its computeLocation; an instance runs in its workspace's region."""
        return None if self.is_instance else _get(self.props, "location")

    @property
    def subnet_id(self) -> str | None:
        return _get(self.props, "subnetResourceId")

    @property
    def enable_node_public_ip_given(self) -> bool | None:
        if self.kind not in MANAGED:
            return None
        return bool(_get(self.props, "nodePublicIpEnabled", True))

    @property
    def enable_node_public_ip(self) -> bool:
        return bool(_get(self.props, "nodePublicIpEnabled", True))

    @property
    def remote_login_port_public_access_given(self) -> str | None:
        if not self.is_cluster:
            return None
        return "Enabled" if _get(self.props, "sshPublicAccessEnabled", False) else "Disabled"

    @property
    def remote_login_port_public_access(self) -> str:
        return self.remote_login_port_public_access_given or facts.REMOTE_LOGIN_DEFAULT

    @property
    def disable_local_auth_given(self) -> bool | None:
        if self.kind not in MANAGED + ("SynapseSpark",):
            return None
        return not _get(self.props, "localAuthEnabled", True)

    @property
    def disable_local_auth(self) -> bool:
        return bool(self.disable_local_auth_given)

    @property
    def admin_password_set(self) -> bool:
        return self.is_cluster and bool(_get(_get(self.props, "ssh", {}), "adminPassword"))

    @property
    def ssh_public_access(self) -> str:
        return "Enabled" if _get(self.props, "ssh") else "Disabled"

    @property
    def idle_time_before_shutdown(self) -> str | None:
        """The classic provider has no idle shutdown input: the instance runs until stopped."""
        return None

    @property
    def resource_id(self) -> str | None:
        return _get(self.props, {"AKS": "kubernetesClusterId", "SynapseSpark": "synapseSparkPoolId"}.get(self.kind, ""))

    @property
    def namespace(self) -> str:
        return "default"

    @property
    def user_assigned_identities(self) -> list[str]:
        return list(_get(self.identity, "identityIds", []))

    @property
    def workspace_name(self) -> str | None:
        return _workspace_id_part(_get(self.props, "machineLearningWorkspaceId"), 2)

    @property
    def compute_name(self) -> str | None:
        return _get(self.props, "name")

    @property
    def resource_group_name(self) -> str | None:
        return _workspace_id_part(_get(self.props, "machineLearningWorkspaceId"), 1)


def compute_subject(name: str, compute: ComputeView | None) -> str:
    """The subject of a compute finding: one wording per kind, reused by every rule (`Compute '<name>'`
    when the kind is unknown)."""
    if compute is None:
        return f"Compute '{name}'"
    if compute.is_cluster:
        return f"AmlCompute cluster '{name}'"
    if compute.is_instance:
        return f"Compute instance '{name}'"
    if compute.compute_type:
        return f"{compute.compute_type} compute '{name}'"
    return f"Compute '{name}'"


def same_region(first: str, second: str) -> bool:
    """ARM region names ignore case and spaces: `West Europe` is `westeurope`."""
    return region_key(first) == region_key(second)


def region_key(name: str) -> str:
    """The comparable form of an ARM region name: no spaces, lower case."""
    return "".join(name.split()).lower()


def same_value(value: Any, expected: str) -> bool:
    """ARM enum strings compare case-insensitively (`disabled` is `Disabled`)."""
    return isinstance(value, str) and value.lower() == expected.lower()


class WorkspaceView:
    """A workspace's inputs, with Azure's defaults: the azure-native `machinelearningservices:Workspace`
    reader. `ClassicWorkspaceView` reads the classic provider's workspace into the same accessors."""

    provider = NATIVE

    def __init__(self, props: Mapping[str, Any]) -> None:
        self.props = props

    @property
    def name(self) -> str | None:
        return _get(self.props, "workspaceName")

    @property
    def resource_group_name(self) -> str | None:
        return _get(self.props, "resourceGroupName")

    @property
    def location(self) -> str | None:
        return _get(self.props, "location")

    @property
    def kind(self) -> str:
        return _get(self.props, "kind", "Default")

    @property
    def hub_resource_id(self) -> str | None:
        """A project's `hubResourceId`: the ARM id of the hub it belongs to."""
        return _get(self.props, "hubResourceId")

    @property
    def public_network_access(self) -> str:
        """`publicNetworkAccess`; Azure's default is Enabled."""
        return _get(self.props, "publicNetworkAccess", "Enabled")

    @property
    def allow_public_access_when_behind_vnet(self) -> bool:
        return bool(_get(self.props, "allowPublicAccessWhenBehindVnet", False))

    @property
    def managed_network_isolation_mode(self) -> str:
        """`managedNetwork.isolationMode`; omitted means `facts.MANAGED_NETWORK_ISOLATION_DEFAULT` (none)."""
        return _get(_get(self.props, "managedNetwork", {}), "isolationMode", facts.MANAGED_NETWORK_ISOLATION_DEFAULT)

    @property
    def serverless_settings(self) -> Mapping[str, Any]:
        return _get(self.props, "serverlessComputeSettings", {})

    @property
    def serverless_no_public_ip_given(self) -> bool | None:
        """`serverlessComputeNoPublicIP` as written; None when omitted (Azure then uses
        `facts.SERVERLESS_NO_PUBLIC_IP_DEFAULT`)."""
        return _get(self.serverless_settings, "serverlessComputeNoPublicIP")

    @property
    def serverless_custom_subnet(self) -> str | None:
        return _get(self.serverless_settings, "serverlessComputeCustomSubnet")

    @property
    def cmk_key_identifier(self) -> str | None:
        """`encryption.keyVaultProperties.keyIdentifier`; None without a customer-managed key."""
        key_vault = _get(_get(self.props, "encryption", {}), "keyVaultProperties", {})
        return _get(key_vault, "keyIdentifier")

    @property
    def encryption_status(self) -> str | None:
        """`encryption.status` (Enabled | Disabled); None when omitted."""
        return _get(_get(self.props, "encryption", {}), "status")

    @property
    def hbi_workspace(self) -> bool:
        return bool(_get(self.props, "hbiWorkspace", False))

    @property
    def identity_type(self) -> str | None:
        return _get(_get(self.props, "identity", {}), "type")

    @property
    def primary_user_assigned_identity(self) -> str | None:
        return _get(self.props, "primaryUserAssignedIdentity")

    container_registry_input = "containerRegistry"
    """The input naming the workspace's container registry (a property dependency names it at preview)."""

    @property
    def container_registry(self) -> str | None:
        """`containerRegistry`: the ARM id of the workspace's registry; None: Azure creates one on first build."""
        return _get(self.props, "containerRegistry")

    @property
    def image_build_compute(self) -> str | None:
        """`imageBuildCompute`: the compute that builds environment images; None: the registry builds them."""
        return _get(self.props, "imageBuildCompute")

    @property
    def user_assigned_identities(self) -> list[str]:
        """azure-native 3.x sends a LIST of ARM ids (a map in older/other shapes: its keys)."""
        value = _get(_get(self.props, "identity", {}), "userAssignedIdentities", [])
        return list(value.keys()) if isinstance(value, Mapping) else list(value)


class ClassicWorkspaceView(WorkspaceView):
    """A classic-provider (pulumi-azure) `azure:machinelearning/workspace:Workspace`, read as what the provider
    sends to ARM: `publicNetworkAccessEnabled` (default true) as publicNetworkAccess, `highBusinessImpact` as
    hbiWorkspace, `encryption.keyId` as the customer-managed key, `serverlessCompute.{subnetId, publicIpEnabled
    (default false)}` as serverlessComputeSettings, `identity.identityIds` as the user-assigned identities.
    The provider has no allowPublicAccessWhenBehindVnet input (false)."""

    provider = CLASSIC

    @property
    def name(self) -> str | None:
        return _get(self.props, "name")

    @property
    def public_network_access(self) -> str:
        return "Enabled" if _get(self.props, "publicNetworkAccessEnabled", True) else "Disabled"

    @property
    def allow_public_access_when_behind_vnet(self) -> bool:
        return False

    @property
    def serverless_settings(self) -> Mapping[str, Any]:
        return _get(self.props, "serverlessCompute", {})

    @property
    def serverless_no_public_ip_given(self) -> bool | None:
        if not self.serverless_settings:
            return None
        return not _get(self.serverless_settings, "publicIpEnabled", False)

    @property
    def serverless_custom_subnet(self) -> str | None:
        return _get(self.serverless_settings, "subnetId")

    @property
    def cmk_key_identifier(self) -> str | None:
        return _get(_get(self.props, "encryption", {}), "keyId")

    @property
    def encryption_status(self) -> str | None:
        return "Enabled" if _get(self.props, "encryption") else None

    @property
    def hbi_workspace(self) -> bool:
        return bool(_get(self.props, "highBusinessImpact", False))

    @property
    def user_assigned_identities(self) -> list[str]:
        return list(_get(_get(self.props, "identity", {}), "identityIds", []))

    container_registry_input = "containerRegistryId"

    @property
    def container_registry(self) -> str | None:
        return _get(self.props, "containerRegistryId")

    @property
    def image_build_compute(self) -> str | None:
        return _get(self.props, "imageBuildComputeName")


class DeploymentView:
    """An azure-native `machinelearningservices:OnlineDeployment`'s inputs (the classic provider has none)."""

    provider = NATIVE

    def __init__(self, props: Mapping[str, Any]) -> None:
        self.props = props

    @property
    def inner(self) -> Mapping[str, Any]:
        return _get(self.props, "properties", {})

    @property
    def compute_kind(self) -> str | None:
        """`properties.endpointComputeType`: Managed, Kubernetes or AzureMLCompute."""
        return _get(self.inner, "endpointComputeType")

    @property
    def is_managed(self) -> bool:
        return same_value(self.compute_kind, "Managed")

    @property
    def instance_type(self) -> str | None:
        """The VM size of each instance (`properties.instanceType`)."""
        return _get(self.inner, "instanceType")

    @property
    def instance_count(self) -> int | None:
        """`sku.capacity`: the number of instances; None when omitted (Azure's default is 1)."""
        value = _get(_get(self.props, "sku", {}), "capacity")
        return None if value is None else int(value)

    @property
    def scale_type(self) -> str | None:
        """`properties.scaleSettings.scaleType`: Default or TargetUtilization."""
        return _get(_get(self.inner, "scaleSettings", {}), "scaleType")

    @property
    def max_instances(self) -> int | None:
        """TargetUtilization scaling: `scaleSettings.maxInstances`; None when omitted."""
        value = _get(_get(self.inner, "scaleSettings", {}), "maxInstances")
        return None if value is None else int(value)

    @property
    def egress_public_network_access(self) -> str | None:
        """`properties.egressPublicNetworkAccess` as written (Enabled | Disabled); None when omitted."""
        return _get(self.inner, "egressPublicNetworkAccess")

    @property
    def app_insights_enabled(self) -> bool | None:
        return _get(self.inner, "appInsightsEnabled")

    @property
    def location(self) -> str | None:
        return _get(self.props, "location")

    @property
    def endpoint_name(self) -> str | None:
        return _get(self.props, "endpointName")

    @property
    def workspace_name(self) -> str | None:
        return _get(self.props, "workspaceName")

    @property
    def resource_group_name(self) -> str | None:
        return _get(self.props, "resourceGroupName")

    @property
    def identity_type(self) -> str | None:
        return _get(_get(self.props, "identity", {}), "type")


ROLE_ASSIGNMENT = "authorization:RoleAssignment"
CLASSIC_ROLE_ASSIGNMENT = "azure:authorization/assignment:Assignment"
BUILTIN_ROLES = {"contributor": "b24988ac-6180-42a0-ab88-20f7382dd24c", "owner": "8e3af657-a8ff-443c-a75c-2fe8c4bcb635"}
"""Built-in role names (as the classic provider's `roleDefinitionName` takes them) and their definition GUIDs."""


class RoleAssignmentView:
    """A role assignment of either provider (azure-native `authorization:RoleAssignment`, classic
    `azure:authorization/assignment:Assignment`): `scope`, `principalId`, and the role's definition GUID
    (from `roleDefinitionId`, or the classic `roleDefinitionName` of a built-in role)."""

    def __init__(self, props: Mapping[str, Any]) -> None:
        self.props = props

    @property
    def scope(self) -> Any:
        return _get(self.props, "scope")

    @property
    def role_guid(self) -> str:
        """The role definition's GUID in lower case; "" when neither an id nor a known built-in name is given."""
        name = _get(self.props, "roleDefinitionName")
        if isinstance(name, str) and name.lower() in BUILTIN_ROLES:
            return BUILTIN_ROLES[name.lower()]
        return str(_get(self.props, "roleDefinitionId", "")).rstrip("/").rsplit("/", 1)[-1].lower()


def role_assignment_view(type_token: str, props: Mapping[str, Any]) -> RoleAssignmentView | None:
    if type_token == CLASSIC_ROLE_ASSIGNMENT or is_type(type_token, ROLE_ASSIGNMENT):
        return RoleAssignmentView(props)
    return None


DIAGNOSTIC_SETTINGS = ("monitor:DiagnosticSetting", "insights:DiagnosticSetting")
CLASSIC_DIAGNOSTIC_SETTING = "azure:monitoring/diagnosticSetting:DiagnosticSetting"


def diagnostic_setting_view(type_token: str, props: Mapping[str, Any]) -> DiagnosticSettingView | None:
    """A diagnostic setting of either provider; None for anything else."""
    if any(is_type(type_token, kind) for kind in DIAGNOSTIC_SETTINGS):
        return DiagnosticSettingView(props)
    if type_token == CLASSIC_DIAGNOSTIC_SETTING:
        return ClassicDiagnosticSettingView(props)
    return None


class DiagnosticSettingView:
    """An azure-native diagnostic setting: `resourceUri`, `logs[]` (each `enabled`, `retentionPolicy`),
    `storageAccountId`."""

    target_input = "resourceUri"

    def __init__(self, props: Mapping[str, Any]) -> None:
        self.props = props

    @property
    def target_id(self) -> Any:
        return _get(self.props, self.target_input)

    @property
    def logs(self) -> list[tuple[bool, int | None]]:
        """(enabled, retention days when a retention policy is enabled else None) per log entry."""
        entries = [log for log in (_get(self.props, "logs", []) or []) if isinstance(log, Mapping)]
        return [(_get(log, "enabled") is True, _retention_days(log)) for log in entries]

    @property
    def exports_to_storage(self) -> bool:
        return bool(_get(self.props, "storageAccountId"))


class ClassicDiagnosticSettingView(DiagnosticSettingView):
    """A classic `azure:monitoring/diagnosticSetting:DiagnosticSetting`: `targetResourceId`, and every
    `enabledLogs[]` entry is an enabled log."""

    target_input = "targetResourceId"

    @property
    def logs(self) -> list[tuple[bool, int | None]]:
        entries = [log for log in (_get(self.props, "enabledLogs", []) or []) if isinstance(log, Mapping)]
        return [(True, _retention_days(log)) for log in entries]


def _retention_days(log: Mapping[str, Any]) -> int | None:
    policy = _get(log, "retentionPolicy", {})
    if not isinstance(policy, Mapping) or policy.get("enabled") is not True:
        return None
    return int(policy.get("days") or 0)


def workspace_key(resource_group: str | None, name: str | None) -> tuple[str, str]:
    """Case-insensitive identity of a workspace (ARM names are case-insensitive)."""
    return ((resource_group or "").lower(), (name or "").lower())


def workspaces_by_key(resources: Iterable[Any]) -> dict[tuple[str, str], Any]:
    """The stack's workspaces (StackResource objects) keyed by (resource group, workspace name)."""
    found = {}
    for resource in resources:
        view = workspace_view(resource.type, resource.props)
        if view is not None:
            found[workspace_key(view.resource_group_name, view.name)] = resource
    return found


def workspace_props(resource: Any) -> WorkspaceView:
    """The view of a workspace found by `workspaces_by_key` / `workspace_of` (a StackResource)."""
    view = workspace_view(resource.type, resource.props)
    assert view is not None, f"{resource.type} is not a workspace"
    return view


def workspace_of(compute: Any, workspaces: Mapping[tuple[str, str], Any]) -> Any | None:
    """The stack's workspace a compute (StackResource) belongs to, or None when it is not in the stack.

    A compute whose workspace input (`workspaceName`, classic `machineLearningWorkspaceId`) was built from a
    workspace's output belongs to that workspace even
    while the name is unknown at preview (the dependency is known); otherwise the names are matched.
    """
    view = compute_view(compute.type, compute.props)
    if view is None:
        return None
    for workspace in workspaces.values():
        if _depends_on(compute, view.workspace_input, workspace.urn):
            return workspace
    return workspaces.get(workspace_key(view.resource_group_name, view.workspace_name))


def names_workspace(arm_id: Any, workspace: Any) -> bool:
    """True when `arm_id` is the ARM id of the stack's `workspace` (a StackResource): a
    `Microsoft.MachineLearningServices/workspaces` id with its resource group and name (case-insensitive)."""
    from amlkit.policies.arm import parse_arm_id, same_name

    parsed = parse_arm_id(arm_id)
    if parsed is None or not parsed.is_resource("Microsoft.MachineLearningServices", "workspaces"):
        return False
    view = workspace_props(workspace)
    return same_name(parsed.resource_group, view.resource_group_name) and same_name(parsed.name, view.name)


def _depends_on(resource: Any, prop: str, urn: str) -> bool:
    depends_on = getattr(resource, "depends_on", None)
    return bool(depends_on and depends_on(prop, urn))



# --- private endpoints ------------------------------------------------------------------------------

PRIVATE_ENDPOINT = "network:PrivateEndpoint"
CLASSIC_PRIVATE_ENDPOINT = "azure:privatelink/endpoint:Endpoint"
STACK_REFERENCE = "pulumi:pulumi:StackReference"
"""A stack that reads another stack's outputs: what it lacks may be declared there."""
WORKSPACE_GROUP_ID = facts.WORKSPACE_PRIVATE_LINK_GROUP


def private_endpoint_view(type_token: str, props: Mapping[str, Any]) -> PrivateEndpointView | None:
    """The private endpoint view of a resource of any mapped provider; None when it is not one."""
    if is_type(type_token, PRIVATE_ENDPOINT):
        return PrivateEndpointView(props)
    if type_token == CLASSIC_PRIVATE_ENDPOINT:
        return ClassicPrivateEndpointView(props)
    return None


class PrivateEndpointView:
    """An azure-native `network:PrivateEndpoint`'s inputs: its private link service connections."""

    connection_inputs: tuple[str, ...] = ("privateLinkServiceConnections", "manualPrivateLinkServiceConnections")
    """The inputs that hold the connections (a property dependency on a workspace names its target)."""

    def __init__(self, props: Mapping[str, Any]) -> None:
        self.props = props

    @property
    def workspace_targets(self) -> list[Any]:
        """`privateLinkServiceId` of each connection (automatic or manual) of group `amlworkspace`."""
        targets = []
        for key in self.connection_inputs:
            for connection in _get(self.props, key, []) or []:
                if WORKSPACE_GROUP_ID in [str(group).lower() for group in _get(connection, "groupIds", []) or []]:
                    targets.append(_get(connection, "privateLinkServiceId"))
        return targets


class ClassicPrivateEndpointView(PrivateEndpointView):
    """A classic-provider `azure:privatelink/endpoint:Endpoint`: one `privateServiceConnection`."""

    connection_inputs = ("privateServiceConnection",)

    @property
    def workspace_targets(self) -> list[Any]:
        connection = _get(self.props, "privateServiceConnection", {})
        names = [str(name).lower() for name in _get(connection, "subresourceNames", []) or []]
        return [_get(connection, "privateConnectionResourceId")] if WORKSPACE_GROUP_ID in names else []


# --- container registries ----------------------------------------------------------------------------

REGISTRY = "containerregistry:Registry"
CLASSIC_REGISTRY = "azure:containerservice/registry:Registry"


def registry_view(type_token: str, props: Mapping[str, Any]) -> RegistryView | None:
    """The container registry view of a resource of any mapped provider; None when it is not one."""
    if is_type(type_token, REGISTRY):
        return RegistryView(props)
    if type_token == CLASSIC_REGISTRY:
        return ClassicRegistryView(props)
    return None


class RegistryView:
    """An azure-native `containerregistry:Registry`'s inputs, with Azure's defaults (public access Enabled, network
    rule set Allow)."""

    def __init__(self, props: Mapping[str, Any]) -> None:
        self.props = props

    @property
    def name(self) -> str | None:
        return _get(self.props, "registryName")

    @property
    def resource_group_name(self) -> str | None:
        return _get(self.props, "resourceGroupName")

    @property
    def public_network_access(self) -> str:
        return _get(self.props, "publicNetworkAccess", "Enabled")

    @property
    def default_action(self) -> str:
        """`networkRuleSet.defaultAction`; Allow when omitted."""
        return _get(_get(self.props, "networkRuleSet", {}), "defaultAction", "Allow")

    @property
    def is_private(self) -> bool:
        """Public network access disabled, or every network denied unless a rule allows it (behind a VNet)."""
        return same_value(self.public_network_access, "Disabled") or same_value(self.default_action, "Deny")

    def has_id(self, arm_id: Any) -> bool:
        """True when `arm_id` names this registry (resource group and name, case-insensitive)."""
        from amlkit.policies.arm import parse_arm_id, same_name

        parsed = parse_arm_id(arm_id)
        return (parsed is not None and parsed.is_resource("Microsoft.ContainerRegistry", "registries")
                and same_name(parsed.resource_group, self.resource_group_name) and same_name(parsed.name, self.name))


class ClassicRegistryView(RegistryView):
    """A classic-provider `azure:containerservice/registry:Registry` (`publicNetworkAccessEnabled`, default true)."""

    @property
    def name(self) -> str | None:
        return _get(self.props, "name")

    @property
    def public_network_access(self) -> str:
        return "Enabled" if _get(self.props, "publicNetworkAccessEnabled", True) else "Disabled"


# --- what runs on a VM size: clusters, instances, managed online deployments ---------------------------


@dataclass(frozen=True)
class Sized:
    """What the VM-size rules read of a resource that runs on Azure VM sizes: a compute cluster or instance
    (`vmSize`) or a managed online deployment (`instanceType`, the VM size of each instance)."""

    subject: str
    """How messages name it: `AmlCompute cluster 'cpu'`, `Managed online deployment 'blue'`."""
    vm_size: str | None
    size_input: str
    """The input that names the size (`vmSize`, `instanceType`)."""
    size_required: bool
    """False for a compute instance, which gets Azure's default size without one."""
    compute: ComputeView | None = None
    deployment: DeploymentView | None = None


def sized_of(type_token: str, name: str, props: Mapping[str, Any], kinds: tuple[str, ...] = MANAGED) -> Sized | None:
    """The VM-size view of a compute whose computeType is one of `kinds`, or of a managed online deployment
    (a Kubernetes deployment's instance type names a Kubernetes resource profile, not a VM size); else None."""
    compute = compute_of(type_token, props, kinds)
    if compute is not None:
        return Sized(compute_subject(name, compute), compute.vm_size, "vmSize", not compute.is_instance,
                     compute=compute)
    deployment = deployment_view(type_token, props)
    if deployment is not None and deployment.is_managed:
        return Sized(f"Managed online deployment '{name}'", deployment.instance_type, "instanceType", True,
                     deployment=deployment)
    return None
