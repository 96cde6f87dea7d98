"""`amlkit:clusters` and `amlkit:instances` entries (az ml `amlcompute` / `computeinstance`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BeforeValidator, model_validator

from amlkit import azure_facts as facts
from amlkit.schema.cron import Cron, StartTime
from amlkit.schema.types import (
    AdminUsername,
    Bool,
    ClusterName,
    Description,
    Guid,
    InstanceName,
    Model,
    Region,
    SecretValue,
    SshPublicKey,
    SubnetId,
    Tags,
    TimeZone,
    VmSize,
    choice,
    fail,
    integer,
    list_of,
    reject,
)
from amlkit.schema.workspace import IdentitySpec

__all__ = [
    "AssignedUserSpec", "ClusterSpec", "ClusterSshSettings", "InstanceSpec", "InstanceSshSettings", "MAX_NODES",
    "NetworkSettingsSpec", "RecurrenceScheduleSpec", "ScheduleEntry", "TriggerSpec",
]

MAX_NODES = facts.CLUSTER_MAX_NODES
"""The platform's absolute per-cluster node limit (100 by default, raisable to 65,000)."""


class NetworkSettingsSpec(Model):
    subnet: SubnetId
    """ARM id of the subnet the nodes join."""


class ClusterSshSettings(Model):
    admin_username: AdminUsername = facts.ADMIN_USERNAME_DEFAULT
    """Administrator account on the nodes."""
    ssh_key_value: SshPublicKey | None = None
    """OpenSSH public key of the administrator."""
    admin_password: SecretValue | None = None
    """Administrator password; a Pulumi secret only."""

    @model_validator(mode="after")
    def _has_credential(self) -> ClusterSshSettings:
        """Cross-field rules:

        - `ssh_key_value` or a secret `admin_password` is required.
        """
        if self.ssh_key_value is None and self.admin_password is None:
            fail("required: ssh_key_value (or a secret admin_password) when ssh_settings is given",
                     at=("ssh_key_value",))
        return self


class ClusterSpec(Model):
    """One `amlkit:clusters` entry (az ml `type: amlcompute`)."""

    name: ClusterName
    """Compute name, unique among the workspace's computes."""
    type: choice("amlcompute") = "amlcompute"
    """az ml compute type; clusters are `amlcompute`."""
    size: VmSize
    """VM size of the nodes."""
    min_instances: integer(0, MAX_NODES, "an integer") = 0
    """Nodes kept running (and billed) when idle; 0 scales to zero."""
    max_instances: integer(1, MAX_NODES, "an integer") = 1
    """Most nodes the cluster scales to."""
    idle_time_before_scale_down: integer(0, None, "a whole number of seconds") = facts.CLUSTER_IDLE_SECONDS_DEFAULT
    """Seconds a node stays idle before it is released."""
    tier: choice("dedicated", "low_priority") = "dedicated"
    """VM priority: `low_priority` nodes are cheaper but can be evicted at any time."""
    identity: IdentitySpec | None = None
    """The cluster's managed identity; unset: a system-assigned identity."""
    location: Region | None = None
    """Region of the cluster when it differs from the workspace's."""
    network_settings: NetworkSettingsSpec | None = None
    """Customer virtual network the nodes join."""
    enable_node_public_ip: Bool | None = None
    """Nodes get public IPs (Azure's default is true)."""
    ssh_public_access_enabled: Bool = False
    """Open the SSH port of the nodes to public access."""
    ssh_settings: ClusterSshSettings | None = None
    """Administrator account for SSH (needs local authentication)."""
    local_auth_enabled: Bool | None = None
    """Local (SSH key or password) authentication on the nodes; unset: on only with `ssh_settings`."""
    description: Description | None = None
    """Free-text description."""
    tags: Tags = {}
    """Tags of the cluster, over `amlkit:tags`."""

    @model_validator(mode="after")
    def _cross_fields(self) -> ClusterSpec:
        """Cross-field rules:

        - `min_instances` must be at most `max_instances`.
        - `identity.type` cannot be `none` (omit `identity` for no identity).
        - `ssh_settings` needs local authentication (`local_auth_enabled` not false).
        """
        if self.min_instances > self.max_instances:
            reject(self.min_instances, f"at most max_instances ({self.max_instances})", at=("min_instances",))
        if self.ssh_settings is not None and self.local_auth_enabled is False:
            reject(False, "true or unset (ssh_settings logs in with local authentication)", at=("local_auth_enabled",))
        if self.identity and self.identity.type == "none":
            reject("none", "system_assigned | user_assigned", at=("identity", "type"))
        return self

    @property
    def local_auth(self) -> bool:
        """Whether local authentication is on: as set, else only when `ssh_settings` is given."""
        return self.ssh_settings is not None if self.local_auth_enabled is None else self.local_auth_enabled


class RecurrenceScheduleSpec(Model):
    hours: list_of(integer(0, 23, "an hour")) = []
    """Hours of the day the schedule fires."""
    minutes: list_of(integer(0, 59, "a minute")) = []
    """Minutes of the hour the schedule fires."""
    week_days: list_of(choice("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")) = []
    """Days of the week the schedule fires."""


