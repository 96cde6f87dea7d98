"""ARM ids and Azure names, as Azure forms them: what the mocks answer for a resource (`arm_id`,
`physical_name`) and for a `get<Type>` lookup whose arguments hold its whole ARM path (`derived_fields`),
and which inputs are ARM path parameters (`path_parameters`: changing one replaces the resource, as
amlkit.review.plan.diff reports).

SUBSCRIPTION and TENANT are the ids ARM ids are built with: placeholders, or the stack's own ids, which
the runner sets before the program runs (amlkit.review.run.identity says where they come from).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from amlkit.tokens import type_parts

__all__ = [
    "SUBSCRIPTION", "TENANT", "arm_id", "arm_path", "classic_arm_id", "derived_fields", "lookup_type",
    "path_parameters", "physical_name", "type_key",
]

SUBSCRIPTION = "00000000-0000-0000-0000-000000000000"
TENANT = "11111111-1111-1111-1111-111111111111"


# type (module:Name) -> (ARM path under the resource group, input holding the resource's name).
# `{parent}` segments read another input (the parent resource's name, e.g. the workspace).
_ARM: dict[str, tuple[str, str]] = {
    "resources:ResourceGroup": ("", "resourceGroupName"),
    "machinelearningservices:Workspace": ("Microsoft.MachineLearningServices/workspaces", "workspaceName"),
    "machinelearningservices:Compute": (
        "Microsoft.MachineLearningServices/workspaces/{workspaceName}/computes",
        "computeName",
    ),
    "machinelearningservices:OnlineEndpoint": (
        "Microsoft.MachineLearningServices/workspaces/{workspaceName}/onlineEndpoints", "endpointName"),
    "machinelearningservices:OnlineDeployment": (
        "Microsoft.MachineLearningServices/workspaces/{workspaceName}/onlineEndpoints/{endpointName}/deployments",
        "deploymentName"),
    "storage:StorageAccount": ("Microsoft.Storage/storageAccounts", "accountName"),
    "keyvault:Vault": ("Microsoft.KeyVault/vaults", "vaultName"),
    "applicationinsights:Component": ("Microsoft.Insights/components", "resourceName"),
    "insights:Component": ("Microsoft.Insights/components", "resourceName"),  # azure-native v1's module
    "operationalinsights:Workspace": ("Microsoft.OperationalInsights/workspaces", "workspaceName"),
    "containerregistry:Registry": ("Microsoft.ContainerRegistry/registries", "registryName"),
    "network:VirtualNetwork": ("Microsoft.Network/virtualNetworks", "virtualNetworkName"),
    "network:Subnet": ("Microsoft.Network/virtualNetworks/{virtualNetworkName}/subnets", "subnetName"),
    "managedidentity:UserAssignedIdentity": (
        "Microsoft.ManagedIdentity/userAssignedIdentities",
        "resourceName",
    ),
    "authorization:ManagementLockAtResourceGroupLevel": ("Microsoft.Authorization/locks", "lockName"),
}


# Extension resources: type -> (input holding the target's id, ARM path under the target, name input).
# Their id is `<target id>/providers/<path>/<name>`.
_EXTENSIONS: dict[str, tuple[str, str, str]] = {
    "monitor:DiagnosticSetting": ("resourceUri", "Microsoft.Insights/diagnosticSettings", "name"),
    "insights:DiagnosticSetting": ("resourceUri", "Microsoft.Insights/diagnosticSettings", "name"),  # v1's
    "authorization:ManagementLockByScope": ("scope", "Microsoft.Authorization/locks", "lockName"),
    "authorization:ManagementLockAtResourceLevel": ("", "Microsoft.Authorization/locks", "lockName"),
    "authorization:RoleAssignment": ("scope", "Microsoft.Authorization/roleAssignments", "roleAssignmentName"),
}


# The classic provider (pulumi-azure): type token -> (ARM path, the parent input the id goes under). Its name
# input is always `name`. A path under "" sits in `resourceGroupName`; a path under another input sits below
# the id that input holds (a compute under its workspace, a lock or role assignment under its scope).
_CLASSIC: dict[str, tuple[str, str]] = {
    "azure:core/resourceGroup:ResourceGroup": ("", ""),
    "azure:machinelearning/workspace:Workspace": ("Microsoft.MachineLearningServices/workspaces", ""),
    "azure:machinelearning/computeCluster:ComputeCluster": ("computes", "machineLearningWorkspaceId"),
    "azure:machinelearning/computeInstance:ComputeInstance": ("computes", "machineLearningWorkspaceId"),
    "azure:machinelearning/inferenceCluster:InferenceCluster": ("computes", "machineLearningWorkspaceId"),
    "azure:machinelearning/synapseSpark:SynapseSpark": ("computes", "machineLearningWorkspaceId"),
    "azure:storage/account:Account": ("Microsoft.Storage/storageAccounts", ""),
    "azure:keyvault/keyVault:KeyVault": ("Microsoft.KeyVault/vaults", ""),
    "azure:appinsights/insights:Insights": ("Microsoft.Insights/components", ""),
    "azure:containerservice/registry:Registry": ("Microsoft.ContainerRegistry/registries", ""),
    "azure:network/virtualNetwork:VirtualNetwork": ("Microsoft.Network/virtualNetworks", ""),
    "azure:network/subnet:Subnet": ("Microsoft.Network/virtualNetworks/{virtualNetworkName}/subnets", ""),
    "azure:authorization/userAssignedIdentity:UserAssignedIdentity": (
        "Microsoft.ManagedIdentity/userAssignedIdentities", ""),
    "azure:operationalinsights/analyticsWorkspace:AnalyticsWorkspace": (
        "Microsoft.OperationalInsights/workspaces", ""),
    "azure:management/lock:Lock": ("providers/Microsoft.Authorization/locks", "scope"),
    "azure:managementresource/manangementLock:ManangementLock": ("providers/Microsoft.Authorization/locks", "scope"),
    "azure:authorization/assignment:Assignment": ("providers/Microsoft.Authorization/roleAssignments", "scope"),
    "azure:monitoring/diagnosticSetting:DiagnosticSetting": (
        "providers/Microsoft.Insights/diagnosticSettings", "targetResourceId"),
}


def classic_arm_id(type_token: str, name: str, inputs: dict[str, Any]) -> str | None:
    """The ARM id of a classic-provider resource in `_CLASSIC`, shaped as Azure returns it; None otherwise."""
    if type_token not in _CLASSIC:
        return None
    path, parent = _CLASSIC[type_token]
    subscription = f"/subscriptions/{SUBSCRIPTION}"
    if type_token == "azure:core/resourceGroup:ResourceGroup":
        return f"{subscription}/resourceGroups/{name}"
    if parent:
        return f"{_text(inputs.get(parent), subscription)}/{path}/{name}"
    path = re.sub(r"\{(\w+)\}", lambda m: _text(inputs.get(m[1]), m[1]), path)
    return f"{subscription}/resourceGroups/{_text(inputs.get('resourceGroupName'), 'rg')}/providers/{path}/{name}"


def type_key(type_token: str) -> str | None:
    """`azure-native:machinelearningservices/v20240401:Compute` (any spelling, see amlkit.tokens) ->
    `machinelearningservices:Compute`."""
    parts = type_parts(type_token)
    return f"{parts[0]}:{parts[2]}" if parts else None


def arm_id(type_token: str, name: str, inputs: dict[str, Any]) -> str:
    """An ARM-shaped id: `/subscriptions/<guid>/resourceGroups/<rg>/providers/<ns>/<type>/<name>`."""
    classic = classic_arm_id(type_token, name, inputs)
    if classic is not None:
        return classic
    key = type_key(type_token)
    subscription = f"/subscriptions/{SUBSCRIPTION}"
    if key == "resources:ResourceGroup":
        return f"{subscription}/resourceGroups/{name}"
    if key in _EXTENSIONS:
        return f"{_extension_target(key, inputs)}/providers/{_EXTENSIONS[key][1]}/{name}"
    group = _text(inputs.get("resourceGroupName"), "rg")
    if key in _ARM:
        path = re.sub(r"\{(\w+)\}", lambda m: _text(inputs.get(m[1]), m[1]), _ARM[key][0])
    elif key is not None:
        module, kind = key.split(":")
        path = f"Microsoft.{module}/{kind[0].lower()}{kind[1:]}s"
    else:
        path = f"Custom.Mock/{type_token.replace(':', '.')}"
    return f"{subscription}/resourceGroups/{group}/providers/{path}/{name}"


def arm_path(type_token: str) -> tuple[str, str] | None:
    """(the ARM path of an azure-native type in the tables above, as its PUT operation spells it, with `{input}`
    parameters; the input holding the resource's own name, the path's last parameter); None for other types.
    `/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.X/xs/{xName}`."""
    key = type_key(type_token)
    if key == "resources:ResourceGroup":
        return "/subscriptions/{subscriptionId}/resourcegroups/{resourceGroupName}", "resourceGroupName"
    if key == "authorization:ManagementLockAtResourceLevel":
        target = ("/subscriptions/{subscriptionId}/resourcegroups/{resourceGroupName}/providers/"
                  "{resourceProviderNamespace}/{parentResourcePath}/{resourceType}/{resourceName}")
        return f"{target}/providers/{_EXTENSIONS[key][1]}/{{lockName}}", "lockName"
    if key in _EXTENSIONS:
        target, path, name_input = _EXTENSIONS[key]
        return f"/{{{target}}}/providers/{path}/{{{name_input}}}", name_input
    if key in _ARM:
        path, name_input = _ARM[key]
        group = "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}"
        return f"{group}/providers/{path}/{{{name_input}}}", name_input
    return None


def physical_name(type_token: str, logical: str, inputs: dict[str, Any]) -> str:
    """The Azure name: the type's name input when given, else the logical name (no random suffix)."""
    key = type_key(type_token)
    if key in _ARM:
        return _text(inputs.get(_ARM[key][1]), logical)
    if key in _EXTENSIONS:
        return _text(inputs.get(_EXTENSIONS[key][2]), logical)
    return _text(inputs.get("name"), logical)


