"""What every view of amlkit.policies.azure shares: the type tokens and compute kinds it maps, the `Input`
accessor (one reader of every input, so an unknown raises only when a rule reads it), `read_known`, and ARM
name comparisons. The views are in compute_views and resource_views; amlkit.policies.azure re-exports all."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar, overload

from amlkit.tokens import type_parts

__all__ = [
    "ARM_ML_TYPE", "ATTACHED", "CLASSIC", "CLASSIC_COMPUTES", "CLASSIC_LOCKS", "CLASSIC_PUBLIC_NETWORK_ACCESS",
    "CLASSIC_WORKSPACE", "CLUSTER", "CLUSTER_ONLY", "COMPUTE", "COMPUTE_TYPES", "INNER", "INSTANCE",
    "INSTANCE_ONLY", "Input", "LOCK_MODULES", "MANAGED", "MAPPED_CLASSIC", "MAPPED_NATIVE", "ML_KINDS", "ML_MODULE",
    "NATIVE", "NATIVE_LOCKS", "ONLINE_DEPLOYMENT", "OUTER", "T", "V", "WITH_IDENTITY", "WORKSPACE", "absent",
    "is_type", "provider_of", "read_known", "region_key", "same_region", "same_value",
]

COMPUTE = "machinelearningservices:Compute"
WORKSPACE = "machinelearningservices:Workspace"
ONLINE_DEPLOYMENT = "machinelearningservices:OnlineDeployment"

NATIVE = "azure-native"
CLASSIC = "azure"
"""The providers whose resources the views map (the package names are pulumi-azure-native and pulumi-azure)."""

CLASSIC_COMPUTES = {
    "azure:machinelearning/computeCluster:ComputeCluster": "AmlCompute",
    "azure:machinelearning/computeInstance:ComputeInstance": "ComputeInstance",
    "azure:machinelearning/inferenceCluster:InferenceCluster": "AKS",
    "azure:machinelearning/synapseSpark:SynapseSpark": "SynapseSpark",
}
"""Classic-provider compute types and the ARM computeType each creates."""
CLASSIC_WORKSPACE = "azure:machinelearning/workspace:Workspace"


@functools.lru_cache(maxsize=4096)  # every rule asks of every resource; a stack has few distinct types
def is_type(type_token: str, kind: str) -> bool:
    """True for `azure-native:<module>:<Name>` and its explicit-version variants, e.g. kind=COMPUTE."""
    parts = type_parts(type_token)
    return parts is not None and f"{parts[0]}:{parts[2]}" == kind


def provider_of(type_token: str) -> str:
    """The package a type token belongs to (`azure-native`, `azure`, `azuread`, `pulumi`...)."""
    return type_token.split(":", 1)[0].split("_", 1)[0]


CLUSTER = ("AmlCompute",)
INSTANCE = ("ComputeInstance",)
MANAGED = CLUSTER + INSTANCE
"""The compute types Azure ML manages itself: clusters and instances (attached computes are not)."""
ATTACHED = ("Kubernetes", "AKS", "VirtualMachine", "SynapseSpark", "HDInsight", "Databricks", "DataFactory",
            "DataLakeAnalytics")
"""The compute types that attach an existing resource (`properties.resourceId`)."""
WITH_IDENTITY = MANAGED + ("Kubernetes", "SynapseSpark")
"""The compute types that take a managed identity: clusters, instances, Kubernetes and Synapse Spark (az ml
attaches a virtual machine without one)."""
COMPUTE_TYPES = MANAGED + ATTACHED


ML_MODULE = re.compile(r"machinelearning", re.IGNORECASE)
ML_KINDS = re.compile(r"^\w*(Workspace|Compute|Cluster|Instance|Spark|OnlineDeployment|Lock)$", re.IGNORECASE)
"""The resource kinds the pack is about: in an ML module of any provider, a type whose name ends in one of these
(a workspace's sub-resources, datastores, endpoints and batch deployments are not)."""
LOCK_MODULES = ("authorization", "management", "managementresource", "resources", "core")
NATIVE_LOCKS = ("authorization:ManagementLockAtResourceGroupLevel", "authorization:ManagementLockAtSubscriptionLevel",
                "authorization:ManagementLockAtResourceLevel", "authorization:ManagementLockByScope")
"""azure-native's four management lock types (amlkit.policies.arm reads them)."""
CLASSIC_LOCKS = ("azure:management/lock:Lock", "azure:managementresource/manangementLock:ManangementLock")
"""The classic provider's management locks: both lock whatever `scope` names (a ByScope lock), `lockLevel`."""
MAPPED_NATIVE = (COMPUTE, WORKSPACE, ONLINE_DEPLOYMENT, *NATIVE_LOCKS)
MAPPED_CLASSIC = (*CLASSIC_COMPUTES, CLASSIC_WORKSPACE, *CLASSIC_LOCKS)
ARM_ML_TYPE = re.compile(r"Microsoft\.MachineLearningServices/|Microsoft\.Authorization/locks", re.IGNORECASE)


def read_known(read: Callable[[], Any]) -> tuple[bool, Any]:
    """(True, value) when `read()` sees only known values; (False, None) when one is unknown at preview.

    For rules that report "cannot tell" per resource (`framework.cannot_tell`) instead of letting one
    unknown value stop the whole rule. The unknown is reported either way, never counted as a pass.
    """
    from pulumi_policy.proxy import UnknownValueError  # only when a rule runs: its metadata imports nothing

    from amlkit.policies.framework import CannotLink

    try:
        return True, read()
    except (UnknownValueError, CannotLink):
        return False, None


def _get(mapping: Any, key: str, default: Any = None) -> Any:
    if isinstance(mapping, Mapping) and key in mapping:
        value = mapping[key]
        return default if value is None else value
    return default


T = TypeVar("T", covariant=True)
V = TypeVar("V")


class Input(Generic[T]):
    """A view accessor declared by where a provider puts the value: the input at `path` (dots separate nested
    objects), `default` when it is omitted or null (Azure's default), and `convert` from the value as written to
    what the accessor means (applied to the default too; never to None). Each view reads every input through
    this one reader, one key at a time, so a value unknown at preview raises only when a rule reads it.

    A view of another provider re-declares an accessor with its own `path` (and `convert`): the per-provider
    field map. An accessor whose value needs more than one input stays a property of the view."""

    def __init__(self, path: str, default: Any = None, convert: Callable[[Any], T] | None = None) -> None:
        self.path, self.default, self.convert = path, default, convert

    @overload
    def __get__(self, view: None, owner: type) -> Input[T]: ...

    @overload
    def __get__(self, view: object, owner: type) -> T: ...

    def __get__(self, view: Any, owner: type) -> Input[T] | T:
        if view is None:
            return self
        value = _at(view.props, self.path, self.default) if self.path else self.default
        return value if self.convert is None or value is None else self.convert(value)


def _at(props: Any, path: str, default: Any = None) -> Any:
    """The input at a dotted `path`, read one key at a time; `default` when it (or an object above it) is
    omitted or null."""
    keys = _keys(path)
    for key in keys[:-1]:
        props = _get(props, key, {})
    return _get(props, keys[-1], default)


@functools.lru_cache(maxsize=4096)  # the accessors' paths: a fixed, small set
def _keys(path: str) -> tuple[str, ...]:
    return tuple(path.split("."))


def absent(value: V) -> Input[V]:
    """An input the provider does not have: the accessor always reads `value`."""
    return Input("", value)


def _ids(value: Any) -> list[str]:
    """User-assigned identities: azure-native 3.x sends a LIST of ARM ids (a map in older/other shapes: its keys)."""
    return list(value.keys()) if isinstance(value, Mapping) else list(value)


def _enabled(flag: Any) -> str:
    """A classic-provider `...Enabled` flag as the ARM enum it sends."""
    return "Enabled" if flag else "Disabled"


CLASSIC_PUBLIC_NETWORK_ACCESS = Input[str]("publicNetworkAccessEnabled", True, _enabled)
"""The classic provider's `publicNetworkAccessEnabled` (default true), sent as publicNetworkAccess (workspaces and
container registries)."""


INSTANCE_ONLY = ("sshSettings", "idleTimeBeforeShutdown", "schedules", "setupScripts",
                 "personalComputeInstanceSettings", "applicationSharingPolicy", "computeInstanceAuthorizationType",
                 "enableRootAccess", "enableSSO", "enableOSPatching", "customServices", "releaseQuotaOnStop",
                 "autologgerSettings")
"""Inner properties only a compute instance has (ComputeInstanceProperties in the ARM schema)."""
CLUSTER_ONLY = ("scaleSettings", "vmPriority", "remoteLoginPortPublicAccess", "userAccountCredentials",
                "isolatedNetwork", "osType", "virtualMachineImage", "propertyBag", "targetNodeCount")
"""Inner properties only an AmlCompute cluster has (AmlComputeProperties in the ARM schema)."""

OUTER = "properties."
INNER = "properties.properties."
"""Where azure-native puts a compute's properties (`properties`) and its type's own (`properties.properties`)."""


def same_region(first: str, second: str) -> bool:
    """ARM region names ignore case and spaces: `West Europe` is `westeurope`."""
    return region_key(first) == region_key(second)


def region_key(name: str) -> str:
    """The comparable form of an ARM region name: no spaces, lower case."""
    return "".join(name.split()).lower()


def same_value(value: Any, expected: str) -> bool:
    """ARM enum strings compare case-insensitively (`disabled` is `Disabled`)."""
    return isinstance(value, str) and value.lower() == expected.lower()
