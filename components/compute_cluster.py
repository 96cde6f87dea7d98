"""An Azure ML compute cluster (AmlCompute) with secure defaults."""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Required, TypedDict

import pulumi
from pulumi_azure_native import authorization
from pulumi_azure_native import machinelearningservices as ml

from amlkit.components import naming
from amlkit.errors import ConfigError

TYPE_TOKEN = "amlkit:index:ComputeCluster"
VM_PRIORITIES = ("Dedicated", "LowPriority")
SSH_ACCESS = ("Enabled", "Disabled")

# Built-in role definition GUIDs (https://learn.microsoft.com/azure/role-based-access-control/built-in-roles).
BUILT_IN_ROLES: dict[str, str] = {
    "AcrPull": "7f951dda-4ed3-4680-a7ca-43fe172d538d",
    "AcrPush": "8311e382-0749-4cb8-b61a-304f252e45ec",
    "AzureML Data Scientist": "f6c7c914-8db3-469d-8ca1-694a8f32e121",
    "Contributor": "b24988ac-6180-42a0-ab88-20f7382dd24c",
    "Key Vault Secrets User": "4633458b-17de-408a-b874-0445c86b69e6",
    "Reader": "acdd72a7-3385-48ef-bd42-f606fba81ae7",
    "Storage Blob Data Contributor": "ba92f5b4-2d11-453d-a403-e96b0029c9fe",
    "Storage Blob Data Reader": "2a2b9908-6ea1-4ae2-8e65-a410df84e7d1",
    "Storage File Data Privileged Contributor": "69566ab7-960f-475b-8e7c-b3118f30c6bd",
}
GUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")

# Input property paths (engine form, camelCase) Azure cannot change on an existing cluster: a change
# replaces it, deleting the old one first because the new one takes the same name.
REPLACE_ON_CHANGES = [
    "location",
    "properties.computeLocation",
    "properties.disableLocalAuth",
    "properties.properties.vmSize",
    "properties.properties.vmPriority",
    "properties.properties.subnet",
    "properties.properties.enableNodePublicIp",
    "properties.properties.remoteLoginPortPublicAccess",
    "properties.properties.userAccountCredentials",
]


class RoleAssignmentSpec(TypedDict):
    """A role for the cluster's system-assigned identity on one scope."""

    scope: pulumi.Input[str]
    """ARM id the role applies to (a registry, storage account, resource group...)."""
    role: str
    """A well-known role name (e.g. `AcrPull`, `Storage Blob Data Reader`) or a role definition GUID."""


class ComputeClusterArgs(TypedDict, total=False):
    """Inputs of `ComputeCluster`. Required fields first; every optional field has a secure default."""

    resource_group_name: Required[pulumi.Input[str]]
    """Resource group of the ML workspace."""
    workspace_name: Required[pulumi.Input[str]]
    """Name of the ML workspace the cluster belongs to."""
    vm_size: Required[str]
    """VM size of the nodes, e.g. `Standard_D4ds_v4`."""
    max_nodes: Required[int]
    """Maximum node count."""

    compute_name: str
    """Azure name of the compute (2-16 chars). Default: derived from the component name."""
    location: pulumi.Input[str]
    """Region of the compute resource. Default: the workspace's (Azure's default)."""
    compute_location: pulumi.Input[str]
    """Region the nodes run in (ARM `computeLocation`). Default: same as the workspace."""
    description: pulumi.Input[str]
    """Free-text description."""
    vm_priority: Literal["Dedicated", "LowPriority"]
    """Node priority. Default `Dedicated`."""
    min_nodes: int
    """Minimum node count. Default 0 (scale to zero)."""
    idle_seconds_before_scale_down: int
    """Idle seconds before a node is released. Default 120."""
    subnet_id: pulumi.Input[str]
    """Subnet the nodes join. Default: none."""
    workspace_managed_network: bool
    """True when the workspace uses a managed network (then nodes need no public IP). Default False."""
    enable_node_public_ip: bool
    """Public IPs on nodes. Default False when a subnet or managed network is given; else required."""
    remote_login_port_public_access: Literal["Enabled", "Disabled"]
    """Public SSH port on nodes. Default `Disabled`."""
    admin_username: str
    """Admin user on every node. Default: none."""
    admin_ssh_public_key: pulumi.Input[str]
    """SSH public key of the admin user."""
    admin_password: pulumi.Output[str]
    """Admin password: only as a pulumi secret Output; a plain string is refused."""
    disable_local_auth: bool
    """Disable local (key/SSH) authentication. Default True."""
    system_assigned_identity: bool
    """Give the cluster a system-assigned identity. Default True unless user-assigned ids are given."""
    user_assigned_identity_ids: Sequence[pulumi.Input[str]]
    """User-assigned identities (exclusive with a system-assigned identity)."""
    role_assignments: Sequence[RoleAssignmentSpec]
    """Roles granted to the cluster's system-assigned identity."""
    tags: Mapping[str, str]
    """Tags on the compute resource."""


