"""Pulumi mocks that answer as `pulumi preview` knows, and a monitor that records every registration.

A resource being created gets what its provider answers in a preview: its inputs mirrored to outputs, its
id and every other output unknown (`AzureMocks.new_resource`). Runs inside the runner child process (one
stack per process). The recording monitor builds the URNs the Pulumi engine would (no root Stack type,
the parent's full type chain), so the URNs the program sees, the dependencies and the parents all match
what `pulumi preview` reports.

Lookups (invokes and stack references) get only what the review can know: the client config, a
project's pinned answers (amlkit.review.run.lookups) and the `id`/`name` a `get<Type>` lookup's ARM path
arguments determine. Every other string field of the SDK's typed result carries UNKNOWN_MARK (a
string, so the typed result accepts it in both `get_x(...)` and `get_x_output(...)`; the SDK's own
unknown value would fail the result's type checks, and any unknown in an invoke result makes the
whole Output unknown, id included). The recording monitor turns every input string holding the mark
into the engine's unknown sentinel, so policies see "can't be known during preview". A stack
reference's outputs are left out of its state, which the SDK reads as unknown. Each unanswered
lookup is reported once per program line that called it (`emit_lookup`; the runner sets `CALLER`).

As in the SDK, a lookup whose arguments hold an unknown never reaches the monitor: its result is unknown
and an `apply` over it does not run; the runner reports it (`report_unsent_lookups`, with `<unknown>` where an
argument is unknown). A lookup that returns keys, passwords or connection strings (`list*`,
amlkit.review.run.sdk.returns_credentials) is never answered: the `_output` form is wholly unknown, and
the plain form (which must return a value) gets its typed result with every string unknown, so
`keys[0].value` reads an unknown, never crashes.
"""

from __future__ import annotations

import contextvars
import json
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from google.protobuf import json_format, struct_pb2
from pulumi.runtime import rpc
from pulumi.runtime.mocks import MockCallArgs, MockMonitor, MockResourceArgs, Mocks
from pulumi.runtime.proto import resource_pb2

from amlkit.review import arm
from amlkit.review.arm import arm_id, derived_fields, physical_name
from amlkit.review.run.check import LOCATION_CONFIG, checked
from amlkit.review.run.classic import LOCATION_CONFIG as CLASSIC_LOCATION_CONFIG
from amlkit.review.run.sdk import (
    preview_outputs,
    result_fields,
    result_shape,
    returns_credentials,
    with_output_only_unknown,
)
from amlkit.review.secrets import REDACTED, SECRET_SIG, SECRET_SIG_KEY, is_secret
from amlkit.review.urns import STACK_TYPE, engine_urn

__all__ = [
    "AzureMocks", "CALLER", "CLIENT_CONFIG", "CLIENT_CONFIGS", "DEFAULT_LOCATION", "DeployedMocks", "FORM",
    "GROUP_NAME_INPUTS", "NATIVE", "RecordingMonitor", "SENT", "STACK_REFERENCE", "UNKNOWN_ARG", "UNKNOWN_MARK",
    "alias_dict", "at_caller", "deployed_outputs", "has_unknown_mark", "mark_unknown", "principal_of", "record",
    "recorded_outputs", "report_unsent_lookups", "shaped_identity", "shown_args", "source_position", "unmarked",
]

