"""The whole environment of one stack: resource group, workspace, clusters and instances.

`Environment` turns a validated `EnvironmentSpec` (amlkit.schema) into the components. The
mapping from the az-ml vocabulary of the stack file to the components' Args lives in the plain
functions below (`workspace_args`, `cluster_args`, `instance_args`) so it can be tested without
an engine. Every child gets the stack's tags merged under its own (the resource's tags win) and an
`environment` tag that always names the stack's environment.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Required, TypedDict

import pulumi
from pulumi_azure_native import resources

from amlkit.components.compute_cluster import ComputeCluster, ComputeClusterArgs
from amlkit.components.compute_instance import ComputeInstance, ComputeInstanceArgs, ScheduleSpec
from amlkit.components.workspace import Workspace, WorkspaceArgs
from amlkit.schema import ClusterSpec, EnvironmentSpec, InstanceSpec, ScheduleEntry, Secret, merged_tags

TYPE_TOKEN = "amlkit:index:Environment"

_KINDS = {"default": "Default", "hub": "Hub", "project": "Project"}
_ISOLATION = {
    "disabled": "Disabled",
    "allow_internet_outbound": "AllowInternetOutbound",
    "allow_only_approved_outbound": "AllowOnlyApprovedOutbound",
}
_PRIORITY = {"dedicated": "Dedicated", "low_priority": "LowPriority"}
_FREQUENCY = {"minute": "Minute", "hour": "Hour", "day": "Day", "week": "Week", "month": "Month"}


class EnvironmentArgs(TypedDict):
    """Inputs of `Environment`."""

    spec: Required[EnvironmentSpec]
    """The validated `amlkit:` config of the stack (see `amlkit.stackfile`)."""


def _enabled(flag: bool) -> str:
    return "Enabled" if flag else "Disabled"


def _present(values: Mapping[str, Any]) -> dict[str, Any]:
    """Drop unset (None) entries: the components treat a missing key as "use the secure default"."""
    return {key: value for key, value in values.items() if value is not None}


def secret_output(secret: Secret) -> pulumi.Output[str]:
    """A Pulumi secret Output: the plaintext when known, else an unknown secret (offline review)."""
    if secret.known:
        return pulumi.Output.secret(secret.reveal())

    async def value() -> None:
        return None

    async def known() -> bool:
        return False

    async def is_secret() -> bool:
        return True

    return pulumi.Output(set(), value(), known(), is_secret())


def workspace_args(spec: EnvironmentSpec, resource_group_name: pulumi.Input[str]) -> WorkspaceArgs:
    """The Workspace component's Args for the spec's `amlkit:workspace`."""
    ws = spec.workspace
    cmk = ws.customer_managed_key
    serverless = ws.serverless_compute
    user_ids = ws.identity.ids if ws.identity.type == "user_assigned" else None
    args = _present({
        "resource_group_name": resource_group_name,
        "location": spec.location,
        "workspace_name": ws.name,
        "kind": _KINDS[ws.kind],
        "hub_id": ws.hub_id,
        "friendly_name": ws.display_name,
        "description": ws.description,
        "storage_account_id": ws.storage_account,
        "key_vault_id": ws.key_vault,
        "application_insights_id": ws.application_insights,
        "log_analytics_workspace_id": ws.log_analytics_workspace,
        "container_registry": ws.container_registry,
        "user_assigned_identity_ids": user_ids,
        "primary_user_assigned_identity_id": ws.primary_user_assigned_identity,
        "public_network_access": _enabled(ws.public_network_access == "enabled"),
        "managed_network_isolation_mode": _ISOLATION[ws.managed_network.isolation_mode],
        "serverless_compute_subnet_id": serverless.custom_subnet if serverless else None,
        "serverless_compute_no_public_ip": serverless.no_public_ip if serverless else None,
        "cmk_key_vault_id": cmk.key_vault if cmk else None,
        "cmk_key_uri": cmk.key_uri if cmk else None,
        "hbi_workspace": ws.hbi_workspace,
        "lock_resources": ws.locks,
        "protect_data": spec.protect_data,
        "tags": merged_tags(spec.tags, ws.tags, environment=spec.environment),
    })
    return WorkspaceArgs(**args)  # type: ignore[typeddict-item]


def _identity_args(identity: Any) -> dict[str, Any]:
    if identity is None:
        return {}
    if identity.type == "user_assigned":
        return {"system_assigned_identity": False, "user_assigned_identity_ids": identity.ids}
    return {"system_assigned_identity": True}


def cluster_args(
    spec: EnvironmentSpec, cluster: ClusterSpec, resource_group_name: pulumi.Input[str],
    workspace_name: pulumi.Input[str],
) -> ComputeClusterArgs:
    """The ComputeCluster component's Args for one `amlkit:clusters` entry."""
    ssh = cluster.ssh_settings
    args = _present({
        "resource_group_name": resource_group_name,
        "workspace_name": workspace_name,
        "vm_size": cluster.size,
        "max_nodes": cluster.max_instances,
        "compute_name": cluster.name,
        "location": spec.location,
        "compute_location": cluster.location if cluster.location != spec.location else None,
        "description": cluster.description,
        "vm_priority": _PRIORITY[cluster.tier],
        "min_nodes": cluster.min_instances,
        "idle_seconds_before_scale_down": cluster.idle_time_before_scale_down,
        "subnet_id": cluster.network_settings.subnet if cluster.network_settings else None,
        "workspace_managed_network": spec.workspace.has_managed_network,
        "enable_node_public_ip": cluster.enable_node_public_ip,
        "remote_login_port_public_access": _enabled(cluster.ssh_public_access_enabled),
        "admin_username": ssh.admin_username if ssh else None,
        "admin_ssh_public_key": ssh.ssh_key_value if ssh else None,
        "admin_password": secret_output(ssh.admin_password) if ssh and ssh.admin_password else None,
        "disable_local_auth": not cluster.local_auth,
        **_identity_args(cluster.identity),
        "tags": merged_tags(spec.tags, cluster.tags, environment=spec.environment),
    })
    return ComputeClusterArgs(**args)  # type: ignore[typeddict-item]


