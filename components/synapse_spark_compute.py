"""An Azure Synapse Spark pool attached to a workspace (az ml `type: synapsespark`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Required, TypedDict

import pulumi
from pulumi_azure_native import machinelearningservices as ml

from amlkit.components import attached
from amlkit.components.attached import IdentityArgs

TYPE_TOKEN = "amlkit:index:SynapseSparkCompute"
KIND = "SynapseSparkCompute"
POOL_ID = attached.arm_id_pattern("Microsoft.Synapse", "workspaces", "bigDataPools")
POOL_ID_EXAMPLE = attached.arm_id_example("Microsoft.Synapse", "workspaces", "bigDataPools")


class SynapseSparkComputeArgs(TypedDict, total=False):
    """Inputs of `SynapseSparkCompute`. Required fields first."""

    resource_group_name: Required[pulumi.Input[str]]
    """Resource group of the ML workspace."""
    workspace_name: Required[pulumi.Input[str]]
    """Name of the ML workspace the pool is attached to."""
    resource_id: Required[pulumi.Input[str]]
    """ARM id of the Spark pool (`Microsoft.Synapse/workspaces/<ws>/bigDataPools/<pool>`)."""

    name: str
    """Compute name in the workspace (2-16 chars). Default: derived from the component name."""
    identity: IdentityArgs
    """Managed identity the pool's jobs use for data access. Default: system-assigned."""
    location: pulumi.Input[str]
    """Region of the compute resource. Default: the workspace's."""
    description: str
    """Free-text description."""
    local_auth_enabled: bool
    """Local (key) authentication. Default False."""
    tags: Mapping[str, str]
    """Tags on the compute resource (they update in place)."""


class SynapseSparkCompute(pulumi.ComponentResource):
    """A Synapse Spark pool attached as an Azure ML compute.

    Defaults: system-assigned identity, local authentication off. Any change but tags re-attaches the
    pool (the old attachment is removed first). The pool itself is never created or deleted here.
    """

    compute_id: pulumi.Output[str]
    compute_name: pulumi.Output[str]
    principal_id: pulumi.Output[str | None]

    def __init__(
        self, name: str, args: SynapseSparkComputeArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(TYPE_TOKEN, name, None, opts)
        validate(name, args)
        compute = attached.attached_compute(self, name, args, ml.SynapseSparkArgs(
            compute_type="SynapseSpark",
            resource_id=args["resource_id"],
            description=args.get("description"),
            disable_local_auth=not args.get("local_auth_enabled", False),
        ), attached.identity_args(args.get("identity")))
        self.compute_id = compute.id
        self.compute_name = compute.name
        self.principal_id = attached.principal_id(compute)
        self.register_outputs({
            "compute_id": self.compute_id,
            "compute_name": self.compute_name,
            "principal_id": self.principal_id,
        })


def validate(name: str, args: SynapseSparkComputeArgs) -> None:
    """Check every argument; raise a ConfigError naming the component, the key and what is allowed."""
    check = attached.Checker(KIND, name)
    check.keys(args, SynapseSparkComputeArgs)
    check.arm_id(args, "resource_id", POOL_ID, POOL_ID_EXAMPLE)
    check.identity(args)
    check.common(name, args)
