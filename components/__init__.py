"""Pulumi component resources for Azure Machine Learning: workspace, compute cluster, compute instance,
attached computes (Kubernetes, virtual machine, Synapse Spark), and the environment that builds them
from a validated stack spec."""

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
from amlkit.components.kubernetes_compute import KubernetesCompute, KubernetesComputeArgs
from amlkit.components.synapse_spark_compute import SynapseSparkCompute, SynapseSparkComputeArgs
from amlkit.components.virtual_machine_compute import VirtualMachineCompute, VirtualMachineComputeArgs
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
    "KubernetesCompute",
    "KubernetesComputeArgs",
    "ManagedNetwork",
    "NetworkSettings",
    "RecurrenceScheduleSpec",
    "RoleAssignmentSpec",
    "ScheduleSpec",
    "ServerlessCompute",
    "SynapseSparkCompute",
    "SynapseSparkComputeArgs",
    "TriggerSpec",
    "UserAssignedIdentity",
    "VirtualMachineCompute",
    "VirtualMachineComputeArgs",
    "Workspace",
    "WorkspaceArgs",
]
