"""amlkit's values as the analyzer protocol's messages, and back: the Analyze and AnalyzeStack requests the engine
builds from a registration (pulumi/pulumi `pkg/resource/analyzer` and `pkg/resource/deploy/step_generator.go`),
the policy config Configure sends, and the schemas and initial config GetAnalyzerInfo describes."""

from __future__ import annotations

import functools
from typing import Any, cast

from google.protobuf import json_format, struct_pb2

from amlkit.review.pack.config import PolicyConfig, PolicySchema
from amlkit.review.pack.proto import analyzer_pb2
from amlkit.review.urns import alias_urns

__all__ = [
    "analyze_request", "default_provider_name", "initial_config", "parsed_schemas", "policy_config_message",
    "policy_schema", "provider_resource", "resource_options", "stack_resource", "stack_tags", "to_struct",
]

_LEVEL_NAMES = {analyzer_pb2.ADVISORY: "advisory", analyzer_pb2.MANDATORY: "mandatory",
                analyzer_pb2.DISABLED: "disabled", analyzer_pb2.REMEDIATE: "remediate"}
_LEVEL_VALUES = {name: value for value, name in _LEVEL_NAMES.items()}


def stack_tags(project: str) -> dict[str, str]:
    return {"pulumi:project": project, "pulumi:runtime": "python"}


# --- GetAnalyzerInfo and Configure -------------------------------------------------------------------

@functools.lru_cache(maxsize=8)
def parsed_schemas(info: bytes) -> tuple[tuple[PolicySchema, ...], dict[str, PolicyConfig]]:
    """A serialized AnalyzerInfo's policy schemas and initial config, converted once per distinct answer
    (MessageToDict of 31 schemas takes ~50 ms). Callers copy what they may change: reconcile reads the
    schemas and builds new configs."""
    parsed = analyzer_pb2.AnalyzerInfo.FromString(info)
    return tuple(policy_schema(p) for p in parsed.policies), initial_config(parsed)


def policy_schema(info: analyzer_pb2.PolicyInfo) -> PolicySchema:
    schemas = info.configSchema.properties  # a Struct whose every value is a Struct (a JSON schema)
    properties = {k: json_format.MessageToDict(cast(struct_pb2.Struct, v)) for k, v in schemas.items()}
    return PolicySchema(info.name, _LEVEL_NAMES.get(info.enforcementLevel, "advisory"), properties,
                        tuple(info.configSchema.required))


def initial_config(info: analyzer_pb2.AnalyzerInfo) -> dict[str, PolicyConfig]:
    """The pack's initial config; like the engine, an unset level reads as the enum's zero (advisory)."""
    return {
        name: PolicyConfig(_LEVEL_NAMES.get(entry.enforcementLevel, "advisory"),
                           json_format.MessageToDict(entry.properties) or None)
        for name, entry in info.initialConfig.items()
    }


def policy_config_message(entry: PolicyConfig) -> analyzer_pb2.PolicyConfig:
    message = analyzer_pb2.PolicyConfig(enforcementLevel=_LEVEL_VALUES.get(entry.level, analyzer_pb2.ADVISORY))
    if entry.properties:
        message.properties.update(entry.properties)
    return message


# --- requests ---------------------------------------------------------------------------------------

def to_struct(value: dict[str, Any]) -> struct_pb2.Struct:
    """`Struct().update(value)`, value for value (protobuf's `_SetStructValue`), without its method call per map entry
    and type tests in that order: the same message, bytes and map order (tests/review/test_pack_wire.py)."""
    struct = struct_pb2.Struct()
    _fill(struct.fields, value)
    return struct


def _fill(fields: Any, value: Any) -> None:
    for key, item in value.items():
        _set(fields[key], item)


