"""Run components under Pulumi's mocks and record every registration with its options.

`run(build)` sets fresh mocks, calls `build()` inside a Pulumi program and waits for every
registration. The mocks answer like Azure: ARM ids, names and identities shaped as outputs (a map
of user-assigned identities, a principal id for a system identity).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pulumi
from pulumi.runtime import mocks, rpc

SUBSCRIPTION = "00000000-0000-0000-0000-000000000000"
TENANT = "11111111-1111-1111-1111-111111111111"
RG = "rg-ml"
RG_ID = f"/subscriptions/{SUBSCRIPTION}/resourceGroups/{RG}"

# type token -> (ARM provider/type, input holding the Azure name)
ARM_TYPES: dict[str, tuple[str, str]] = {
    "azure-native:storage:StorageAccount": ("Microsoft.Storage/storageAccounts", "accountName"),
    "azure-native:keyvault:Vault": ("Microsoft.KeyVault/vaults", "vaultName"),
    "azure-native:operationalinsights:Workspace": ("Microsoft.OperationalInsights/workspaces", "workspaceName"),
    "azure-native:applicationinsights:Component": ("Microsoft.Insights/components", "resourceName"),
    "azure-native:containerregistry:Registry": ("Microsoft.ContainerRegistry/registries", "registryName"),
    "azure-native:machinelearningservices:Workspace": (
        "Microsoft.MachineLearningServices/workspaces", "workspaceName"),
}
# extension resources: type token -> (scope input, ARM suffix, name input)
EXTENSION_TYPES: dict[str, tuple[str, str, str]] = {
    "azure-native:monitor:DiagnosticSetting": ("resourceUri", "Microsoft.Insights/diagnosticSettings", "name"),
    "azure-native:authorization:ManagementLockByScope": ("scope", "Microsoft.Authorization/locks", "lockName"),
    "azure-native:authorization:RoleAssignment": (
        "scope", "Microsoft.Authorization/roleAssignments", "roleAssignmentName"),
}


def arm_id(provider_type: str, name: str) -> str:
    return f"{RG_ID}/providers/{provider_type}/{name}"


def principal_of(name: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"principal/{name}"))


@dataclass
class Registration:
    """One registered resource: what the engine would see, options included."""

    type: str
    name: str
    inputs: dict[str, Any]
    custom: bool
    parent: str
    protect: bool
    retain_on_delete: bool
    delete_before_replace: bool
    replace_on_changes: list[str]
    id: str = ""
    outputs: dict[str, Any] = field(default_factory=dict)


class AzureMocks(pulumi.runtime.Mocks):
    """Answers like Azure: ARM ids, names, identity maps, a client config."""

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        if not args.custom:
            return None, {}
        inputs = dict(args.inputs)
        resource_id, name = self._id_and_name(args.typ, args.name, inputs)
        outputs = {**inputs, "name": name}
        if "identity" in inputs:
            outputs["identity"] = shaped_identity(inputs["identity"], args.name)
        return resource_id, outputs

    def _id_and_name(self, typ: str, logical: str, inputs: dict[str, Any]) -> tuple[str, str]:
        if typ in ARM_TYPES:
            provider_type, key = ARM_TYPES[typ]
            name = inputs.get(key, logical)
            return arm_id(provider_type, name), name
        if typ in EXTENSION_TYPES:
            scope_key, suffix, key = EXTENSION_TYPES[typ]
            name = inputs.get(key, logical)
            return f"{inputs.get(scope_key)}/providers/{suffix}/{name}", name
        if typ == "azure-native:machinelearningservices:Compute":
            name = inputs["computeName"]
            ws = arm_id("Microsoft.MachineLearningServices/workspaces", inputs["workspaceName"])
            return f"{ws}/computes/{name}", name
        raise AssertionError(f"no mock for {typ}")

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[Any]]:
        if args.token == "azure-native:authorization:getClientConfig":
            return {"tenantId": TENANT, "subscriptionId": SUBSCRIPTION, "clientId": "client",
                    "objectId": "object"}, []
        raise AssertionError(f"no mock for call {args.token}")


def shaped_identity(identity: dict[str, Any], logical: str) -> dict[str, Any]:
    """Identity as Azure returns it: a principal for a system identity, a map of user identities."""
    shaped: dict[str, Any] = {"type": identity["type"]}
    if "SystemAssigned" in identity["type"]:
        shaped["principalId"] = principal_of(logical)
        shaped["tenantId"] = TENANT
    ids = identity.get("userAssignedIdentities") or []
    if ids:
        shaped["userAssignedIdentities"] = {
            i: {"principalId": principal_of(i), "clientId": principal_of("client" + i)} for i in ids
        }
    return shaped


class RecordingMonitor(mocks.MockMonitor):
    """Keeps every RegisterResourceRequest so tests can see parent, protect and replace options."""

    def __init__(self, azure: AzureMocks) -> None:
        super().__init__(azure)
        self.requests: list[Any] = []
        self.component_outputs: dict[str, dict[str, Any]] = {}

    def RegisterResource(self, request: Any) -> Any:  # noqa: N802 - gRPC method name
        if request.type != "pulumi:pulumi:Stack":
            self.requests.append(request)
        return super().RegisterResource(request)

    def RegisterResourceOutputs(self, request: Any) -> Any:  # noqa: N802 - gRPC method name
        name = request.urn.split("::")[-1]
        self.component_outputs[name] = rpc.deserialize_properties(request.outputs)
        return super().RegisterResourceOutputs(request)


@dataclass
class Recorded:
    """All registrations of one run, by (type, logical name)."""

    registrations: list[Registration]
    outputs: dict[str, Any]
    component_outputs: dict[str, dict[str, Any]]

    def get(self, typ: str, name: str) -> Registration:
        found = [r for r in self.registrations if r.type == typ and r.name == name]
        assert len(found) == 1, f"{typ} {name}: {len(found)} registrations; have {self.names()}"
        return found[0]

    def of_type(self, typ: str) -> list[Registration]:
        return [r for r in self.registrations if r.type == typ]

    def names(self) -> list[tuple[str, str]]:
        return sorted((r.type, r.name) for r in self.registrations)


def _registration(request: Any, monitor: RecordingMonitor) -> Registration:
    outputs: dict[str, Any] = {}
    resource_id = ""
    for urn, reg in monitor.resources.items():
        if urn.endswith(f"::{request.name}") and f"{request.type}::" in urn:
            outputs, resource_id = dict(reg.state), reg.id or ""
    return Registration(
        type=request.type,
        name=request.name,
        inputs=rpc.deserialize_properties(request.object),
        custom=request.custom,
        parent=request.parent.split("::")[-1] if request.parent else "",
        protect=request.protect,
        retain_on_delete=request.retainOnDelete,
        delete_before_replace=request.deleteBeforeReplace,
        replace_on_changes=list(request.replaceOnChanges),
        id=resource_id,
        outputs=outputs,
    )


def run(build: Callable[[], Any], preview: bool = False) -> Recorded:
    """Build under fresh mocks; return every registration and the resolved outputs `build` returns.

    `build` may return a dict of Outputs (e.g. a component's attributes); they are resolved.
    With `preview=True` outputs the mocks do not return stay unknown, as in `pulumi preview`.
    """
    azure = AzureMocks()
    monitor = RecordingMonitor(azure)
    pulumi.runtime.set_mocks(azure, project="amlkit", stack="test", preview=preview, monitor=monitor)
    resolved: dict[str, Any] = {}

    @pulumi.runtime.test
    def program() -> pulumi.Output[Any]:
        outputs = build() or {}
        return pulumi.Output.all(**outputs).apply(resolved.update)

    program()
    registrations = [_registration(r, monitor) for r in monitor.requests]
    return Recorded(registrations, resolved, monitor.component_outputs)
