"""An Azure ML compute cluster (AmlCompute) with secure defaults."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, Required, TypedDict

import pulumi


class RoleAssignmentSpec(TypedDict):
    """A role for the cluster's system-assigned identity on one scope."""

    scope: pulumi.Input[str]
    """ARM id the role applies to (a registry, storage account, resource group...)."""
    role: str
    """A well-known role name (e.g. `AcrPull`, `Storage Blob Data Reader`) or a role definition GUID."""


class ComputeClusterArgs(TypedDict, total=False):
    """Inputs of `ComputeCluster`. Required fields first; every optional field has a secure default."""

    resource_group_name: Required[pulumi.Input[str]]
    """Resource group of the ML workspace."""
    workspace_name: Required[pulumi.Input[str]]
    """Name of the ML workspace the cluster belongs to."""
    vm_size: Required[str]
    """VM size of the nodes, e.g. `Standard_DS3_v2`."""
    max_nodes: Required[int]
    """Maximum node count."""

    compute_name: str
    """Azure name of the compute (2-16 chars). Default: derived from the component name."""
    location: pulumi.Input[str]
    """Region of the compute resource. Default: the workspace's (Azure's default)."""
    compute_location: pulumi.Input[str]
    """Region the nodes run in (ARM `computeLocation`). Default: same as the workspace."""
    description: pulumi.Input[str]
    """Free-text description."""
    vm_priority: Literal["Dedicated", "LowPriority"]
    """Node priority. Default `Dedicated`."""
    min_nodes: int
    """Minimum node count. Default 0 (scale to zero)."""
    idle_seconds_before_scale_down: int
    """Idle seconds before a node is released. Default 120."""
    subnet_id: pulumi.Input[str]
    """Subnet the nodes join. Default: none."""
    workspace_managed_network: bool
    """True when the workspace uses a managed network (then nodes need no public IP). Default False."""
    enable_node_public_ip: bool
    """Public IPs on nodes. Default False when a subnet or managed network is given; else required."""
    remote_login_port_public_access: Literal["Enabled", "Disabled"]
    """Public SSH port on nodes. Default `Disabled`."""
    admin_username: str
    """Admin user on every node. Default: none."""
    admin_ssh_public_key: pulumi.Input[str]
    """SSH public key of the admin user."""
    admin_password: pulumi.Output[str]
    """Admin password: only as a pulumi secret Output; a plain string is refused."""
    disable_local_auth: bool
    """Disable local (key/SSH) authentication. Default True."""
    system_assigned_identity: bool
    """Give the cluster a system-assigned identity. Default True unless user-assigned ids are given."""
    user_assigned_identity_ids: Sequence[pulumi.Input[str]]
    """User-assigned identities (exclusive with a system-assigned identity)."""
    role_assignments: Sequence[RoleAssignmentSpec]
    """Roles granted to the cluster's system-assigned identity."""
    tags: Mapping[str, str]
    """Tags on the compute resource."""


class ComputeCluster(pulumi.ComponentResource):
    """An AmlCompute cluster: scale to zero, no public SSH, no local auth by default."""

    compute_id: pulumi.Output[str]
    compute_name: pulumi.Output[str]
    principal_id: pulumi.Output[str | None]

    def __init__(
        self, name: str, args: ComputeClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("amlkit:index:ComputeCluster", name, None, opts)
        raise NotImplementedError("ComputeCluster is being written")
