"""Typed accessors over azure-native inputs as the analyzer sees them (camelCase wire form).

Accessors return the platform default where Azure has one for a missing property
(docs/azure-facts.md, "Platform defaults"), so rules never re-implement "missing means ...". They
read lazily: an unknown value raises only when the rule actually reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pulumi_policy.proxy import UnknownValueError

from amlkit import azure_facts as facts
from amlkit.tokens import type_parts

COMPUTE = "machinelearningservices:Compute"
WORKSPACE = "machinelearningservices:Workspace"


def is_type(type_token: str, kind: str) -> bool:
    """True for `azure-native:<module>:<Name>` and its explicit-version variants, e.g. kind=COMPUTE."""
    parts = type_parts(type_token)
    return parts is not None and f"{parts[0]}:{parts[2]}" == kind


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


def compute_of(type_token: str, props: Mapping[str, Any], kinds: tuple[str, ...]) -> ComputeView | None:
    """The inputs of a `machinelearningservices:Compute` whose computeType is one of `kinds`, else None."""
    if not is_type(type_token, COMPUTE):
        return None
    compute = ComputeView(props)
    return compute if compute.compute_type in kinds else None


def read_known(read: Callable[[], Any]) -> tuple[bool, Any]:
    """(True, value) when `read()` sees only known values; (False, None) when one is unknown at preview.

    For rules that report "cannot tell" per resource (`framework.cannot_tell`) instead of letting one
    unknown value stop the whole rule. The unknown is reported either way, never counted as a pass.
    """
    try:
        return True, read()
    except UnknownValueError:
        return False, None


def _get(mapping: Any, key: str, default: Any = None) -> Any:
    if isinstance(mapping, Mapping) and key in mapping:
        value = mapping[key]
        return default if value is None else value
    return default


class ComputeView:
    """A `machinelearningservices:Compute` resource's inputs."""

    def __init__(self, props: Mapping[str, Any]) -> None:
        self.props = props

    @property
    def outer(self) -> Mapping[str, Any]:
        return _get(self.props, "properties", {})

    @property
    def compute_type(self) -> str | None:
        return _get(self.outer, "computeType")

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


def compute_subject(name: str, compute: ComputeView) -> str:
    """The subject of a compute finding: one wording per kind, reused by every rule."""
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
    """A `machinelearningservices:Workspace` resource's inputs, with Azure's defaults."""

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

    @property
    def user_assigned_identities(self) -> list[str]:
        """azure-native 3.x sends a LIST of ARM ids (a map in older/other shapes: its keys)."""
        value = _get(_get(self.props, "identity", {}), "userAssignedIdentities", [])
        return list(value.keys()) if isinstance(value, Mapping) else list(value)


def workspace_key(resource_group: str | None, name: str | None) -> tuple[str, str]:
    """Case-insensitive identity of a workspace (ARM names are case-insensitive)."""
    return ((resource_group or "").lower(), (name or "").lower())


def workspaces_by_key(resources: Iterable[Any]) -> dict[tuple[str, str], Any]:
    """The stack's workspaces (StackResource objects) keyed by (resource group, workspace name)."""
    found = {}
    for resource in resources:
        if is_type(resource.type, WORKSPACE):
            view = WorkspaceView(resource.props)
            found[workspace_key(view.resource_group_name, view.name)] = resource
    return found


def workspace_of(compute: Any, workspaces: Mapping[tuple[str, str], Any]) -> Any | None:
    """The stack's workspace a compute (StackResource) belongs to, or None when it is not in the stack.

    A compute whose `workspaceName` was built from a workspace's output belongs to that workspace even
    while the name is unknown at preview (the dependency is known); otherwise the names are matched.
    """
    for workspace in workspaces.values():
        if _depends_on(compute, "workspaceName", workspace.urn):
            return workspace
    view = ComputeView(compute.props)
    return workspaces.get(workspace_key(view.resource_group_name, view.workspace_name))


def _depends_on(resource: Any, prop: str, urn: str) -> bool:
    depends_on = getattr(resource, "depends_on", None)
    return bool(depends_on and depends_on(prop, urn))
