"""Extra fixtures for the compute rules: instances, attached computes, workspaces and stacks.

Like `helpers.py`, each builder returns a compliant happy-path resource; tests change ONE field.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from pulumi_policy.proxy import unknown_checking_proxy

from amlkit.policies.framework import Finding, Rule, StackResource
from tests.policies.helpers import COMPUTE_TYPE, DELETE, cluster_props

WORKSPACE_TYPE = "azure-native:machinelearningservices:Workspace"
SUBNET_ID = "/subscriptions/0000/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/aml"
USER_IDENTITY_ID = (
    "/subscriptions/0000/resourceGroups/rg-ml-prod/providers/"
    "Microsoft.ManagedIdentity/userAssignedIdentities/id-ml-compute"
)


def instance_props(**inner: Any) -> dict[str, Any]:
    """A compliant compute instance's inputs, wire form; keyword args override `properties.properties`."""
    props: dict[str, Any] = {
        "resourceGroupName": "rg-ml-prod",
        "workspaceName": "mlw-prod",
        "computeName": "ci-alice",
        "location": "westeurope",
        "identity": {"type": "SystemAssigned"},
        "properties": {
            "computeType": "ComputeInstance",
            "disableLocalAuth": True,
            "properties": {
                "vmSize": "Standard_D4ds_v5",
                "idleTimeBeforeShutdown": "PT60M",
                "enableNodePublicIp": False,
                "sshSettings": {"sshPublicAccess": "Disabled"},
                "subnet": {"id": SUBNET_ID},
            },
        },
    }
    props["properties"]["properties"].update(inner)
    return props


def attached_props(compute_type: str = "Kubernetes") -> dict[str, Any]:
    """An attached compute (Kubernetes or AKS) that points at an existing cluster."""
    return {
        "resourceGroupName": "rg-ml-prod",
        "workspaceName": "mlw-prod",
        "computeName": "k8s",
        "location": "westeurope",
        "properties": {
            "computeType": compute_type,
            "disableLocalAuth": True,
            "resourceId": "/subscriptions/0000/resourceGroups/rg-aks/providers/"
            "Microsoft.ContainerService/managedClusters/aks-prod",
            "properties": {"namespace": "azureml"},
        },
    }


def workspace_props(**overrides: Any) -> dict[str, Any]:
    """A workspace with a managed network that allows only approved outbound traffic (DELETE removes a key)."""
    props: dict[str, Any] = {
        "resourceGroupName": "rg-ml-prod",
        "workspaceName": "mlw-prod",
        "location": "westeurope",
        "identity": {"type": "SystemAssigned"},
        "managedNetwork": {"isolationMode": "AllowOnlyApprovedOutbound"},
        "publicNetworkAccess": "Disabled",
    }
    for key, value in overrides.items():
        if value is DELETE:
            props.pop(key, None)
        else:
            props[key] = value
    return props


def urn(type_: str, name: str) -> str:
    return f"urn:pulumi:prod::amlkit::{type_}::{name}"


def resource(name: str, props: Mapping[str, Any], type_: str = COMPUTE_TYPE,
             depends: Mapping[str, Sequence[str]] | None = None) -> StackResource:
    """A StackResource as a stack rule sees it; `depends` maps an input to the URNs it was built from."""
    return StackResource(type_, name, urn(type_, name), props, None,
                         {key: tuple(urns) for key, urns in (depends or {}).items()})


def workspace(name: str = "mlw", **overrides: Any) -> StackResource:
    return resource(name, workspace_props(**overrides), WORKSPACE_TYPE)


def cluster(name: str = "cpu-cluster", props: Mapping[str, Any] | None = None, **kwargs: Any) -> StackResource:
    return resource(name, props if props is not None else cluster_props(), **kwargs)


def instance(name: str = "ci-alice", props: Mapping[str, Any] | None = None, **kwargs: Any) -> StackResource:
    return resource(name, props if props is not None else instance_props(), **kwargs)


def stack_findings(rule: Rule, resources: Sequence[StackResource],
                   config: dict[str, Any] | None = None) -> list[Finding]:
    return rule.evaluate_stack(resources, config)


def with_unknown(props: dict[str, Any], path: str, sentinel: str) -> Mapping[str, Any]:
    """props with the dotted `path` replaced by an unknown sentinel, wrapped as pulumi-policy does."""
    result = copy.deepcopy(props)
    *parents, last = path.split(".")
    target = result
    for key in parents:
        target = target.setdefault(key, {})
    target[last] = sentinel
    return unknown_checking_proxy(result)


DEPLOYMENT_TYPE = "azure-native:machinelearningservices:OnlineDeployment"


def deployment_props(instance_type: str | None = "Standard_D4ds_v5", compute_type: str = "Managed",
                     capacity: float = 2.0) -> dict[str, Any]:
    """An online deployment's inputs (wire form): `instance_type` None leaves instanceType out."""
    properties: dict[str, Any] = {"endpointComputeType": compute_type}
    if instance_type is not None:
        properties["instanceType"] = instance_type
    return {"resourceGroupName": "rg-ml-prod", "workspaceName": "mlw-prod", "endpointName": "scoring",
            "location": "westeurope", "properties": properties, "sku": {"name": "Default", "capacity": capacity}}
