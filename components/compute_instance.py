"""An Azure ML compute instance with idle shutdown and secure defaults."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Required, TypedDict

import pulumi
from pulumi_azure_native import machinelearningservices as ml

from amlkit.components import naming
from amlkit.components.compute_cluster import (
    compute_identity,
    node_public_ip,
    role_assignment,
    validate_identity,
    workspace_compute,
)
from amlkit.errors import ConfigError

TYPE_TOKEN = "amlkit:index:ComputeInstance"
SSH_ACCESS = ("Enabled", "Disabled")
ACTIONS = ("Start", "Stop")
FREQUENCIES = ("Minute", "Hour", "Day", "Week", "Month")
WEEK_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MIN_IDLE_MINUTES, MAX_IDLE_MINUTES = 15, 3 * 24 * 60
MAX_SCHEDULES = 4

# Input property paths (engine form) Azure cannot change on an existing instance.
REPLACE_ON_CHANGES = [
    "location",
    "properties.disableLocalAuth",
    "properties.properties.vmSize",
    "properties.properties.subnet",
    "properties.properties.enableNodePublicIp",
    "properties.properties.sshSettings",
    "properties.properties.personalComputeInstanceSettings",
]


class RecurrenceSpec(TypedDict, total=False):
    """A recurrence trigger: every `interval` `frequency` at the given hours and minutes."""

    frequency: Required[Literal["Minute", "Hour", "Day", "Week", "Month"]]
    """Unit of the recurrence."""
    interval: Required[int]
    """Number of units between runs."""
    hours: Sequence[int]
    """Hours of the day (0-23)."""
    minutes: Sequence[int]
    """Minutes of the hour (0-59)."""
    week_days: Sequence[str]
    """Days of the week, e.g. `Monday`."""
    time_zone: str
    """Windows time zone name. Default `UTC`."""
    start_time: str
    """First run, `yyyy-MM-ddTHH:mm:ss`."""


class CronSpec(TypedDict, total=False):
    """A cron trigger (NCronTab expression)."""

    expression: Required[str]
    """Cron expression, e.g. `0 19 * * 1-5`."""
    time_zone: str
    """Windows time zone name. Default `UTC`."""
    start_time: str
    """First run, `yyyy-MM-ddTHH:mm:ss`."""


class ScheduleSpec(TypedDict, total=False):
    """A start or stop schedule: exactly one of `cron` and `recurrence`."""

    action: Required[Literal["Start", "Stop"]]
    """What the schedule does."""
    cron: CronSpec
    """Cron trigger."""
    recurrence: RecurrenceSpec
    """Recurrence trigger."""
    enabled: bool
    """Whether the schedule is active. Default True."""


class ComputeInstanceArgs(TypedDict, total=False):
    """Inputs of `ComputeInstance`. Required fields first; every optional field has a secure default."""

    resource_group_name: Required[pulumi.Input[str]]
    """Resource group of the ML workspace."""
    workspace_name: Required[pulumi.Input[str]]
    """Name of the ML workspace the instance belongs to."""
    vm_size: Required[str]
    """VM size, e.g. `Standard_D4ds_v4`."""

    compute_name: str
    """Azure name of the instance (3-24 chars). Default: derived from the component name."""
    location: pulumi.Input[str]
    """Region of the compute resource (must be the workspace's). Default: the workspace's."""
    description: pulumi.Input[str]
    """Free-text description."""
    idle_minutes_before_shutdown: int
    """Stop after this many idle minutes (15 to 4320). Default 60."""
    schedules: Sequence[ScheduleSpec]
    """Up to four start/stop schedules."""
    assigned_user_object_id: pulumi.Input[str]
    """Entra object id of the user the instance is created for (personal instance)."""
    assigned_user_tenant_id: pulumi.Input[str]
    """Entra tenant id of that user. Required with `assigned_user_object_id`."""
    subnet_id: pulumi.Input[str]
    """Subnet the instance joins. Default: none."""
    workspace_managed_network: bool
    """True when the workspace uses a managed network (then no public IP). Default False."""
    enable_node_public_ip: bool
    """Public IP on the instance. Default False when a subnet or managed network is given; else required."""
    ssh_public_access: Literal["Enabled", "Disabled"]
    """Public SSH access. Default `Disabled`."""
    admin_ssh_public_key: pulumi.Input[str]
    """SSH public key for the `azureuser` account (needs `ssh_public_access` Enabled)."""
    disable_local_auth: bool
    """Disable local authentication. Default True."""
    system_assigned_identity: bool
    """Give the instance a system-assigned identity. Default True unless user-assigned ids are given."""
    user_assigned_identity_ids: Sequence[pulumi.Input[str]]
    """User-assigned identity (exclusive with a system-assigned identity)."""
    workspace_id: pulumi.Input[str]
    """ARM id of the workspace. When given, the instance's system-assigned identity gets Contributor on it:
    Azure ML stops an idle instance that has a managed identity only if that identity holds Contributor on
    the workspace. (Grant a user-assigned identity its role where the identity is defined.) Default: none."""
    tags: Mapping[str, str]
    """Tags on the compute resource."""


class ComputeInstance(pulumi.ComponentResource):
    """A compute instance: idle shutdown, no public SSH, no local auth by default.

    With `workspace_id`, its system-assigned identity gets Contributor on the workspace (child
    `<name>-workspace-contributor`), without which Azure ML never stops the idle instance.

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
        super().__init__(TYPE_TOKEN, name, None, opts)
        validate(args)
        compute_name = naming.resource_name(
            args.get("compute_name"), naming.compute_instance_name(name), naming.COMPUTE_INSTANCE,
            "compute_name",
        )
        compute = workspace_compute(self, name, args, compute_name, REPLACE_ON_CHANGES, ml.ComputeInstanceArgs(
            compute_type="ComputeInstance",
            description=args.get("description"),
            disable_local_auth=args.get("disable_local_auth", True),
            properties=instance_properties(args),
        ))
        self.compute_id = compute.id
        self.compute_name = compute.name
        self.principal_id = compute.identity.apply(lambda i: i.principal_id if i else None)
        workspace_id = args.get("workspace_id")
        system_identity = compute_identity(args) is not None and not args.get("user_assigned_identity_ids")
        if workspace_id is not None and system_identity:
            role_assignment(f"{name}-workspace-contributor", name, {"scope": workspace_id, "role": "Contributor"},
                            self.principal_id, self)
        self.register_outputs({
            "compute_id": self.compute_id,
            "compute_name": self.compute_name,
            "principal_id": self.principal_id,
        })


def instance_properties(args: ComputeInstanceArgs) -> ml.ComputeInstancePropertiesArgs:
    subnet = args.get("subnet_id")
    schedules = [start_stop_schedule(s) for s in args.get("schedules") or []]
    return ml.ComputeInstancePropertiesArgs(
        vm_size=args["vm_size"],
        idle_time_before_shutdown=minutes_iso(args.get("idle_minutes_before_shutdown", 60)),
        schedules=ml.ComputeSchedulesArgs(compute_start_stop=schedules) if schedules else None,
        subnet=ml.ResourceIdArgs(id=subnet) if subnet else None,
        enable_node_public_ip=node_public_ip(args),
        ssh_settings=ml.ComputeInstanceSshSettingsArgs(
            ssh_public_access=args.get("ssh_public_access", "Disabled"),
            admin_public_key=args.get("admin_ssh_public_key"),
        ),
        personal_compute_instance_settings=personal_settings(args),
        # Only the instance's user reaches its applications (Jupyter, VS Code); Azure's default shares them.
        application_sharing_policy="Personal",
    )


def minutes_iso(minutes: int) -> str:
    """ISO-8601 duration in minutes (`PT60M`)."""
    return f"PT{minutes}M"


def personal_settings(args: ComputeInstanceArgs) -> ml.PersonalComputeInstanceSettingsArgs | None:
    object_id = args.get("assigned_user_object_id")
    if not object_id:
        return None
    return ml.PersonalComputeInstanceSettingsArgs(
        assigned_user=ml.AssignedUserArgs(object_id=object_id, tenant_id=args["assigned_user_tenant_id"])
    )


def start_stop_schedule(spec: ScheduleSpec) -> ml.ComputeStartStopScheduleArgs:
    """One start/stop schedule, cron or recurrence."""
    status = "Enabled" if spec.get("enabled", True) else "Disabled"
    cron = spec.get("cron")
    if cron is not None:
        return ml.ComputeStartStopScheduleArgs(
            action=spec["action"],
            trigger_type="Cron",
            status=status,
            cron=ml.CronArgs(
                expression=cron["expression"],
                time_zone=cron.get("time_zone", "UTC"),
                start_time=cron.get("start_time"),
            ),
        )
    recurrence = spec["recurrence"]
    return ml.ComputeStartStopScheduleArgs(
        action=spec["action"],
        trigger_type="Recurrence",
        status=status,
        recurrence=ml.RecurrenceArgs(
            frequency=recurrence["frequency"],
            interval=recurrence["interval"],
            time_zone=recurrence.get("time_zone", "UTC"),
            start_time=recurrence.get("start_time"),
            schedule=ml.ComputeRecurrenceScheduleArgs(
                hours=list(recurrence.get("hours", [])),
                minutes=list(recurrence.get("minutes", [])),
                week_days=list(recurrence["week_days"]) if "week_days" in recurrence else None,
            ),
        ),
    )


def validate(args: ComputeInstanceArgs) -> None:
    """Check every field's rule; raise a ConfigError naming the field and what is allowed."""
    for key in ("resource_group_name", "workspace_name", "vm_size"):
        if not args.get(key):
            raise ConfigError(None, key, "is required")
    idle = args.get("idle_minutes_before_shutdown", 60)
    if isinstance(idle, bool) or not isinstance(idle, int) or not MIN_IDLE_MINUTES <= idle <= MAX_IDLE_MINUTES:
        raise ConfigError(
            None, "idle_minutes_before_shutdown",
            f"must be a whole number of minutes from {MIN_IDLE_MINUTES} to {MAX_IDLE_MINUTES}", idle,
        )
    if bool(args.get("assigned_user_object_id")) != bool(args.get("assigned_user_tenant_id")):
        raise ConfigError(
            None, "assigned_user_tenant_id", "assigned_user_object_id and assigned_user_tenant_id go together"
        )
    validate_identity(args)
    node_public_ip(args)
    _validate_ssh(args)
    schedules = list(args.get("schedules") or [])
    if len(schedules) > MAX_SCHEDULES:
        raise ConfigError(None, "schedules", f"at most {MAX_SCHEDULES} schedules", len(schedules))
    for index, spec in enumerate(schedules):
        _validate_schedule(spec, f"schedules[{index}]")


def _validate_ssh(args: ComputeInstanceArgs) -> None:
    access = args.get("ssh_public_access", "Disabled")
    if access not in SSH_ACCESS:
        raise ConfigError(None, "ssh_public_access", f"must be one of {', '.join(SSH_ACCESS)}", access)
    if access == "Enabled" and not args.get("admin_ssh_public_key"):
        raise ConfigError(None, "admin_ssh_public_key", "is required when ssh_public_access is Enabled")
    if access == "Disabled" and args.get("admin_ssh_public_key"):
        raise ConfigError(None, "admin_ssh_public_key", "needs ssh_public_access Enabled")
    if access == "Enabled" and args.get("disable_local_auth", True):
        raise ConfigError(
            None, "disable_local_auth", "must be False to enable SSH (SSH login is local authentication)", True
        )


def _validate_schedule(spec: Mapping[str, Any], key: str) -> None:
    if spec.get("action") not in ACTIONS:
        raise ConfigError(None, f"{key}.action", f"must be one of {', '.join(ACTIONS)}", spec.get("action"))
    if ("cron" in spec) == ("recurrence" in spec):
        raise ConfigError(None, key, "needs exactly one of cron and recurrence")
    if "cron" in spec and not spec["cron"].get("expression"):
        raise ConfigError(None, f"{key}.cron.expression", "is required")
    if "recurrence" in spec:
        _validate_recurrence(spec["recurrence"], f"{key}.recurrence")


def _validate_recurrence(recurrence: Mapping[str, Any], key: str) -> None:
    if recurrence.get("frequency") not in FREQUENCIES:
        raise ConfigError(
            None, f"{key}.frequency", f"must be one of {', '.join(FREQUENCIES)}", recurrence.get("frequency")
        )
    interval = recurrence.get("interval")
    if isinstance(interval, bool) or not isinstance(interval, int) or interval < 1:
        raise ConfigError(None, f"{key}.interval", "must be a whole number >= 1", interval)
    _whole_numbers(recurrence.get("hours", []), 0, 23, f"{key}.hours")
    _whole_numbers(recurrence.get("minutes", []), 0, 59, f"{key}.minutes")
    bad_days = [d for d in recurrence.get("week_days", []) if d not in WEEK_DAYS]
    if bad_days:
        raise ConfigError(None, f"{key}.week_days", f"must be among {', '.join(WEEK_DAYS)}", bad_days)


def _whole_numbers(values: Sequence[Any], low: int, high: int, key: str) -> None:
    bad = [v for v in values if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high]
    if bad:
        raise ConfigError(None, key, f"must be whole numbers from {low} to {high}", bad)
