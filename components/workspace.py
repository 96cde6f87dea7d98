"""The Azure Machine Learning workspace component and the resources it depends on.

Its arguments (`WorkspaceArgs` and the nested specs) live in `workspace_args` and are re-exported here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import pulumi
from pulumi_azure_native import (
    applicationinsights,
    authorization,
    containerregistry,
    keyvault,
    monitor,
    network,
    operationalinsights,
    storage,
)
from pulumi_azure_native import machinelearningservices as ml

from amlkit import azure_facts as facts
from amlkit.components import naming
from amlkit.components.args import check, label, named
from amlkit.components.outputs import expose, principal_id
from amlkit.components.workspace_args import (
    ARGS,
    ISOLATION_MODES,
    KINDS,
    RENAMED,
    CustomerManagedKey,
    IdentitySpec,
    ManagedNetwork,
    PrivateEndpoint,
    ServerlessCompute,
    UserAssignedIdentity,
    WorkspaceArgs,
)
from amlkit.components.workspace_checks import CHILD_NAMES, has_managed_network, isolation_mode, validate
from amlkit.schema.types import DNS_ZONE_GROUP_DEFAULT

TYPE_TOKEN = "amlkit:index:Workspace"

__all__ = [
    "KINDS",
    "ISOLATION_MODES",
    "UserAssignedIdentity",
    "IdentitySpec",
    "ManagedNetwork",
    "ServerlessCompute",
    "CustomerManagedKey",
    "PrivateEndpoint",
    "WorkspaceArgs",
    "ARGS",
    "RENAMED",
    "Workspace",
]


class Workspace(pulumi.ComponentResource):
    """An Azure ML workspace with its storage account, key vault, monitoring and registry.

    Each dependency is created here unless the caller passes the ARM id of an existing one. A
    `project` workspace takes its storage, key vault, monitoring, registry and network from its hub,
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

    resource_group_name: pulumi.Output[str]
    location: pulumi.Output[str]

    def __init__(self, name: str, args: WorkspaceArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        component = label("Workspace", name)
        check(WorkspaceArgs, component, args, RENAMED, sourced=True)
        args = {key: value for key, value in args.items() if value is not None}  # type: ignore[assignment]
        with named(component):
            validate(args)
            workspace_name = naming.resource_name(
                args.get("name"), naming.prefixed_name("", name, facts.WORKSPACE_NAME), facts.WORKSPACE_NAME, "name",
            )
        super().__init__(TYPE_TOKEN, name, None, opts)
        self._name = name
        self._args = args
        self._workspace_name = workspace_name
        self.has_managed_network = has_managed_network(args)  # read by computes given `workspace`
        self._tags = dict(args.get("tags") or {})
        # Not `_protect`: pulumi.Resource keeps its own protect flag there and children inherit it.
        self._protect_data = bool(args.get("protect_data", False))
        self._locked: list[tuple[str, pulumi.CustomResource]] = []

        project = args.get("kind") == "project"
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
        self._private_endpoints(workspace)
        if args.get("enable_diagnostics", True):
            self._diagnostics(workspace, log_analytics_id)
        if args.get("locks", False):
            self._locks()

        expose(
            self,
            workspace_id=workspace.id,
            workspace_name=workspace.name,
            resource_group_name=pulumi.Output.from_input(args["resource_group_name"]),
            location=pulumi.Output.from_input(args["location"]),
            storage_account_id=pulumi.Output.from_input(deps["storage_account"]),
            key_vault_id=pulumi.Output.from_input(deps["key_vault"]),
            application_insights_id=pulumi.Output.from_input(deps["application_insights"]),
            log_analytics_workspace_id=pulumi.Output.from_input(log_analytics_id),
            container_registry_id=pulumi.Output.from_input(deps["container_registry"]),
            principal_id=principal_id(workspace),
        )

    def _opts(self, **kwargs: Any) -> pulumi.ResourceOptions:
        return pulumi.ResourceOptions(parent=self, **kwargs)

    def _common(self) -> dict[str, Any]:
        return {
            "resource_group_name": self._args["resource_group_name"],
            "location": self._args["location"],
            "tags": self._tags,
        }

    def _child_name(self, key: str, default: str) -> str:
        """The `key` argument, else the derived `default`; either checked against Azure's rule for it."""
        given = cast("str | None", self._args.get(key))  # the name keys are str (check() refused anything else)
        return naming.resource_name(given, default, CHILD_NAMES[key], key)

    def _dependency_access(self) -> str:
        """Created dependencies are as reachable as the workspace: a private workspace reaches them
        through the private endpoints its managed network (or the caller's network) provides."""
        return public_access(self._args)

    def _log_analytics_id(self) -> pulumi.Input[str]:
        existing = self._args.get("log_analytics_workspace")
        if existing:
            return existing
        name = self._child_name("log_analytics_workspace_name",
                                naming.prefixed_name("log", self._name, facts.LOG_ANALYTICS_NAME))
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
        existing = self._args.get("application_insights")
        if existing:
            return existing
        name = self._child_name("application_insights_name",
                                naming.prefixed_name("appi", self._name, facts.APP_INSIGHTS_NAME))
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
        existing = self._args.get("storage_account")
        if existing:
            return existing
        name = self._child_name("storage_account_name", naming.storage_account_name(self._name))
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
        existing = self._args.get("key_vault")
        if existing:
            return existing
        name = self._child_name("key_vault_name", naming.key_vault_name(self._name))
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
        name = self._child_name("container_registry_name", naming.container_registry_name(self._name))
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
        project = args.get("kind") == "project"
        workspace = ml.Workspace(
            f"{self._name}-workspace",
            workspace_name=self._workspace_name,
            kind=KINDS[args.get("kind", "default")],
            hub_resource_id=args.get("hub_id"),
            friendly_name=args.get("display_name"),
            description=args.get("description"),
            identity=workspace_identity(args),
            primary_user_assigned_identity=primary_identity(args),
            storage_account=deps["storage_account"],
            key_vault=deps["key_vault"],
            application_insights=deps["application_insights"],
            container_registry=deps["container_registry"],
            public_network_access=public_access(args),
            allow_public_access_when_behind_vnet=False,
            managed_network=None if project else ml.ManagedNetworkSettingsArgs(
                isolation_mode=isolation_mode(args)
            ),
            serverless_compute_settings=serverless_settings(args),
            encryption=encryption(args),
            hbi_workspace=args.get("hbi_workspace", True),
            image_build_compute=args.get("image_build_compute"),
            system_datastores_auth_mode=system_datastores_auth_mode(args),
            **self._common(),
            opts=self._opts(protect=self._protect_data),
        )
        self._locked.append(("workspace", workspace))
        return workspace

    def _private_endpoints(self, workspace: ml.Workspace) -> None:
        """Per `private_endpoints` key: an inbound private endpoint (group `amlworkspace`) in the given subnet,
        and its private DNS zone group when zones are given (Azure Verified Modules' `private_endpoints`)."""
        for key, spec in (self._args.get("private_endpoints") or {}).items():
            name = spec.get("name") or naming.prefixed_name("pep", f"{self._workspace_name}-{key}",
                                                             facts.PRIVATE_ENDPOINT_NAME)
            endpoint = network.PrivateEndpoint(
                f"{self._name}-pe-{key}",
                private_endpoint_name=name,
                subnet=network.SubnetArgs(id=spec["subnet_resource_id"]),
                private_link_service_connections=[network.PrivateLinkServiceConnectionArgs(
                    name=name, private_link_service_id=workspace.id,
                    group_ids=[facts.WORKSPACE_PRIVATE_LINK_GROUP],
                )],
                **self._common(),
                opts=self._opts(),
            )
            zones = list(spec.get("private_dns_zone_resource_ids") or [])
            if not zones:
                continue
            network.PrivateDnsZoneGroup(
                f"{self._name}-pe-{key}-dns",
                private_endpoint_name=name,
                resource_group_name=self._args["resource_group_name"],
                private_dns_zone_group_name=spec.get("private_dns_zone_group_name", DNS_ZONE_GROUP_DEFAULT),
                private_dns_zone_configs=[
                    network.PrivateDnsZoneConfigArgs(name=_zone_config_name(zone, index), private_dns_zone_id=zone)
                    for index, zone in enumerate(zones)
                ],
                opts=self._opts(depends_on=[endpoint]),
            )

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
        for kind, resource in self._locked:
            authorization.ManagementLockByScope(
                f"{self._name}-{kind}-lock",
                scope=resource.id,
                level=authorization.LockLevel.CAN_NOT_DELETE,
                lock_name=f"{kind}-cannot-delete",
                notes=f"Protects the {kind} of Azure ML workspace component {self._name}.",
                opts=self._opts(),
            )


def _zone_config_name(zone: pulumi.Input[str], index: int) -> str:
    """A DNS zone config is named after its zone (`privatelink.api.azureml.ms`); `config<n>` while the id is an
    output."""
    return zone.rstrip("/").rsplit("/", 1)[-1] if isinstance(zone, str) and zone.strip("/") else f"config{index + 1}"


def public_access(args: Mapping[str, Any]) -> str:
    """ARM's `Enabled` / `Disabled` for `public_network_access` (default disabled)."""
    return "Enabled" if args.get("public_network_access", "disabled") == "enabled" else "Disabled"


def user_identity_ids(args: Mapping[str, Any]) -> list[pulumi.Input[str]]:
    identity = args.get("identity") or {}
    return [entry["resource_id"] for entry in identity.get("user_assigned_identities") or []]


def workspace_identity(args: Mapping[str, Any]) -> ml.ManagedServiceIdentityArgs:
    """UserAssigned with the given ids, else SystemAssigned."""
    ids = user_identity_ids(args)
    if ids:
        return ml.ManagedServiceIdentityArgs(type="UserAssigned", user_assigned_identities=ids)
    return ml.ManagedServiceIdentityArgs(type="SystemAssigned")


def primary_identity(args: Mapping[str, Any]) -> pulumi.Input[str] | None:
    """The explicit primary user-assigned identity, else the first one, else none."""
    ids = user_identity_ids(args)
    return args.get("primary_user_assigned_identity") or (ids[0] if ids else None)


def serverless_settings(args: Mapping[str, Any]) -> ml.ServerlessComputeSettingsArgs | None:
    """No public IP for serverless compute whenever it has a private network to use.

    Without a custom subnet or a managed network serverless nodes need a public IP, so the
    setting is only sent when the caller asks for it explicitly.
    """
    serverless = args.get("serverless_compute") or {}
    subnet = serverless.get("custom_subnet")
    private = subnet is not None or (
        args.get("kind") != "project" and isolation_mode(args) != "Disabled"
    )
    if not private and "no_public_ip" not in serverless:
        return None
    return ml.ServerlessComputeSettingsArgs(
        serverless_compute_custom_subnet=subnet,
        serverless_compute_no_public_ip=serverless.get("no_public_ip", private),
    )


def encryption(args: Mapping[str, Any]) -> ml.EncryptionPropertyArgs | None:
    key = args.get("customer_managed_key")
    if not key:
        return None
    identity = key.get("user_assigned_identity")
    return ml.EncryptionPropertyArgs(
        status="Enabled",
        key_vault_properties=ml.KeyVaultPropertiesArgs(
            key_vault_arm_id=key["key_vault"], key_identifier=key["key_uri"]
        ),
        identity=ml.IdentityForCmkArgs(user_assigned_identity=identity) if identity else None,
    )


def system_datastores_auth_mode(args: Mapping[str, Any]) -> str | None:
    """`identity` when this component creates a storage account without shared keys."""
    creates_storage = args.get("kind") != "project" and not args.get("storage_account")
    if creates_storage and not args.get("storage_shared_key_access", False):
        return "identity"
    return None
