"""Pulumi mocks that answer like Azure, and a monitor that records every registration.

Runs inside the runner child process (one stack per process). The recording monitor builds the
URNs the Pulumi engine would (no root Stack type, the parent's full type chain), so the URNs the
program sees, the dependencies and the parents all match what `pulumi preview` reports.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from google.protobuf import json_format
from pulumi.runtime.mocks import MockCallArgs, MockMonitor, MockResourceArgs, Mocks

from amlkit.tokens import type_parts

SUBSCRIPTION = "00000000-0000-0000-0000-000000000000"
TENANT = "11111111-1111-1111-1111-111111111111"
DEFAULT_LOCATION = "westeurope"
ROOT_STACK_TYPE = "pulumi:pulumi:Stack"
SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d"
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"


# type (module:Name) -> (ARM path under the resource group, input holding the resource's name).
# `{parent}` segments read another input (the parent resource's name, e.g. the workspace).
_ARM: dict[str, tuple[str, str]] = {
    "resources:ResourceGroup": ("", "resourceGroupName"),
    "machinelearningservices:Workspace": ("Microsoft.MachineLearningServices/workspaces", "workspaceName"),
    "machinelearningservices:Compute": (
        "Microsoft.MachineLearningServices/workspaces/{workspaceName}/computes",
        "computeName",
    ),
    "storage:StorageAccount": ("Microsoft.Storage/storageAccounts", "accountName"),
    "keyvault:Vault": ("Microsoft.KeyVault/vaults", "vaultName"),
    "insights:Component": ("Microsoft.Insights/components", "resourceName"),
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


def type_key(type_token: str) -> str | None:
    """`azure-native:machinelearningservices/v20240401:Compute` (any spelling, see amlkit.tokens) ->
    `machinelearningservices:Compute`."""
    parts = type_parts(type_token)
    return f"{parts[0]}:{parts[2]}" if parts else None


def arm_id(type_token: str, name: str, inputs: dict[str, Any]) -> str:
    """An ARM-shaped id: `/subscriptions/<guid>/resourceGroups/<rg>/providers/<ns>/<type>/<name>`."""
    key = type_key(type_token)
    subscription = f"/subscriptions/{SUBSCRIPTION}"
    if key == "resources:ResourceGroup":
        return f"{subscription}/resourceGroups/{name}"
    group = _text(inputs.get("resourceGroupName"), "rg")
    if key in _ARM:
        path = re.sub(r"\{(\w+)\}", lambda m: _text(inputs.get(m[1]), m[1]), _ARM[key][0])
    elif key is not None:
        module, kind = key.split(":")
        path = f"Microsoft.{module}/{kind[0].lower()}{kind[1:]}s"
    else:
        path = f"Custom.Mock/{type_token.replace(':', '.')}"
    return f"{subscription}/resourceGroups/{group}/providers/{path}/{name}"


def physical_name(type_token: str, logical: str, inputs: dict[str, Any]) -> str:
    """The Azure name: the type's name input when given, else the logical name (no random suffix)."""
    key = type_key(type_token)
    if key in _ARM:
        return _text(inputs.get(_ARM[key][1]), logical)
    return _text(inputs.get("name"), logical)


def _text(value: Any, default: str) -> str:
    return value if isinstance(value, str) and value else default


def shaped_identity(identity: Any) -> Any:
    """Identity outputs as Azure returns them: principal ids, and user identities as a map."""
    if not isinstance(identity, dict):
        return identity
    shaped = dict(identity)
    users = identity.get("userAssignedIdentities")
    if isinstance(users, list):
        shaped["userAssignedIdentities"] = {
            uid: {"principalId": SUBSCRIPTION, "clientId": SUBSCRIPTION} for uid in users if isinstance(uid, str)
        }
    if "SystemAssigned" in str(identity.get("type", "")):
        shaped.setdefault("principalId", SUBSCRIPTION)
        shaped.setdefault("tenantId", TENANT)
    return shaped