class TriggerSpec(Model):
    """az ml trigger: `type: cron` with `expression`, or `type: recurrence` with frequency/interval/schedule."""

    type: choice("cron", "recurrence")
    """`cron` (with `expression`) or `recurrence` (with `frequency` and `interval`)."""
    expression: Cron | None = None
    """Cron expression of a `cron` trigger."""
    frequency: choice("minute", "hour", "day", "week", "month") | None = None
    """Unit of a `recurrence` trigger's interval."""
    interval: integer(1, None, "an integer") | None = None
    """Fire every `interval` units of `frequency`."""
    schedule: RecurrenceScheduleSpec | None = None
    """Hours, minutes and week days of a `recurrence` trigger."""
    start_time: StartTime | None = None
    """Local time the trigger starts from."""
    time_zone: TimeZone = facts.SCHEDULE_TIME_ZONE_DEFAULT
    """Time zone of the schedule (a Windows time zone name, as in az ml)."""

    @model_validator(mode="after")
    def _fields_match_type(self) -> TriggerSpec:
        """Cross-field rules:

        - `type: cron` needs `expression` and takes no `frequency`, `interval` or `schedule`.
        - `type: recurrence` needs `frequency` and `interval` and takes no `expression`.
        """
        if self.type == "cron":
            if self.expression is None:
                fail("required when type is cron", at=("expression",))
            for key in ("frequency", "interval", "schedule"):
                if getattr(self, key) is not None:
                    fail("only read when type is recurrence", at=(key,))
        else:
            if self.expression is not None:
                fail("only read when type is cron", at=("expression",))
            for key in ("frequency", "interval"):
                if getattr(self, key) is None:
                    fail("required when type is recurrence", at=(key,))
        return self


class ScheduleEntry(Model):
    action: choice("start", "stop")
    """Start or stop the instance."""
    trigger: TriggerSpec
    """When the action runs."""
    state: choice("enabled", "disabled") = "enabled"
    """A disabled schedule is kept but does not fire."""


def _schedules(value: Any) -> Any:
    """Accept the az ml form `{compute_start_stop: [...]}` as well as a plain list."""
    if isinstance(value, Mapping) and set(value) == {"compute_start_stop"}:
        return value["compute_start_stop"]
    return value


class AssignedUserSpec(Model):
    object_id: Guid
    """Entra object id of the user the instance is created for."""
    tenant_id: Guid
    """Entra tenant id of that user."""


class InstanceSshSettings(Model):
    ssh_key_value: SshPublicKey
    """OpenSSH public key of the `azureuser` account."""


class InstanceSpec(Model):
    """One `amlkit:instances` entry (az ml `type: computeinstance`)."""

    name: InstanceName
    """Compute name, unique among the workspace's computes."""
    type: choice("computeinstance") = "computeinstance"
    """az ml compute type; instances are `computeinstance`."""
    size: VmSize
    """VM size of the instance."""
    idle_time_before_shutdown_minutes: integer(
        facts.INSTANCE_IDLE_MINUTES_MIN, facts.INSTANCE_IDLE_MINUTES_MAX, "whole minutes"
    ) = facts.INSTANCE_IDLE_MINUTES_DEFAULT
    """Idle minutes before the instance shuts down."""
    assigned_user: AssignedUserSpec | None = None
    """The user the instance is created for (az ml `create_on_behalf_of`)."""
    schedules: Annotated[list_of(ScheduleEntry, 4), BeforeValidator(_schedules)] = []
    """Start/stop schedules; the az ml form `{compute_start_stop: [...]}` is accepted too."""
    identity: IdentitySpec | None = None
    """The instance's managed identity; unset: a system-assigned identity."""
    location: Region | None = None
    """Region of the instance; it must be the workspace's."""
    network_settings: NetworkSettingsSpec | None = None
    """Customer virtual network the instance joins."""
    enable_node_public_ip: Bool | None = None
    """The instance gets a public IP (Azure's default is true)."""
    ssh_public_access_enabled: Bool = False
    """Open the SSH port to public access."""
    ssh_settings: InstanceSshSettings | None = None
    """The SSH key; only with `ssh_public_access_enabled: true`."""
    description: Description | None = None
    """Free-text description."""
    tags: Tags = {}
    """Tags of the instance, over `amlkit:tags`."""

    @model_validator(mode="after")
    def _cross_fields(self) -> InstanceSpec:
        """Cross-field rules:

        - `ssh_settings` is required when `ssh_public_access_enabled` is true, and only read then.
        - `identity.type` cannot be `none` (omit `identity` for no identity).
        """
        if self.ssh_settings and not self.ssh_public_access_enabled:
            fail("only read when ssh_public_access_enabled is true", at=("ssh_settings",))
        if self.ssh_public_access_enabled and not self.ssh_settings:
            fail("required when ssh_public_access_enabled is true ({ssh_key_value: <OpenSSH public key>})",
                     at=("ssh_settings",))
        if self.identity and self.identity.type == "none":
            reject("none", "system_assigned | user_assigned", at=("identity", "type"))
        return self
