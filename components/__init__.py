"""Pulumi component resources for Azure Machine Learning: workspace, compute cluster, compute instance,
and the environment that builds them from a validated stack spec."""

from amlkit.components.compute_cluster import ComputeCluster, ComputeClusterArgs, RoleAssignmentSpec
from amlkit.components.compute_instance import (
    ComputeInstance,
    ComputeInstanceArgs,
    CronSpec,
    RecurrenceSpec,
    ScheduleSpec,
)
from amlkit.components.environment import Environment, EnvironmentArgs
from amlkit.components.workspace import Workspace, WorkspaceArgs

__all__ = [
    "ComputeCluster",
    "ComputeClusterArgs",
    "ComputeInstance",
    "ComputeInstanceArgs",
    "CronSpec",
    "Environment",
    "EnvironmentArgs",
    "RecurrenceSpec",
    "RoleAssignmentSpec",
    "ScheduleSpec",
    "Workspace",
    "WorkspaceArgs",
]