class ComputeCluster(pulumi.ComponentResource):
    """An AmlCompute cluster: scale to zero, no public SSH, no local auth by default.

    Node public IP: when neither `enable_node_public_ip` nor a private network (`subnet_id` or
    `workspace_managed_network`) is given, the caller must decide explicitly: Azure's default is a
    public IP on every node, and False needs a private network, so there is no safe silent default.
    Size, priority, network, SSH, credentials, local auth and location cannot change in place: a
    change replaces the cluster (old one deleted first). Scale settings, identity and tags update.
    """

    compute_id: pulumi.Output[str]
    compute_name: pulumi.Output[str]
    principal_id: pulumi.Output[str | None]

    def __init__(
        self, name: str, args: ComputeClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(TYPE_TOKEN, name, None, opts)
        validate(args)
        compute_name = naming.resource_name(
            args.get("compute_name"), naming.prefixed_name("", name, 16), naming.COMPUTE_CLUSTER,
            "compute_name",
        )
        compute = workspace_compute(self, name, args, compute_name, REPLACE_ON_CHANGES, ml.AmlComputeArgs(
            compute_type="AmlCompute",
            compute_location=args.get("compute_location"),
            description=args.get("description"),
            disable_local_auth=args.get("disable_local_auth", True),
            properties=cluster_properties(args),
        ))
        self.compute_id = compute.id
        self.compute_name = compute.name
        self.principal_id = compute.identity.apply(lambda i: i.principal_id if i else None)
        for index, spec in enumerate(args.get("role_assignments") or []):
            role_assignment(f"{name}-role-{index}", name, spec, self.principal_id, self)
        self.register_outputs({
            "compute_id": self.compute_id,
            "compute_name": self.compute_name,
            "principal_id": self.principal_id,
        })


def workspace_compute(
    owner: pulumi.ComponentResource, name: str, args: Mapping[str, Any], compute_name: str,
    replace_on_changes: Sequence[str], properties: Any,
) -> ml.Compute:
    """The `<name>-compute` child both compute components create: same workspace, identity, tags and
    options; only the `properties` (cluster or instance) and the replace-on-change paths differ."""
    return ml.Compute(
        f"{name}-compute",
        resource_group_name=args["resource_group_name"],
        workspace_name=args["workspace_name"],
        compute_name=compute_name,
        location=args.get("location"),
        identity=compute_identity(args),
        tags=dict(args.get("tags") or {}),
        properties=properties,
        opts=pulumi.ResourceOptions(
            parent=owner, replace_on_changes=list(replace_on_changes), delete_before_replace=True
        ),
    )


def cluster_properties(args: ComputeClusterArgs) -> ml.AmlComputePropertiesArgs:
    subnet = args.get("subnet_id")
    return ml.AmlComputePropertiesArgs(
        vm_size=args["vm_size"],
        vm_priority=args.get("vm_priority", "Dedicated"),
        scale_settings=ml.ScaleSettingsArgs(
            min_node_count=args.get("min_nodes", 0),
            max_node_count=args["max_nodes"],
            node_idle_time_before_scale_down=seconds_iso(args.get("idle_seconds_before_scale_down", 120)),
        ),
        subnet=ml.ResourceIdArgs(id=subnet) if subnet else None,
        enable_node_public_ip=node_public_ip(args),
        remote_login_port_public_access=args.get("remote_login_port_public_access", "Disabled"),
        user_account_credentials=credentials(args),
    )


def seconds_iso(seconds: int) -> str:
    """ISO-8601 duration in seconds, as Azure ML expects it (`PT120S`)."""
    return f"PT{seconds}S"


def compute_identity(args: Mapping[str, Any]) -> ml.ManagedServiceIdentityArgs | None:
    """System-assigned by default; user-assigned when ids are given; none when switched off."""
    ids = list(args.get("user_assigned_identity_ids") or [])
    if ids:
        return ml.ManagedServiceIdentityArgs(type="UserAssigned", user_assigned_identities=ids)
    if args.get("system_assigned_identity", True):
        return ml.ManagedServiceIdentityArgs(type="SystemAssigned")
    return None


def node_public_ip(args: Mapping[str, Any]) -> bool:
    """The explicit choice, else False on a private network; no private network needs a choice."""
    private = bool(args.get("subnet_id")) or bool(args.get("workspace_managed_network"))
    explicit = args.get("enable_node_public_ip")
    if explicit is None and not private:
        raise ConfigError(
            None, "enable_node_public_ip",
            "must be set when there is no subnet_id or workspace managed network "
            "(Azure's default gives every node a public IP)",
        )
    if explicit is False and not private:
        raise ConfigError(
            None, "enable_node_public_ip", "False needs a subnet_id or a workspace managed network", False
        )
    return False if explicit is None else bool(explicit)


def credentials(args: ComputeClusterArgs) -> ml.UserAccountCredentialsArgs | None:
    """The admin user, with an SSH key and/or a password that is always a secret."""
    username = args.get("admin_username")
    if not username:
        return None
    password = args.get("admin_password")
    return ml.UserAccountCredentialsArgs(
        admin_user_name=username,
        admin_user_ssh_public_key=args.get("admin_ssh_public_key"),
        admin_user_password=pulumi.Output.secret(password) if password is not None else None,
    )


def role_definition_guid(role: str) -> str:
    """A well-known role name or a GUID; anything else is a ConfigError listing the known names."""
    if role in BUILT_IN_ROLES:
        return BUILT_IN_ROLES[role]
    if isinstance(role, str) and GUID.fullmatch(role):
        return role.lower()
    raise ConfigError(
        None, "role_assignments.role",
        f"unknown role {role!r}: use a role definition GUID or one of {', '.join(sorted(BUILT_IN_ROLES))}",
        role,
    )


def role_definition_id(scope: str, guid: str) -> str:
    """The role definition's ARM id in the subscription of the scope."""
    match = re.match(r"^/subscriptions/[^/]+", scope or "")
    prefix = match.group(0) if match else ""
    return f"{prefix}/providers/Microsoft.Authorization/roleDefinitions/{guid}"


def assignment_name(component_name: str, scope: str, guid: str) -> str:
    """A deterministic GUID from component name, scope and role: re-runs never duplicate it."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"amlkit/{component_name}/{scope}/{guid}"))


def role_assignment(
    resource_name: str,
    component_name: str,
    spec: RoleAssignmentSpec,
    principal_id: pulumi.Output[str | None],
    parent: pulumi.Resource,
) -> authorization.RoleAssignment:
    """Grant `spec.role` on `spec.scope` to the compute's system-assigned identity."""
    guid = role_definition_guid(spec["role"])
    scope = pulumi.Output.from_input(spec["scope"])
    return authorization.RoleAssignment(
        resource_name,
        principal_id=principal_id,
        principal_type="ServicePrincipal",
        role_definition_id=scope.apply(lambda s: role_definition_id(s, guid)),
        scope=scope,
        role_assignment_name=scope.apply(lambda s: assignment_name(component_name, s, guid)),
        opts=pulumi.ResourceOptions(parent=parent),
    )


def validate_identity(args: Mapping[str, Any]) -> None:
    """System XOR user-assigned; role assignments need the system identity."""
    if args.get("user_assigned_identity_ids") and args.get("system_assigned_identity"):
        raise ConfigError(
            None, "system_assigned_identity",
            "a compute takes a system-assigned identity or user-assigned identities, not both",
        )
    system = not args.get("user_assigned_identity_ids") and args.get("system_assigned_identity", True)
    if args.get("role_assignments") and not system:
        raise ConfigError(
            None, "role_assignments",
            "need the system-assigned identity; grant roles to a user-assigned identity where it is defined",
        )


def validate(args: ComputeClusterArgs) -> None:
    """Check every field's rule; raise a ConfigError naming the field and what is allowed."""
    for key in ("resource_group_name", "workspace_name", "vm_size"):
        if not args.get(key):
            raise ConfigError(None, key, "is required")
    max_nodes = _count(args, "max_nodes", required=True, minimum=1)
    min_nodes = _count(args, "min_nodes", required=False, minimum=0)
    if min_nodes is not None and max_nodes is not None and min_nodes > max_nodes:
        raise ConfigError(None, "min_nodes", f"must not exceed max_nodes ({max_nodes})", min_nodes)
    _count(args, "idle_seconds_before_scale_down", required=False, minimum=0)
    _one_of(args, "vm_priority", VM_PRIORITIES)
    _one_of(args, "remote_login_port_public_access", SSH_ACCESS)
    validate_identity(args)
    for index, spec in enumerate(args.get("role_assignments") or []):
        if not spec.get("scope"):
            raise ConfigError(None, f"role_assignments[{index}].scope", "is required")
        role_definition_guid(spec.get("role", ""))
    node_public_ip(args)
    _validate_admin(args)


def _validate_admin(args: ComputeClusterArgs) -> None:
    password = args.get("admin_password")
    if password is not None and not isinstance(password, pulumi.Output):
        raise ConfigError(
            None, "admin_password",
            "must be a pulumi secret Output (pulumi.Output.secret or a secret config value), "
            "never a plain string",
        )
    has_secret = args.get("admin_ssh_public_key") is not None or password is not None
    if args.get("admin_username") and not has_secret:
        raise ConfigError(None, "admin_ssh_public_key", "is required with admin_username")
    if has_secret and not args.get("admin_username"):
        raise ConfigError(None, "admin_username", "is required with an SSH key or password")
    if args.get("admin_username") and args.get("disable_local_auth", True):
        raise ConfigError(
            None, "disable_local_auth",
            "must be False to use an admin user (SSH login is local authentication)", True,
        )


def _count(args: Mapping[str, Any], key: str, required: bool, minimum: int) -> int | None:
    if key not in args:
        if required:
            raise ConfigError(None, key, "is required")
        return None
    value = args[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(None, key, f"must be a whole number >= {minimum}", value)
    return value


def _one_of(args: Mapping[str, Any], key: str, allowed: Sequence[str]) -> None:
    if key in args and args[key] not in allowed:
        raise ConfigError(None, key, f"must be one of {', '.join(allowed)}", args[key])