class AzureMocks(Mocks):
    """Outputs that look like Azure's: ARM ids, names, locations, identities shaped as maps."""

    def new_resource(self, args: MockResourceArgs) -> tuple[str | None, dict]:
        if not args.custom:
            return None, {}
        inputs = dict(args.inputs)
        name = physical_name(args.typ, args.name, inputs)
        outputs = dict(inputs)
        outputs["name"] = name
        outputs["id"] = arm_id(args.typ, name, inputs)
        outputs.setdefault("location", DEFAULT_LOCATION)
        if "identity" in inputs:
            outputs["identity"] = shaped_identity(inputs["identity"])
        return outputs["id"], outputs

    def call(self, args: MockCallArgs) -> dict:
        """Invokes: the client config a program reads for ids; anything else answers empty."""
        if args.token == "azure-native:authorization:getClientConfig":
            return {"subscriptionId": SUBSCRIPTION, "tenantId": TENANT, "clientId": SUBSCRIPTION,
                    "objectId": SUBSCRIPTION}
        return {}


def engine_urn(stack: str, project: str, parent: str, type_: str, name: str) -> str:
    """The URN the engine builds: the parent's full type chain, never the root Stack type."""
    if parent:
        parent_type = parent.split("::")[2]
        if parent_type != ROOT_STACK_TYPE:
            type_ = f"{parent_type}${type_}"
    return f"urn:pulumi:{stack}::{project}::{type_}::{name}"


class RecordingMonitor(MockMonitor):
    """A mock monitor that keeps every RegisterResource request in engine wire form."""

    def __init__(self, mocks: Mocks, stack: str, project: str,
                 emit: Callable[[dict[str, Any]], None] | None = None) -> None:
        super().__init__(mocks)
        self.stack = stack
        self.project = project
        self.emit = emit
        self.records: list[dict[str, Any]] = []
        self.seen: set[str] = set()

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        return engine_urn(self.stack, self.project, parent, type_, name)

    def RegisterResource(self, request):  # noqa: N802 - the gRPC method name
        urn = self.make_urn(request.parent, request.type, request.name)
        if urn in self.seen:
            # the engine refuses this too, so a review must not pass it
            raise Exception(f"Duplicate resource URN '{urn}'; try giving it a unique name")
        self.seen.add(urn)
        response = super().RegisterResource(request)
        if request.type != ROOT_STACK_TYPE:
            registration = record(request, response.urn)
            self.records.append(registration)
            if self.emit is not None:
                self.emit(registration)
        return response


def record(request: Any, urn: str) -> dict[str, Any]:
    """One registration as plain JSON: type, name, inputs (wire form), parent, dependencies, options."""
    return {
        "urn": urn,
        "type": request.type,
        "name": request.name,
        "custom": bool(request.custom),
        "parent": request.parent or None,
        "inputs": json_format.MessageToDict(request.object),
        "dependencies": list(request.dependencies),
        "propertyDependencies": {k: list(v.urns) for k, v in request.propertyDependencies.items()},
        "provider": request.provider or None,
        "options": {
            "protect": request.protect if request.HasField("protect") else False,
            "retainOnDelete": request.retainOnDelete if request.HasField("retainOnDelete") else False,
            "ignoreChanges": list(request.ignoreChanges),
            "replaceOnChanges": list(request.replaceOnChanges),
            "deleteBeforeReplace": request.deleteBeforeReplace if request.deleteBeforeReplaceDefined else None,
            "additionalSecretOutputs": list(request.additionalSecretOutputs),
            "aliases": [alias_dict(alias) for alias in request.aliases],
        },
    }


def alias_dict(alias: Any) -> dict[str, Any]:
    """An alias as sent with alias specs: either a URN or the spec's set fields."""
    if alias.WhichOneof("alias") == "urn":
        return {"urn": alias.urn}
    spec = alias.spec
    fields = {"name": spec.name, "type": spec.type, "stack": spec.stack, "project": spec.project}
    result = {key: value for key, value in fields.items() if value}
    if spec.WhichOneof("parent") == "parentUrn":
        result["parentUrn"] = spec.parentUrn
    elif spec.WhichOneof("parent") == "noParent":
        result["noParent"] = spec.noParent
    return result
