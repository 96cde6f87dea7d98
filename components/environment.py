"""The whole environment of one stack: resource group, workspace, clusters, instances and attached computes.

`Environment` turns a validated `EnvironmentSpec` (amlkit.schema) into the components. The stack
file and the components use the same az ml names, so the plain functions below (`workspace_args`,
`cluster_args`, `instance_args`, `attached_args`) only reshape the validated models into Args dicts;
they can be tested without an engine. Every child gets the stack's tags merged under its own (the
resource's tags win) and an `environment` tag that always names the stack's environment.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Required, TypedDict, cast

import pulumi
from pulumi_azure_native import resources

from amlkit.components.compute_cluster import ComputeCluster, ComputeClusterArgs
from amlkit.components.compute_instance import ComputeInstance, ComputeInstanceArgs, ScheduleSpec, TriggerSpec
from amlkit.components.kubernetes_compute import KubernetesCompute, KubernetesComputeArgs
from amlkit.components.synapse_spark_compute import SynapseSparkCompute, SynapseSparkComputeArgs
from amlkit.components.virtual_machine_compute import VirtualMachineCompute, VirtualMachineComputeArgs
from amlkit.components.workspace import IdentitySpec, Workspace, WorkspaceArgs
from amlkit.schema import (
    AttachedSpec,
    ClusterSpec,
    EnvironmentSpec,
    InstanceSpec,
    ProjectSpec,
    ScheduleEntry,
    Secret,
    merged_tags,
)
from amlkit.schema import IdentitySpec as IdentitySchema

__all__ = [
    "ATTACHED_COMPONENTS", "AttachedArgs", "AttachedCompute", "Environment", "EnvironmentArgs", "TYPE_TOKEN",
    "attached_args", "cluster_args", "identity_spec", "instance_args", "project_args", "schedule_spec", "secret_output",
    "workspace_args",
]

TYPE_TOKEN = "amlkit:index:Environment"


class EnvironmentArgs(TypedDict):
    """Inputs of `Environment`."""

    spec: Required[EnvironmentSpec]
    """The validated `amlkit:` config of the stack (see `amlkit.stackfile`)."""


def _present(values: Mapping[str, Any]) -> dict[str, Any]:
    """Drop unset (None) entries: the components treat a missing key as "use the secure default"."""
    return {key: value for key, value in values.items() if value is not None}


def secret_output(secret: Secret) -> pulumi.Output[str]:
    """A Pulumi secret Output: the plaintext when known, else an unknown secret (offline review)."""
    if secret.known:
        return pulumi.Output.secret(cast(str, secret.reveal()))

    async def value() -> Any:
        return None

    async def known() -> bool:
        return False

    async def is_secret() -> bool:
        return True

    return pulumi.Output(set(), value(), known(), is_secret())


def identity_spec(identity: IdentitySchema | None) -> IdentitySpec | None:
    """The stack's `identity:` as the components take it (the same keys)."""
    if identity is None:
        return None
    spec: dict[str, Any] = {"type": identity.type}
    if identity.ids:
        spec["user_assigned_identities"] = [{"resource_id": rid} for rid in identity.ids]
    return cast(IdentitySpec, spec)


def _network(settings: Any) -> dict[str, Any] | None:
    return {"subnet": settings.subnet} if settings else None


def workspace_args(spec: EnvironmentSpec, resource_group_name: pulumi.Input[str]) -> WorkspaceArgs:
    """The Workspace component's Args for the spec's `amlkit:workspace`: the same names."""
    ws = spec.workspace
    cmk = ws.customer_managed_key
    serverless = ws.serverless_compute
    args = _present({
        "resource_group_name": resource_group_name,
        "location": spec.location,
        "name": ws.name,
        "kind": ws.kind,
        "hub_id": ws.hub_id,
        "display_name": ws.display_name,
        "description": ws.description,
        "storage_account": ws.storage_account,
        "key_vault": ws.key_vault,
        "application_insights": ws.application_insights,
        "log_analytics_workspace": ws.log_analytics_workspace,
        "container_registry": ws.container_registry,
        "identity": identity_spec(ws.identity),
        "primary_user_assigned_identity": ws.primary_user_assigned_identity,
        "public_network_access": ws.public_network_access,
        "managed_network": {"isolation_mode": ws.managed_network.isolation_mode},
        "image_build_compute": ws.image_build_compute,
        "private_endpoints": {key: _present(endpoint.model_dump()) for key, endpoint in ws.private_endpoints.items()}
        or None,
        "serverless_compute": _present({"custom_subnet": serverless.custom_subnet,
                                        "no_public_ip": serverless.no_public_ip}) if serverless else None,
        "customer_managed_key": {"key_vault": cmk.key_vault, "key_uri": cmk.key_uri} if cmk else None,
        "hbi_workspace": ws.hbi_workspace,
        "locks": ws.locks,
        "protect_data": spec.protect_data,
        "tags": merged_tags(spec.tags, ws.tags, environment=spec.environment),
    })
    return cast(WorkspaceArgs, args)  # the component's check() validates it


