"""The Workspace component's arguments: typed specs, their reference (`ARGS`) and former names."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, Required, TypedDict

import pulumi

from amlkit import azure_facts as facts
from amlkit.components.args import REQUIRED, ArgInfo, document, document_nested
from amlkit.schema.types import PRIVATE_ENDPOINT_KEY_ALLOWED

__all__ = [
    "ARGS", "BUILDER_ALLOWED", "CustomerManagedKey", "ISOLATION_MODES", "IdentitySpec", "KINDS", "ManagedNetwork",
    "PrivateEndpoint", "RENAMED", "ServerlessCompute", "UserAssignedIdentity", "WorkspaceArgs",
]

KINDS = {"default": "Default", "hub": "Hub", "project": "Project"}
BUILDER_ALLOWED = (f"a cluster's name ({facts.COMPUTE_NAME.allowed}) or an instance's ({facts.INSTANCE_NAME.allowed}) "
                   "of this workspace")
ISOLATION_MODES = {
    "disabled": "Disabled",
    "allow_internet_outbound": "AllowInternetOutbound",
    "allow_only_approved_outbound": "AllowOnlyApprovedOutbound",
}


class UserAssignedIdentity(TypedDict):
    """One user-assigned identity, as in az ml: `{resource_id: <identity ARM id>}`."""

    resource_id: pulumi.Input[str]
    """ARM id of the user-assigned managed identity."""


class IdentitySpec(TypedDict, total=False):
    """`identity` of a workspace or compute, as in az ml: `type` plus user-assigned identities."""

    type: Required[Literal["system_assigned", "user_assigned", "none"]]
    """Which managed identity: one system-assigned identity, user-assigned ones, or none (computes only)."""
    user_assigned_identities: Sequence[UserAssignedIdentity]
    """The user-assigned identities (only with `type: user_assigned`)."""


class ManagedNetwork(TypedDict):
    """`managed_network` of a workspace, as in az ml."""

    isolation_mode: Literal["disabled", "allow_internet_outbound", "allow_only_approved_outbound"]
    """Outbound isolation of the managed network; once enabled it cannot be disabled."""


class ServerlessCompute(TypedDict, total=False):
    """`serverless_compute` of a workspace, as in az ml."""

    custom_subnet: pulumi.Input[str]
    """Subnet serverless jobs run in; unset: the Azure-managed network."""
    no_public_ip: bool
    """Serverless compute nodes get no public IP."""


class CustomerManagedKey(TypedDict, total=False):
    """`customer_managed_key` of a workspace, as in az ml (plus the identity that reads the key)."""

    key_vault: Required[pulumi.Input[str]]
    """ARM id of the key vault holding the encryption key."""
    key_uri: Required[pulumi.Input[str]]
    """Key identifier of the customer-managed key (data encryption at rest)."""
    user_assigned_identity: pulumi.Input[str]
    """User-assigned identity that reads the key; unset: the workspace identity."""


class PrivateEndpoint(TypedDict, total=False):
    """One entry of `private_endpoints`, in Azure Verified Modules' shape: an inbound private endpoint of the
    workspace (group `amlworkspace`) in a subnet of your virtual network, with its private DNS zone group."""

    subnet_resource_id: Required[pulumi.Input[str]]
    """ARM id of the subnet the endpoint's network interface is placed in."""
    private_dns_zone_resource_ids: Sequence[pulumi.Input[str]]
    """ARM ids of the private DNS zones the endpoint registers its records in (privatelink.api.azureml.ms
    and privatelink.notebooks.azure.net); unset: no DNS zone group (records are managed elsewhere)."""
    private_dns_zone_group_name: str
    """Name of the endpoint's private DNS zone group."""
    name: str
    """Azure name of the private endpoint."""


