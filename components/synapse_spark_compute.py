"""An Azure Synapse Spark pool attached to a workspace (az ml `type: synapsespark`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Required

import pulumi
from pulumi_azure_native import machinelearningservices as ml

from amlkit.components import attached
from amlkit.components.args import ArgInfo, document
from amlkit.components.compute_cluster import compute_identity
from amlkit.components.outputs import expose, principal_id
from amlkit.components.workspace import IdentitySpec

__all__ = ["ARGS", "KIND", "SynapseSparkCompute", "SynapseSparkComputeArgs", "TYPE_TOKEN", "validate"]

TYPE_TOKEN = "amlkit:index:SynapseSparkCompute"
KIND = "SynapseSparkCompute"


class SynapseSparkComputeArgs(attached.AttachedComputeArgs, total=False):
    """Inputs of `SynapseSparkCompute`, named as in the stack file (`amlkit:attached`, az ml
    `type: synapsespark`).

    Give `workspace` (the Workspace component) or `resource_group_name` and `workspace_name`.
    """

    resource_id: Required[pulumi.Input[str]]
    """ARM id of the Spark pool (`Microsoft.Synapse/workspaces/<ws>/bigDataPools/<pool>`)."""

    identity: IdentitySpec
    """Managed identity the pool's jobs use for data access."""


ARGS: dict[str, ArgInfo] = {**attached.COMMON_ARGS, **attached.IDENTITY_ARG}
document(SynapseSparkComputeArgs, ARGS)


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
        args, compute_name = attached.checked(  # type: ignore[assignment]
            KIND, SynapseSparkComputeArgs, name, args, validate)
        super().__init__(TYPE_TOKEN, name, None, opts)
        compute = attached.attached_compute(self, name, args, compute_name, ml.SynapseSparkArgs(
            compute_type="SynapseSpark",
            **attached.target_inputs(args),
        ), compute_identity(args))
        expose(self, compute_id=compute.id, compute_name=compute.name, principal_id=principal_id(compute))


def validate(args: Mapping[str, Any]) -> None:
    """The rules the annotations cannot say; a ConfigError names the argument and what is allowed."""
    attached.target_id("synapsespark", args)
    attached.validate_identity_ids(args)