def project_args(spec: EnvironmentSpec, project: ProjectSpec, resource_group_name: pulumi.Input[str],
                 hub_id: pulumi.Input[str]) -> WorkspaceArgs:
    """The Workspace component's Args for one `amlkit:workspace.projects` entry: a `project` of the hub `hub_id`,
    in the hub's resource group and region, with the hub's network access and HBI setting (which Azure applies to a
    project anyway)."""
    hub = spec.workspace
    args = _present({
        "resource_group_name": resource_group_name,
        "location": spec.location,
        "name": project.name,
        "kind": "project",
        "hub_id": hub_id,
        "display_name": project.display_name,
        "description": project.description,
        "identity": identity_spec(project.identity),
        "primary_user_assigned_identity": project.primary_user_assigned_identity,
        "public_network_access": hub.public_network_access,
        "hbi_workspace": hub.hbi_workspace,
        "locks": project.locks,
        "protect_data": spec.protect_data,
        "tags": merged_tags(spec.tags, hub.tags, project.tags, environment=spec.environment),
    })
    return cast(WorkspaceArgs, args)  # the component's check() validates it


def cluster_args(
    spec: EnvironmentSpec, cluster: ClusterSpec, resource_group_name: pulumi.Input[str],
    workspace_name: pulumi.Input[str],
) -> ComputeClusterArgs:
    """The ComputeCluster component's Args for one `amlkit:clusters` entry: the same names."""
    ssh = cluster.ssh_settings
    ssh_settings = _present({
        "admin_username": ssh.admin_username,
        "ssh_key_value": ssh.ssh_key_value,
        "admin_password": secret_output(ssh.admin_password) if ssh.admin_password else None,
    }) if ssh else None
    args = _present({
        "resource_group_name": resource_group_name,
        "workspace_name": workspace_name,
        "workspace_location": spec.location,
        "workspace_managed_network": spec.workspace.has_managed_network,
        "size": cluster.size,
        "max_instances": cluster.max_instances,
        "name": cluster.name,
        "location": cluster.location,
        "description": cluster.description,
        "tier": cluster.tier,
        "min_instances": cluster.min_instances,
        "idle_time_before_scale_down": cluster.idle_time_before_scale_down,
        "network_settings": _network(cluster.network_settings),
        "enable_node_public_ip": cluster.enable_node_public_ip,
        "ssh_public_access_enabled": cluster.ssh_public_access_enabled,
        "ssh_settings": ssh_settings,
        "local_auth_enabled": cluster.local_auth,
        "identity": identity_spec(cluster.identity),
        "tags": merged_tags(spec.tags, cluster.tags, environment=spec.environment),
    })
    return cast(ComputeClusterArgs, args)  # the component's check() validates it


def schedule_spec(entry: ScheduleEntry) -> ScheduleSpec:
    """One az-ml start/stop schedule as the ComputeInstance component takes it: the same keys."""
    trigger = entry.trigger
    when = trigger.schedule
    schedule = _present({
        "hours": list(when.hours) or None,
        "minutes": list(when.minutes) or None,
        "week_days": list(when.week_days) or None,
    }) if when else None
    return ScheduleSpec(
        action=entry.action,
        state=entry.state,
        trigger=cast(TriggerSpec, _present({
            "type": trigger.type,
            "expression": trigger.expression,
            "frequency": trigger.frequency,
            "interval": trigger.interval,
            "schedule": schedule,
            "start_time": trigger.start_time,
            "time_zone": trigger.time_zone,
        })),
    )


def instance_args(
    spec: EnvironmentSpec, instance: InstanceSpec, resource_group_name: pulumi.Input[str],
    workspace_name: pulumi.Input[str], workspace_id: pulumi.Input[str] | None = None,
) -> ComputeInstanceArgs:
    """The ComputeInstance component's Args for one `amlkit:instances` entry: the same names."""
    user = instance.assigned_user
    args = _present({
        "resource_group_name": resource_group_name,
        "workspace_name": workspace_name,
        "workspace_location": spec.location,
        "workspace_managed_network": spec.workspace.has_managed_network,
        "size": instance.size,
        "name": instance.name,
        "location": instance.location,
        "description": instance.description,
        "idle_time_before_shutdown_minutes": instance.idle_time_before_shutdown_minutes,
        "schedules": [schedule_spec(entry) for entry in instance.schedules] or None,
        "assigned_user": {"object_id": user.object_id, "tenant_id": user.tenant_id} if user else None,
        "network_settings": _network(instance.network_settings),
        "enable_node_public_ip": instance.enable_node_public_ip,
        "ssh_public_access_enabled": instance.ssh_public_access_enabled,
        "ssh_settings": {"ssh_key_value": instance.ssh_settings.ssh_key_value} if instance.ssh_settings else None,
        "identity": identity_spec(instance.identity),
        "workspace_id": workspace_id,
        "tags": merged_tags(spec.tags, instance.tags, environment=spec.environment),
    })
    return cast(ComputeInstanceArgs, args)  # the component's check() validates it


