"""What a stack rule reads of a resource: its OUTPUTS, as AnalyzeStack sends them, read in the views' terms.

Unlike Analyze, AnalyzeStack is called on each resource's final outputs (pulumi/pulumi
`pkg/resource/deploy/step_generator.go` `AnalyzeResources`: `Properties: v.Outputs`), offline and under the
real CLI alike. In a preview those are the provider's preview outputs for a resource being created, and the
deployed outputs from the state for a `same` one (`pkg/resource/deploy/step.go` `SameStep.Apply`).

The classic provider's outputs (the Terraform bridge's state) keep every input attribute, so they are read as
they are. azure-native's outputs mirror the body inputs under the same names, with identities as maps, but they
carry none of the ARM path inputs (`resourceGroupName`, `workspaceName`, `computeName`, `lockName`, a ByScope
lock's `scope`, a diagnostic setting's `resourceUri`, ...): those are parts of the resource's ARM `id` output
(pulumi-azure-native `provider/pkg/provider/provider.go` `Create`: a preview answers
`PreviewOutputs(inputs, res.Response)`, whose response properties include `id`; the SDK's classes leave `id`
out only because every custom resource has one, `provider/pkg/gen/schema.go`). `stack_props` gives the views
those path inputs read from the `id` output: known when the id is (a deployed resource), else the engine's
unknown (a resource being created, or updated: azure-native's Update preview keeps only the old `name` and
`location`), the resource's own name then from a known `name` output. So a rule links through the
propertyDependencies, which the engine still keys by input name, or reports *unknown*; it never reads a path
input the outputs do not carry as "not set".
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.policies.arm import parse_arm_id
from amlkit.tokens import type_parts

__all__ = ["PATH_INPUTS", "SCOPED", "path_inputs", "stack_props"]

PATH_INPUTS: dict[str, tuple[str, ...]] = {
    "resources:ResourceGroup": ("resourceGroupName",),
    "machinelearningservices:Workspace": ("resourceGroupName", "workspaceName"),
    "machinelearningservices:Compute": ("resourceGroupName", "workspaceName", "computeName"),
    "machinelearningservices:OnlineEndpoint": ("resourceGroupName", "workspaceName", "endpointName"),
    "machinelearningservices:OnlineDeployment": ("resourceGroupName", "workspaceName", "endpointName",
                                                 "deploymentName"),
    "machinelearningservices:Registry": ("resourceGroupName", "registryName"),
    "containerregistry:Registry": ("resourceGroupName", "registryName"),
    "storage:StorageAccount": ("resourceGroupName", "accountName"),
    "keyvault:Vault": ("resourceGroupName", "vaultName"),
    "network:VirtualNetwork": ("resourceGroupName", "virtualNetworkName"),
    "network:Subnet": ("resourceGroupName", "virtualNetworkName", "subnetName"),
    "network:PrivateEndpoint": ("resourceGroupName", "privateEndpointName"),
    "managedidentity:UserAssignedIdentity": ("resourceGroupName", "resourceName"),
    "authorization:ManagementLockAtResourceGroupLevel": ("resourceGroupName", "lockName"),
    "authorization:ManagementLockAtSubscriptionLevel": ("lockName",),
    "authorization:ManagementLockAtResourceLevel": ("resourceGroupName", "resourceName", "lockName"),
    "authorization:RoleAssignment": ("roleAssignmentName",),
}
"""The ARM path inputs of the azure-native types the stack views read, in the order their names appear in the id
(`resourceGroupName` from its `resourceGroups` segment; the others are the id's resource names, the last one the
resource's own, which a ResourceLevel lock's `resourceName` precedes)."""

SCOPED: dict[str, str] = {
    "authorization:ManagementLockByScope": "scope",
    "insights:DiagnosticSetting": "resourceUri",
    "monitor:DiagnosticSetting": "resourceUri",
}
"""Extension resources whose path input is the id of the resource they extend: the id up to its last
`/providers/` (`{scope}/providers/Microsoft.Authorization/locks/{lockName}`)."""

UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
"""The engine's unknown sentinel (pulumi_policy.proxy.UNKNOWN_STRING_VALUE), for a path input preview cannot know."""


