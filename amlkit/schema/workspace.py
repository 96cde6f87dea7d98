"""The `amlkit:workspace` mapping and the identity specs computes share."""

from __future__ import annotations

from pydantic import model_validator

from amlkit.schema.types import (
    DNS_ZONE_GROUP_DEFAULT,
    PRIVATE_ENDPOINT_KEY,
    PRIVATE_ENDPOINT_KEY_ALLOWED,
    AppInsightsId,
    Bool,
    ComputeName,
    ContainerRegistry,
    Description,
    IdentityId,
    KeyUri,
    KeyVaultId,
    LogAnalyticsId,
    Model,
    PrivateDnsZoneId,
    PrivateEndpointName,
    ResourceGroupName,
    StorageAccountId,
    SubnetId,
    Tags,
    WorkspaceId,
    WorkspaceName,
    choice,
    fail,
    list_of,
    map_of,
    reject,
    text,
)

__all__ = [
    "CustomerManagedKeySpec", "DnsZoneGroupName", "HUB_OWNED", "IdentitySpec", "ManagedNetworkSpec",
    "PrivateEndpointKey", "PrivateEndpointSpec", "ProjectSpec", "ResourceGroupSpec", "ServerlessComputeSpec",
    "UserAssignedIdentity", "WorkspaceSpec", "check_identity",
]

PrivateEndpointKey = text(PRIVATE_ENDPOINT_KEY, PRIVATE_ENDPOINT_KEY_ALLOWED)
DnsZoneGroupName = text(r"[A-Za-z0-9_.-]{1,80}", "1-80 letters, digits, '_', '.' or '-'")


class UserAssignedIdentity(Model):
    resource_id: IdentityId
    """ARM id of the user-assigned managed identity."""


class IdentitySpec(Model):
    """`identity:` of a workspace or compute, as in az ml: `type` plus user-assigned identities."""

    type: choice("system_assigned", "user_assigned", "none")
    """Which managed identity: one system-assigned identity, or user-assigned ones (never both)."""
    user_assigned_identities: list_of(UserAssignedIdentity) = []
    """The user-assigned identities, each `{resource_id: <identity ARM id>}`."""

    @model_validator(mode="after")
    def _ids_match_type(self) -> IdentitySpec:
        """Cross-field rules:

        - `user_assigned_identities` is required when `type` is `user_assigned`, and only read then.
        """
        if self.type == "user_assigned" and not self.user_assigned_identities:
            fail("required when type is user_assigned (a list of {resource_id: <identity ARM id>})",
                     at=("user_assigned_identities",))
        if self.type != "user_assigned" and self.user_assigned_identities:
            reject(self.type, "user_assigned (user_assigned_identities are only read with it)", at=("type",))
        return self

    @property
    def ids(self) -> list[str]:
        return [identity.resource_id for identity in self.user_assigned_identities]


class ResourceGroupSpec(Model):
    """The resource group: created by the stack unless `existing: true` (then only referenced)."""

    name: ResourceGroupName
    """Name of the resource group that holds the workspace and its dependencies."""
    existing: Bool = False
    """true: the group exists and is only referenced (never created, locked or deleted)."""


class ManagedNetworkSpec(Model):
    isolation_mode: choice("disabled", "allow_internet_outbound", "allow_only_approved_outbound")
    """Outbound isolation of the managed network; once enabled it cannot be disabled."""


class ServerlessComputeSpec(Model):
    custom_subnet: SubnetId | None = None
    """Subnet serverless jobs run in; unset: the Azure-managed network."""
    no_public_ip: Bool = True
    """Serverless compute nodes get no public IP."""


class CustomerManagedKeySpec(Model):
    key_vault: KeyVaultId
    """ARM id of the key vault holding the encryption key."""
    key_uri: KeyUri
    """Key identifier of the customer-managed key (data encryption at rest)."""