DEFAULT_LOCATION = "westeurope"
CLIENT_CONFIG = "azure-native:authorization:getClientConfig"
CLIENT_CONFIGS = (CLIENT_CONFIG, "azure:core/getClientConfig:getClientConfig")
"""The client-config lookups of both Azure providers: answered with the placeholder subscription and tenant."""
STACK_REFERENCE = "pulumi:pulumi:StackReference"
# A string field of a lookup the review cannot answer. It passes the SDK's typed-result checks (a str)
# and the recording monitor turns every input string containing it into the engine's unknown sentinel.
UNKNOWN_MARK = "amlkit-unknown-lookup:"
NATIVE = "azure-native"
GROUP_NAME_INPUTS = {"azure-native:resources:ResourceGroup": "resourceGroupName",
                     "azure:core/resourceGroup:ResourceGroup": "name"}


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
        shaped.setdefault("tenantId", arm.TENANT)
    return shaped


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
        """A resource being created, answered as its provider answers `Create` in a preview
        (amlkit.review.run.sdk.preview_outputs): inputs mirrored to their outputs, every other output and
        the id unknown (no id: the SDK reads an empty id in a preview as unknown)."""
        if args.typ == STACK_REFERENCE:
            return self.stack_reference(str(args.inputs.get("name", args.name)))
        if not args.custom:
            return None, {}
        return None, preview_outputs(args.typ, dict(args.inputs)) or {}

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
            return {"subscriptionId": arm.SUBSCRIPTION, "tenantId": arm.TENANT, "clientId": arm.SUBSCRIPTION,
                    "objectId": arm.SUBSCRIPTION, **(pinned or {})}, True
        if has_unknown_mark(args):
            return None, False
        if returns_credentials(token):  # never answered: unknown secrets (the plain form must return a value)
            return (None if FORM.get() == "output" else result_shape(token, f"{UNKNOWN_MARK}{token}:")), False
        fields = result_fields(token)
        derived = derived_fields(token, args)
        if fields is None and pinned is None and not derived:
            return None, False
        unknown = {wire: f"{UNKNOWN_MARK}{token}:{wire}" for wire, is_str in (fields or {}).items() if is_str}
        return {**unknown, **derived, **(pinned or {})}, pinned is not None

    def call(self, args: MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
        """Invokes, for a plain mock monitor: `answer`'s result ({} where it is wholly unknown), no failures."""
        return self.answer(args.token, args.args)[0] or {}, []


class DeployedMocks(AzureMocks):
    """Outputs as Azure returns them once `pulumi up` created the resources: ARM ids, names (the name input,
    else the logical name), a location, identities shaped as maps with a principal per holder. Never used
    by a review: it builds the state export a deployed program would leave (tests, bench, `deployed_outputs`)."""

    def new_resource(self, args: MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        if args.typ == STACK_REFERENCE or not args.custom:
            return super().new_resource(args)
        outputs = deployed_outputs(args.typ, args.name, dict(args.inputs))
        return outputs["id"], outputs


def deployed_outputs(type_token: str, logical: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """What Azure returns for a created resource (see DeployedMocks)."""
    name = physical_name(type_token, logical, inputs)
    outputs = with_output_only_unknown(type_token, inputs)
    outputs["name"] = name
    outputs["id"] = arm_id(type_token, name, inputs)
    outputs.setdefault("location", DEFAULT_LOCATION)
    if "identity" in inputs:
        outputs["identity"] = shaped_identity(inputs["identity"], logical)
    return outputs


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
        self.provider_locations: dict[str, Any] = {}  # provider URN -> its `location` input (None: none)
        self.groups: dict[str, Any] = {}  # resource group name -> its checked location, as registered

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        return engine_urn(self.stack, self.project, parent, type_, name)

    def RegisterResource(self, request: Any) -> Any:  # noqa: N802 - the gRPC method name
        urn = self.make_urn(request.parent, request.type, request.name)
        if urn in self.seen:
            # the engine refuses this too, so a review must not pass it
            raise Exception(f"Duplicate resource URN '{urn}'; try giving it a unique name")
        self.seen.add(urn)
        mark_unknown(request.object)
        self.check(request, urn)
        response = super().RegisterResource(request)  # type: ignore[no-untyped-call]
        if request.type != STACK_TYPE:
            registration = record(request, response.urn)
            registration["outputs"] = recorded_outputs(registration, response)
            self.records.append(registration)
            if self.emit is not None:
                self.emit(registration)
        return response

    def check(self, request: Any, urn: str, olds: Mapping[str, Any] | None = None) -> None:
        """The provider's Check defaults on the registration's inputs, in place (amlkit.review.run.check): what
        Analyze, the diff and the preview outputs see. A provider's own `location` is kept for its resources."""
        if request.type.startswith("pulumi:providers:"):
            location = json_format.MessageToDict(request.object).get("location")
            self.provider_locations[urn] = location if request.type == f"pulumi:providers:{NATIVE}" else None
            return
        if not request.custom or request.type == STACK_REFERENCE:
            return
        inputs = json_format.MessageToDict(request.object)
        news = checked(request.type, urn, inputs, olds, self.provider_location(request.provider, request.type),
                       self.group_location)
        request.object.update({key: value for key, value in news.items() if inputs.get(key) != value})
        group = news.get(GROUP_NAME_INPUTS.get(request.type, ""))
        if isinstance(group, str):
            self.groups[group] = news.get("location")

    def provider_location(self, ref: str, type_token: str) -> Any:
        """The `location` config of the provider a registration names (`<urn>::<id>`): an explicit azure-native
        provider's own input (a classic `azure.Provider` has none), else the stack's `azure-native:location` or
        `azure:location` (the default provider's config); None when unset."""
        from pulumi.runtime.config import get_config

        urn = ref.rsplit("::", 1)[0] if ref else ""
        if urn in self.provider_locations:
            return self.provider_locations[urn]
        return get_config(LOCATION_CONFIG if type_token.startswith(f"{NATIVE}:") else CLASSIC_LOCATION_CONFIG)

    def group_location(self, group: str) -> Any:
        """A resource group's location as Check reads it from Azure: None for a group this program registered (in a
        preview without a state every resource is created, so Azure has no such group yet), else unknown offline; in
        a deployed run (tests' state exports), the group's as registered, else where DeployedMocks puts every
        resource."""
        if isinstance(self.azure, DeployedMocks):
            location = self.groups.get(group)
            return location if isinstance(location, str) else DEFAULT_LOCATION
        return None if group in self.groups else rpc.UNKNOWN

    def Invoke(self, request: Any) -> Any:  # noqa: N802 - the gRPC method name
        if request.tok == "pulumi:pulumi:getResource":
            return super().Invoke(request)  # type: ignore[no-untyped-call]
        sent = SENT.get()
        if sent is not None:
            sent["sent"] = True
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


def report_unsent_lookups() -> None:
    """Report the lookups the SDK does not send because an argument is unknown (as in `pulumi preview`, their
    result is unknown and no `apply` over it runs): wraps `pulumi.runtime.invoke._invoke`, which both forms
    call, so such a lookup is listed with the arguments the program passed (`<unknown>` where unknown).
    Once per process."""
    import sys

    from pulumi.runtime.settings import get_monitor

    invoke_module = sys.modules["pulumi.runtime.invoke"]  # `pulumi.runtime.invoke` is also a function's name
    original = invoke_module._invoke
    if getattr(original, "_amlkit_unsent", False):
        return

    def _invoke(tok: str, props: Any, *args: Any, **kwargs: Any) -> Any:
        inner = original(tok, props, *args, **kwargs)

        async def watched() -> Any:
            sent = {"sent": False}
            SENT.set(sent)  # this task's own context: the monitor's executor thread gets a copy of it
            result = await inner
            monitor = get_monitor()
            if not result.is_known and not sent["sent"] and isinstance(monitor, RecordingMonitor):
                wire = json_format.MessageToDict(await rpc.serialize_properties(props, {}))
                monitor.unanswered_lookup(at_caller({"token": tok, "args": shown_args(wire)}))
            return result

        return watched()

    _invoke._amlkit_unsent = True  # type: ignore[attr-defined]
    invoke_module._invoke = _invoke  # type: ignore[attr-defined]


def at_caller(lookup: dict[str, Any]) -> dict[str, Any]:
    """The lookup with the `file` and `line` of the program line that called it, when there is one."""
    caller = CALLER.get()
    return lookup if caller is None else {**lookup, "file": caller["file"], "line": caller["line"]}


# how the program called the lookup being run: "plain" (`get_x(...)`) or "output" (`get_x_output(...)`)
FORM: contextvars.ContextVar[str] = contextvars.ContextVar("amlkit_lookup_form", default="plain")
# {"sent": bool} while a lookup is run: set when it reached the monitor (the SDK sends no lookup whose
# arguments hold an unknown; the runner reports those itself)
SENT: contextvars.ContextVar[dict[str, bool] | None] = contextvars.ContextVar("amlkit_lookup_sent", default=None)

UNKNOWN_ARG = "<unknown>"


def shown_args(args: Mapping[str, Any]) -> dict[str, Any]:
    """A lookup's arguments as the program passed them (wire form), for reports: an unknown argument (the
    engine's sentinel, or one derived from an unanswered lookup) is `<unknown>`, a secret `[secret]`."""
    return {key: unmarked(_redacted(value)) for key, value in args.items()}


def _redacted(value: Any) -> Any:
    if is_secret(value):
        return REDACTED
    if isinstance(value, dict):
        return {key: _redacted(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_redacted(item) for item in value]
    return UNKNOWN_ARG if value == rpc.UNKNOWN else value


def unmarked(value: Any) -> Any:
    """A lookup's arguments for reports: an argument derived from another unanswered lookup is shown
    as `<unknown>`, never as the internal mark."""
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


def recorded_outputs(registration: Mapping[str, Any], response: Any) -> dict[str, Any]:
    """The outputs the engine keeps for a registration, which AnalyzeStack sends (pulumi/pulumi
    `pkg/resource/deploy/step_generator.go` `AnalyzeResources`: `Properties: v.Outputs`, "AnalyzeStack is called
    on the final outputs of each resource"), wire form: what the mocks answered (a create: the provider's preview
    outputs; against a state, a `same`: the deployed outputs), with the `id` output unknown when the answer has
    none (azure-native's response metadata keeps `id`, and the Terraform bridge's state has an `id` attribute; in
    a preview of a create both are unknown). A provider resource's outputs are its inputs (`providers/registry.go`
    `Create`: the filtered provider config); a component's are what it registers, which no rule reads ({})."""
    if str(registration["type"]).startswith("pulumi:providers:"):
        return dict(registration["inputs"])
    if not registration["custom"]:
        return {}
    outputs = json_format.MessageToDict(response.object)
    if has_unknown_mark(outputs):
        outputs = _marked_unknown(outputs)
    _annotate_secrets(outputs, registration["inputs"])
    outputs.setdefault("id", rpc.UNKNOWN)
    return outputs


def _annotate_secrets(outs: dict[str, Any], ins: Mapping[str, Any]) -> None:
    """Secretness as the engine keeps it (pulumi/pulumi `pkg/resource/plugin/provider_plugin.go` `annotateSecrets`:
    "we don't want a single secret value in a rich structure to taint the entire object"), in place: an output
    object whose input is an object is not a secret as a whole (the SDK's serialization made it one), its fields
    are, where the input's are."""
    for key, given in ins.items():
        if key not in outs:
            continue
        value = outs[key]
        if is_secret(value) and isinstance(given, dict) and not is_secret(given) and isinstance(value["value"], dict):
            value = outs[key] = value["value"]
        if isinstance(value, dict) and isinstance(given, dict) and not is_secret(value) and not is_secret(given):
            _annotate_secrets(value, given)
        elif not is_secret(value) and SECRET_SIG in json.dumps(given):
            outs[key] = {SECRET_SIG_KEY: SECRET_SIG, "value": value}


def _marked_unknown(value: Any) -> Any:
    """`value` with every string holding UNKNOWN_MARK as the engine's unknown (see `mark_unknown`)."""
    if isinstance(value, str):
        return rpc.UNKNOWN if UNKNOWN_MARK in value else value
    if isinstance(value, dict):
        return {key: _marked_unknown(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_marked_unknown(item) for item in value]
    return value


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
