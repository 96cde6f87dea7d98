"""The Azure Machine Learning workspace component and the resources it depends on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, Required, TypedDict

import pulumi


class WorkspaceArgs(TypedDict, total=False):
    """Inputs of `Workspace`. Required fields first; every optional field has a secure default."""

    resource_group_name: Required[pulumi.Input[str]]
    """Resource group that holds the workspace and every dependency this component creates."""
    location: Required[pulumi.Input[str]]
    """Azure region of the workspace and its dependencies, e.g. `westeurope`."""

    workspace_name: str
    """Azure name of the ML workspace (3-33 chars). Default: derived from the component name."""
    kind: Literal["Default", "Hub", "Project"]
    """Workspace kind. Default `Default`. `Project` needs `hub_id`."""
    hub_id: pulumi.Input[str]
    """ARM id of the hub workspace a `Project` belongs to (ARM `hubResourceId`)."""
    friendly_name: pulumi.Input[str]
    """Display name shown in the studio. Default: none."""
    description: pulumi.Input[str]
    """Free-text description of the workspace."""
    tenant_id: pulumi.Input[str]
    """Entra tenant of a created key vault. Default: the tenant of the deploying identity."""

    storage_account_id: pulumi.Input[str]
    """ARM id of an existing storage account to reuse. Default: create one."""
    storage_account_name: str
    """Name of the created storage account (3-24 lowercase alphanumerics). Default: derived."""
    key_vault_id: pulumi.Input[str]
    """ARM id of an existing key vault to reuse. Default: create one."""
    key_vault_name: str
    """Name of the created key vault (3-24 chars). Default: derived."""
    log_analytics_workspace_id: pulumi.Input[str]
    """ARM id of an existing Log Analytics workspace to reuse. Default: create one."""
    log_analytics_workspace_name: str
    """Name of the created Log Analytics workspace. Default: derived."""
    log_retention_days: int
    """Retention of a created Log Analytics workspace, in days. Default 30."""
    application_insights_id: pulumi.Input[str]
    """ARM id of an existing Application Insights component to reuse. Default: create one."""
    application_insights_name: str
    """Name of the created Application Insights component. Default: derived."""
    container_registry: pulumi.Input[str] | bool | None
    """An existing registry's ARM id, True to create one (admin user off), False/None for none."""
    container_registry_name: str
    """Name of the created container registry (5-50 alphanumerics). Default: derived."""

    user_assigned_identity_ids: Sequence[pulumi.Input[str]]
    """User-assigned identities. Given: identity `UserAssigned`; absent: `SystemAssigned`."""
    primary_user_assigned_identity_id: pulumi.Input[str]
    """The workspace's primary user-assigned identity. Default: the first of the ids."""
    public_network_access: Literal["Enabled", "Disabled"]
    """Public network access to the workspace. Default `Disabled`."""
    managed_network_isolation_mode: Literal["Disabled", "AllowInternetOutbound", "AllowOnlyApprovedOutbound"]
    """Managed network isolation. Default `AllowOnlyApprovedOutbound` (cannot be disabled later)."""
    serverless_compute_subnet_id: pulumi.Input[str]
    """Subnet for serverless compute. Default: none (Azure-managed network)."""
    serverless_compute_no_public_ip: bool
    """Serverless compute nodes without public IPs. Default True."""
    cmk_key_vault_id: pulumi.Input[str]
    """Key vault of the customer-managed key. Both `cmk_*` ids or neither."""
    cmk_key_uri: pulumi.Input[str]
    """Key identifier (URI) of the customer-managed key."""
    cmk_user_assigned_identity_id: pulumi.Input[str]
    """User-assigned identity that reads the customer-managed key. Default: the workspace identity."""
    hbi_workspace: bool
    """High business impact workspace (less telemetry, encrypted scratch disks). Default True."""
    enable_diagnostics: bool
    """Send the workspace's logs and metrics to Log Analytics. Default True."""
    lock_resources: bool
    """CanNotDelete locks on the created workspace, storage account and key vault. Default False."""
    protect_data: bool
    """Protect workspace, storage and key vault from deletion; keep storage on delete. Default False."""
    tags: Mapping[str, str]
    """Tags on every resource this component creates."""


class Workspace(pulumi.ComponentResource):
    """An Azure ML workspace with its storage account, key vault, monitoring and registry."""

    workspace_id: pulumi.Output[str]
    workspace_name: pulumi.Output[str]
    storage_account_id: pulumi.Output[str]
    key_vault_id: pulumi.Output[str]
    application_insights_id: pulumi.Output[str]
    log_analytics_workspace_id: pulumi.Output[str]
    container_registry_id: pulumi.Output[str | None]
    principal_id: pulumi.Output[str | None]

    def __init__(self, name: str, args: WorkspaceArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("amlkit:index:Workspace", name, None, opts)
        raise NotImplementedError("Workspace is being written")
