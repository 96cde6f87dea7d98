"""Hand-written `pulumi stack export` files for the audit tests, shaped like real exports: inputs as the
program sent them, outputs as Azure returned them (no ARM path parameters such as `resourceGroupName`),
the engine's dependencies and property dependencies."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from amlkit.review.secrets import SECRET_SIG, SECRET_SIG_KEY

PROJECT = "acme-ml"
SUBSCRIPTION = "00000000-0000-0000-0000-000000000000"
COMPUTE = "azure-native:machinelearningservices:Compute"
WORKSPACE = "azure-native:machinelearningservices:Workspace"
RG_LOCK = "azure-native:authorization:ManagementLockAtResourceGroupLevel"
ENCRYPTED = {SECRET_SIG_KEY: SECRET_SIG, "ciphertext": "v1:AAAAbm90LWRlY3J5cHRhYmxl"}


def urn(stack: str, type_: str, name: str) -> str:
    return f"urn:pulumi:{stack}::{PROJECT}::{type_}::{name}"


def arm(path: str) -> str:
    return f"/subscriptions/{SUBSCRIPTION}/resourceGroups/rg-ml/{path}".rstrip("/")


def cluster_inputs(min_nodes: int, **properties: Any) -> dict[str, Any]:
    """A cluster that passes amlkit's pack except for its minimum node count (and what `properties` set)."""
    return {
        "resourceGroupName": "rg-ml", "workspaceName": "mlw-prod", "computeName": "cpu", "location": "westeurope",
        "identity": {"type": "SystemAssigned"},
        "properties": {
            "computeType": "AmlCompute", "disableLocalAuth": True,
            "properties": {
                "vmSize": "Standard_D4ds_v5", "vmPriority": "Dedicated", "enableNodePublicIp": False,
                "remoteLoginPortPublicAccess": "Disabled",
                "subnet": {"id": f"/subscriptions/{SUBSCRIPTION}/resourceGroups/rg-net/providers/Microsoft.Network"
                                 "/virtualNetworks/vnet/subnets/snet"},
                "scaleSettings": {"minNodeCount": min_nodes, "maxNodeCount": 4,
                                  "nodeIdleTimeBeforeScaleDown": "PT120S"},
                **properties,
            },
        },
    }


def resources(stack: str = "prod", min_nodes: int = 2, rg_lock: bool = True,
              cluster: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Root stack, provider, resource group, workspace, cluster (and an RG lock), plus an old copy of a
    cluster marked `delete: true` (at 5 nodes minimum: an audit must skip it)."""
    root = urn(stack, "pulumi:pulumi:Stack", f"{PROJECT}-{stack}")
    provider = urn(stack, "pulumi:providers:azure-native", "default_3_29_0")
    rg = urn(stack, "azure-native:resources:ResourceGroup", "ml-rg")
    ws = urn(stack, WORKSPACE, "mlw")
    on_rg = {"dependencies": [rg], "propertyDependencies": {"resourceGroupName": [rg]}}
    cluster_in = cluster if cluster is not None else cluster_inputs(min_nodes)
    listed = [
        {"urn": root, "type": "pulumi:pulumi:Stack", "custom": False, "outputs": {}},
        {"urn": provider, "type": "pulumi:providers:azure-native", "custom": True, "id": "prov-id",
         "parent": root, "inputs": {"version": "3.29.0"}, "outputs": {"version": "3.29.0"}},
        {"urn": rg, "type": "azure-native:resources:ResourceGroup", "custom": True,
         "id": f"/subscriptions/{SUBSCRIPTION}/resourceGroups/rg-ml", "parent": root,
         "provider": f"{provider}::prov-id",
         "inputs": {"resourceGroupName": "rg-ml", "location": "westeurope", "tags": {"owner": "ml"}},
         "outputs": {"id": f"/subscriptions/{SUBSCRIPTION}/resourceGroups/rg-ml", "name": "rg-ml",
                     "location": "westeurope", "tags": {"owner": "ml"}}},
        {"urn": ws, "type": WORKSPACE, "custom": True, "parent": root, "provider": f"{provider}::prov-id",
         "id": arm("providers/Microsoft.MachineLearningServices/workspaces/mlw-prod"),
         "inputs": {"resourceGroupName": "rg-ml", "workspaceName": "mlw-prod", "location": "westeurope",
                    "identity": {"type": "SystemAssigned"}, "publicNetworkAccess": "Disabled"},
         "outputs": {"id": arm("providers/Microsoft.MachineLearningServices/workspaces/mlw-prod"),
                     "name": "mlw-prod", "location": "westeurope", "publicNetworkAccess": "Disabled",
                     "identity": {"type": "SystemAssigned", "principalId": "p", "tenantId": "t"}},
         **on_rg},
        cluster_resource(stack, "cpu", cluster_in, ws, rg, provider),
        {**cluster_resource(stack, "cpu", cluster_inputs(5), ws, rg, provider), "delete": True},
    ]
    if rg_lock:
        lock_id = arm("providers/Microsoft.Authorization/locks/rg-lock")
        listed.append({"urn": urn(stack, RG_LOCK, "rg-lock"), "type": RG_LOCK, "custom": True, "parent": root,
                       "provider": f"{provider}::prov-id", "id": lock_id,
                       "inputs": {"resourceGroupName": "rg-ml", "lockName": "rg-lock", "level": "CanNotDelete"},
                       "outputs": {"id": lock_id, "name": "rg-lock", "level": "CanNotDelete"}, **on_rg})
    return listed


def cluster_resource(stack: str, name: str, inputs: dict[str, Any], ws: str, rg: str,
                     provider: str) -> dict[str, Any]:
    compute_id = arm(f"providers/Microsoft.MachineLearningServices/workspaces/mlw-prod/computes/{name}")
    outputs = {key: copy.deepcopy(value) for key, value in inputs.items()
               if key not in ("resourceGroupName", "workspaceName", "computeName")}
    outputs.update(id=compute_id, name=name)
    return {"urn": urn(stack, COMPUTE, name), "type": COMPUTE, "custom": True, "id": compute_id,
            "parent": urn(stack, "pulumi:pulumi:Stack", f"{PROJECT}-{stack}"), "provider": f"{provider}::prov-id",
            "inputs": inputs, "outputs": outputs, "dependencies": [rg, ws],
            "propertyDependencies": {"resourceGroupName": [rg], "workspaceName": [ws]}}


def write(path: Path, listed: list[dict[str, Any]]) -> Path:
    data = {"version": 3, "deployment": {
        "manifest": {"time": "2026-11-20T10:00:00Z", "magic": "0" * 64, "version": "v3.272.0"},
        "secrets_providers": {"type": "passphrase"}, "resources": listed}}
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


STACK_REFERENCE = "pulumi:pulumi:StackReference"


def stack_reference(stack: str, referenced: str, outputs: dict[str, Any]) -> dict[str, Any]:
    """A `pulumi.StackReference` as the engine keeps it in the state: a read (`external: true`, no provider
    reference: the engine's builtin provider) whose id and input `name` are the referenced stack, and whose outputs
    are `name`, `outputs` and `secretOutputNames` (pulumi/pulumi pkg/resource/deploy/builtins.go,
    readStackReference; step_generator.go GenerateReadSteps)."""
    return {"urn": urn(stack, STACK_REFERENCE, referenced), "type": STACK_REFERENCE, "custom": True,
            "external": True, "id": referenced, "parent": urn(stack, "pulumi:pulumi:Stack", f"{PROJECT}-{stack}"),
            "inputs": {"name": referenced},
            "outputs": {"name": referenced, "outputs": outputs, "secretOutputNames": []}}