def _kind(type_token: str) -> str | None:
    parts = type_parts(type_token)
    return None if parts is None else f"{parts[0]}:{parts[2]}"


def path_inputs(type_token: str, outputs: Mapping[str, Any]) -> dict[str, Any]:
    """The path inputs of an azure-native resource read from its outputs' `id` (and own name from `name`), each the
    engine's unknown where the outputs cannot tell it; {} for other providers and types."""
    kind = _kind(type_token)
    if kind is None or (kind not in PATH_INPUTS and kind not in SCOPED):
        return {}
    arm_id = _read(outputs, "id")
    if kind in SCOPED:
        scope = arm_id.rsplit("/providers/", 1)[0] if isinstance(arm_id, str) and "/providers/" in arm_id else None
        return {SCOPED[kind]: scope if scope else UNKNOWN}
    keys = PATH_INPUTS[kind]
    derived = _from_id(keys, arm_id)
    if derived is None:
        derived = dict.fromkeys(keys, UNKNOWN)
        name = _read(outputs, "name")
        if isinstance(name, str) and name != UNKNOWN:  # an update's preview keeps the old name
            derived[keys[-1]] = name
    return derived


def _from_id(keys: tuple[str, ...], arm_id: Any) -> dict[str, Any] | None:
    parsed = parse_arm_id(arm_id) if isinstance(arm_id, str) and arm_id != UNKNOWN else None
    if parsed is None:
        return None
    if kind_is_group(keys):
        return {"resourceGroupName": parsed.resource_group or UNKNOWN}
    names = [name for name in keys if name != "resourceGroupName"]
    if len(parsed.names) < len(names):
        return None
    derived: dict[str, Any] = dict(zip(names, parsed.names[-len(names):], strict=True)) if names else {}
    if "resourceGroupName" in keys:
        derived["resourceGroupName"] = parsed.resource_group or UNKNOWN
    if "resourceName" in names and "lockName" in names:  # a lock on a resource: {resource id}/providers/.../locks/x
        derived["resourceName"] = _extended(arm_id)
    return derived


def kind_is_group(keys: tuple[str, ...]) -> bool:
    return keys == ("resourceGroupName",)


def _extended(arm_id: str) -> Any:
    """The name of the resource an extension resource's id extends."""
    parsed = parse_arm_id(arm_id.rsplit("/providers/", 1)[0])
    return parsed.name if parsed is not None and parsed.kind == "resource" else UNKNOWN


def _read(outputs: Mapping[str, Any], key: str) -> Any:
    """An output as written, the engine's unknown included (pulumi-policy's proxy raises on reading one)."""
    from pulumi_policy.proxy import UnknownValueError

    try:
        return outputs.get(key)
    except UnknownValueError:
        return UNKNOWN


class StackProps(Mapping[str, Any]):
    """A resource's outputs with its path inputs (`path_inputs`) beside them; reading an unknown path input
    raises as pulumi-policy's proxy does (`string value at .workspaceName can't be known during preview`)."""

    def __init__(self, outputs: Mapping[str, Any], derived: dict[str, Any]) -> None:
        self._outputs, self._derived = outputs, derived

    def __getitem__(self, key: str) -> Any:
        if key in self._derived:
            from pulumi_policy.proxy import _raise_if_unknown

            return _raise_if_unknown(key, self._derived[key], [])
        return self._outputs[key]

    def __contains__(self, key: object) -> bool:
        return key in self._derived or key in self._outputs

    def __iter__(self) -> Iterator[str]:
        yield from self._derived
        yield from (key for key in self._outputs if key not in self._derived)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def stack_props(type_token: str, outputs: Mapping[str, Any]) -> Mapping[str, Any]:
    """What a stack rule reads of a resource whose AnalyzeStack properties are `outputs` (see the module)."""
    derived = path_inputs(type_token, outputs)
    return StackProps(outputs, derived) if derived else outputs