class PrivateEndpointSpec(Model):
    """One entry of `private_endpoints` (Azure Verified Modules' shape): an inbound private endpoint of the
    workspace (group `amlworkspace`) and its private DNS zone group."""

    subnet_resource_id: SubnetId
    """ARM id of the subnet the endpoint's network interface is placed in."""
    private_dns_zone_resource_ids: list_of(PrivateDnsZoneId) = []
    """Private DNS zones the endpoint registers in (privatelink.api.azureml.ms, privatelink.notebooks.azure.net);
    empty: no DNS zone group."""
    private_dns_zone_group_name: DnsZoneGroupName = DNS_ZONE_GROUP_DEFAULT
    """Name of the endpoint's private DNS zone group."""
    name: PrivateEndpointName | None = None
    """Azure name of the private endpoint; unset: `pep-<workspace name>-<key>`."""


HUB_OWNED = ("kind", "hub_id", "public_network_access", "managed_network", "private_endpoints", "serverless_compute",
             "hbi_workspace", "customer_managed_key", "storage_account", "key_vault", "application_insights",
             "log_analytics_workspace", "container_registry", "image_build_compute", "projects")
"""The keys of a workspace a project takes from its hub (MicrosoftDocs/azure-ai-docs concept-hub-workspace.md:
"Project workspaces that are created using a hub obtain the hub's security settings and shared resource
configuration"; one managed network is shared; encryption settings pass down)."""


class ProjectSpec(Model):
    """One entry of a hub's `projects`: a project workspace in the hub's resource group, region and network."""

    name: WorkspaceName
    """Project workspace name (az ml `name`)."""
    display_name: Description | None = None
    """Name shown in the studio."""
    description: Description | None = None
    """Free-text description."""
    identity: IdentitySpec = IdentitySpec(type="system_assigned")
    """The project's managed identity."""
    primary_user_assigned_identity: IdentityId | None = None
    """With user-assigned identities: the one the project uses by default."""
    locks: Bool = False
    """A CanNotDelete lock on the project workspace."""
    tags: Tags = {}
    """Tags of the project workspace, over the hub's and `amlkit:tags`."""

    @classmethod
    def key_problem(cls, key: str) -> str | None:
        if key not in HUB_OWNED:
            return None
        return (f"not allowed on a project: a project takes its {key} from its hub (set it on amlkit:workspace, "
                "the hub; concept-hub-workspace.md: projects obtain the hub's security settings and shared "
                "resources)")

    @model_validator(mode="after")
    def _cross_fields(self) -> ProjectSpec:
        """Cross-field rules:

        - `identity.type` cannot be `none`: a workspace needs an identity.
        - `primary_user_assigned_identity` must be one of `identity.user_assigned_identities`.
        """
        check_identity(self.identity, self.primary_user_assigned_identity)
        return self


def check_identity(identity: IdentitySpec, primary: str | None) -> None:
    """A workspace needs an identity; its primary user-assigned identity is one of its identities."""
    if identity.type == "none":
        reject("none", "system_assigned | user_assigned (a workspace needs an identity)", at=("identity", "type"))
    if primary and primary.lower() not in {i.lower() for i in identity.ids}:
        reject(primary, "one of identity.user_assigned_identities", at=("primary_user_assigned_identity",))


