"""The speed-ups that patch pulumi and pulumi-policy internals, each guarded by the code it was verified on.

A patch replaces (or relies on) private SDK functions. It is applied only when the installed SDK's
source of those functions hashes to a value the patch was verified on (the allow-list below, one
entry per verified SDK release); otherwise it stays off, the review still works (slower), and
`amlkit check --verbose` says which patch is off and why. To verify a new SDK release: run the
tests that compare each patch's registrations / review with and without it (tests/review/
test_patches.py, tests/review/test_engine.py), then add the hash `source_hash(patch)` prints.
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
    verified: frozenset[str]  # sha256 of the targets' source, for each SDK release it was verified on


PATCHES = {
    patch.name: patch
    for patch in (
        Patch("alias-shortcut", "alias URNs the SDK computes and never sends", "pulumi",
              ("pulumi.resource:collapse_alias_to_urn", "pulumi.runtime.resource:all_aliases"),
              frozenset({"2d4e465038b64c69a7f6cb7266515adad4e640fa0d217601293a7caf11bcc17b"})),  # pulumi 3.272.0
        Patch("alias-specs", "an Output per alias field for plain Alias(type_=...) values", "pulumi",
              ("pulumi.runtime.resource:prepare_aliases", "pulumi.runtime.resource:create_alias_spec"),
              frozenset({"344457026a9e59d3a1e0d85d600c8f9169820e5c10339fb35ed6bb005d91086b"})),  # pulumi 3.272.0
        Patch("source-positions", "the SDK's walk of the Python stack per registration; source positions are "
              "the SDK's own", "pulumi",
              ("pulumi.runtime.resource:_get_stack_trace",),
              frozenset({"3943b2273016925109e1c3a7bc603db06a44ea09ff3494c29544e44bccf8dd1f"})),  # pulumi 3.272.0
        Patch("request-memo", "converting each analyzer request once per policy", "pulumi-policy",
              ("pulumi_policy.policy:_PolicyAnalyzerServicer.Analyze",
               "pulumi_policy.policy:_PolicyAnalyzerServicer.AnalyzeStack",
               "pulumi_policy.policy:_PolicyAnalyzerServicer._get_provider_resource"),
              frozenset({"48e65c68b52b494b34b0cf496e736780497389f66ff782befba4fbdeee01eb89"})),  # pulumi-policy 1.21.0
    )
}


def source_hash(patch: Patch) -> str:
    """sha256 over the source of the patch's targets, in order (raises if one cannot be found)."""
    digest = hashlib.sha256()
    for target in patch.targets:
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
        return (f"{_version(patch.distribution)}: {', '.join(patch.targets)} is not the code this patch was "
                "verified on")
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
