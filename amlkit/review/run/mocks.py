"""Pulumi mocks that answer like Azure, and a monitor that records every registration.

Runs inside the runner child process (one stack per process). The recording monitor builds the
URNs the Pulumi engine would (no root Stack type, the parent's full type chain), so the URNs the
program sees, the dependencies and the parents all match what `pulumi preview` reports.

Lookups (invokes and stack references) get only what the review can know: the client config, a
project's pinned answers (amlkit.review.run.lookups) and the `id`/`name` a `get<Type>` lookup's ARM path
arguments determine. Every other string field of the SDK's typed result carries UNKNOWN_MARK (a
string, so the typed result accepts it in both `get_x(...)` and `get_x_output(...)`; the SDK's own
unknown value would fail the result's type checks, and any unknown in an invoke result makes the
whole Output unknown, id included). The recording monitor turns every input string holding the mark
into the engine's unknown sentinel, so policies see "can't be known during preview". A stack
reference's outputs are left out of its state, which the SDK reads as unknown. Each unanswered
lookup is reported once per program line that called it (`emit_lookup`; the runner sets `CALLER`).
"""

from __future__ import annotations

import collections.abc
import contextvars
import functools
import importlib
import json
import re
import types
import typing
import uuid
import warnings
from collections.abc import Callable, Mapping
from typing import Any

from google.protobuf import json_format, struct_pb2
from pulumi.runtime import rpc
from pulumi.runtime.mocks import MockCallArgs, MockMonitor, MockResourceArgs, Mocks
from pulumi.runtime.proto import resource_pb2

from amlkit.review.urns import STACK_TYPE, engine_urn
from amlkit.tokens import type_parts

SUBSCRIPTION = "00000000-0000-0000-0000-000000000000"
TENANT = "11111111-1111-1111-1111-111111111111"
DEFAULT_LOCATION = "westeurope"


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


CLIENT_CONFIG = "azure-native:authorization:getClientConfig"
CLIENT_CONFIGS = (CLIENT_CONFIG, "azure:core/getClientConfig:getClientConfig")
"""The client-config lookups of both Azure providers: answered with the placeholder subscription and tenant."""
STACK_REFERENCE = "pulumi:pulumi:StackReference"
# A string field of a lookup the review cannot answer. It passes the SDK's typed-result checks (a str)
# and the recording monitor turns every input string containing it into the engine's unknown sentinel.
UNKNOWN_MARK = "amlkit-unknown-lookup:"


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


