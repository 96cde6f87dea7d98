"""The views of amlkit.policies.azure other than computes (re-exported there): workspaces, online deployments,
role assignments, diagnostic settings, private endpoints and container registries, each of either provider."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from amlkit import azure_facts as facts
from amlkit.policies.arm_ids import parse_arm_id, same_name
from amlkit.policies.view_base import (
    CLASSIC,
    CLASSIC_PUBLIC_NETWORK_ACCESS,
    CLASSIC_WORKSPACE,
    NATIVE,
    ONLINE_DEPLOYMENT,
    WORKSPACE,
    Input,
    _at,
    _get,
    _ids,
    absent,
    is_type,
    same_value,
)

__all__ = [
    "BUILTIN_ROLES", "CLASSIC_DIAGNOSTIC_SETTING", "CLASSIC_PRIVATE_ENDPOINT", "CLASSIC_REGISTRY",
    "CLASSIC_ROLE_ASSIGNMENT", "ClassicDiagnosticSettingView", "ClassicPrivateEndpointView", "ClassicRegistryView",
    "ClassicWorkspaceView", "DIAGNOSTIC_SETTINGS", "DeploymentView", "DiagnosticSettingView", "PRIVATE_ENDPOINT",
    "PrivateEndpointView", "REGISTRY", "ROLE_ASSIGNMENT", "RegistryView", "RoleAssignmentView", "STACK_REFERENCE",
    "WORKSPACE_GROUP_ID", "WorkspaceView", "deployment_view", "diagnostic_setting_view", "private_endpoint_view",
    "registry_view", "role_assignment_view", "workspace_props", "workspace_view",
]

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
        parsed = parse_arm_id(arm_id)
        return (parsed is not None and parsed.is_resource("Microsoft.ContainerRegistry", "registries")
                and same_name(parsed.resource_group, self.resource_group_name) and same_name(parsed.name, self.name))


class ClassicRegistryView(RegistryView):
    """A classic-provider `azure:containerservice/registry:Registry` (`publicNetworkAccessEnabled`, default true)."""

    name = Input[str | None]("name")
    public_network_access = CLASSIC_PUBLIC_NETWORK_ACCESS




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
