"""The compute views of amlkit.policies.azure (re-exported there): a cluster, instance or attached compute of
azure-native (`ComputeView`) or of the classic provider (`ClassicComputeView`), and `compute_view` picking one."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from amlkit import azure_facts as facts
from amlkit.policies.view_base import (
    CLASSIC,
    CLASSIC_COMPUTES,
    CLUSTER_ONLY,
    COMPUTE,
    INNER,
    INSTANCE_ONLY,
    MANAGED,
    NATIVE,
    OUTER,
    Input,
    _at,
    _enabled,
    _get,
    _ids,
    absent,
    is_type,
)

__all__ = [
    "ClassicComputeView", "ComputeView", "compute_of", "compute_subject", "compute_view",
]

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
