"""A Kubernetes cluster (AKS or Azure Arc, with the Azure ML extension) attached to a workspace."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Required, TypedDict

import pulumi
from pulumi_azure_native import machinelearningservices as ml

from amlkit.components import attached
from amlkit.components.attached import IdentityArgs

TYPE_TOKEN = "amlkit:index:KubernetesCompute"
KIND = "KubernetesCompute"
CLUSTER_IDS = (
    (attached.arm_id_pattern("Microsoft.ContainerService", "managedClusters"),
     attached.arm_id_example("Microsoft.ContainerService", "managedClusters")),
    (attached.arm_id_pattern("Microsoft.Kubernetes", "connectedClusters"),
     attached.arm_id_example("Microsoft.Kubernetes", "connectedClusters")),
)
NAMESPACE = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
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


class KubernetesComputeArgs(TypedDict, total=False):
    """Inputs of `KubernetesCompute` (az ml `type: kubernetes`). Required fields first."""

    resource_group_name: Required[pulumi.Input[str]]
    """Resource group of the ML workspace."""
    workspace_name: Required[pulumi.Input[str]]
    """Name of the ML workspace the cluster is attached to."""
    resource_id: Required[pulumi.Input[str]]
    """ARM id of the AKS cluster (`Microsoft.ContainerService/managedClusters`) or Arc cluster
    (`Microsoft.Kubernetes/connectedClusters`) with the Azure ML extension installed."""

    name: str
    """Compute name in the workspace (2-16 chars). Default: derived from the component name."""
    namespace: str
    """Kubernetes namespace the jobs run in. Default `default`."""
    default_instance_type: str
    """Instance type jobs get when they name none; must be one of `instance_types`."""
    instance_types: Sequence[InstanceTypeArgs]
    """Instance types, each with a unique `name`."""
    identity: IdentityArgs
    """Managed identity of the compute. Default: system-assigned."""
    location: pulumi.Input[str]
    """Region of the compute resource. Default: the workspace's."""
    description: str
    """Free-text description."""
    local_auth_enabled: bool
    """Local (key) authentication. Default False."""
    tags: Mapping[str, str]
    """Tags on the compute resource (they update in place)."""


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
        super().__init__(TYPE_TOKEN, name, None, opts)
        validate(name, args)
        compute = attached.attached_compute(self, name, args, ml.KubernetesArgs(
            compute_type="Kubernetes",
            resource_id=args["resource_id"],
            description=args.get("description"),
            disable_local_auth=not args.get("local_auth_enabled", False),
            properties=kubernetes_properties(args),
        ), attached.identity_args(args.get("identity")))
        self.compute_id = compute.id
        self.compute_name = compute.name
        self.principal_id = attached.principal_id(compute)
        self.register_outputs({
            "compute_id": self.compute_id,
            "compute_name": self.compute_name,
            "principal_id": self.principal_id,
        })


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


def validate(name: str, args: KubernetesComputeArgs) -> None:
    """Check every argument; raise a ConfigError naming the component, the key and what is allowed."""
    check = attached.Checker(KIND, name)
    check.keys(args, KubernetesComputeArgs)
    resource_id = args["resource_id"]
    if isinstance(resource_id, str) and not any(pattern.fullmatch(resource_id) for pattern, _ in CLUSTER_IDS):
        raise check.fail("resource_id", "allowed: an ARM id like " + " or ".join(e for _, e in CLUSTER_IDS),
                         resource_id)
    namespace = args.get("namespace", DEFAULT_NAMESPACE)
    if not isinstance(namespace, str) or not NAMESPACE.fullmatch(namespace):
        raise check.fail("namespace", "allowed: a Kubernetes namespace name (1-63 lowercase letters, digits "
                         "and '-', starting and ending with a letter or digit)", namespace)
    _validate_instance_types(check, args)
    check.identity(args)
    check.common(name, args)


def _validate_instance_types(check: attached.Checker, args: KubernetesComputeArgs) -> None:
    types = args.get("instance_types") or []
    if not isinstance(types, Sequence) or isinstance(types, str):
        raise check.fail("instance_types", "allowed: a list of {name, node_selector, resources}", types)
    names: list[str] = []
    for index, spec in enumerate(types):
        key = f"instance_types[{index}]"
        check.keys(spec, InstanceTypeArgs, f"{key}.")
        if spec["name"] in names:
            raise check.fail(f"{key}.name", "allowed: a name not used before in instance_types", spec["name"])
        names.append(spec["name"])
        if "node_selector" in spec:
            check.text_map(spec["node_selector"], f"{key}.node_selector")
        if "resources" in spec:
            check.keys(spec["resources"], InstanceTypeResourcesArgs, f"{key}.resources.")
            for part in ("requests", "limits"):
                if part in spec["resources"]:
                    check.text_map(spec["resources"][part], f"{key}.resources.{part}")
    default = args.get("default_instance_type")
    if default is not None and default not in names:
        allowed = " | ".join(names) if names else "none (no instance_types are given)"
        raise check.fail("default_instance_type", f"allowed: one of instance_types[].name: {allowed}", default)
