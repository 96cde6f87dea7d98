"""Secrets by value: a finding a rule built after reading a secret input says `found [secret]`.

The engine sends each resource's inputs to the pack with secrets marked (`MarshalProperties(...,
KeepSecrets: true)` in pulumi/pulumi `pkg/resource/plugin/analyzer_plugin.go`); pulumi-policy unwraps them
before a policy sees them, so a rule cannot tell a secret from a plain value. `record_secrets` keeps, for the
request being served, the property paths that arrived as secrets, by resource URN. At the edge
(`amlkit.policies.pack`), the rule reads its resources through `tracked` views that note every read at or
below such a path; once a rule has read a secret, each finding it reports after that keeps its subject and
expectation and says `found [secret]` (or `cannot tell: [secret]`): never the value, nor anything derived
from it (seconds of a duration, the series of a size). Redaction works on what a message is built from, so
a resource `c3` stays `c3` whatever the secret's value.

The same code runs under `pulumi preview --policy-pack`: no offline fork.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from amlkit.policies.framework import Finding

__all__ = ["BY_VALUE_NOTE", "REDACTED", "Taint", "record_secrets", "redacted", "secret_paths", "tracked"]

REDACTED = "[secret]"
_SIG_KEY = "4dabf18193072939515e22adb298388d"  # pulumi's special signature key
_SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"  # ... and its value for a secret
_SECRET_SIG_BYTES = _SECRET_SIG.encode()  # as a protobuf Struct holds a string: its UTF-8 bytes, as they are
# Appended to the `baseline` policy's description (GetAnalyzerInfo) only when `record_secrets` installed: the
# review trusts this pack's text unscrubbed only when its pack process says so (amlkit.review.pack.findings)
BY_VALUE_NOTE = " Findings built from a secret input say [secret] (secrets by value)."
_local = threading.local()  # {urn: secret paths} of the request this gRPC worker thread is serving

Path = tuple[Any, ...]


def record_secrets() -> bool:
    """Wrap pulumi-policy's Analyze and AnalyzeStack so each request's secret paths are known while it runs."""
    try:
        from pulumi_policy import policy as module
    except ImportError:
        return False
    servicer = getattr(module, "_PolicyAnalyzerServicer", None)
    if servicer is None:
        return False
    if not getattr(servicer, "_amlkit_secrets", False):
        servicer.Analyze = _recording(servicer.Analyze, lambda request: [request])
        servicer.AnalyzeStack = _recording(servicer.AnalyzeStack, lambda request: request.resources)
        servicer._amlkit_secrets = True
    return True


def _recording(method: Callable[..., Any], resources: Callable[[Any], Iterable[Any]]) -> Callable[..., Any]:
    def serve(self: Any, request: Any, context: Any) -> Any:
        _local.paths = _paths(resources(request))
        try:
            return method(self, request, context)
        finally:
            _local.paths = None

    serve.__name__, serve.__doc__ = method.__name__, method.__doc__
    return serve


def _paths(resources: Iterable[Any]) -> dict[str, frozenset[Path]]:
    """{urn: its secret input paths}, only for the URNs that have some (`secret_paths`' default is none); of a URN
    given twice, the last resource's, as a dict of every URN would keep. A resource whose serialized properties
    hold no secret signature has no secret path: not converted."""
    from google.protobuf import json_format

    paths: dict[str, frozenset[Path]] = {}
    for r in resources:
        found = frozenset(_secret_paths(json_format.MessageToDict(r.properties), ())) \
            if _SECRET_SIG_BYTES in r.properties.SerializeToString() else frozenset()
        if found:
            paths[r.urn] = found
        else:
            paths.pop(r.urn, None)
    return paths


def _secret_paths(value: Any, path: Path) -> Iterator[Path]:
    if isinstance(value, dict):
        if value.get(_SIG_KEY) == _SECRET_SIG:
            yield path
            return
        for key, item in value.items():
            yield from _secret_paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _secret_paths(item, (*path, index))


def secret_paths(urn: str) -> frozenset[Path]:
    """The input paths of resource `urn` that arrived as secrets in the request being served (else none)."""
    paths: dict[str, frozenset[Path]] = getattr(_local, "paths", None) or {}
    return paths.get(urn, frozenset())


class Taint:
    """Whether a rule has read a secret input yet."""

    def __init__(self) -> None:
        self.read = False

    def findings(self, produced: Iterable[Finding]) -> list[Finding]:
        """The rule's findings in order, each one produced after a secret was read redacted (`redacted`)."""
        return [redacted(finding) if self.read else finding for finding in produced]


def tracked(props: Mapping[str, Any], secrets: frozenset[Path], taint: Taint) -> Mapping[str, Any]:
    """`props` as a rule reads them, noting in `taint` a read at or below a secret path."""
    return _Mapping(props, (), secrets, taint) if secrets else props


def _track(value: Any, path: Path, secrets: frozenset[Path], taint: Taint) -> Any:
    if any(path[:len(secret)] == secret for secret in secrets):
        taint.read = True
    if isinstance(value, Mapping):
        return _Mapping(value, path, secrets, taint)
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return _Sequence(value, path, secrets, taint)
    return value


class _Mapping(Mapping[str, Any]):
    def __init__(self, inner: Mapping[str, Any], path: Path, secrets: frozenset[Path], taint: Taint) -> None:
        self._inner, self._path, self._secrets, self._taint = inner, path, secrets, taint

    def __getitem__(self, key: str) -> Any:
        return _track(self._inner[key], (*self._path, key), self._secrets, self._taint)

    def __contains__(self, key: object) -> bool:  # whether a key is set is not its value
        return key in self._inner

    def __iter__(self) -> Iterator[str]:
        return iter(self._inner)

    def __len__(self) -> int:
        return len(self._inner)


class _Sequence(Sequence[Any]):
    def __init__(self, inner: Sequence[Any], path: Path, secrets: frozenset[Path], taint: Taint) -> None:
        self._inner, self._path, self._secrets, self._taint = inner, path, secrets, taint

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(len(self._inner))[index]]
        return _track(self._inner[index], (*self._path, index % len(self._inner) if index < 0 else index),
                      self._secrets, self._taint)

    def __len__(self) -> int:
        return len(self._inner)


def redacted(finding: Finding) -> Finding:
    """The finding with what follows its subject and expectation replaced by `[secret]` (see the module doc)."""
    message = finding.message
    for marker in ("; found ", "; cannot tell: "):
        at = message.find(marker)
        if at >= 0:
            return Finding(f"{message[:at]}{marker}{REDACTED}.", finding.urn, finding.unknown)
    at = message.find(" must ")
    text = f"{message[:at]} must be reviewed: its finding is built from a secret value ({REDACTED})." if at >= 0 \
        else f"a finding built from a secret value ({REDACTED})."
    return Finding(text, finding.urn, finding.unknown)
