"""The settings column of `amlkit preview` for the classic provider's ML resources (pulumi-azure 6.x): each classic
input is placed where azure-native puts the same ARM property (`amlkit.policies.azure.ClassicComputeView`'s map,
terraform-provider-azurerm `internal/services/machinelearning/*_resource.go`), so both providers show the same
settings with the same labels; a value is never computed from a secret or an unknown (shown as is)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from amlkit.review.secrets import REDACTED, SECRET_SIG_KEY, UNKNOWN

__all__ = [
    "CLUSTER", "INFERENCE_CLUSTER", "INSTANCE", "LOCKS", "SYNAPSE_SPARK", "WORKSPACE", "cluster", "enabled",
    "inference_cluster", "instance", "lock", "negated", "synapse_spark", "workspace",
]

WORKSPACE = "azure:machinelearning/workspace:Workspace"
CLUSTER = "azure:machinelearning/computeCluster:ComputeCluster"
INSTANCE = "azure:machinelearning/computeInstance:ComputeInstance"
INFERENCE_CLUSTER = "azure:machinelearning/inferenceCluster:InferenceCluster"
SYNAPSE_SPARK = "azure:machinelearning/synapseSpark:SynapseSpark"
LOCKS = ("azure:management/lock:Lock", "azure:managementresource/manangementLock:ManangementLock")


def _opaque(value: Any) -> bool:
    return value in (UNKNOWN, REDACTED) or (isinstance(value, Mapping) and SECRET_SIG_KEY in value)


def enabled(flag: Any) -> Any:
    """A classic `...Enabled` flag as the ARM enum the provider sends (an unknown or secret as is)."""
    if flag is None or _opaque(flag):
        return flag
    return "Enabled" if flag else "Disabled"


def negated(flag: Any) -> Any:
    """A classic `...Enabled` flag as the ARM `disable...`/`...No...` flag the provider sends."""
    if flag is None or _opaque(flag):
        return flag
    return not flag


def _drop_none(data: Mapping[str, Any]) -> dict[str, Any]:
    """`data` without None values, nested objects that end up empty left out."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict) and not _opaque(value):
            value = _drop_none(value)
            if not value:
                continue
        if value is not None:
            out[key] = value
    return out


def _identity(inputs: Mapping[str, Any]) -> dict[str, Any]:
    identity = inputs.get("identity")
    if not isinstance(identity, Mapping) or _opaque(identity):
        return {"identity": identity}
    return {"identity": {"type": identity.get("type"), "userAssignedIdentities": identity.get("identityIds")}}


def cluster(inputs: Mapping[str, Any]) -> dict[str, Any]:
    scale = inputs.get("scaleSettings") or {}
    scale = scale if isinstance(scale, Mapping) and not _opaque(scale) else {}
    return _drop_none({**_identity(inputs), "properties": {
        "computeType": "AmlCompute", "computeLocation": inputs.get("location"),
        "disableLocalAuth": negated(inputs.get("localAuthEnabled")),
        "properties": {
            "vmSize": inputs.get("vmSize"), "vmPriority": inputs.get("vmPriority"),
            "scaleSettings": {"minNodeCount": scale.get("minNodeCount"), "maxNodeCount": scale.get("maxNodeCount"),
                              "nodeIdleTimeBeforeScaleDown": scale.get("scaleDownNodesAfterIdleDuration")},
            "enableNodePublicIp": inputs.get("nodePublicIpEnabled"),
            "remoteLoginPortPublicAccess": enabled(inputs.get("sshPublicAccessEnabled")),
            "subnet": {"id": inputs.get("subnetResourceId")},
        }}})


def instance(inputs: Mapping[str, Any]) -> dict[str, Any]:
    ssh = inputs.get("ssh")
    return _drop_none({**_identity(inputs), "properties": {
        "computeType": "ComputeInstance", "disableLocalAuth": negated(inputs.get("localAuthEnabled")),
        "properties": {
            "vmSize": inputs.get("virtualMachineSize"),
            "enableNodePublicIp": inputs.get("nodePublicIpEnabled"),
            "sshSettings": {"sshPublicAccess": None if ssh is None else ("Enabled" if not _opaque(ssh) else ssh)},
            "subnet": {"id": inputs.get("subnetResourceId")},
        }}})


def _attached(kind: str, target: Any, inputs: Mapping[str, Any]) -> dict[str, Any]:
    return _drop_none({**_identity(inputs), "properties": {
        "computeType": kind, "resourceId": target, "disableLocalAuth": negated(inputs.get("localAuthEnabled"))}})


def inference_cluster(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """An InferenceCluster attaches an AKS cluster (`kubernetesClusterId`)."""
    return _attached("AKS", inputs.get("kubernetesClusterId"), inputs)


def synapse_spark(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """A SynapseSpark compute attaches a Synapse Spark pool (`synapseSparkPoolId`)."""
    return _attached("SynapseSpark", inputs.get("synapseSparkPoolId"), inputs)


def workspace(inputs: Mapping[str, Any]) -> dict[str, Any]:
    serverless = inputs.get("serverlessCompute") or {}
    serverless = serverless if isinstance(serverless, Mapping) and not _opaque(serverless) else {}
    managed = inputs.get("managedNetwork")
    return _drop_none({
        **_identity(inputs), "kind": inputs.get("kind"),
        "publicNetworkAccess": enabled(inputs.get("publicNetworkAccessEnabled")),
        "managedNetwork": managed if _opaque(managed) else
        {"isolationMode": managed.get("isolationMode") if isinstance(managed, Mapping) else None},
        "serverlessComputeSettings": {"serverlessComputeCustomSubnet": serverless.get("subnetId"),
                                      "serverlessComputeNoPublicIP": None if "publicIpEnabled" not in serverless
                                      else negated(serverless.get("publicIpEnabled"))},
        "hbiWorkspace": inputs.get("highBusinessImpact"),
    })


def lock(inputs: Mapping[str, Any]) -> dict[str, Any]:
    return _drop_none({"level": inputs.get("lockLevel"), "scope": inputs.get("scope")})
