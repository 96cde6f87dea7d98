"""A Kubernetes cluster (AKS or Azure Arc, with the Azure ML extension) attached to a workspace."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Required, TypedDict

import pulumi
from pulumi_azure_native import machinelearningservices as ml

from amlkit import schema
from amlkit.components import attached
from amlkit.components.args import ArgInfo, document, document_nested
from amlkit.components.compute_cluster import compute_identity
from amlkit.components.outputs import expose, principal_id
from amlkit.components.workspace import IdentitySpec
from amlkit.errors import ConfigError

__all__ = [
    "ARGS", "DEFAULT_NAMESPACE", "InstanceTypeArgs", "InstanceTypeResourcesArgs", "KIND", "KubernetesCompute",
    "KubernetesComputeArgs", "TYPE_TOKEN", "instance_type", "kubernetes_properties", "validate",
]

TYPE_TOKEN = "amlkit:index:KubernetesCompute"
KIND = "KubernetesCompute"
DEFAULT_NAMESPACE = "default"


class InstanceTypeResourcesArgs(TypedDict, total=False):
    """Kubernetes resource requests and limits of an instance type, e.g. `{cpu: "1", memory: "4Gi"}`."""

    requests: Mapping[str, str]
    """Resources a job's pod asks for."""
    limits: Mapping[str, str]
    """Most resources a job's pod may use (`nvidia.com/gpu` for GPUs)."""


class InstanceTypeArgs(TypedDict, total=False):
    """One instance type: which nodes a job runs on and what it may use."""

    name: Required[str]
    """Name jobs select the instance type by."""
    node_selector: Mapping[str, str]
    """Node labels a job's pod must match."""
    resources: InstanceTypeResourcesArgs
    """Resource requests and limits."""


class KubernetesComputeArgs(attached.AttachedComputeArgs, total=False):
    """Inputs of `KubernetesCompute`, named as in the stack file (`amlkit:attached`, az ml `type: kubernetes`).

    Give `workspace` (the Workspace component) or `resource_group_name` and `workspace_name`.
    """

    resource_id: Required[pulumi.Input[str]]
    """ARM id of the AKS cluster (`Microsoft.ContainerService/managedClusters`) or Arc cluster
    (`Microsoft.Kubernetes/connectedClusters`) with the Azure ML extension installed."""

    namespace: str
    """Kubernetes namespace the jobs run in."""
    default_instance_type: str
    """Instance type jobs get when they name none; must be one of `instance_types`."""
    instance_types: Sequence[InstanceTypeArgs]
    """Instance types, each with a unique `name`."""
    identity: IdentitySpec
    """Managed identity of the compute."""


ARGS: dict[str, ArgInfo] = {
    **attached.COMMON_ARGS,
    **attached.IDENTITY_ARG,
    "namespace": ArgInfo(f"`{DEFAULT_NAMESPACE}`", "properties.properties.namespace"),
    "default_instance_type": ArgInfo("none", "properties.properties.defaultInstanceType"),
    "instance_types": ArgInfo("none", "properties.properties.instanceTypes (by name: nodeSelector, "
                                      "resources.requests, resources.limits)"),
}
for _nested in (InstanceTypeArgs, InstanceTypeResourcesArgs):
    document_nested(_nested)
document(KubernetesComputeArgs, ARGS)


class KubernetesCompute(pulumi.ComponentResource):
    """A Kubernetes cluster attached as an Azure ML compute, in one namespace.

    Defaults: system-assigned identity, local authentication off, namespace `default`. Any change but
    tags re-attaches the cluster (the old attachment is removed first: Azure ML cannot update an
    attachment in place). The cluster itself is never created or deleted here.
    """

    compute_id: pulumi.Output[str]
    compute_name: pulumi.Output[str]
    principal_id: pulumi.Output[str | None]

    def __init__(
        self, name: str, args: KubernetesComputeArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        args, compute_name = attached.checked(  # type: ignore[assignment]
            KIND, KubernetesComputeArgs, name, args, validate)
        super().__init__(TYPE_TOKEN, name, None, opts)
        compute = attached.attached_compute(self, name, args, compute_name, ml.KubernetesArgs(
            compute_type="Kubernetes",
            **attached.target_inputs(args),
            properties=kubernetes_properties(args),
        ), compute_identity(args))
        expose(self, compute_id=compute.id, compute_name=compute.name, principal_id=principal_id(compute))


def kubernetes_properties(args: KubernetesComputeArgs) -> ml.KubernetesPropertiesArgs:
    types = args.get("instance_types") or []
    return ml.KubernetesPropertiesArgs(
        namespace=args.get("namespace", DEFAULT_NAMESPACE),
        default_instance_type=args.get("default_instance_type"),
        instance_types={spec["name"]: instance_type(spec) for spec in types} or None,
    )


def instance_type(spec: InstanceTypeArgs) -> ml.InstanceTypeSchemaArgs:
    resources = spec.get("resources")
    return ml.InstanceTypeSchemaArgs(
        node_selector=dict(spec["node_selector"]) if spec.get("node_selector") else None,
        resources=ml.InstanceTypeSchemaResourcesArgs(
            requests=dict(resources.get("requests") or {}) or None,
            limits=dict(resources.get("limits") or {}) or None,
        ) if resources else None,
    )


def validate(args: Mapping[str, Any]) -> None:
    """The rules the annotations cannot say; a ConfigError names the argument and what is allowed."""
    attached.target_id("kubernetes", args)
    attached.fits(schema.Namespace, "namespace", args.get("namespace"))
    attached.validate_identity_ids(args)
    names: list[str] = []
    for index, spec in enumerate(args.get("instance_types") or []):
        if spec["name"] in names:
            raise ConfigError(None, f"instance_types[{index}].name", "must be a name not used before in "
                              "instance_types", spec["name"])
        names.append(spec["name"])
    default = args.get("default_instance_type")
    if default is not None and default not in names:
        allowed = " | ".join(names) if names else "none (no instance_types are given)"
        raise ConfigError(None, "default_instance_type", f"must be one of instance_types[].name: {allowed}", default)
