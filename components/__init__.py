"""Pulumi component resources for Azure Machine Learning: workspace, compute cluster, compute instance,
and the environment that builds them from a validated stack spec."""

from amlkit.components.compute_cluster import (
    ClusterSshSettings,
    ComputeCluster,
    ComputeClusterArgs,
    NetworkSettings,
    RoleAssignmentSpec,
)
from amlkit.components.compute_instance import (
    AssignedUserSpec,
    ComputeInstance,
    ComputeInstanceArgs,
    InstanceSshSettings,
    RecurrenceScheduleSpec,
    ScheduleSpec,
    TriggerSpec,
)
from amlkit.components.environment import Environment, EnvironmentArgs
from amlkit.components.workspace import (
    CustomerManagedKey,
    IdentitySpec,
    ManagedNetwork,
    ServerlessCompute,
    UserAssignedIdentity,
    Workspace,
    WorkspaceArgs,
)

__all__ = [
    "AssignedUserSpec",
    "ClusterSshSettings",
    "ComputeCluster",
    "ComputeClusterArgs",
    "ComputeInstance",
    "ComputeInstanceArgs",
    "CustomerManagedKey",
    "Environment",
    "EnvironmentArgs",
    "IdentitySpec",
    "InstanceSshSettings",
    "ManagedNetwork",
    "NetworkSettings",
    "RecurrenceScheduleSpec",
    "RoleAssignmentSpec",
    "ScheduleSpec",
    "ServerlessCompute",
    "TriggerSpec",
    "UserAssignedIdentity",
    "Workspace",
    "WorkspaceArgs",
]
