"""An Azure ML compute cluster (AmlCompute) with secure defaults."""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Required, TypedDict

import pulumi
from pulumi_azure_native import authorization
from pulumi_azure_native import machinelearningservices as ml

from amlkit import azure_facts as facts
from amlkit.components import naming
from amlkit.components.args import REQUIRED, ArgInfo, check, document, document_nested, label, named
from amlkit.components.outputs import expose, principal_id
from amlkit.components.placement import PLACEMENT_ARGS, WorkspacePlacementArgs, with_workspace
from amlkit.components.workspace import IdentitySpec
from amlkit.errors import ConfigError

__all__ = [
    "ARGS", "BUILT_IN_ROLES", "ClusterSshSettings", "ComputeCluster", "ComputeClusterArgs", "GUID", "NetworkSettings",
    "PRIORITIES", "RENAMED", "REPLACE_ON_CHANGES", "ROLE_KEY", "ROLE_KEY_ALLOWED", "RoleAssignmentSpec", "TYPE_TOKEN",
    "assignment_name", "cluster_properties", "compute_identity", "compute_location", "credentials",
    "keyed_role_assignments", "local_auth", "node_public_ip", "resource_location", "role_assignment",
    "role_definition_guid", "role_definition_id", "subnet_of", "validate", "validate_identity", "workspace_compute",
]

TYPE_TOKEN = "amlkit:index:ComputeCluster"
PRIORITIES = dict(zip(("dedicated", "low_priority"), facts.VM_PRIORITIES, strict=True))

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
# A role_assignments key: it names the child resource (`<component>-role-<key>`)
ROLE_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")
ROLE_KEY_ALLOWED = "1 to 63 letters, digits, '-', '_' or '.', starting with a letter or digit"

# Input property paths Azure cannot change on an existing cluster: a change replaces it, deleting the
# old one first because the new one takes the same name.
REPLACE_ON_CHANGES = facts.CLUSTER_REPLACE_ON_CHANGES


class RoleAssignmentSpec(TypedDict):
    """A role for the cluster's system-assigned identity on one scope."""

    scope: pulumi.Input[str]
    """ARM id the role applies to (a registry, storage account, resource group...)."""
    role: str
    """A well-known role name (e.g. `AcrPull`, `Storage Blob Data Reader`) or a role definition GUID."""


class NetworkSettings(TypedDict):
    """`network_settings` of a compute, as in az ml."""

    subnet: pulumi.Input[str]
    """ARM id of the subnet the nodes join."""


class ClusterSshSettings(TypedDict, total=False):
    """`ssh_settings` of a cluster, as in az ml: the administrator account on every node."""

    admin_username: str
    """Administrator account on the nodes. Default `azureuser`."""
    ssh_key_value: pulumi.Input[str]
    """OpenSSH public key of the administrator."""
    admin_password: pulumi.Output[str]
    """Administrator password: only as a pulumi secret Output; a plain string is refused."""


class ComputeClusterArgs(WorkspacePlacementArgs, total=False):
    """Inputs of `ComputeCluster`, named as in the stack file (`amlkit:clusters`, az ml's compute YAML).

    Give `workspace` (the Workspace component) or `resource_group_name` and `workspace_name`.
    """

    size: Required[str]
    """VM size of the nodes, e.g. `Standard_D4ds_v5`."""
    max_instances: Required[int]
    """Most nodes the cluster scales to (at least 1)."""

    name: str
    """Azure name of the compute."""
    location: pulumi.Input[str]
    """Region the nodes run in; a region other than the workspace's is sent as `computeLocation`."""
    description: pulumi.Input[str]
    """Free-text description."""
    tier: Literal["dedicated", "low_priority"]
    """VM priority: `low_priority` nodes are cheaper but can be evicted at any time."""
    min_instances: int
    """Nodes kept running (and billed) when idle; 0 scales to zero."""
    idle_time_before_scale_down: int
    """Seconds a node stays idle before it is released."""
    network_settings: NetworkSettings
    """Customer virtual network the nodes join (`{subnet: <subnet ARM id>}`)."""
    enable_node_public_ip: bool
    """Public IPs on the nodes: an explicit choice unless there is a subnet or managed network."""
    ssh_public_access_enabled: bool
    """Open the SSH port of the nodes to public access."""
    ssh_settings: ClusterSshSettings
    """Administrator account for SSH (needs local authentication)."""
    local_auth_enabled: bool
    """Local (SSH key or password) authentication on the nodes."""
    identity: IdentitySpec
    """The cluster's managed identity."""
    role_assignments: Mapping[str, RoleAssignmentSpec]
    """Roles granted to the cluster's system-assigned identity, keyed by a name of your choice that names the
    child resource (`<component>-role-<key>`): reordering never deletes and re-creates an assignment. A list
    (deprecated) still loads, keyed by position (`0`, `1`, ...: the names it always had), with a warning."""
    tags: Mapping[str, str]
    """Tags on the compute resource."""