class WorkspaceArgs(TypedDict, total=False):
    """Inputs of `Workspace`, named as in the stack file (`amlkit:workspace`, az ml's workspace YAML).

    Required fields first; every optional field has a secure default.
    """

    resource_group_name: Required[pulumi.Input[str]]
    """Resource group that holds the workspace and every dependency this component creates."""
    location: Required[pulumi.Input[str]]
    """Azure region of the workspace and its dependencies (and, by default, of its computes)."""

    name: str
    """Azure name of the ML workspace."""
    kind: Literal["default", "hub", "project"]
    """`hub` shares its resources and network with `project` workspaces; `default` stands alone."""
    hub_id: pulumi.Input[str]
    """ARM id of the hub a `project` workspace belongs to."""
    display_name: pulumi.Input[str]
    """Name shown in the studio."""
    description: pulumi.Input[str]
    """Free-text description of the workspace."""
    tenant_id: pulumi.Input[str]
    """Entra tenant of a created key vault."""

    storage_account: pulumi.Input[str]
    """ARM id of an existing storage account to use; unset: one is created."""
    storage_account_name: str
    """Name of the created storage account."""
    key_vault: pulumi.Input[str]
    """ARM id of an existing key vault to use; unset: one is created."""
    key_vault_name: str
    """Name of the created key vault."""
    log_analytics_workspace: pulumi.Input[str]
    """ARM id of an existing Log Analytics workspace; unset: one is created."""
    log_analytics_workspace_name: str
    """Name of the created Log Analytics workspace."""
    log_retention_days: int
    """Retention of a created Log Analytics workspace, in days."""
    application_insights: pulumi.Input[str]
    """ARM id of an existing Application Insights component; unset: one is created."""
    application_insights_name: str
    """Name of the created Application Insights component."""
    container_registry: pulumi.Input[str] | bool
    """An existing registry's ARM id, True to create one (admin user off), False for none."""
    container_registry_name: str
    """Name of the created container registry."""
    container_registry_sku: Literal["Basic", "Standard", "Premium"]
    """SKU of a created registry (`Premium` is the only one that takes private endpoints)."""
    storage_sku: str
    """SKU of a created storage account."""
    storage_shared_key_access: bool
    """Allow shared-key (account key, SAS) access to a created storage account."""

    identity: IdentitySpec
    """The workspace's managed identity (`type: none` is refused: a workspace needs one)."""
    primary_user_assigned_identity: pulumi.Input[str]
    """With user-assigned identities: the one the workspace uses by default."""
    public_network_access: Literal["enabled", "disabled"]
    """Access to the workspace (and the dependencies created for it) from public networks."""
    managed_network: ManagedNetwork
    """The workspace's managed virtual network (`{isolation_mode: ...}`)."""
    image_build_compute: str
    """Compute cluster or instance of this workspace that builds environment images (needed when the container
    registry is private: it cannot build images itself)."""
    private_endpoints: Mapping[str, PrivateEndpoint]
    """Inbound private endpoints of the workspace, by key (a managed network isolates outbound traffic only)."""
    serverless_compute: ServerlessCompute
    """Network settings of serverless compute jobs."""
    customer_managed_key: CustomerManagedKey
    """Encrypt workspace data with your own key; unset: Microsoft-managed keys."""
    hbi_workspace: bool
    """High business impact: less diagnostic data, encrypted local scratch disks."""
    enable_diagnostics: bool
    """Send the workspace's logs and metrics to Log Analytics."""
    locks: bool
    """CanNotDelete locks on the created workspace, storage account and key vault (never the group); only without a
    managed network (how-to-managed-network.md, Limitations: no scope locks on the Azure ML resources)."""
    protect_data: bool
    """Protect workspace, storage and key vault from deletion; keep storage on delete."""
    tags: Mapping[str, str]
    """Tags on every resource this component creates."""