def _set(target: Any, item: Any) -> None:
    kind = type(item)
    if kind is str:
        target.string_value = item
    elif item is None:
        target.null_value = 0
    elif kind is bool:
        target.bool_value = item
    elif kind is dict:
        struct = target.struct_value
        struct.Clear()
        _fill(struct.fields, item)
    elif kind is list:
        values = target.list_value
        values.Clear()
        for element in item:
            _set(values.values.add(), element)
    elif kind is int or kind is float:
        target.number_value = item
    else:  # subclasses, tuples, Structs, bad values: protobuf's own setter, its errors included
        holder = struct_pb2.Struct()
        holder["value"] = item
        target.CopyFrom(holder.fields["value"])


def analyze_request(resource: dict[str, Any], by_urn: dict[str, dict[str, Any]], stack: str,
                    project: str) -> analyzer_pb2.AnalyzeRequest:
    request = analyzer_pb2.AnalyzeRequest(
        type=resource["type"], properties=to_struct(resource["inputs"]), urn=resource["urn"],
        name=resource["name"], options=resource_options(resource, stack, project),
    )
    provider = provider_resource(resource, by_urn, stack, project)
    if provider is not None:
        request.provider.CopyFrom(provider)
    return request


def resource_options(resource: dict[str, Any], stack: str, project: str) -> analyzer_pb2.AnalyzerResourceOptions:
    options = resource["options"]
    dbr = options.get("deleteBeforeReplace")
    return analyzer_pb2.AnalyzerResourceOptions(
        protect=bool(options.get("protect")),
        ignoreChanges=options.get("ignoreChanges", []),
        deleteBeforeReplace=bool(dbr),
        deleteBeforeReplaceDefined=dbr is not None,
        additionalSecretOutputs=options.get("additionalSecretOutputs", []),
        aliases=alias_urns(resource, stack, project),
        parent=resource.get("parent") or "",
    )


def provider_resource(resource: dict[str, Any], by_urn: dict[str, dict[str, Any]], stack: str,
                      project: str) -> analyzer_pb2.AnalyzerProviderResource | None:
    """The explicit provider when the program passed one, else the engine's default provider."""
    if not resource.get("custom") or resource["type"].startswith("pulumi:providers:"):
        return None
    ref = resource.get("provider") or ""
    urn = ref.rsplit("::", 1)[0] if ref else ""
    if urn in by_urn:
        explicit = by_urn[urn]
        return analyzer_pb2.AnalyzerProviderResource(
            type=explicit["type"], properties=to_struct(explicit["inputs"]), urn=urn, name=explicit["name"])
    package = resource["type"].split(":", 1)[0]
    name = default_provider_name(package)
    return analyzer_pb2.AnalyzerProviderResource(
        type=f"pulumi:providers:{package}", urn=f"urn:pulumi:{stack}::{project}::pulumi:providers:{package}::{name}",
        name=name)


@functools.cache
def default_provider_name(package: str) -> str:
    """`default_3_29_0` as the engine names default providers (the installed SDK's version)."""
    from importlib import metadata

    try:
        version = metadata.version(f"pulumi_{package.replace('-', '_')}")
    except metadata.PackageNotFoundError:
        return "default"
    return "default_" + version.replace(".", "_").replace("-", "_")


def stack_resource(resource: dict[str, Any], request: analyzer_pb2.AnalyzeRequest) -> analyzer_pb2.AnalyzerResource:
    """A resource as AnalyzeStack gets it: its recorded OUTPUTS, not the Analyze request's inputs (pulumi/pulumi
    `pkg/resource/deploy/step_generator.go` `AnalyzeResources`: `Properties: v.Outputs`; the runner records them,
    `amlkit.review.run.mocks.recorded_outputs`), with the request's options, provider and the graph."""
    message = analyzer_pb2.AnalyzerResource(
        type=request.type, properties=to_struct(resource["outputs"]), urn=request.urn, name=request.name,
        options=request.options, parent=resource.get("parent") or "", dependencies=resource["dependencies"],
    )
    if request.HasField("provider"):
        message.provider.CopyFrom(request.provider)
    for key, urns in resource["propertyDependencies"].items():
        message.propertyDependencies[key].urns.extend(urns)
    return message