ARGS: dict[str, ArgInfo] = {
    "size": ArgInfo(REQUIRED, facts.VM_SIZE),
    "max_instances": ArgInfo(REQUIRED, "properties.properties.scaleSettings.maxNodeCount"),
    **PLACEMENT_ARGS,
    "name": ArgInfo("derived from the component name", "computeName", facts.COMPUTE_NAME.allowed),
    "location": ArgInfo("the workspace's region", "properties.computeLocation when not the workspace's region; "
                                                    "location without a workspace region"),
    "description": ArgInfo("none", "properties.description"),
    "tier": ArgInfo("`dedicated`", "properties.properties.vmPriority (`Dedicated` | `LowPriority`)"),
    "min_instances": ArgInfo("0", "properties.properties.scaleSettings.minNodeCount"),
    "idle_time_before_scale_down": ArgInfo(
        str(facts.CLUSTER_IDLE_SECONDS_DEFAULT), f"{facts.NODE_IDLE_TIME} (`PT<seconds>S`)"),
    "network_settings": ArgInfo("none", "properties.properties.subnet.id"),
    "enable_node_public_ip": ArgInfo(
        "False with a subnet or managed network, else required", facts.ENABLE_NODE_PUBLIC_IP),
    "ssh_public_access_enabled": ArgInfo(
        "False", "properties.properties.remoteLoginPortPublicAccess (`Enabled` | `Disabled`)"),
    "ssh_settings": ArgInfo("none", "properties.properties.userAccountCredentials "
                                    "(adminUserName, adminUserSshPublicKey, adminUserPassword)"),
    "local_auth_enabled": ArgInfo("True only with `ssh_settings`", "properties.disableLocalAuth (negated)"),
    "identity": ArgInfo("`{type: system_assigned}`", "identity.type, identity.userAssignedIdentities"),
    "role_assignments": ArgInfo("none", "child Microsoft.Authorization/roleAssignments `<name>-role-<key>`",
                                "keys of " + ROLE_KEY_ALLOWED),
    "tags": ArgInfo("none", "tags"),
}
for _nested in (NetworkSettings, ClusterSshSettings, RoleAssignmentSpec):
    document_nested(_nested)
document(ComputeClusterArgs, ARGS)

# Former argument names (before the stack file's az ml names were adopted) -> today's, for error hints.
RENAMED = {
    "vm_size": "size", "max_nodes": "max_instances", "min_nodes": "min_instances", "compute_name": "name",
    "vm_priority": "tier", "idle_seconds_before_scale_down": "idle_time_before_scale_down",
    "subnet_id": "network_settings", "remote_login_port_public_access": "ssh_public_access_enabled",
    "admin_username": "ssh_settings", "admin_ssh_public_key": "ssh_settings", "admin_password": "ssh_settings",
    "disable_local_auth": "local_auth_enabled", "system_assigned_identity": "identity",
    "user_assigned_identity_ids": "identity", "compute_location": "location",
}


