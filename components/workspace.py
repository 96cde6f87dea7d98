"""The Azure Machine Learning workspace component and the resources it depends on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Required, TypedDict

import pulumi
from pulumi_azure_native import (
    applicationinsights,
    authorization,
    containerregistry,
    keyvault,
    monitor,
    operationalinsights,
    storage,
)
from pulumi_azure_native import machinelearningservices as ml

from amlkit.components import naming
from amlkit.errors import ConfigError

TYPE_TOKEN = "amlkit:index:Workspace"
KINDS = ("Default", "Hub", "Project")
PUBLIC_NETWORK_ACCESS = ("Enabled", "Disabled")
ISOLATION_MODES = ("Disabled", "AllowInternetOutbound", "AllowOnlyApprovedOutbound")
REGISTRY_SKUS = ("Basic", "Standard", "Premium")


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
    container_registry_sku: Literal["Basic", "Standard", "Premium"]
    """SKU of a created registry. Default `Premium` (the only one that takes private endpoints)."""
    storage_sku: str
    """SKU of a created storage account. Default `Standard_LRS`."""
    storage_shared_key_access: bool
    """Allow shared-key (account key, SAS) access to a created storage account. Default False."""

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
    """An Azure ML workspace with its storage account, key vault, monitoring and registry.

    Each dependency is created here unless the caller passes the ARM id of an existing one. A
    `Project` workspace takes its storage, key vault, monitoring, registry and network from its hub,
    so none is created for it (only the Log Analytics workspace its diagnostics go to).

    Deleting: a deleted workspace is soft-deleted and kept for 14 days; its name cannot be reused
    in that time, so re-creating the same name fails until the workspace is purged with
    `az ml workspace delete --name <ws> --resource-group <rg> --permanently-delete` (or
    `MLClient.workspaces.begin_delete(name, permanently_delete=True)`).
    https://learn.microsoft.com/azure/machine-learning/concept-soft-delete
    `protect_data` stops Pulumi from deleting the workspace, storage account and key vault, and
    keeps the storage account in Azure when it leaves the stack.
    """

    workspace_id: pulumi.Output[str]
    workspace_name: pulumi.Output[str]
    storage_account_id: pulumi.Output[str | None]
    key_vault_id: pulumi.Output[str | None]
    application_insights_id: pulumi.Output[str | None]
    log_analytics_workspace_id: pulumi.Output[str | None]
    container_registry_id: pulumi.Output[str | None]
    principal_id: pulumi.Output[str | None]

    def __init__(self, name: str, args: WorkspaceArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(TYPE_TOKEN, name, None, opts)
        validate(args)
        self._name = name
        self._args = args
        self._tags = dict(args.get("tags") or {})
        # Not `_protect`: pulumi.Resource keeps its own protect flag there and children inherit it.
        self._protect_data = bool(args.get("protect_data", False))
        self._locked: list[tuple[str, pulumi.CustomResource]] = []

        project = args.get("kind") == "Project"
        needs_logs = not project or args.get("enable_diagnostics", True)
        log_analytics_id = self._log_analytics_id() if needs_logs else None
        deps: dict[str, pulumi.Input[str] | None] = {
            "storage_account": None, "key_vault": None, "application_insights": None,
            "container_registry": None,
        }
        if not project:
            deps = {
                "storage_account": self._storage_account_id(),
                "key_vault": self._key_vault_id(),
                "application_insights": self._application_insights_id(log_analytics_id),
                "container_registry": self._container_registry_id(),
            }
        workspace = self._workspace(deps)
        if args.get("enable_diagnostics", True):
            self._diagnostics(workspace, log_analytics_id)
        if args.get("lock_resources", False):
            self._locks()

        self.workspace_id = workspace.id
        self.workspace_name = workspace.name
        self.storage_account_id = pulumi.Output.from_input(deps["storage_account"])
        self.key_vault_id = pulumi.Output.from_input(deps["key_vault"])
        self.application_insights_id = pulumi.Output.from_input(deps["application_insights"])
        self.log_analytics_workspace_id = pulumi.Output.from_input(log_analytics_id)
        self.container_registry_id = pulumi.Output.from_input(deps["container_registry"])
        self.principal_id = workspace.identity.apply(lambda i: i.principal_id if i else None)
        self.register_outputs({
            "workspace_id": self.workspace_id,
            "workspace_name": self.workspace_name,
            "storage_account_id": self.storage_account_id,
            "key_vault_id": self.key_vault_id,
            "application_insights_id": self.application_insights_id,
            "log_analytics_workspace_id": self.log_analytics_workspace_id,
            "container_registry_id": self.container_registry_id,
            "principal_id": self.principal_id,
        })

    def _opts(self, **kwargs: Any) -> pulumi.ResourceOptions:
        return pulumi.ResourceOptions(parent=self, **kwargs)

    def _common(self) -> dict[str, Any]:
        return {
            "resource_group_name": self._args["resource_group_name"],
            "location": self._args["location"],
            "tags": self._tags,
        }

    def _dependency_access(self) -> str:
        """Created dependencies are as reachable as the workspace: a private workspace reaches them
        through the private endpoints its managed network (or the caller's network) provides."""
        return self._args.get("public_network_access", "Disabled")

    def _log_analytics_id(self) -> pulumi.Input[str]:
        existing = self._args.get("log_analytics_workspace_id")
        if existing:
            return existing
        name = naming.resource_name(
            self._args.get("log_analytics_workspace_name"),
            naming.prefixed_name("log", self._name, 63),
            naming.LOG_ANALYTICS,
            "log_analytics_workspace_name",
        )
        logs = operationalinsights.Workspace(
            f"{self._name}-logs",
            workspace_name=name,
            sku=operationalinsights.WorkspaceSkuArgs(name="PerGB2018"),
            retention_in_days=self._args.get("log_retention_days", 30),
            **self._common(),
            opts=self._opts(),
        )
        return logs.id

    def _application_insights_id(self, log_analytics_id: pulumi.Input[str] | None) -> pulumi.Input[str]:
        existing = self._args.get("application_insights_id")
        if existing:
            return existing
        name = naming.resource_name(
            self._args.get("application_insights_name"),
            naming.prefixed_name("appi", self._name, 255),
            naming.APP_INSIGHTS,
            "application_insights_name",
        )
        component = applicationinsights.Component(
            f"{self._name}-appinsights",
            resource_name_=name,
            kind="web",
            application_type="web",
            ingestion_mode="LogAnalytics",
            workspace_resource_id=log_analytics_id,
            **self._common(),
            opts=self._opts(),
        )
        return component.id

    def _storage_account_id(self) -> pulumi.Input[str]:
        existing = self._args.get("storage_account_id")
        if existing:
            return existing
        name = naming.resource_name(
            self._args.get("storage_account_name"),
            naming.storage_account_name(self._name),
            naming.STORAGE_ACCOUNT,
            "storage_account_name",
        )
        # Shared-key access is off by default: Azure ML supports a workspace whose default storage
        # refuses shared keys when the workspace reaches its system datastores with Entra ID
        # (systemDatastoresAuthMode = identity, set on the workspace below). The feature is still in
        # preview, so `storage_shared_key_access=True` turns keys back on for what needs them.
        # https://learn.microsoft.com/azure/machine-learning/how-to-disable-local-auth-storage
        shared_key = bool(self._args.get("storage_shared_key_access", False))
        account = storage.StorageAccount(
            f"{self._name}-storage",
            account_name=name,
            kind="StorageV2",
            sku=storage.SkuArgs(name=self._args.get("storage_sku", "Standard_LRS")),
            allow_blob_public_access=False,
            allow_shared_key_access=shared_key,
            default_to_o_auth_authentication=not shared_key,
            allow_cross_tenant_replication=False,
            enable_https_traffic_only=True,
            minimum_tls_version="TLS1_2",
            # Azure ML cannot use a hierarchical-namespace (ADLS Gen2) account as default storage.
            is_hns_enabled=False,
            public_network_access=self._dependency_access(),
            **self._common(),
            opts=self._opts(protect=self._protect_data, retain_on_delete=self._protect_data),
        )
        self._locked.append(("storage", account))
        return account.id

    def _key_vault_id(self) -> pulumi.Input[str]:
        existing = self._args.get("key_vault_id")
        if existing:
            return existing
        name = naming.resource_name(
            self._args.get("key_vault_name"),
            naming.key_vault_name(self._name),
            naming.KEY_VAULT,
            "key_vault_name",
        )
        tenant_id = self._args.get("tenant_id") or authorization.get_client_config_output(
            opts=pulumi.InvokeOutputOptions(parent=self)
        ).tenant_id
        vault = keyvault.Vault(
            f"{self._name}-keyvault",
            vault_name=name,
            properties=keyvault.VaultPropertiesArgs(
                tenant_id=tenant_id,
                sku=keyvault.SkuArgs(family="A", name=keyvault.SkuName.STANDARD),
                enable_rbac_authorization=True,
                enable_soft_delete=True,
                soft_delete_retention_in_days=90,
                enable_purge_protection=True,
                public_network_access=self._dependency_access().lower(),
            ),
            **self._common(),
            opts=self._opts(protect=self._protect_data),
        )
        self._locked.append(("keyvault", vault))
        return vault.id

    def _container_registry_id(self) -> pulumi.Input[str] | None:
        choice = self._args.get("container_registry")
        if choice is None or choice is False:
            return None
        if choice is not True:
            return choice
        name = naming.resource_name(
            self._args.get("container_registry_name"),
            naming.container_registry_name(self._name),
            naming.CONTAINER_REGISTRY,
            "container_registry_name",
        )
        registry = containerregistry.Registry(
            f"{self._name}-registry",
            registry_name=name,
            sku=containerregistry.SkuArgs(name=self._args.get("container_registry_sku", "Premium")),
            admin_user_enabled=False,
            public_network_access=self._dependency_access(),
            **self._common(),
            opts=self._opts(),
        )
        return registry.id

    def _workspace(self, deps: Mapping[str, pulumi.Input[str] | None]) -> ml.Workspace:
        args = self._args
        project = args.get("kind") == "Project"
        name = naming.resource_name(
            args.get("workspace_name"), naming.prefixed_name("", self._name, 33), naming.ML_WORKSPACE,
            "workspace_name",
        )
        workspace = ml.Workspace(
            f"{self._name}-workspace",
            workspace_name=name,
            kind=args.get("kind", "Default"),
            hub_resource_id=args.get("hub_id"),
            friendly_name=args.get("friendly_name"),
            description=args.get("description"),
            identity=workspace_identity(args),
            primary_user_assigned_identity=primary_identity(args),
            storage_account=deps["storage_account"],
            key_vault=deps["key_vault"],
            application_insights=deps["application_insights"],
            container_registry=deps["container_registry"],
            public_network_access=args.get("public_network_access", "Disabled"),
            allow_public_access_when_behind_vnet=False,
            managed_network=None if project else ml.ManagedNetworkSettingsArgs(
                isolation_mode=isolation_mode(args)
            ),
            serverless_compute_settings=serverless_settings(args),
            encryption=encryption(args),
            hbi_workspace=args.get("hbi_workspace", True),
            system_datastores_auth_mode=system_datastores_auth_mode(args),
            **self._common(),
            opts=self._opts(protect=self._protect_data),
        )
        self._locked.append(("workspace", workspace))
        return workspace

    def _diagnostics(self, workspace: ml.Workspace, log_analytics_id: pulumi.Input[str] | None) -> None:
        monitor.DiagnosticSetting(
            f"{self._name}-diagnostics",
            name="to-log-analytics",
            resource_uri=workspace.id,
            workspace_id=log_analytics_id,
            logs=[monitor.DiagnosticsLogSettingsArgs(category_group="allLogs", enabled=True)],
            metrics=[monitor.DiagnosticsMetricSettingsArgs(category="AllMetrics", enabled=True)],
            opts=self._opts(),
        )

    def _locks(self) -> None:
        """CanNotDelete locks on each resource created here; never on the resource group, which
        would stall compute cluster scaling."""
        for label, resource in self._locked:
            authorization.ManagementLockByScope(
                f"{self._name}-{label}-lock",
                scope=resource.id,
                level=authorization.LockLevel.CAN_NOT_DELETE,
                lock_name=f"{label}-cannot-delete",
                notes=f"Protects the {label} of Azure ML workspace component {self._name}.",
                opts=self._opts(),
            )


def workspace_identity(args: WorkspaceArgs) -> ml.ManagedServiceIdentityArgs:
    """UserAssigned with the given ids, else SystemAssigned."""
    ids = list(args.get("user_assigned_identity_ids") or [])
    if ids:
        return ml.ManagedServiceIdentityArgs(type="UserAssigned", user_assigned_identities=ids)
    return ml.ManagedServiceIdentityArgs(type="SystemAssigned")


def primary_identity(args: WorkspaceArgs) -> pulumi.Input[str] | None:
    """The explicit primary user-assigned identity, else the first one, else none."""
    ids = list(args.get("user_assigned_identity_ids") or [])
    return args.get("primary_user_assigned_identity_id") or (ids[0] if ids else None)


def isolation_mode(args: WorkspaceArgs) -> str:
    return args.get("managed_network_isolation_mode", "AllowOnlyApprovedOutbound")


def serverless_settings(args: WorkspaceArgs) -> ml.ServerlessComputeSettingsArgs | None:
    """No public IP for serverless compute whenever it has a private network to use.

    Without a custom subnet or a managed network serverless nodes need a public IP, so the
    setting is only sent when the caller asks for it explicitly.
    """
    subnet = args.get("serverless_compute_subnet_id")
    private = subnet is not None or (
        args.get("kind") != "Project" and isolation_mode(args) != "Disabled"
    )
    if not private and "serverless_compute_no_public_ip" not in args:
        return None
    return ml.ServerlessComputeSettingsArgs(
        serverless_compute_custom_subnet=subnet,
        serverless_compute_no_public_ip=args.get("serverless_compute_no_public_ip", private),
    )


def encryption(args: WorkspaceArgs) -> ml.EncryptionPropertyArgs | None:
    if "cmk_key_vault_id" not in args:
        return None
    identity = args.get("cmk_user_assigned_identity_id")
    return ml.EncryptionPropertyArgs(
        status="Enabled",
        key_vault_properties=ml.KeyVaultPropertiesArgs(
            key_vault_arm_id=args["cmk_key_vault_id"], key_identifier=args["cmk_key_uri"]
        ),
        identity=ml.IdentityForCmkArgs(user_assigned_identity=identity) if identity else None,
    )


def system_datastores_auth_mode(args: WorkspaceArgs) -> str | None:
    """`identity` when this component creates a storage account without shared keys."""
    creates_storage = args.get("kind") != "Project" and not args.get("storage_account_id")
    if creates_storage and not args.get("storage_shared_key_access", False):
        return "identity"
    return None


def validate(args: WorkspaceArgs) -> None:
    """Check the cross-field rules; raise a ConfigError naming the field and the allowed values."""
    for key in ("resource_group_name", "location"):
        if not args.get(key):
            raise ConfigError(None, key, "is required")
    _one_of(args, "kind", KINDS)
    _one_of(args, "public_network_access", PUBLIC_NETWORK_ACCESS)
    _one_of(args, "managed_network_isolation_mode", ISOLATION_MODES)
    _one_of(args, "container_registry_sku", REGISTRY_SKUS)
    project = args.get("kind") == "Project"
    if project and not args.get("hub_id"):
        raise ConfigError(None, "hub_id", "is required when kind is Project")
    if not project and args.get("hub_id"):
        raise ConfigError(None, "hub_id", "is only allowed when kind is Project", args.get("hub_id"))
    registry = args.get("container_registry")
    if registry is not None and not isinstance(registry, (bool, str, pulumi.Output)):
        raise ConfigError(
            None, "container_registry", "must be an existing registry's ARM id, True or False", registry
        )
    if isinstance(registry, str) and not registry:
        raise ConfigError(None, "container_registry", "an empty id: give an ARM id, True or False")
    if ("cmk_key_vault_id" in args) != ("cmk_key_uri" in args):
        raise ConfigError(None, "cmk_key_uri", "cmk_key_vault_id and cmk_key_uri go together")
    primary = args.get("primary_user_assigned_identity_id")
    ids = list(args.get("user_assigned_identity_ids") or [])
    if primary and not ids:
        raise ConfigError(
            None, "primary_user_assigned_identity_id", "needs user_assigned_identity_ids"
        )
    known = isinstance(primary, str) and all(isinstance(i, str) for i in ids)
    if primary and known and primary.lower() not in {i.lower() for i in ids}:
        raise ConfigError(
            None, "primary_user_assigned_identity_id", "must be one of user_assigned_identity_ids", primary
        )


def _one_of(args: Mapping[str, Any], key: str, allowed: Sequence[str]) -> None:
    if key in args and args[key] not in allowed:
        raise ConfigError(None, key, f"must be one of {', '.join(allowed)}", args[key])