AttachedCompute = KubernetesCompute | VirtualMachineCompute | SynapseSparkCompute
AttachedArgs = KubernetesComputeArgs | VirtualMachineComputeArgs | SynapseSparkComputeArgs
ATTACHED_COMPONENTS: dict[str, type[AttachedCompute]] = {
    "kubernetes": KubernetesCompute,
    "virtualmachine": VirtualMachineCompute,
    "synapsespark": SynapseSparkCompute,
}


def attached_args(
    spec: EnvironmentSpec, entry: AttachedSpec, resource_group_name: pulumi.Input[str],
    workspace_name: pulumi.Input[str],
) -> AttachedArgs:
    """The attached-compute component's Args for one `amlkit:attached` entry (same az ml names)."""
    args = _present({
        "resource_group_name": resource_group_name,
        "workspace_name": workspace_name,
        "resource_id": entry.resource_id,
        "name": entry.name,
        "location": spec.location,
        "description": entry.description,
        "local_auth_enabled": entry.local_auth_enabled,
        "tags": merged_tags(spec.tags, entry.tags, environment=spec.environment),
    })
    if entry.type == "kubernetes":
        args.update(_present({
            "namespace": entry.namespace,
            "default_instance_type": entry.default_instance_type,
            "instance_types": [_present({
                "name": item.name,
                "node_selector": item.node_selector or None,
                "resources": _present({"requests": item.resources.requests or None,
                                       "limits": item.resources.limits or None}) if item.resources else None,
            }) for item in entry.instance_types] or None,
        }))
    if entry.type != "virtualmachine":
        args.update(_present({"identity": identity_spec(entry.identity)}))
    if entry.ssh_settings is not None:
        ssh = entry.ssh_settings
        args["ssh_settings"] = _present({
            "admin_username": ssh.admin_username,
            "admin_password": secret_output(ssh.admin_password) if ssh.admin_password else None,
            "ssh_private_key": secret_output(ssh.ssh_private_key) if ssh.ssh_private_key else None,
            "ssh_port": ssh.ssh_port,
        })
    return args  # type: ignore[return-value]


class Environment(pulumi.ComponentResource):
    """A stack's Azure ML environment: resource group (or a reference), workspace and computes.

    Children are named after this component (`<name>-rg`, `<name>-workspace`,
    `<name>-cluster-<compute>`, `<name>-instance-<compute>`, `<name>-attached-<compute>`), so two
    environments never collide. A hub's projects are Workspace components `<name>-project-<project>` whose
    parent is the hub's Workspace (so previews show them under it) and whose `hub_id` is the hub's id.
    With `resourceGroup.existing: true` no resource group resource is declared: its name is used.
    """

    resource_group_name: pulumi.Output[str]
    workspace: Workspace
    projects: dict[str, Workspace]
    clusters: dict[str, ComputeCluster]
    instances: dict[str, ComputeInstance]
    attached: dict[str, AttachedCompute]

    def __init__(self, name: str, args: EnvironmentArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(TYPE_TOKEN, name, None, opts)
        spec = args["spec"]
        self.resource_group_name = self._resource_group(name, spec)
        child = pulumi.ResourceOptions(parent=self)
        self.workspace = Workspace(f"{name}-workspace", workspace_args(spec, self.resource_group_name), child)
        workspace_name = self.workspace.workspace_name
        self.projects = {
            project.name: Workspace(
                f"{name}-project-{project.name}",
                project_args(spec, project, self.resource_group_name, self.workspace.workspace_id),
                pulumi.ResourceOptions(parent=self.workspace),
            )
            for project in spec.workspace.projects
        }
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
        self.attached = {
            entry.name: ATTACHED_COMPONENTS[entry.type](
                f"{name}-attached-{entry.name}",
                attached_args(spec, entry, self.resource_group_name, workspace_name), child,  # type: ignore[arg-type]
            )
            for entry in spec.attached
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
            "project_ids": {name: project.workspace_id for name, project in self.projects.items()},
            "cluster_ids": {name: cluster.compute_id for name, cluster in self.clusters.items()},
            "cluster_names": {name: cluster.compute_name for name, cluster in self.clusters.items()},
            "instance_ids": {name: instance.compute_id for name, instance in self.instances.items()},
            "instance_names": {name: instance.compute_name for name, instance in self.instances.items()},
            "attached_ids": {name: compute.compute_id for name, compute in self.attached.items()},
            "attached_names": {name: compute.compute_name for name, compute in self.attached.items()},
        }
