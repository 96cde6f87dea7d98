"""An Azure ML compute instance with idle shutdown and secure defaults."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Required, TypedDict

import pulumi
from pulumi_azure_native import machinelearningservices as ml

from amlkit import azure_facts as facts
from amlkit.components import naming
from amlkit.components.args import REQUIRED, ArgInfo, check, document, document_nested, label, named
from amlkit.components.compute_cluster import (
    NetworkSettings,
    compute_identity,
    node_public_ip,
    role_assignment,
    subnet_of,
    validate_identity,
    workspace_compute,
)
from amlkit.components.outputs import expose, principal_id
from amlkit.components.placement import PLACEMENT_ARGS, WorkspacePlacementArgs, with_workspace
from amlkit.components.workspace import IdentitySpec
from amlkit.errors import ConfigError

__all__ = [
    "ARGS", "AssignedUserSpec", "ComputeInstance", "ComputeInstanceArgs", "InstanceSshSettings", "MAX_IDLE_MINUTES",
    "MAX_SCHEDULES", "MIN_IDLE_MINUTES", "RENAMED", "REPLACE_ON_CHANGES", "RecurrenceScheduleSpec", "ScheduleSpec",
    "TYPE_TOKEN", "TriggerSpec", "instance_properties", "local_auth", "personal_settings", "start_stop_schedule",
    "validate",
]

TYPE_TOKEN = "amlkit:index:ComputeInstance"
MIN_IDLE_MINUTES, MAX_IDLE_MINUTES = facts.INSTANCE_IDLE_MINUTES_MIN, facts.INSTANCE_IDLE_MINUTES_MAX
MAX_SCHEDULES = 4

# Input property paths Azure cannot change on an existing instance.
REPLACE_ON_CHANGES = facts.INSTANCE_REPLACE_ON_CHANGES


class RecurrenceScheduleSpec(TypedDict, total=False):
    """`schedule` of a recurrence trigger, as in az ml."""

    hours: Sequence[int]
    """Hours of the day the schedule fires (0-23)."""
    minutes: Sequence[int]
    """Minutes of the hour the schedule fires (0-59)."""
    week_days: Sequence[Literal["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]]
    """Days of the week the schedule fires."""


class TriggerSpec(TypedDict, total=False):
    """`trigger` of a schedule, as in az ml: `type: cron` with `expression`, or `type: recurrence` with
    `frequency`, `interval` and `schedule`."""

    type: Required[Literal["cron", "recurrence"]]
    """`cron` (with `expression`) or `recurrence` (with `frequency` and `interval`)."""
    expression: str
    """Cron expression of a `cron` trigger (NCronTab), e.g. `0 19 * * 1-5`."""
    frequency: Literal["minute", "hour", "day", "week", "month"]
    """Unit of a `recurrence` trigger's interval."""
    interval: int
    """Fire every `interval` units of `frequency`."""
    schedule: RecurrenceScheduleSpec
    """Hours, minutes and week days of a `recurrence` trigger."""
    start_time: str
    """Local time the trigger starts from, `yyyy-MM-ddTHH:mm:ss`."""
    time_zone: str
    """Time zone of the schedule (a Windows time zone name). Default `UTC`."""


class ScheduleSpec(TypedDict, total=False):
    """One start/stop schedule, as in az ml's `schedules.compute_start_stop` entries."""

    action: Required[Literal["start", "stop"]]
    """Start or stop the instance."""
    trigger: Required[TriggerSpec]
    """When the action runs."""
    state: Literal["enabled", "disabled"]
    """A disabled schedule is kept but does not fire. Default `enabled`."""


class AssignedUserSpec(TypedDict):
    """`assigned_user` of an instance: the user it is created for (az ml `create_on_behalf_of`)."""

    object_id: pulumi.Input[str]
    """Entra object id of the user the instance is created for."""
    tenant_id: pulumi.Input[str]
    """Entra tenant id of that user."""


class InstanceSshSettings(TypedDict):
    """`ssh_settings` of an instance, as in az ml."""

    ssh_key_value: pulumi.Input[str]
    """OpenSSH public key of the `azureuser` account."""