class ComputeCluster(pulumi.ComponentResource):
    """An AmlCompute cluster: scale to zero, no public SSH, no local auth by default.

    Node public IP: when neither `enable_node_public_ip` nor a private network (`network_settings` or
    `workspace_managed_network`) is given, the caller must decide explicitly: Azure's default is a
    public IP on every node, and False needs a private network, so there is no safe silent default.
    Size, tier, network, SSH, credentials, local auth and location cannot change in place: a
    change replaces the cluster (old one deleted first). Scale settings, identity and tags update.
    """

    compute_id: pulumi.Output[str]
    compute_name: pulumi.Output[str]
    principal_id: pulumi.Output[str | None]

    def __init__(
        self, name: str, args: ComputeClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        component = label("ComputeCluster", name)
        args, note = keyed_role_assignments(args)
        check(ComputeClusterArgs, component, args, RENAMED, sourced=True)
        with named(component):
            placed = with_workspace(args)
            validate(placed)
            compute_name = naming.resource_name(
                placed.get("name"), naming.prefixed_name("", name, facts.COMPUTE_NAME), facts.COMPUTE_NAME, "name",
            )
        super().__init__(TYPE_TOKEN, name, None, opts)
        compute = workspace_compute(self, name, placed, compute_name, ml.AmlComputeArgs(
            compute_type="AmlCompute",
            compute_location=compute_location(placed),
            description=placed.get("description"),
            disable_local_auth=not local_auth(placed),
            properties=cluster_properties(placed),
        ), location=resource_location(placed), identity=compute_identity(placed),
            replace_on_changes=REPLACE_ON_CHANGES)
        if note:
            pulumi.log.warn(f"{component}: {note}", resource=self)
        principal = principal_id(compute)
        for key, spec in (placed.get("role_assignments") or {}).items():
            role_assignment(f"{name}-role-{key}", name, spec, principal, self)
        expose(self, compute_id=compute.id, compute_name=compute.name, principal_id=principal)


def keyed_role_assignments(args: ComputeClusterArgs) -> tuple[ComputeClusterArgs, str | None]:
    """The args with `role_assignments` as a keyed map, and a deprecation note when it was a list.

    A list is keyed by position (`"0"`, `"1"`, ...), so its children keep the names they always had
    (`<component>-role-<index>`) and upgrading plans no change; moving to a map then means renaming
    the keys once (or aliases), after which order no longer matters."""
    given = args.get("role_assignments") if isinstance(args, Mapping) else None
    if not isinstance(given, (list, tuple)):
        return args, None
    keyed = {str(index): spec for index, spec in enumerate(given)}
    note = ("role_assignments as a list is deprecated: a reorder renames its children, which deletes and "
            "re-creates the assignments; give a map keyed by a stable name, e.g. {'acr-pull': {...}} "
            f"(this list loads as keys {', '.join(map(repr, keyed)) or 'none'})")
    return {**args, "role_assignments": keyed}, note


def resource_location(args: Mapping[str, Any]) -> pulumi.Input[str]:
    """The compute resource's region: the workspace's, else the given location."""
    location: pulumi.Input[str] = args.get("workspace_location") or args["location"]
    return location


def compute_location(args: Mapping[str, Any]) -> pulumi.Input[str] | None:
    """`location` when it is not the workspace's region (a cross-region cluster), else unset."""
    location, home = args.get("location"), args.get("workspace_location")
    if location is None or home is None:
        return None
    if isinstance(location, str) and isinstance(home, str):
        return location if location != home else None
    return pulumi.Output.all(location, home).apply(lambda pair: pair[0] if pair[0] != pair[1] else None)


def local_auth(args: Mapping[str, Any]) -> bool:
    """As set, else on only when `ssh_settings` is given."""
    explicit = args.get("local_auth_enabled")
    return args.get("ssh_settings") is not None if explicit is None else bool(explicit)


def workspace_compute(
    owner: pulumi.ComponentResource, name: str, args: Mapping[str, Any], compute_name: str, properties: Any, *,
    location: pulumi.Input[str] | None, identity: ml.ManagedServiceIdentityArgs | None,
    replace_on_changes: Sequence[str],
) -> ml.Compute:
    """The `<name>-compute` child every compute component creates: in the workspace `args` name, with their
    tags, deleted before it is replaced (the new one takes the same name) when a `replace_on_changes`
    path changes."""
    return ml.Compute(
        f"{name}-compute",
        resource_group_name=args["resource_group_name"],
        workspace_name=args["workspace_name"],
        compute_name=compute_name,
        location=location,
        identity=identity,
        tags=dict(args.get("tags") or {}),
        properties=properties,
        opts=pulumi.ResourceOptions(
            parent=owner, replace_on_changes=list(replace_on_changes), delete_before_replace=True
        ),
    )


def subnet_of(args: Mapping[str, Any]) -> pulumi.Input[str] | None:
    settings = args.get("network_settings")
    return settings["subnet"] if settings else None


def cluster_properties(args: Mapping[str, Any]) -> ml.AmlComputePropertiesArgs:
    subnet = subnet_of(args)
    return ml.AmlComputePropertiesArgs(
        vm_size=args["size"],
        vm_priority=PRIORITIES[args.get("tier", "dedicated")],
        scale_settings=ml.ScaleSettingsArgs(
            min_node_count=args.get("min_instances", 0),
            max_node_count=args["max_instances"],
            node_idle_time_before_scale_down=facts.seconds_iso(
                args.get("idle_time_before_scale_down", facts.CLUSTER_IDLE_SECONDS_DEFAULT)),
        ),
        subnet=ml.ResourceIdArgs(id=subnet) if subnet else None,
        enable_node_public_ip=node_public_ip(args),
        remote_login_port_public_access="Enabled" if args.get("ssh_public_access_enabled") else "Disabled",
        user_account_credentials=credentials(args),
    )


def compute_identity(args: Mapping[str, Any]) -> ml.ManagedServiceIdentityArgs | None:
    """System-assigned by default; user-assigned with the given ids; none with `type: none`."""
    identity = args.get("identity") or {"type": "system_assigned"}
    if identity["type"] == "user_assigned":
        ids = [entry["resource_id"] for entry in identity.get("user_assigned_identities") or []]
        return ml.ManagedServiceIdentityArgs(type="UserAssigned", user_assigned_identities=ids)
    if identity["type"] == "system_assigned":
        return ml.ManagedServiceIdentityArgs(type="SystemAssigned")
    return None


def node_public_ip(args: Mapping[str, Any]) -> bool:
    """The explicit choice, else False on a private network; no private network needs a choice."""
    private = bool(subnet_of(args)) or bool(args.get("workspace_managed_network"))
    explicit = args.get("enable_node_public_ip")
    chosen = facts.node_public_ip(explicit, private)
    if chosen is None and explicit is None:
        raise ConfigError(
            None, "enable_node_public_ip",
            "must be set when there is no network_settings.subnet or workspace managed network "
            "(Azure's default gives every node a public IP)",
        )
    if chosen is None:
        raise ConfigError(
            None, "enable_node_public_ip", "False needs network_settings.subnet or a workspace managed network",
            False,
        )
    return chosen


def credentials(args: Mapping[str, Any]) -> ml.UserAccountCredentialsArgs | None:
    """The admin user, with an SSH key and/or a password that is always a secret."""
    ssh = args.get("ssh_settings")
    if not ssh:
        return None
    password = ssh.get("admin_password")
    return ml.UserAccountCredentialsArgs(
        admin_user_name=ssh.get("admin_username", facts.ADMIN_USERNAME_DEFAULT),
        admin_user_ssh_public_key=ssh.get("ssh_key_value"),
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
    """User-assigned ids only (and always) with `type: user_assigned`; role assignments need the
    system identity."""
    identity = args.get("identity") or {"type": "system_assigned"}
    ids = identity.get("user_assigned_identities")
    if identity["type"] == "user_assigned" and not ids:
        raise ConfigError(None, "identity.user_assigned_identities", "is required when type is user_assigned")
    if identity["type"] != "user_assigned" and ids:
        raise ConfigError(
            None, "identity.type", "must be user_assigned to use user_assigned_identities", identity["type"]
        )
    if args.get("role_assignments") and identity["type"] != "system_assigned":
        raise ConfigError(
            None, "role_assignments",
            "need the system-assigned identity; grant roles to a user-assigned identity where it is defined",
        )


def validate(args: Mapping[str, Any]) -> None:
    """Check every field's rule; raise a ConfigError naming the field and what is allowed."""
    if not args.get("size"):
        raise ConfigError(None, "size", "is required")
    max_instances = _count(args, "max_instances", minimum=1)
    min_instances = _count(args, "min_instances", minimum=0)
    if min_instances is not None and max_instances is not None and min_instances > max_instances:
        raise ConfigError(None, "min_instances", f"must not exceed max_instances ({max_instances})", min_instances)
    _count(args, "idle_time_before_scale_down", minimum=0)
    validate_identity(args)
    for key, spec in (args.get("role_assignments") or {}).items():
        if not isinstance(key, str) or not ROLE_KEY.fullmatch(key):
            raise ConfigError(None, f"role_assignments.{key}", f"is not a usable key: allowed: {ROLE_KEY_ALLOWED}",
                              key)
        if not spec.get("scope"):
            raise ConfigError(None, f"role_assignments.{key}.scope", "is required")
        role_definition_guid(spec.get("role", ""))
    node_public_ip(args)
    _validate_ssh(args)


def _validate_ssh(args: Mapping[str, Any]) -> None:
    ssh = args.get("ssh_settings")
    if ssh is None:
        return
    if ssh.get("ssh_key_value") is None and ssh.get("admin_password") is None:
        raise ConfigError(None, "ssh_settings.ssh_key_value", "is required (or a secret admin_password)")
    if args.get("local_auth_enabled") is False:
        raise ConfigError(
            None, "local_auth_enabled",
            "must be True or unset with ssh_settings (SSH login is local authentication)", False,
        )


def _count(args: Mapping[str, Any], key: str, minimum: int) -> int | None:
    if key not in args:
        return None
    value = args[key]
    if value < minimum:
        raise ConfigError(None, key, f"must be a whole number >= {minimum}", value)
    return int(value)
