"""The provider-neutral view the rules read: one view per kind of resource, whatever provider declared it.

Kinds: a compute (`ComputeView`: cluster, instance or attached compute), a workspace (`WorkspaceView`), an
online deployment (`DeploymentView`); locks are in `amlkit.policies.arm` (`LockView`). Each view reads the
inputs of the providers amlkit maps, as the analyzer sees them (camelCase wire form):

- azure-native 3.x (`azure-native:machinelearningservices:Compute`), and its explicit-version tokens, which
  include the azure-native 2.x shape (`azure-native:machinelearningservices/v20230401:Compute`: same wire
  names for every property the rules read; identities may be a map there, read as its keys);
- the classic provider pulumi-azure 6.x (`azure:machinelearning/computeCluster:ComputeCluster`,
  `computeInstance`, `inferenceCluster`, `synapseSpark`, `workspace`), mapped to what that provider sends to
  ARM (terraform-provider-azurerm, `internal/services/machinelearning/*_resource.go`: e.g. a cluster's
  `ssh_public_access_enabled` false or omitted is sent as remoteLoginPortPublicAccess Disabled, an
  instance without an `ssh` block as sshPublicAccess Disabled, `local_auth_enabled` as
  disableLocalAuth = not it, `node_public_ip_enabled` (default true) as enableNodePublicIp).

`compute_view`, `workspace_view` and `deployment_view` pick the reader by type token; a resource of an
ML-relevant type none of them maps is reported by the policy amlkit-unreviewed-resource (`unmapped`). A rule
never reads a provider's property path itself.

Accessors return the platform default where Azure has one for a missing property
(docs/azure-facts.md, "Platform defaults"), so rules never re-implement "missing means ...". They
read lazily: an unknown value raises only when the rule actually reads it.

One view per kind: the azure-native class declares each accessor as an `Input` (path, default, conversion), and
the classic class re-declares only the inputs its provider puts elsewhere (its field map); what derives from
several inputs (an effective value from the value as written, a compute's kind) is a property of the base view,
written once for both providers.

The views live in `compute_views` and `resource_views`, on what they share (`view_base`: type tokens, `Input`,
`read_known`); this module re-exports them all, and adds `unmapped` and the VM-size view `Sized`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from amlkit.policies.compute_views import (
    ClassicComputeView,
    ComputeView,
    compute_of,
    compute_subject,
    compute_view,
)
from amlkit.policies.resource_views import (
    BUILTIN_ROLES,
    CLASSIC_DIAGNOSTIC_SETTING,
    CLASSIC_PRIVATE_ENDPOINT,
    CLASSIC_REGISTRY,
    CLASSIC_ROLE_ASSIGNMENT,
    DIAGNOSTIC_SETTINGS,
    PRIVATE_ENDPOINT,
    REGISTRY,
    ROLE_ASSIGNMENT,
    STACK_REFERENCE,
    WORKSPACE_GROUP_ID,
    ClassicDiagnosticSettingView,
    ClassicPrivateEndpointView,
    ClassicRegistryView,
    ClassicWorkspaceView,
    DeploymentView,
    DiagnosticSettingView,
    PrivateEndpointView,
    RegistryView,
    RoleAssignmentView,
    WorkspaceView,
    deployment_view,
    diagnostic_setting_view,
    private_endpoint_view,
    registry_view,
    role_assignment_view,
    workspace_props,
    workspace_view,
)
from amlkit.policies.view_base import (
    ARM_ML_TYPE,
    ATTACHED,
    CLASSIC,
    CLASSIC_COMPUTES,
    CLASSIC_LOCKS,
    CLASSIC_PUBLIC_NETWORK_ACCESS,
    CLASSIC_WORKSPACE,
    CLUSTER,
    CLUSTER_ONLY,
    COMPUTE,
    COMPUTE_TYPES,
    INNER,
    INSTANCE,
    INSTANCE_ONLY,
    LOCK_MODULES,
    MANAGED,
    MAPPED_CLASSIC,
    MAPPED_NATIVE,
    ML_KINDS,
    ML_MODULE,
    NATIVE,
    NATIVE_LOCKS,
    ONLINE_DEPLOYMENT,
    OUTER,
    WITH_IDENTITY,
    WORKSPACE,
    Input,
    T,
    V,
    _get,
    absent,
    is_type,
    provider_of,
    read_known,
    region_key,
    same_region,
    same_value,
)
from amlkit.tokens import type_parts

__all__ = [
    "ARM_ML_TYPE", "ATTACHED", "BUILTIN_ROLES", "CLASSIC", "CLASSIC_COMPUTES", "CLASSIC_DIAGNOSTIC_SETTING",
    "CLASSIC_LOCKS", "CLASSIC_PRIVATE_ENDPOINT", "CLASSIC_PUBLIC_NETWORK_ACCESS", "CLASSIC_REGISTRY",
    "CLASSIC_ROLE_ASSIGNMENT", "CLASSIC_WORKSPACE", "CLUSTER", "CLUSTER_ONLY", "COMPUTE", "COMPUTE_TYPES",
    "ClassicComputeView", "ClassicDiagnosticSettingView", "ClassicPrivateEndpointView", "ClassicRegistryView",
    "ClassicWorkspaceView", "ComputeView", "DIAGNOSTIC_SETTINGS", "DeploymentView", "DiagnosticSettingView", "INNER",
    "INSTANCE", "INSTANCE_ONLY", "Input", "LOCK_MODULES", "MANAGED", "MAPPED_CLASSIC", "MAPPED_NATIVE", "ML_KINDS",
    "ML_MODULE", "NATIVE", "NATIVE_LOCKS", "ONLINE_DEPLOYMENT", "OUTER", "PRIVATE_ENDPOINT", "PrivateEndpointView",
    "REGISTRY", "ROLE_ASSIGNMENT", "RegistryView", "RoleAssignmentView", "STACK_REFERENCE", "Sized", "T", "V",
    "WITH_IDENTITY", "WORKSPACE", "WORKSPACE_GROUP_ID", "WorkspaceView", "absent", "compute_of", "compute_subject",
    "compute_view", "deployment_view", "diagnostic_setting_view", "is_type", "private_endpoint_view", "provider_of",
    "read_known", "region_key", "registry_view", "role_assignment_view", "same_region", "same_value", "sized_of",
    "unmapped", "workspace_props", "workspace_view",
]


def unmapped(type_token: str, props: Mapping[str, Any]) -> str | None:
    """Why a resource the pack is about cannot be reviewed (no view maps it); None when it is mapped or not
    ML-relevant. ML-relevant: a workspace, compute, cluster, instance, inference cluster, Spark pool, online
    deployment or lock type of any provider, and a generic ARM resource (azapi) of such an ARM type."""
    if type_token in MAPPED_CLASSIC or any(is_type(type_token, kind) for kind in MAPPED_NATIVE):
        compute = compute_view(type_token, props)
        if compute is None or compute.compute_type in COMPUTE_TYPES:
            return None
        given = compute.compute_type_given
        if given is None:
            return ("no properties.computeType, and its properties say neither compute instance nor AmlCompute "
                    "cluster")
        return f"computeType {given!r}, which is none of {', '.join(COMPUTE_TYPES)}"
    provider = provider_of(type_token)
    module, _, name = type_token.partition(":")[2].partition(":")
    if provider == "azapi":
        arm_type = _get(props, "type")
        if isinstance(arm_type, str) and ARM_ML_TYPE.search(arm_type):
            return f"ARM type {arm_type} through the azapi provider, whose generic body no view maps"
        return None
    module = module.split("/")[0]
    lock = "lock" in name.lower() and module.lower() in LOCK_MODULES
    if not (ML_MODULE.search(module) and ML_KINDS.search(name)) and not lock:
        return None
    if provider == NATIVE:
        if type_parts(type_token) is None:
            return "an azure-native type token of a shape amlkit does not read"
        return f"azure-native type {module}:{name}, which no view maps"
    if provider == CLASSIC:
        return f"pulumi-azure type {type_token}, which no view maps"
    return f"provider {provider!r}, whose resources no view maps"


# --- what runs on a VM size: clusters, instances, managed online deployments ---------------------------


@dataclass(frozen=True)
class Sized:
    """What the VM-size rules read of a resource that runs on Azure VM sizes: a compute cluster or instance
    (`vmSize`) or a managed online deployment (`instanceType`, the VM size of each instance)."""

    subject: str
    """How messages name it: `AmlCompute cluster 'cpu'`, `Managed online deployment 'blue'`."""
    vm_size: str | None
    size_input: str
    """The input that names the size (`vmSize`, `instanceType`)."""
    size_required: bool
    """False for a compute instance, which gets Azure's default size without one."""
    compute: ComputeView | None = None
    deployment: DeploymentView | None = None


def sized_of(type_token: str, name: str, props: Mapping[str, Any], kinds: tuple[str, ...] = MANAGED) -> Sized | None:
    """The VM-size view of a compute whose computeType is one of `kinds`, or of a managed online deployment
    (a Kubernetes deployment's instance type names a Kubernetes resource profile, not a VM size); else None."""
    compute = compute_of(type_token, props, kinds)
    if compute is not None:
        return Sized(compute_subject(name, compute), compute.vm_size, "vmSize", not compute.is_instance,
                     compute=compute)
    deployment = deployment_view(type_token, props)
    if deployment is not None and deployment.is_managed:
        return Sized(f"Managed online deployment '{name}'", deployment.instance_type, "instanceType", True,
                     deployment=deployment)
    return None