class ComputeInstanceArgs(WorkspacePlacementArgs, total=False):
    """Inputs of `ComputeInstance`, named as in the stack file (`amlkit:instances`, az ml's compute YAML).

    Give `workspace` (the Workspace component) or `resource_group_name` and `workspace_name`.
    """

    size: Required[str]
    """VM size, e.g. `Standard_D4ds_v5`."""

    name: str
    """Azure name of the instance, unique in the region."""
    location: pulumi.Input[str]
    """Region of the instance; it must be the workspace's."""
    description: pulumi.Input[str]
    """Free-text description."""
    idle_time_before_shutdown_minutes: int
    """Idle minutes before the instance shuts down."""
    schedules: Sequence[ScheduleSpec]
    """Up to four start/stop schedules."""
    assigned_user: AssignedUserSpec
    """The user the instance is created for (a personal instance)."""
    network_settings: NetworkSettings
    """Customer virtual network the instance joins (`{subnet: <subnet ARM id>}`)."""
    enable_node_public_ip: bool
    """Public IP on the instance: an explicit choice unless there is a subnet or managed network."""
    ssh_public_access_enabled: bool
    """Open the SSH port to public access (needs `ssh_settings`)."""
    ssh_settings: InstanceSshSettings
    """The SSH key; only with `ssh_public_access_enabled: True`."""
    local_auth_enabled: bool
    """Local (SSH) authentication on the instance."""
    identity: IdentitySpec
    """The instance's managed identity."""
    workspace_id: pulumi.Input[str]
    """ARM id of the workspace. When known, the instance's system-assigned identity gets Contributor on it:
    Azure ML stops an idle instance that has a managed identity only if that identity holds Contributor on
    the workspace. (Grant a user-assigned identity its role where the identity is defined.)"""
    tags: Mapping[str, str]
    """Tags on the compute resource."""


ARGS: dict[str, ArgInfo] = {
    "size": ArgInfo(REQUIRED, facts.VM_SIZE),
    **PLACEMENT_ARGS,
    "name": ArgInfo("derived (`ci-<name>-<hash>`)", "computeName", facts.INSTANCE_NAME.allowed),
    "location": ArgInfo("the workspace's region", "location"),
    "description": ArgInfo("none", "properties.description"),
    "idle_time_before_shutdown_minutes": ArgInfo(
        str(facts.INSTANCE_IDLE_MINUTES_DEFAULT), f"{facts.IDLE_TIME_BEFORE_SHUTDOWN} (`PT<minutes>M`)",
        f"whole minutes from {facts.INSTANCE_IDLE_MINUTES_MIN} to {facts.INSTANCE_IDLE_MINUTES_MAX}"),
    "schedules": ArgInfo("none", "properties.properties.schedules.computeStartStop"),
    "assigned_user": ArgInfo("none", "properties.properties.personalComputeInstanceSettings.assignedUser"),
    "network_settings": ArgInfo("none", "properties.properties.subnet.id"),
    "enable_node_public_ip": ArgInfo(
        "False with a subnet or managed network, else required", facts.ENABLE_NODE_PUBLIC_IP),
    "ssh_public_access_enabled": ArgInfo(
        "False", "properties.properties.sshSettings.sshPublicAccess (`Enabled` | `Disabled`)"),
    "ssh_settings": ArgInfo("none", "properties.properties.sshSettings.adminPublicKey"),
    "local_auth_enabled": ArgInfo("`ssh_public_access_enabled`", "properties.disableLocalAuth (negated)"),
    "identity": ArgInfo("`{type: system_assigned}`", "identity.type, identity.userAssignedIdentities"),
    "workspace_id": ArgInfo("the `workspace` component's id; without it: none (no grant)",
                            "child Microsoft.Authorization/roleAssignments (Contributor on the workspace)"),
    "tags": ArgInfo("none", "tags"),
}
for _nested in (RecurrenceScheduleSpec, TriggerSpec, ScheduleSpec, AssignedUserSpec, InstanceSshSettings):
    document_nested(_nested)
document(ComputeInstanceArgs, ARGS)

# Former argument names -> today's, for error hints.
RENAMED = {
    "vm_size": "size", "compute_name": "name", "idle_minutes_before_shutdown": "idle_time_before_shutdown_minutes",
    "assigned_user_object_id": "assigned_user", "assigned_user_tenant_id": "assigned_user",
    "subnet_id": "network_settings", "ssh_public_access": "ssh_public_access_enabled",
    "admin_ssh_public_key": "ssh_settings", "disable_local_auth": "local_auth_enabled",
    "system_assigned_identity": "identity", "user_assigned_identity_ids": "identity",
}


