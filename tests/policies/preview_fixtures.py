"""Stacks as a real `pulumi preview` shows them to the pack, on both providers.

Every resource here is being created: its `id` and output `name` are unknown (the engine's unknown sentinel, wrapped
as pulumi-policy wraps inputs), its own name inputs are known (autonamed in the provider's Check), and an input built
from another resource's output carries a property dependency on it (docs/review.md, "What a preview knows"). A
compute of a workspace in another stack names it by a literal ARM id.
"""

from __future__ import annotations

from typing import Any

from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, unknown_checking_proxy

from amlkit.policies.framework import Rule, StackResource
from tests.policies.helpers import cluster_props
from tests.policies.workspace_fixtures import res, workspace_id

U = UNKNOWN_STRING_VALUE
NATIVE_RG = "azure-native:resources:ResourceGroup"
NATIVE_WORKSPACE = "azure-native:machinelearningservices:Workspace"
NATIVE_COMPUTE = "azure-native:machinelearningservices:Compute"
CLASSIC_RG = "azure:core/resourceGroup:ResourceGroup"
CLASSIC_WORKSPACE = "azure:machinelearning/workspace:Workspace"
CLASSIC_CLUSTER = "azure:machinelearning/computeCluster:ComputeCluster"
PLATFORM_ID = workspace_id("rg-shared-ml", "mlw-platform")
"""A workspace of another stack (a platform repo's shared workspace), named by its literal ARM id."""


def group(provider: str, name: str = "rg", azure_name: str = "rg-ml") -> StackResource:
    if provider == "native":
        return res(NATIVE_RG, name, {"resourceGroupName": azure_name, "location": "westeurope"})
    return res(CLASSIC_RG, name, {"name": azure_name, "location": "westeurope"})


def workspace(provider: str, rg: StackResource, name: str = "mlw", **inputs: Any) -> StackResource:
    """A workspace created in `rg`: its resourceGroupName is rg's unknown output `name`."""
    if provider == "native":
        props = {"workspaceName": f"{name}-prod", "resourceGroupName": U, "location": "westeurope", **inputs}
        return res(NATIVE_WORKSPACE, name, unknown_checking_proxy(props), resourceGroupName=rg.urn)
    if "managedNetwork" not in inputs:
        inputs.setdefault("managedNetwork", {"isolationMode": "Disabled"})
    props = {"name": f"{name}-prod", "resourceGroupName": U, "location": "westeurope", **inputs}
    return res(CLASSIC_WORKSPACE, name, unknown_checking_proxy(props), resourceGroupName=rg.urn)


def cluster(provider: str, of: StackResource | str | None, rg: StackResource | None = None, name: str = "gpu",
            location: str | None = None, subnet: str | None = None) -> StackResource:
    """A cluster of workspace `of`: a stack workspace (its unknown outputs, with property dependencies), a literal
    ARM id (a workspace of another stack), or None (an id unknown at preview and built from nothing of this stack)."""
    if provider == "native":
        props = cluster_props()
        inner = props["properties"]["properties"]
        if subnet:
            inner["subnet"] = {"id": subnet}
        else:
            inner.pop("subnet")
        props.pop("location")
        props["computeName"] = name
        if location:
            props["properties"]["computeLocation"] = location
        deps: dict[str, str] = {}
        if isinstance(of, StackResource):
            props["workspaceName"], props["resourceGroupName"] = U, U
            deps = {"workspaceName": of.urn, **({"resourceGroupName": rg.urn} if rg else {})}
        elif isinstance(of, str):
            parts = of.split("/")
            props["workspaceName"], props["resourceGroupName"] = parts[-1], parts[4]
        else:
            props["workspaceName"], props["resourceGroupName"] = U, U
        return res(NATIVE_COMPUTE, name, unknown_checking_proxy(props), **deps)
    inputs: dict[str, Any] = {"name": name, "vmSize": "Standard_D4ds_v5", "vmPriority": "Dedicated",
                              "identity": {"type": "SystemAssigned"}, "localAuthEnabled": False,
                              "nodePublicIpEnabled": False,
                              "scaleSettings": {"minNodeCount": 0.0, "maxNodeCount": 4.0,
                                                "scaleDownNodesAfterIdleDuration": "PT120S"}}
    if location:
        inputs["location"] = location
    if subnet:
        inputs["subnetResourceId"] = subnet
    inputs["machineLearningWorkspaceId"] = of if isinstance(of, str) else U
    deps = {"machineLearningWorkspaceId": of.urn} if isinstance(of, StackResource) else {}
    return res(CLASSIC_CLUSTER, name, unknown_checking_proxy(inputs), **deps)


def compute_stack(provider: str, of: str, workspace_inputs: dict[str, Any],
                  cluster_inputs: dict[str, Any]) -> list[StackResource]:
    """A group, a workspace in it and a cluster whose workspace is linked as `of` says: "graph" (the workspace's
    outputs, with the group), "literal-id-of-another-stack" (PLATFORM_ID), anything else (nothing preview knows)."""
    rg = group(provider)
    ws = workspace(provider, rg, **workspace_inputs)
    workspace_of = {"graph": ws, "literal-id-of-another-stack": PLATFORM_ID}.get(of)
    return [rg, ws, cluster(provider, workspace_of, rg if workspace_of is ws else None, **cluster_inputs)]


def verdicts(rule: Rule, resources: list[StackResource],
             config: dict[str, Any] | None = None) -> list[tuple[str, str, bool]]:
    """(logical name, message, unknown) of each finding, in the rule's order."""
    return [((f.urn or "").rsplit("::", 1)[-1], f.message, f.unknown) for f in rule.evaluate_stack(resources, config)]