def schedule_spec(entry: ScheduleEntry) -> ScheduleSpec:
    """One az-ml start/stop schedule as the ComputeInstance component takes it."""
    trigger = entry.trigger
    timing = _present({"time_zone": trigger.time_zone, "start_time": trigger.start_time})
    result: dict[str, Any] = {"action": entry.action.capitalize(), "enabled": entry.state == "enabled"}
    if trigger.type == "cron":
        result["cron"] = {"expression": trigger.expression, **timing}
    else:
        when = trigger.schedule
        result["recurrence"] = _present({
            "frequency": _FREQUENCY[trigger.frequency or ""],
            "interval": trigger.interval,
            "hours": list(when.hours) if when and when.hours else None,
            "minutes": list(when.minutes) if when and when.minutes else None,
            "week_days": [day.capitalize() for day in when.week_days] if when and when.week_days else None,
            **timing,
        })
    return ScheduleSpec(**result)  # type: ignore[typeddict-item]


def instance_args(
    spec: EnvironmentSpec, instance: InstanceSpec, resource_group_name: pulumi.Input[str],
    workspace_name: pulumi.Input[str], workspace_id: pulumi.Input[str] | None = None,
) -> ComputeInstanceArgs:
    """The ComputeInstance component's Args for one `amlkit:instances` entry."""
    user = instance.assigned_user
    args = _present({
        "resource_group_name": resource_group_name,
        "workspace_name": workspace_name,
        "vm_size": instance.size,
        "compute_name": instance.name,
        "location": spec.location,
        "description": instance.description,
        "idle_minutes_before_shutdown": instance.idle_time_before_shutdown_minutes,
        "schedules": [schedule_spec(entry) for entry in instance.schedules] or None,
        "assigned_user_object_id": user.object_id if user else None,
        "assigned_user_tenant_id": user.tenant_id if user else None,
        "subnet_id": instance.network_settings.subnet if instance.network_settings else None,
        "workspace_managed_network": spec.workspace.has_managed_network,
        "enable_node_public_ip": instance.enable_node_public_ip,
        "ssh_public_access": _enabled(instance.ssh_public_access_enabled),
        "admin_ssh_public_key": instance.ssh_settings.ssh_key_value if instance.ssh_settings else None,
        "disable_local_auth": not instance.ssh_public_access_enabled,
        **_identity_args(instance.identity),
        "workspace_id": workspace_id,
        "tags": merged_tags(spec.tags, instance.tags, environment=spec.environment),
    })
    return ComputeInstanceArgs(**args)  # type: ignore[typeddict-item]


class Environment(pulumi.ComponentResource):
    """A stack's Azure ML environment: resource group (or a reference), workspace and computes.

    Children are named after this component (`<name>-rg`, `<name>-workspace`,
    `<name>-cluster-<compute>`, `<name>-instance-<compute>`), so two environments never collide.
    With `resourceGroup.existing: true` no resource group resource is declared: its name is used.
    """

    resource_group_name: pulumi.Output[str]
    workspace: Workspace
    clusters: dict[str, ComputeCluster]
    instances: dict[str, ComputeInstance]

    def __init__(self, name: str, args: EnvironmentArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(TYPE_TOKEN, name, None, opts)
        spec = args["spec"]
        self.resource_group_name = self._resource_group(name, spec)
        child = pulumi.ResourceOptions(parent=self)
        self.workspace = Workspace(f"{name}-workspace", workspace_args(spec, self.resource_group_name), child)
        workspace_name = self.workspace.workspace_name
        self.clusters = {
            cluster.name: ComputeCluster(
                f"{name}-cluster-{cluster.name}",
                cluster_args(spec, cluster, self.resource_group_name, workspace_name), child,
            )
            for cluster in spec.clusters
        }
        self.instances = {
            instance.name: ComputeInstance(
                f"{name}-instance-{instance.name}",
                instance_args(spec, instance, self.resource_group_name, workspace_name, self.workspace.workspace_id),
                child,
            )
            for instance in spec.instances
        }
        self.register_outputs(self.outputs())

    def _resource_group(self, name: str, spec: EnvironmentSpec) -> pulumi.Output[str]:
        group = spec.resource_group
        if group.existing:
            return pulumi.Output.from_input(group.name)
        created = resources.ResourceGroup(
            f"{name}-rg",
            resource_group_name=group.name,
            location=spec.location,
            tags=merged_tags(spec.tags, environment=spec.environment),
            opts=pulumi.ResourceOptions(parent=self, protect=bool(spec.protect_data)),
        )
        return created.name

    def outputs(self) -> dict[str, Any]:
        """What the environment exposes (and the program exports as stack outputs)."""
        return {
            "resource_group_name": self.resource_group_name,
            "workspace_name": self.workspace.workspace_name,
            "workspace_id": self.workspace.workspace_id,
            "cluster_ids": {name: cluster.compute_id for name, cluster in self.clusters.items()},
            "cluster_names": {name: cluster.compute_name for name, cluster in self.clusters.items()},
            "instance_ids": {name: instance.compute_id for name, instance in self.instances.items()},
            "instance_names": {name: instance.compute_name for name, instance in self.instances.items()},
        }