class ComputeInstance(pulumi.ComponentResource):
    """A compute instance: idle shutdown, no public SSH, no local auth by default.

    With `workspace_id` (given, or from `workspace`), its system-assigned identity gets Contributor on
    the workspace (child `<name>-workspace-contributor`), without which Azure ML never stops the idle
    instance.

    Node public IP follows the cluster's rule: off on a private network, an explicit choice
    otherwise. Size, network, SSH settings, assigned user, local auth and location replace the
    instance (old one deleted first); idle shutdown, schedules, identity and tags update in place.
    The derived Azure name carries a hash because instance names are unique per region.
    """

    compute_id: pulumi.Output[str]
    compute_name: pulumi.Output[str]
    principal_id: pulumi.Output[str | None]

    def __init__(
        self, name: str, args: ComputeInstanceArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        component = label("ComputeInstance", name)
        check(ComputeInstanceArgs, component, args, RENAMED, sourced=True)
        with named(component):
            workspace = args.get("workspace")
            if workspace is not None and args.get("workspace_id") is None:
                args = {**args, "workspace_id": workspace.workspace_id}
            placed = with_workspace(args)
            validate(placed)
            compute_name = naming.resource_name(
                placed.get("name"), naming.compute_instance_name(name), facts.INSTANCE_NAME, "name",
            )
        super().__init__(TYPE_TOKEN, name, None, opts)
        compute = workspace_compute(self, name, placed, compute_name, ml.ComputeInstanceArgs(
            compute_type="ComputeInstance",
            description=placed.get("description"),
            disable_local_auth=not local_auth(placed),
            properties=instance_properties(placed),
        ), location=placed.get("location") or placed["workspace_location"], identity=compute_identity(placed),
            replace_on_changes=REPLACE_ON_CHANGES)
        principal = principal_id(compute)
        workspace_id = placed.get("workspace_id")
        system_identity = (placed.get("identity") or {"type": "system_assigned"})["type"] == "system_assigned"
        if workspace_id is not None and system_identity:
            role_assignment(f"{name}-workspace-contributor", name, {"scope": workspace_id, "role": "Contributor"},
                            principal, self)
        expose(self, compute_id=compute.id, compute_name=compute.name, principal_id=principal)


def local_auth(args: Mapping[str, Any]) -> bool:
    """As set, else on only with public SSH access."""
    explicit = args.get("local_auth_enabled")
    return bool(args.get("ssh_public_access_enabled")) if explicit is None else bool(explicit)


def instance_properties(args: Mapping[str, Any]) -> ml.ComputeInstancePropertiesArgs:
    subnet = subnet_of(args)
    schedules = [start_stop_schedule(s) for s in args.get("schedules") or []]
    ssh = args.get("ssh_settings") or {}
    return ml.ComputeInstancePropertiesArgs(
        vm_size=args["size"],
        idle_time_before_shutdown=facts.minutes_iso(
            args.get("idle_time_before_shutdown_minutes", facts.INSTANCE_IDLE_MINUTES_DEFAULT)),
        schedules=ml.ComputeSchedulesArgs(compute_start_stop=schedules) if schedules else None,
        subnet=ml.ResourceIdArgs(id=subnet) if subnet else None,
        enable_node_public_ip=node_public_ip(args),
        ssh_settings=ml.ComputeInstanceSshSettingsArgs(
            ssh_public_access="Enabled" if args.get("ssh_public_access_enabled") else "Disabled",
            admin_public_key=ssh.get("ssh_key_value"),
        ),
        personal_compute_instance_settings=personal_settings(args),
        # Only the instance's user reaches its applications (Jupyter, VS Code); Azure's default shares them.
        application_sharing_policy="Personal",
    )


def personal_settings(args: Mapping[str, Any]) -> ml.PersonalComputeInstanceSettingsArgs | None:
    user = args.get("assigned_user")
    if not user:
        return None
    return ml.PersonalComputeInstanceSettingsArgs(
        assigned_user=ml.AssignedUserArgs(object_id=user["object_id"], tenant_id=user["tenant_id"])
    )


def start_stop_schedule(spec: Mapping[str, Any]) -> ml.ComputeStartStopScheduleArgs:
    """One az ml start/stop schedule in ARM's form, cron or recurrence."""
    trigger = spec["trigger"]
    common = {
        "action": spec["action"].capitalize(),
        "status": "Enabled" if spec.get("state", "enabled") == "enabled" else "Disabled",
    }
    if trigger["type"] == "cron":
        return ml.ComputeStartStopScheduleArgs(
            trigger_type="Cron",
            cron=ml.CronArgs(
                expression=trigger["expression"],
                time_zone=trigger.get("time_zone", facts.SCHEDULE_TIME_ZONE_DEFAULT),
                start_time=trigger.get("start_time"),
            ),
            **common,
        )
    when = trigger.get("schedule") or {}
    return ml.ComputeStartStopScheduleArgs(
        trigger_type="Recurrence",
        recurrence=ml.RecurrenceArgs(
            frequency=trigger["frequency"].capitalize(),
            interval=trigger["interval"],
            time_zone=trigger.get("time_zone", facts.SCHEDULE_TIME_ZONE_DEFAULT),
            start_time=trigger.get("start_time"),
            schedule=ml.ComputeRecurrenceScheduleArgs(
                hours=list(when.get("hours", [])),
                minutes=list(when.get("minutes", [])),
                week_days=[day.capitalize() for day in when["week_days"]] if when.get("week_days") else None,
            ),
        ),
        **common,
    )


def validate(args: Mapping[str, Any]) -> None:
    """Check every field's rule; raise a ConfigError naming the field and what is allowed."""
    if not args.get("size"):
        raise ConfigError(None, "size", "is required")
    idle = args.get("idle_time_before_shutdown_minutes", facts.INSTANCE_IDLE_MINUTES_DEFAULT)
    if not MIN_IDLE_MINUTES <= idle <= MAX_IDLE_MINUTES:
        raise ConfigError(
            None, "idle_time_before_shutdown_minutes",
            f"must be a whole number of minutes from {MIN_IDLE_MINUTES} to {MAX_IDLE_MINUTES}", idle,
        )
    location, home = args.get("location"), args.get("workspace_location")
    if isinstance(location, str) and isinstance(home, str) and location != home:
        raise ConfigError(None, "location", f"must be the workspace's region ({home}): an instance cannot run "
                                            "in another region", location)
    validate_identity(args)
    node_public_ip(args)
    _validate_ssh(args)
    schedules = list(args.get("schedules") or [])
    if len(schedules) > MAX_SCHEDULES:
        raise ConfigError(None, "schedules", f"at most {MAX_SCHEDULES} schedules", len(schedules))
    for index, spec in enumerate(schedules):
        _validate_trigger(spec["trigger"], f"schedules[{index}].trigger")


def _validate_ssh(args: Mapping[str, Any]) -> None:
    enabled = bool(args.get("ssh_public_access_enabled"))
    if enabled and not args.get("ssh_settings"):
        raise ConfigError(None, "ssh_settings", "is required when ssh_public_access_enabled is True")
    if not enabled and args.get("ssh_settings"):
        raise ConfigError(None, "ssh_settings", "needs ssh_public_access_enabled True")
    if enabled and args.get("local_auth_enabled") is False:
        raise ConfigError(
            None, "local_auth_enabled", "must be True or unset to enable SSH (SSH login is local authentication)",
            False,
        )


def _validate_trigger(trigger: Mapping[str, Any], key: str) -> None:
    if trigger["type"] == "cron":
        if not trigger.get("expression"):
            raise ConfigError(None, f"{key}.expression", "is required when type is cron")
        for extra in ("frequency", "interval", "schedule"):
            if extra in trigger:
                raise ConfigError(None, f"{key}.{extra}", "is only read when type is recurrence")
        return
    if "expression" in trigger:
        raise ConfigError(None, f"{key}.expression", "is only read when type is cron")
    for needed in ("frequency", "interval"):
        if needed not in trigger:
            raise ConfigError(None, f"{key}.{needed}", "is required when type is recurrence")
    if trigger["interval"] < 1:
        raise ConfigError(None, f"{key}.interval", "must be a whole number >= 1", trigger["interval"])
    when = trigger.get("schedule") or {}
    _whole_numbers(when.get("hours", []), 0, 23, f"{key}.schedule.hours")
    _whole_numbers(when.get("minutes", []), 0, 59, f"{key}.schedule.minutes")


def _whole_numbers(values: Sequence[int], low: int, high: int, key: str) -> None:
    bad = [v for v in values if not low <= v <= high]
    if bad:
        raise ConfigError(None, key, f"must be whole numbers from {low} to {high}", bad)
