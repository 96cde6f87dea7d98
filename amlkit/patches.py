"""The speed-ups that patch pulumi and pulumi-policy internals, each guarded by the code it was verified on.

A patch replaces (or relies on) private SDK functions, and relies on how the SDK calls them (by their
module-level name, from the frames it expects, with the arguments it expects). It is applied only when
the installed SDK's source of those functions AND of their callers hashes to a value the patch was
verified on (the allow-list below, one entry per verified SDK release); otherwise it stays off, the
review still works (slower), and `amlkit check --verbose` (and `make latest`) says which patch is off
and why. To verify a new SDK release: run the tests that compare each patch's registrations / review
with and without it (tests/review/test_run_patches.py, tests/review/test_engine.py), then add the hash
`source_hash(patch)` prints.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import inspect
from dataclasses import dataclass
from importlib import metadata

__all__ = ["PATCHES", "Patch", "off_reason", "report", "source_hash"]


@dataclass(frozen=True)
class Patch:
    name: str
    what: str  # one line: what the patch saves
    distribution: str  # the SDK it patches
    targets: tuple[str, ...]  # "module:qualname" of every SDK function it replaces or relies on
    callers: tuple[str, ...]  # "module:qualname" of the SDK code that calls the targets, as the patch expects
    verified: frozenset[str]  # sha256 of the targets' then the callers' source, per SDK release verified on


PATCHES = {
    patch.name: patch
    for patch in (
        Patch("alias-shortcut", "alias URNs the SDK computes and never sends", "pulumi",
              ("pulumi.resource:collapse_alias_to_urn", "pulumi.runtime.resource:all_aliases"),
              # Resource.__init__ collapses through the module name; prepare_aliases reads the URNs only
              # through all_aliases, and only without alias specs
              ("pulumi.resource:Resource.__init__", "pulumi.runtime.resource:prepare_aliases"),
              frozenset({"27b7e88e6c84942e0fc963ff1705d03d04cfd84acc582d7a0335b73e23c9d218"})),  # pulumi 3.272.0
        Patch("alias-specs", "an Output per alias field for plain Alias(type_=...) values", "pulumi",
              ("pulumi.runtime.resource:prepare_aliases", "pulumi.runtime.resource:create_alias_spec"),
              ("pulumi.runtime.resource:prepare_resource",),  # awaits prepare_aliases(res, opts, supports_specs)
              frozenset({"1af54fdf6584a274cb86c58b18d051d41d963567811c3c74eb0f2e74d90ff96f"})),  # pulumi 3.272.0
        Patch("source-positions", "the SDK's walk of the Python stack per registration; source positions are "
              "the SDK's own", "pulumi",
              ("pulumi.runtime.resource:_get_stack_trace",),
              # both call it through the module name, from the frame the declaring-line walk starts at
              ("pulumi.runtime.resource:read_resource", "pulumi.runtime.resource:register_resource"),
              frozenset({"56a611c01c30f9cc7ab4dd3178c3feb2fb4d2a0fb552577768c8ef9042a3c6b0"})),  # pulumi 3.272.0
        Patch("provider-modules", "importing every file of an azure-native module for the few names a program uses",
              "pulumi-azure-native",
              ("pulumi._utils:lazy_import",),  # amlkit.review.run.provider_modules returns its own lazy module
              ("pulumi_azure_native._utilities:lazy_import",),  # calls pulumi._utils.lazy_import by name, per call
              # pulumi 3.272.0, pulumi-azure-native 3.29.0
              frozenset({"c597250ce47f8e080644e3e6113f4355d6cb178584de597305887ee4859b0d87"})),
        Patch("request-memo", "converting each analyzer request once per policy", "pulumi-policy",
              # the memoized conversion must stay pure, and every policy still gets fresh proxies of its result;
              # the runtime settings depend on the environment only, options and provider on the request only
              # (amlkit.policies.analyze_once)
              ("pulumi_policy.deserialize:deserialize_properties", "pulumi_policy.proxy:unknown_checking_proxy",
               "pulumi_policy.policy:_PolicyAnalyzerServicer._configure_runtime_settings",
               "pulumi_policy.policy:_PolicyAnalyzerServicer._get_resource_options"),
              # the servicer converts through its module's names deserialize_properties and json_format
              ("pulumi_policy.policy:_PolicyAnalyzerServicer.Analyze",
               "pulumi_policy.policy:_PolicyAnalyzerServicer.AnalyzeStack",
               "pulumi_policy.policy:_PolicyAnalyzerServicer._get_provider_resource"),
              frozenset({"5125527e0e10fa827c2ff39758deab409e7ccff6cb671b2deef900fa5874a61b"})),  # pulumi-policy 1.21.0
        Patch("raw-stack-request", "the parsed AnalyzeStack request held beside the converted stack", "pulumi",
              # amlkit.policies.raw_stack: AnalyzeStack's handler is the generated one with another deserializer
              # (a method handler's _replace), added through the same two server calls
              ("pulumi.runtime.proto.analyzer_pb2_grpc:add_AnalyzerServicer_to_server",
               "grpc._utilities:RpcMethodHandler", "grpc._utilities:DictionaryGenericHandler"),
              # PolicyPack registers its servicer through its module's name analyzer_pb2_grpc
              ("pulumi_policy.policy:PolicyPack.__init__",),
              # pulumi 3.272.0, grpcio 1.85.3, pulumi-policy 1.21.0
              frozenset({"1d046c7ecc34635fe63417e3d2befb04a8e22c541ffc84d0aefd4e97bd1a921e"})),
        Patch("struct-to-dict", "json_format's descriptor walk per value when the pack converts a Struct",
              "protobuf",
              # amlkit.policies.structs does for a Struct what this printer does, value for value
              ("google.protobuf.json_format:MessageToDict", "google.protobuf.json_format:_Printer.__init__",
               "google.protobuf.json_format:_Printer._MessageToJsonObject",
               "google.protobuf.json_format:_Printer._StructMessageToJsonObject",
               "google.protobuf.json_format:_Printer._ValueMessageToJsonObject",
               "google.protobuf.json_format:_Printer._ListValueMessageToJsonObject",
               "google.protobuf.json_format:_Printer._FieldToJsonObject",
               "google.protobuf.json_format:_IsWrapperMessage"),
              (),
              frozenset({"cb4013bdafcdcf74222f0798fb01e481f374b53b41487c70b16b9f8f96399d9c"})),  # protobuf 5.29.6
    )
}


def source_hash(patch: Patch) -> str:
    """sha256 over the source of the patch's targets, then its callers, in order (raises if one cannot be
    found)."""
    digest = hashlib.sha256()
    for target in (*patch.targets, *patch.callers):
        module_name, qualname = target.split(":")
        value = importlib.import_module(module_name)
        for part in qualname.split("."):
            value = getattr(value, part)
        digest.update(inspect.getsource(value).encode())
    return digest.hexdigest()


@functools.cache
def off_reason(name: str) -> str | None:
    """None when the patch may be applied; else why it stays off (computed once per process)."""
    patch = PATCHES[name]
    try:
        digest = source_hash(patch)
    except (ImportError, AttributeError, OSError, TypeError) as error:
        return f"{_version(patch.distribution)}: cannot read the patched code ({type(error).__name__}: {error})"
    if digest not in patch.verified:
        callers = f" (called from {', '.join(patch.callers)})" if patch.callers else ""
        return (f"{_version(patch.distribution)}: {', '.join(patch.targets)}{callers} is not the code this patch "
                "was verified on")
    return None


def report() -> list[str]:
    """One line per patch that is off, for `--verbose`."""
    return [f"SDK patch '{name}' is off ({reason}); the review still works, without skipping {PATCHES[name].what}"
            for name in PATCHES if (reason := off_reason(name)) is not None]


def _version(distribution: str) -> str:
    try:
        return f"{distribution} {metadata.version(distribution)}"
    except metadata.PackageNotFoundError:
        return f"{distribution} (not installed)"