def principal_of(name: str) -> str:
    """A stable principal id per identity holder (a resource's logical name, or a user identity's id)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"principal/{name}"))


def shaped_identity(identity: Any, holder: str = "") -> Any:
    """Identity outputs as Azure returns them: a principal for a system identity (one per `holder`,
    the resource's logical name), and user identities as a map of their principal and client ids."""
    if not isinstance(identity, dict):
        return identity
    shaped = dict(identity)
    users = identity.get("userAssignedIdentities")
    if isinstance(users, list):
        shaped["userAssignedIdentities"] = {
            uid: {"principalId": principal_of(uid), "clientId": principal_of("client" + uid)}
            for uid in users if isinstance(uid, str)
        }
    if "SystemAssigned" in str(identity.get("type", "")):
        shaped.setdefault("principalId", principal_of(holder))
        shaped.setdefault("tenantId", TENANT)
    return shaped


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


def function_parts(token: str) -> tuple[str, str, str] | None:
    """(package, module, function) of any provider's function token: `azure-native:network:getSubnet`,
    `azure:core/getClientConfig:getClientConfig` (module `core`), `azuread:index/getUser:getUser` (module
    `index`: the package itself); None when the token has another shape."""
    parts = token.split(":")
    if len(parts) != 3 or not all(parts):
        return None
    package, module, function = parts
    return package, module.split("/", 1)[0], function


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def _sdk_class(token: str, suffix: str = "") -> type | None:
    """The installed SDK's class for a type or function token of any provider: the resource class
    (`suffix` "") or a function's typed result (`suffix` "Result": `<Function>Result`)."""
    parts = type_parts(token)
    if parts is not None:  # azure-native, any spelling
        module, version, member = parts
        names = [f"pulumi_azure_native.{module}" + (f".{version}" if version else "")]
    else:
        found = function_parts(token)
        if found is None:
            return None
        package, module, member = found
        root = "pulumi_" + package.replace("-", "_")
        base = root if module == "index" else f"{root}.{module.lower()}"
        names = [base, f"{base}.{_snake(member)}"]
    wanted = f"{member[:1].upper()}{member[1:]}{suffix}"
    for name in names:
        try:
            with warnings.catch_warnings():  # pulumi-azure warns about its own deprecated modules on import
                warnings.simplefilter("ignore", DeprecationWarning)
                result = getattr(importlib.import_module(name), wanted, None)
        except ImportError:
            continue
        if isinstance(result, type):
            return result
    return None


@functools.cache
def result_fields(token: str) -> dict[str, bool] | None:
    """The fields of a function's typed result (wire name -> whether it is a string), from the installed
    provider SDK's `<Function>Result` class (any provider: azure-native, azure, azuread, random...); None when
    no installed SDK has such a class."""
    result = _sdk_class(token, "Result")
    if result is None:
        return None
    fields = {}
    for prop in vars(result).values():
        wire = getattr(getattr(prop, "fget", None), "_pulumi_name", None)
        if isinstance(prop, property) and isinstance(wire, str):
            fields[wire] = _is_str(prop.fget.__annotations__.get("return"))
    return fields


@functools.cache
def _fields(cls: type) -> dict[str, Any]:
    """Wire name -> type hint of each property of an SDK resource, output or args class."""
    module = importlib.import_module(cls.__module__)
    fields = {}
    for prop in vars(cls).values():
        wire = getattr(getattr(prop, "fget", None), "_pulumi_name", None)
        if isinstance(prop, property) and isinstance(wire, str):
            try:
                fields[wire] = typing.get_type_hints(prop.fget, globalns=vars(module)).get("return")
            except Exception:  # noqa: BLE001 - an unresolvable hint: that field is echoed as given
                fields[wire] = None
    return fields


def _args_class(response: type) -> type | None:
    """The input type of an output type (`PrivateDnsZoneConfigResponse` -> `PrivateDnsZoneConfigArgs`, the
    classic `ComputeClusterIdentity` -> `ComputeClusterIdentityArgs`), from the package's inputs."""
    base = response.__name__.removesuffix("Response")
    package = importlib.import_module(response.__module__.rsplit(".", 1)[0])
    found = getattr(package, f"{base}Args", None)
    return found if isinstance(found, type) else None


def _unwrap(hint: Any) -> Any:
    """The type inside Output[...] and Optional[...]."""
    while True:
        origin = typing.get_origin(hint)
        if origin is not None and getattr(origin, "__name__", "") == "Output":
            hint = typing.get_args(hint)[0]
        elif origin in (typing.Union, types.UnionType):
            kept = [arg for arg in typing.get_args(hint) if arg is not type(None)]
            if len(kept) != 1:
                return hint
            hint = kept[0]
        else:
            return hint


def output_only_unknown(value: Any, hint: Any) -> Any:
    """`value` (an echoed input) with every output-only field of its output type, nested ones included, set
    to the engine's unknown, as `pulumi preview` gives them: a field of the output type its input type does
    not have (a private DNS zone config's `recordSets`, a subnet's `provisioningState`)."""
    hint = _unwrap(hint)
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (list, collections.abc.Sequence) and args and isinstance(value, list):
        return [output_only_unknown(item, args[0]) for item in value]
    if origin in (dict, collections.abc.Mapping) and len(args) == 2 and isinstance(value, dict):
        return {key: output_only_unknown(item, args[1]) for key, item in value.items()}
    if not isinstance(hint, type) or not isinstance(value, dict):
        return value
    fields = _fields(hint)
    inputs = _args_class(hint)
    given = set(_fields(inputs)) if inputs is not None else None
    shaped = dict(value)
    for wire, field_hint in fields.items():
        if wire in shaped:
            shaped[wire] = output_only_unknown(shaped[wire], field_hint)
        elif given is not None and wire not in given:
            shaped[wire] = rpc.UNKNOWN
    return shaped


def with_output_only_unknown(type_token: str, outputs: dict[str, Any]) -> dict[str, Any]:
    """A resource's echoed inputs with the output-only fields nested in them unknown (`output_only_unknown`),
    for a resource class of any installed SDK; unchanged when there is none. The identity is left as shaped."""
    cls = _sdk_class(type_token)
    if cls is None:
        return outputs
    fields = _fields(cls)
    return {wire: value if wire == "identity" or wire not in fields else output_only_unknown(value, fields[wire])
            for wire, value in outputs.items()}


def _is_str(annotation: Any) -> bool:
    if annotation is str:
        return True
    return typing.get_origin(annotation) in (typing.Union, types.UnionType) and set(
        typing.get_args(annotation)) == {str, type(None)}


def has_unknown_mark(value: Any) -> bool:
    return UNKNOWN_MARK in json.dumps(value)


class AzureMocks(Mocks):
    """Outputs that look like Azure's: ARM ids, names, locations, identities shaped as maps.

    Lookups (invokes and stack references) are answered from `pins` (a project's lookups file) and
    from what their arguments determine; every other string field is unknown (see `answer`).
    """

    pins: Any = None  # an amlkit.review.run.lookups.Lookups, or None (a class default for subclasses too)

    def __init__(self, pins: Any = None) -> None:
        self.pins = pins

    def new_resource(self, args: MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        if args.typ == STACK_REFERENCE:
            return self.stack_reference(str(args.inputs.get("name", args.name)))
        if not args.custom:
            return None, {}
        inputs = dict(args.inputs)
        name = physical_name(args.typ, args.name, inputs)
        outputs = with_output_only_unknown(args.typ, inputs)
        outputs["name"] = name
        outputs["id"] = arm_id(args.typ, name, inputs)
        outputs.setdefault("location", DEFAULT_LOCATION)
        if "identity" in inputs:
            outputs["identity"] = shaped_identity(inputs["identity"], args.name)
        return outputs["id"], outputs

    def stack_reference(self, stack: str) -> tuple[str, dict[str, Any]]:
        """A pinned stack's outputs; otherwise no `outputs` at all, which the SDK reads as unknown."""
        outputs = self.pins.stack_outputs(stack) if self.pins is not None else None
        if outputs is None:
            return stack, {"name": stack}
        return stack, {"name": stack, "outputs": outputs, "secretOutputNames": []}

    def answer(self, token: str, args: Mapping[str, Any]) -> tuple[dict[str, Any] | None, bool]:
        """(result, answered). The client config and pinned lookups are answered. Otherwise a `get<Type>`
        lookup's `id` and `name` come from its ARM path arguments and every other string field of the
        SDK's typed result is unknown (UNKNOWN_MARK); fields of other types are left out. A result of
        None is wholly unknown: arguments that are themselves unknown, or a function the SDK has no
        typed result for."""
        pinned = self.pins.invoke_result(token, args) if self.pins is not None else None
        if token in CLIENT_CONFIGS:  # the stack's ids (amlkit.review.run.identity); a pin in the lookups file wins
            return {"subscriptionId": SUBSCRIPTION, "tenantId": TENANT, "clientId": SUBSCRIPTION,
                    "objectId": SUBSCRIPTION, **(pinned or {})}, True
        if has_unknown_mark(args):
            return None, False
        fields = result_fields(token)
        derived = derived_fields(token, args)
        if fields is None and pinned is None and not derived:
            return None, False
        unknown = {wire: f"{UNKNOWN_MARK}{token}:{wire}" for wire, is_str in (fields or {}).items() if is_str}
        return {**unknown, **derived, **(pinned or {})}, pinned is not None

    def call(self, args: MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
        """Invokes, for a plain mock monitor: `answer`'s result ({} where it is wholly unknown), no failures."""
        return self.answer(args.token, args.args)[0] or {}, []


class RecordingMonitor(MockMonitor):
    """A mock monitor that keeps every RegisterResource request in engine wire form."""

    def __init__(self, mocks: AzureMocks, stack: str, project: str,
                 emit: Callable[[dict[str, Any]], None] | None = None,
                 emit_lookup: Callable[[dict[str, Any]], None] | None = None) -> None:
        super().__init__(mocks)
        self.azure = mocks
        self.stack = stack
        self.project = project
        self.emit = emit
        self.emit_lookup = emit_lookup
        self.records: list[dict[str, Any]] = []
        self.seen: set[str] = set()
        self.unanswered: dict[str, dict[str, Any]] = {}

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        return engine_urn(self.stack, self.project, parent, type_, name)

    def RegisterResource(self, request: Any) -> Any:  # noqa: N802 - the gRPC method name
        urn = self.make_urn(request.parent, request.type, request.name)
        if urn in self.seen:
            # the engine refuses this too, so a review must not pass it
            raise Exception(f"Duplicate resource URN '{urn}'; try giving it a unique name")
        self.seen.add(urn)
        mark_unknown(request.object)
        response = super().RegisterResource(request)  # type: ignore[no-untyped-call]
        if request.type != STACK_TYPE:
            registration = record(request, response.urn)
            self.records.append(registration)
            if self.emit is not None:
                self.emit(registration)
        return response

    def Invoke(self, request: Any) -> Any:  # noqa: N802 - the gRPC method name
        if request.tok == "pulumi:pulumi:getResource":
            return super().Invoke(request)  # type: ignore[no-untyped-call]
        args = json_format.MessageToDict(request.args)
        result, answered = self.azure.answer(request.tok, args)
        if not answered:
            self.unanswered_lookup(at_caller({"token": request.tok, "args": unmarked(args)}))
        if result is None:
            return resource_pb2.ResourceInvokeResponse(unknown=True)
        response = resource_pb2.ResourceInvokeResponse()
        getattr(response, "return").CopyFrom(json_format.ParseDict(result, struct_pb2.Struct()))  # `return`: a keyword
        return response

    def ReadResource(self, request: Any) -> Any:  # noqa: N802 - the gRPC method name
        if request.type == STACK_REFERENCE:
            stack = json_format.MessageToDict(request.properties).get("name", request.id)
            if self.azure.pins is None or self.azure.pins.stack_outputs(stack) is None:
                self.unanswered_lookup(at_caller({"token": STACK_REFERENCE, "args": {"name": stack}}))
        return super().ReadResource(request)  # type: ignore[no-untyped-call]

    def unanswered_lookup(self, lookup: dict[str, Any]) -> None:
        """Keep (and emit) each distinct unanswered lookup once (per program line)."""
        key = json.dumps(lookup, sort_keys=True)
        if key not in self.unanswered:
            self.unanswered[key] = lookup
            if self.emit_lookup is not None:
                self.emit_lookup(lookup)


# the program line of the lookup being run ({"file", "line", "code"}, amlkit.review.run.runner.program_line),
# or None (no program frame, or a lookup the runner did not wrap)
CALLER: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("amlkit_lookup_caller", default=None)


def at_caller(lookup: dict[str, Any]) -> dict[str, Any]:
    """The lookup with the `file` and `line` of the program line that called it, when there is one."""
    caller = CALLER.get()
    return lookup if caller is None else {**lookup, "file": caller["file"], "line": caller["line"]}


UNKNOWN_ARG = "(unknown)"


def unmarked(value: Any) -> Any:
    """A lookup's arguments for reports: an argument derived from another unanswered lookup is shown
    as `(unknown)`, never as the internal mark."""
    if isinstance(value, str):
        return UNKNOWN_ARG if UNKNOWN_MARK in value else value
    if isinstance(value, dict):
        return {key: unmarked(item) for key, item in value.items()}
    if isinstance(value, list):
        return [unmarked(item) for item in value]
    return value


def mark_unknown(struct: struct_pb2.Struct) -> None:
    """Every string holding UNKNOWN_MARK becomes the engine's unknown sentinel (in place): an input
    derived from an unanswered lookup is unknown, as it would be in `pulumi preview`."""
    for value in struct.fields.values():
        _mark_value(value)


def _mark_value(value: struct_pb2.Value) -> None:
    kind = value.WhichOneof("kind")
    if kind == "string_value" and UNKNOWN_MARK in value.string_value:
        value.string_value = rpc.UNKNOWN
    elif kind == "struct_value":
        mark_unknown(value.struct_value)
    elif kind == "list_value":
        for item in value.list_value.values:
            _mark_value(item)


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
        "source": source_position(request),
    }


def source_position(request: Any) -> dict[str, Any] | None:
    """Where the program declared the resource (`sourcePosition`: a file URI and a line), if sent."""
    if not request.HasField("sourcePosition") or not request.sourcePosition.uri:
        return None
    return {"uri": request.sourcePosition.uri, "line": request.sourcePosition.line}


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