ARGS: dict[str, ArgInfo] = {
    "resource_group_name": ArgInfo(REQUIRED, "resourceGroupName (of every child)"),
    "location": ArgInfo(REQUIRED, "location (of every child)"),
    "name": ArgInfo("derived from the component name", "workspaceName", facts.WORKSPACE_NAME.allowed),
    "kind": ArgInfo("`default`", "kind (`Default` | `Hub` | `Project`)"),
    "hub_id": ArgInfo("none (required with `kind: project`)", "hubResourceId"),
    "display_name": ArgInfo("none", "friendlyName"),
    "description": ArgInfo("none", "description"),
    "tenant_id": ArgInfo("the tenant of the deploying identity", "key vault properties.tenantId"),
    "storage_account": ArgInfo("a created one", "storageAccount"),
    "storage_account_name": ArgInfo("derived (`st<name><hash>`)", "storage account accountName",
                                    facts.STORAGE_ACCOUNT_NAME.allowed),
    "key_vault": ArgInfo("a created one", "keyVault"),
    "key_vault_name": ArgInfo("derived (`kv-<name>-<hash>`)", "key vault vaultName", facts.KEY_VAULT_NAME.allowed),
    "log_analytics_workspace": ArgInfo("a created one", "diagnostic setting workspaceId, App Insights "
                                                        "workspaceResourceId"),
    "log_analytics_workspace_name": ArgInfo("derived (`log-<name>`)", "Log Analytics workspaceName"),
    "log_retention_days": ArgInfo("30", "Log Analytics retentionInDays"),
    "application_insights": ArgInfo("a created one", "applicationInsights"),
    "application_insights_name": ArgInfo("derived (`appi-<name>`)", "App Insights resourceName"),
    "container_registry": ArgInfo("False (Azure creates one on first image build)", "containerRegistry"),
    "container_registry_name": ArgInfo("derived (`cr<name><hash>`)", "registry registryName",
                                       facts.CONTAINER_REGISTRY_NAME.allowed),
    "container_registry_sku": ArgInfo("`Premium`", "registry sku.name"),
    "storage_sku": ArgInfo("`Standard_LRS`", "storage account sku.name"),
    "storage_shared_key_access": ArgInfo(
        "False", "storage account allowSharedKeyAccess; workspace systemDatastoresAuthMode"),
    "identity": ArgInfo("`{type: system_assigned}`", "identity.type, identity.userAssignedIdentities"),
    "primary_user_assigned_identity": ArgInfo("the first user-assigned identity", "primaryUserAssignedIdentity"),
    "public_network_access": ArgInfo("`disabled`", "publicNetworkAccess (`Enabled` | `Disabled`), and of "
                                                   "the created dependencies"),
    "managed_network": ArgInfo("`{isolation_mode: allow_only_approved_outbound}`", "managedNetwork.isolationMode"),
    "image_build_compute": ArgInfo("none (the registry builds images)", "imageBuildCompute", BUILDER_ALLOWED),
    "private_endpoints": ArgInfo(
        "none", "child network PrivateEndpoint (group `amlworkspace`; Azure name `pep-<workspace>-<key>`) and its "
        "PrivateDnsZoneGroup (default name `default`) per key", f"keys: {PRIVATE_ENDPOINT_KEY_ALLOWED}"),
    "serverless_compute": ArgInfo("no public IP when there is a private network", "serverlessComputeSettings"),
    "customer_managed_key": ArgInfo("none (Microsoft-managed keys)", "encryption"),
    "hbi_workspace": ArgInfo("True", "hbiWorkspace"),
    "enable_diagnostics": ArgInfo("True", "child Microsoft.Insights/diagnosticSettings"),
    "locks": ArgInfo("False", "child Microsoft.Authorization/locks (CanNotDelete)"),
    "protect_data": ArgInfo("False", "resource options protect, retainOnDelete"),
    "tags": ArgInfo("none", "tags (of every child)"),
}
for _nested in (UserAssignedIdentity, IdentitySpec, ManagedNetwork, ServerlessCompute, CustomerManagedKey,
                PrivateEndpoint):
    document_nested(_nested)
document(WorkspaceArgs, ARGS)

# Former argument names -> today's, for error hints.
RENAMED = {
    "workspace_name": "name", "friendly_name": "display_name", "storage_account_id": "storage_account",
    "key_vault_id": "key_vault", "log_analytics_workspace_id": "log_analytics_workspace",
    "application_insights_id": "application_insights", "user_assigned_identity_ids": "identity",
    "primary_user_assigned_identity_id": "primary_user_assigned_identity",
    "managed_network_isolation_mode": "managed_network", "serverless_compute_subnet_id": "serverless_compute",
    "serverless_compute_no_public_ip": "serverless_compute", "cmk_key_vault_id": "customer_managed_key",
    "cmk_key_uri": "customer_managed_key", "cmk_user_assigned_identity_id": "customer_managed_key",
    "lock_resources": "locks",
}
