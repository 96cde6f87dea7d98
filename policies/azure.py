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

One view per kind: the azure-native class declares each accessor as an `Input` (path, default, conversion), and
the classic class re-declares only the inputs its provider puts elsewhere (its field map); what derives from
several inputs (an effective value from the value as written, a compute's kind) is a property of the base view,
written once for both providers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, overload

from amlkit import azure_facts as facts
from amlkit.tokens import type_parts

__all__ = [
    "ARM_ML_TYPE", "ATTACHED", "BUILTIN_ROLES", "CLASSIC", "CLASSIC_COMPUTES", "CLASSIC_DIAGNOSTIC_SETTING",
    "CLASSIC_LOCKS", "CLASSIC_PRIVATE_ENDPOINT", "CLASSIC_PUBLIC_NETWORK_ACCESS", "CLASSIC_REGISTRY",
    "CLASSIC_ROLE_ASSIGNMENT", "CLASSIC_WORKSPACE", "CLUSTER", "CLUSTER_ONLY", "COMPUTE", "COMPUTE_TYPES",
    "ClassicComputeView", "ClassicDiagnosticSettingView", "ClassicPrivateEndpointView", "ClassicRegistryView",
    "ClassicWorkspaceView", "ComputeView", "DIAGNOSTIC_SETTINGS", "DeploymentView", "DiagnosticSettingView", "INNER",
    "INSTANCE", "INSTANCE_ONLY", "Input", "LOCK_MODULES", "MANAGED", "MAPPED_CLASSIC", "MAPPED_NATIVE", "ML_KINDS",
    "ML_MODULE", "NATIVE", "NATIVE_LOCKS", "ONLINE_DEPLOYMENT", "OUTER", "PRIVATE_ENDPOINT", "PrivateEndpointView",
    "REGISTRY", "ROLE_ASSIGNMENT", "RegistryView", "RoleAssignmentView", "STACK_REFERENCE", "Sized", "T", "V",
    "WITH_IDENTITY", "WORKSPACE", "WORKSPACE_GROUP_ID", "WorkspaceView", "absent", "compute_of", "compute_subject",
    "compute_view", "deployment_view", "diagnostic_setting_view", "is_type", "private_endpoint_view", "provider_of",
    "read_known", "region_key", "registry_view", "role_assignment_view", "same_region", "same_value", "sized_of",
    "unmapped", "workspace_props", "workspace_view",
]

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

    from amlkit.policies.framework import CannotLink

    try:
        return True, read()
    except (UnknownValueError, CannotLink):
        return False, None


def _get(mapping: Any, key: str, default: Any = None) -> Any:
    if isinstance(mapping, Mapping) and key in mapping:
        value = mapping[key]
        return default if value is None else value
    return default


T = TypeVar("T", covariant=True)
V = TypeVar("V")


class Input(Generic[T]):
    """A view accessor declared by where a provider puts the value: the input at `path` (dots separate nested
    objects), `default` when it is omitted or null (Azure's default), and `convert` from the value as written to
    what the accessor means (applied to the default too; never to None). Each view reads every input through
    this one reader, one key at a time, so a value unknown at preview raises only when a rule reads it.

    A view of another provider re-declares an accessor with its own `path` (and `convert`): the per-provider
    field map. An accessor whose value needs more than one input stays a property of the view."""

    def __init__(self, path: str, default: Any = None, convert: Callable[[Any], T] | None = None) -> None:
        self.path, self.default, self.convert = path, default, convert

    @overload
    def __get__(self, view: None, owner: type) -> Input[T]: ...

    @overload
    def __get__(self, view: object, owner: type) -> T: ...

    def __get__(self, view: Any, owner: type) -> Input[T] | T:
        if view is None:
            return self
        value = _at(view.props, self.path, self.default) if self.path else self.default
        return value if self.convert is None or value is None else self.convert(value)


def _at(props: Any, path: str, default: Any = None) -> Any:
    """The input at a dotted `path`, read one key at a time; `default` when it (or an object above it) is
    omitted or null."""
    *parents, last = path.split(".")
    for key in parents:
        props = _get(props, key, {})
    return _get(props, last, default)


def absent(value: V) -> Input[V]:
    """An input the provider does not have: the accessor always reads `value`."""
    return Input("", value)


def _ids(value: Any) -> list[str]:
    """User-assigned identities: azure-native 3.x sends a LIST of ARM ids (a map in older/other shapes: its keys)."""
    return list(value.keys()) if isinstance(value, Mapping) else list(value)


def _enabled(flag: Any) -> str:
    """A classic-provider `...Enabled` flag as the ARM enum it sends."""
    return "Enabled" if flag else "Disabled"


CLASSIC_PUBLIC_NETWORK_ACCESS = Input[str]("publicNetworkAccessEnabled", True, _enabled)
"""The classic provider's `publicNetworkAccessEnabled` (default true), sent as publicNetworkAccess (workspaces and
container registries)."""


INSTANCE_ONLY = ("sshSettings", "idleTimeBeforeShutdown", "schedules", "setupScripts",
                 "personalComputeInstanceSettings", "applicationSharingPolicy", "computeInstanceAuthorizationType",
                 "enableRootAccess", "enableSSO", "enableOSPatching", "customServices", "releaseQuotaOnStop",
                 "autologgerSettings")
"""Inner properties only a compute instance has (ComputeInstanceProperties in the ARM schema)."""
CLUSTER_ONLY = ("scaleSettings", "vmPriority", "remoteLoginPortPublicAccess", "userAccountCredentials",
                "isolatedNetwork", "osType", "virtualMachineImage", "propertyBag", "targetNodeCount")
"""Inner properties only an AmlCompute cluster has (AmlComputeProperties in the ARM schema)."""

OUTER = "properties."
INNER = "properties.properties."
"""Where azure-native puts a compute's properties (`properties`) and its type's own (`properties.properties`)."""


class ComputeView:
    """A compute's inputs: the azure-native `machinelearningservices:Compute` reader. `ClassicComputeView`
    re-declares the inputs the classic provider puts elsewhere, and the properties whose classic reading depends
    on the compute's kind; the effective values (`enable_node_public_ip`, `remote_login_port_public_access`,
    `disable_local_auth`) derive from the values as written, once for both providers."""

    provider = NATIVE
    workspace_input = "workspaceName"
    """The input that names (or holds the id of) the compute's workspace; dependencies on it are checked."""

    def __init__(self, props: Mapping[str, Any]) -> None:
        self.props = props

    min_nodes = Input[int](f"{INNER}scaleSettings.minNodeCount", facts.MIN_NODES_DEFAULT, int)
    """`minNodeCount`; Azure's default is 0."""
    max_nodes = Input[int | None](f"{INNER}scaleSettings.maxNodeCount", None, int)
    idle_time_before_scale_down = Input[str | None](f"{INNER}scaleSettings.nodeIdleTimeBeforeScaleDown")
    """ISO-8601 duration; None when omitted (Azure then uses `facts.CLUSTER_IDLE_DEFAULT_ISO`)."""
    vm_priority = Input[str](f"{INNER}vmPriority", facts.VM_PRIORITY_DEFAULT)
    """`vmPriority`; omitted means `facts.VM_PRIORITY_DEFAULT`."""
    subnet_id = Input[str | None](f"{INNER}subnet.id")
    ssh_public_access = Input[str](f"{INNER}sshSettings.sshPublicAccess", facts.SSH_PUBLIC_ACCESS_DEFAULT)
    """Instances: `sshSettings.sshPublicAccess`; the ARM default is Disabled."""
    idle_time_before_shutdown = Input[str | None](f"{INNER}idleTimeBeforeShutdown")
    """Instances: ISO-8601 `idleTimeBeforeShutdown`; None when omitted (no idle shutdown)."""
    start_stop_schedules = Input[list[Any]](f"{INNER}schedules.computeStartStop", [], list)
    """Instances: `schedules.computeStartStop`, the start/stop schedules as written (ComputeStartStopSchedule:
    action Start|Stop, status Enabled|Disabled, triggerType Cron|Recurrence); [] when omitted."""
    namespace = Input[str](f"{INNER}namespace", "default")
    """Kubernetes: `properties.properties.namespace`; Azure's default is `default`."""
    identity_type = Input[str | None]("identity.type")
    user_assigned_identities = Input[list[str]]("identity.userAssignedIdentities", [], _ids)
    """azure-native 3.x sends a LIST of ARM ids (a map in older/other shapes: its keys)."""
    workspace_name = Input[str | None](workspace_input)
    compute_name = Input[str | None]("computeName")
    resource_group_name = Input[str | None]("resourceGroupName")

    @property
    def compute_type_given(self) -> str | None:
        """`properties.computeType` as written; None when the program left it out."""
        return _at(self.props, f"{OUTER}computeType")

    @property
    def compute_type(self) -> str | None:
        """`properties.computeType`; without it, what the inner properties say: instance-only fields make a
        ComputeInstance, cluster-only fields an AmlCompute; None when they say neither or both (such a
        compute is reported by amlkit-unreviewed-resource, never dropped)."""
        given = self.compute_type_given
        return given if given is not None else self.inferred_compute_type

    @property
    def inferred_compute_type(self) -> str | None:
        inner = _at(self.props, "properties.properties", {})
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
    def vm_size(self) -> str | None:
        return _at(self.props, f"{INNER}vmSize")

    @property
    def location(self) -> str | None:
        """Where the compute runs: `properties.computeLocation`, else the resource's `location`."""
        return _at(self.props, f"{OUTER}computeLocation") or _get(self.props, "location")

    @property
    def enable_node_public_ip_given(self) -> bool | None:
        """`enableNodePublicIp` as written; None when omitted (Azure then uses `facts.NODE_PUBLIC_IP_DEFAULT`)."""
        return _at(self.props, f"{INNER}enableNodePublicIp")

    @property
    def enable_node_public_ip(self) -> bool:
        """`enableNodePublicIp`; omitted means `facts.NODE_PUBLIC_IP_DEFAULT`."""
        given = self.enable_node_public_ip_given
        return facts.NODE_PUBLIC_IP_DEFAULT if given is None else bool(given)

    @property
    def remote_login_port_public_access_given(self) -> str | None:
        """`remoteLoginPortPublicAccess` as written; None when omitted (then `facts.REMOTE_LOGIN_DEFAULT`)."""
        return _at(self.props, f"{INNER}remoteLoginPortPublicAccess")

    @property
    def remote_login_port_public_access(self) -> str:
        """`remoteLoginPortPublicAccess`; omitted means `facts.REMOTE_LOGIN_DEFAULT` (open on public nodes)."""
        given = self.remote_login_port_public_access_given
        return facts.REMOTE_LOGIN_DEFAULT if given is None else given

    @property
    def disable_local_auth_given(self) -> bool | None:
        """`disableLocalAuth` as written; None when omitted (Azure then uses `facts.LOCAL_AUTH_DISABLED_DEFAULT`)."""
        return _at(self.props, f"{OUTER}disableLocalAuth")

    @property
    def disable_local_auth(self) -> bool:
        """`disableLocalAuth`; Azure's default is false (local auth on)."""
        return bool(self.disable_local_auth_given)

    @property
    def admin_password_set(self) -> bool:
        """True when `userAccountCredentials.adminUserPassword` is set. Never returns the secret itself."""
        return bool(_at(self.props, f"{INNER}userAccountCredentials.adminUserPassword"))

    @property
    def resource_id(self) -> str | None:
        """Attached computes: the ARM id of the existing compute (`properties.resourceId`)."""
        return _at(self.props, f"{OUTER}resourceId")


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

    min_nodes = Input[int]("scaleSettings.minNodeCount", facts.MIN_NODES_DEFAULT, int)
    max_nodes = Input[int | None]("scaleSettings.maxNodeCount", None, int)
    idle_time_before_scale_down = Input[str | None]("scaleSettings.scaleDownNodesAfterIdleDuration")
    vm_priority = Input[str]("vmPriority", facts.VM_PRIORITY_DEFAULT)
    subnet_id = Input[str | None]("subnetResourceId")
    ssh_public_access = Input[str]("ssh", {}, _enabled)
    idle_time_before_shutdown = absent(None)
    """The classic provider has no idle shutdown input: the instance runs until stopped."""
    start_stop_schedules: Input[list[Any]] = absent([])
    """The classic provider has no schedules input."""
    namespace = absent("default")
    user_assigned_identities = Input[list[str]]("identity.identityIds", [], list)
    workspace_name = Input[str | None](workspace_input, None, lambda arm_id: _workspace_id_part(arm_id, 2))
    compute_name = Input[str | None]("name")
    resource_group_name = Input[str | None](workspace_input, None, lambda arm_id: _workspace_id_part(arm_id, 1))

    @property
    def compute_type_given(self) -> str | None:
        return self.kind

    @property
    def vm_size(self) -> str | None:
        return _get(self.props, "virtualMachineSize" if self.is_instance else "vmSize")

    @property
    def location(self) -> str | None:
        """A cluster's `location` is its computeLocation; an instance runs in its workspace's region."""
        return None if self.is_instance else _get(self.props, "location")

    @property
    def enable_node_public_ip_given(self) -> bool | None:
        if self.kind not in MANAGED:
            return None
        return bool(_get(self.props, "nodePublicIpEnabled", True))

    @property
    def remote_login_port_public_access_given(self) -> str | None:
        if not self.is_cluster:
            return None
        return _enabled(_get(self.props, "sshPublicAccessEnabled", False))

    @property
    def disable_local_auth_given(self) -> bool | None:
        if self.kind not in MANAGED + ("SynapseSpark",):
            return None
        return not _get(self.props, "localAuthEnabled", True)

    @property
    def admin_password_set(self) -> bool:
        return self.is_cluster and bool(_get(_get(self.props, "ssh", {}), "adminPassword"))

    @property
    def resource_id(self) -> str | None:
        return _get(self.props, {"AKS": "kubernetesClusterId", "SynapseSpark": "synapseSparkPoolId"}.get(self.kind, ""))


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
    reader. `ClassicWorkspaceView` re-declares the inputs the classic provider puts elsewhere."""

    provider = NATIVE

    def __init__(self, props: Mapping[str, Any]) -> None:
        self.props = props

    name = Input[str | None]("workspaceName")
    resource_group_name = Input[str | None]("resourceGroupName")
    location = Input[str | None]("location")
    kind = Input[str]("kind", "Default")
    hub_resource_id = Input[str | None]("hubResourceId")
    """A project's `hubResourceId`: the ARM id of the hub it belongs to."""
    public_network_access = Input[str]("publicNetworkAccess", "Enabled")
    """`publicNetworkAccess`; Azure's default is Enabled."""
    allow_public_access_when_behind_vnet = Input[bool]("allowPublicAccessWhenBehindVnet", False, bool)
    managed_network_isolation_mode = Input[str]("managedNetwork.isolationMode",
                                                facts.MANAGED_NETWORK_ISOLATION_DEFAULT)
    """`managedNetwork.isolationMode`; omitted means `facts.MANAGED_NETWORK_ISOLATION_DEFAULT` (none)."""
    serverless_custom_subnet = Input[str | None]("serverlessComputeSettings.serverlessComputeCustomSubnet")
    cmk_key_identifier = Input[str | None]("encryption.keyVaultProperties.keyIdentifier")
    """`encryption.keyVaultProperties.keyIdentifier`; None without a customer-managed key."""
    encryption_status = Input[str | None]("encryption.status")
    """`encryption.status` (Enabled | Disabled); None when omitted."""
    hbi_workspace = Input[bool]("hbiWorkspace", False, bool)
    identity_type = Input[str | None]("identity.type")
    primary_user_assigned_identity = Input[str | None]("primaryUserAssignedIdentity")
    user_assigned_identities = Input[list[str]]("identity.userAssignedIdentities", [], _ids)
    """azure-native 3.x sends a LIST of ARM ids (a map in older/other shapes: its keys)."""
    container_registry_input = "containerRegistry"
    """The input naming the workspace's container registry (a property dependency names it at preview)."""
    container_registry = Input[str | None](container_registry_input)
    """`containerRegistry`: the ARM id of the workspace's registry; None: Azure creates one on first build."""
    image_build_compute = Input[str | None]("imageBuildCompute")
    """`imageBuildCompute`: the compute that builds environment images; None: the registry builds them."""
    storage_account_input = "storageAccount"
    storage_account = Input[str | None](storage_account_input)
    """`storageAccount`: the ARM id of the workspace's storage account."""
    key_vault_input = "keyVault"
    key_vault = Input[str | None](key_vault_input)
    """`keyVault`: the ARM id of the workspace's key vault."""
    provision_network_now = Input[bool]("provisionNetworkNow", False, bool)
    """`provisionNetworkNow`: provision the managed network with the workspace (default false: with the first
    compute instance)."""

    @property
    def serverless_no_public_ip_given(self) -> bool | None:
        """`serverlessComputeNoPublicIP` as written; None when omitted (Azure then uses
        `facts.SERVERLESS_NO_PUBLIC_IP_DEFAULT`)."""
        return _at(self.props, "serverlessComputeSettings.serverlessComputeNoPublicIP")


class ClassicWorkspaceView(WorkspaceView):
    """A classic-provider (pulumi-azure) `azure:machinelearning/workspace:Workspace`, read as what the provider
    sends to ARM: `publicNetworkAccessEnabled` (default true) as publicNetworkAccess, `highBusinessImpact` as
    hbiWorkspace, `encryption.keyId` as the customer-managed key, `serverlessCompute.{subnetId, publicIpEnabled
    (default false)}` as serverlessComputeSettings, `identity.identityIds` as the user-assigned identities.
    The provider has no allowPublicAccessWhenBehindVnet input (false)."""

    provider = CLASSIC

    name = Input[str | None]("name")
    public_network_access = CLASSIC_PUBLIC_NETWORK_ACCESS
    allow_public_access_when_behind_vnet = absent(False)
    serverless_custom_subnet = Input[str | None]("serverlessCompute.subnetId")
    cmk_key_identifier = Input[str | None]("encryption.keyId")
    encryption_status = Input[str | None]("encryption", None, lambda encryption: "Enabled" if encryption else None)
    hbi_workspace = Input[bool]("highBusinessImpact", False, bool)
    user_assigned_identities = Input[list[str]]("identity.identityIds", [], list)
    container_registry_input = "containerRegistryId"
    container_registry = Input[str | None](container_registry_input)
    image_build_compute = Input[str | None]("imageBuildComputeName")
    storage_account_input = "storageAccountId"
    storage_account = Input[str | None](storage_account_input)
    key_vault_input = "keyVaultId"
    key_vault = Input[str | None](key_vault_input)
    provision_network_now = absent(False)

    @property
    def serverless_no_public_ip_given(self) -> bool | None:
        settings = _get(self.props, "serverlessCompute", {})
        return not _get(settings, "publicIpEnabled", False) if settings else None


class DeploymentView:
    """An azure-native `machinelearningservices:OnlineDeployment`'s inputs (the classic provider has none)."""

    provider = NATIVE

    def __init__(self, props: Mapping[str, Any]) -> None:
        self.props = props

    compute_kind = Input[str | None]("properties.endpointComputeType")
    """`properties.endpointComputeType`: Managed, Kubernetes or AzureMLCompute."""
    instance_type = Input[str | None]("properties.instanceType")
    """The VM size of each instance (`properties.instanceType`)."""
    instance_count = Input[int | None]("sku.capacity", None, int)
    """`sku.capacity`: the number of instances; None when omitted (Azure's default is 1)."""
    scale_type = Input[str | None]("properties.scaleSettings.scaleType")
    """`properties.scaleSettings.scaleType`: Default or TargetUtilization."""
    max_instances = Input[int | None]("properties.scaleSettings.maxInstances", None, int)
    """TargetUtilization scaling: `scaleSettings.maxInstances`; None when omitted."""
    egress_public_network_access = Input[str | None]("properties.egressPublicNetworkAccess")
    """`properties.egressPublicNetworkAccess` as written (Enabled | Disabled); None when omitted."""
    app_insights_enabled = Input[bool | None]("properties.appInsightsEnabled")
    location = Input[str | None]("location")
    endpoint_name = Input[str | None]("endpointName")
    workspace_name = Input[str | None]("workspaceName")
    resource_group_name = Input[str | None]("resourceGroupName")
    identity_type = Input[str | None]("identity.type")

    @property
    def is_managed(self) -> bool:
        return same_value(self.compute_kind, "Managed")


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

    scope = Input[Any]("scope")

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
    """An azure-native diagnostic setting: `resourceUri`, `logs[]` (each `enabled`), `storageAccountId`. No rule
    reads a log's `retentionPolicy` (storage retention is retired, see aml-workspace-diagnostics): it is not read,
    so its being unknown while a setting is created (AnalyzeStack's outputs) stops no rule."""

    target_input = "resourceUri"

    def __init__(self, props: Mapping[str, Any]) -> None:
        self.props = props

    @property
    def target_id(self) -> Any:
        return _get(self.props, self.target_input)

    @property
    def logs(self) -> list[bool]:
        """Whether each log entry is enabled."""
        entries = [log for log in (_get(self.props, "logs", []) or []) if isinstance(log, Mapping)]
        return [_get(log, "enabled") is True for log in entries]

    exports_to_storage = Input[bool]("storageAccountId", False, bool)


class ClassicDiagnosticSettingView(DiagnosticSettingView):
    """A classic `azure:monitoring/diagnosticSetting:DiagnosticSetting`: `targetResourceId`, and every
    `enabledLogs[]` entry is an enabled log."""

    target_input = "targetResourceId"

    @property
    def logs(self) -> list[bool]:
        entries = [log for log in (_get(self.props, "enabledLogs", []) or []) if isinstance(log, Mapping)]
        return [True for _ in entries]


def workspace_props(resource: Any) -> WorkspaceView:
    """The view of a workspace found by `workspaces_by_key` / `workspace_of` (a StackResource)."""
    view = workspace_view(resource.type, resource.props)
    assert view is not None, f"{resource.type} is not a workspace"
    return view


_LINKS = ("workspace_key", "workspaces_by_key", "workspace_of", "names_workspace")
"""Linking helpers that moved to `amlkit.policies.links` (they follow the dependency graph); still importable here."""


def __getattr__(name: str) -> Any:
    if name in _LINKS:
        from amlkit.policies import links

        return getattr(links, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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

    name = Input[str | None]("registryName")
    resource_group_name = Input[str | None]("resourceGroupName")
    public_network_access = Input[str]("publicNetworkAccess", "Enabled")
    default_action = Input[str]("networkRuleSet.defaultAction", "Allow")
    """`networkRuleSet.defaultAction`; Allow when omitted."""

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

    name = Input[str | None]("name")
    public_network_access = CLASSIC_PUBLIC_NETWORK_ACCESS


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
