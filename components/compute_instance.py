"""An Azure ML compute instance with idle shutdown and secure defaults."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, Required, TypedDict

import pulumi


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
    """VM size, e.g. `Standard_DS3_v2`."""

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
    tags: Mapping[str, str]
    """Tags on the compute resource."""


class ComputeInstance(pulumi.ComponentResource):
    """A compute instance: idle shutdown, no public SSH, no local auth by default."""

    compute_id: pulumi.Output[str]
    compute_name: pulumi.Output[str]
    principal_id: pulumi.Output[str | None]

    def __init__(
        self, name: str, args: ComputeInstanceArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("amlkit:index:ComputeInstance", name, None, opts)
        raise NotImplementedError("ComputeInstance is being written")