def _extension_target(key: str, inputs: dict[str, Any]) -> str:
    """The id of the resource an extension resource is attached to."""
    if key == "authorization:ManagementLockAtResourceLevel":
        group = _text(inputs.get("resourceGroupName"), "rg")
        parts = [inputs.get(k) for k in ("resourceProviderNamespace", "parentResourcePath", "resourceType",
                                         "resourceName")]
        path = "/".join(p for p in parts if isinstance(p, str) and p)
        return f"/subscriptions/{SUBSCRIPTION}/resourceGroups/{group}/providers/{path}"
    return _text(inputs.get(_EXTENSIONS[key][0]), f"/subscriptions/{SUBSCRIPTION}")


def _text(value: Any, default: str) -> str:
    return value if isinstance(value, str) and value else default


def lookup_type(token: str) -> str | None:
    """`azure-native:network:getSubnet` -> `network:Subnet`: the type a `get<Type>` lookup reads."""
    parts = type_parts(token)
    if not parts or not parts[2].startswith("get") or len(parts[2]) == 3:
        return None
    return f"{parts[0]}:{parts[2][3:]}"


def derived_fields(token: str, args: Mapping[str, Any]) -> dict[str, str]:
    """`id` and `name` of a `get<Type>` lookup of a type in the ARM table, when its arguments hold the
    whole ARM path (resource group, parent names, name); else {}."""
    key = lookup_type(token)
    if key not in _ARM:
        return {}
    path, name_input = _ARM[key]
    needed = [name_input, *re.findall(r"\{(\w+)\}", path)]
    if key != "resources:ResourceGroup":
        needed.append("resourceGroupName")
    if not all(_text(args.get(arg), "") for arg in needed):
        return {}
    name = args[name_input]
    return {"id": arm_id(f"azure-native:{key}", name, dict(args)), "name": name}


def path_parameters(type_token: str) -> tuple[str, ...]:
    """The inputs that are ARM path parameters: resourceGroupName, parent names, the resource's name
    (from the ARM path table above; for an extension resource such as a role assignment
    or a lock by scope, its target (`scope`) and its name; `resourceGroupName` alone for other types)."""
    key = type_key(type_token)
    if key == "resources:ResourceGroup":
        return ("resourceGroupName",)
    if key in _EXTENSIONS:  # `<target id>/providers/<path>/<name>`: the target and the name
        target, _, name_input = _EXTENSIONS[key]
        return tuple(part for part in (target, name_input) if part)
    if key not in _ARM:
        return ("resourceGroupName",)
    path, name_input = _ARM[key]
    return ("resourceGroupName", *re.findall(r"\{(\w+)\}", path), name_input)