class WorkspaceSpec(Model):
    """`amlkit:workspace`: the workspace and its dependencies (omitted dependency = created)."""

    name: WorkspaceName
    """Workspace name (az ml `name`)."""
    kind: choice("default", "hub", "project") = "default"
    """`hub` shares its resources and network with `project` workspaces; `default` stands alone."""
    hub_id: WorkspaceId | None = None
    """ARM id of the hub a `project` workspace belongs to."""
    display_name: Description | None = None
    """Name shown in the studio."""
    description: Description | None = None
    """Free-text description."""
    public_network_access: choice("enabled", "disabled") = "disabled"
    """Access to the workspace from public networks."""
    managed_network: ManagedNetworkSpec = ManagedNetworkSpec(isolation_mode="allow_only_approved_outbound")
    """The workspace's managed virtual network (`isolation_mode`)."""
    image_build_compute: ComputeName | None = None
    """Compute cluster or instance (of `amlkit:clusters` or `amlkit:instances`) that builds environment images;
    needed when the container registry is private (it cannot build images itself)."""
    private_endpoints: map_of(PrivateEndpointKey, PrivateEndpointSpec, PRIVATE_ENDPOINT_KEY_ALLOWED) = {}
    """Inbound private endpoints of the workspace, by key (a managed network isolates outbound traffic only)."""
    serverless_compute: ServerlessComputeSpec | None = None
    """Network settings of serverless compute jobs."""
    identity: IdentitySpec = IdentitySpec(type="system_assigned")
    """The workspace's managed identity."""
    primary_user_assigned_identity: IdentityId | None = None
    """With user-assigned identities: the one the workspace uses by default."""
    hbi_workspace: Bool | None = None
    """High business impact: less diagnostic data, encrypted local scratch disks; unset: true."""
    customer_managed_key: CustomerManagedKeySpec | None = None
    """Encrypt workspace data with your own key; unset: Microsoft-managed keys."""
    storage_account: StorageAccountId | None = None
    """ARM id of an existing storage account to use; unset: one is created."""
    key_vault: KeyVaultId | None = None
    """ARM id of an existing key vault to use; unset: one is created."""
    application_insights: AppInsightsId | None = None
    """ARM id of an existing Application Insights component; unset: one is created."""
    log_analytics_workspace: LogAnalyticsId | None = None
    """ARM id of an existing Log Analytics workspace; unset: one is created."""
    container_registry: ContainerRegistry = False
    """`true` creates a registry, `false` uses none (Azure creates one on first image build)."""
    locks: Bool = False
    """CanNotDelete locks on the created workspace, storage account and key vault (never the group)."""
    tags: Tags = {}
    """Tags of the workspace and its dependencies, over `amlkit:tags`."""
    projects: list_of(ProjectSpec) = []
    """With `kind: hub`: its project workspaces, each a child of the hub in its resource group, region, network and
    stack (`<environment>-project-<name>`); keys the hub owns (managed_network, public_network_access...) are
    refused on a project."""

    @model_validator(mode="after")
    def _cross_fields(self) -> WorkspaceSpec:
        """Cross-field rules:

        - `hub_id` is required when `kind` is `project`, and only read then.
        - `private_endpoints` are not allowed when `kind` is `project` (its hub's endpoint serves it).
        - `identity.type` cannot be `none`: a workspace needs an identity.
        - `primary_user_assigned_identity` must be one of `identity.user_assigned_identities`.
        - `projects` only when `kind` is `hub`; project names differ from each other and from the hub's.
        """
        if self.kind == "project" and not self.hub_id:
            fail("required when kind is project (the hub workspace's ARM id)", at=("hub_id",))
        if self.kind != "project" and self.hub_id:
            reject(self.kind, "project (hub_id is only read for projects)", at=("kind",))
        if self.kind == "project" and self.private_endpoints:
            fail("not allowed when kind is project (a project is reached through its hub's private endpoint)",
                     at=("private_endpoints",))
        check_identity(self.identity, self.primary_user_assigned_identity)
        self._check_projects()
        return self

    def _check_projects(self) -> None:
        if self.projects and self.kind != "hub":
            reject(self.kind, "hub (projects are only read for a hub)", at=("kind",))
        seen = {self.name.lower(): "the hub"}
        for index, project in enumerate(self.projects):
            first = seen.setdefault(project.name.lower(), f"projects[{index}]")
            if first != f"projects[{index}]":
                reject(project.name, f"a workspace name not used elsewhere in this stack ({first} has it)",
                       at=("projects", index, "name"))

    @property
    def has_managed_network(self) -> bool:
        return bool(self.managed_network.isolation_mode != "disabled")
