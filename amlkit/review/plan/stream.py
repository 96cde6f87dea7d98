"""A `pulumi stack export` read resource by resource, for audits of large states.

`load_state` (amlkit.review.plan.state) parses the whole file and keeps every resource: a
100,000-resource export (~325 MB) took ~1.1 GB in the parser's objects alone. `StateStream` reads the
file in chunks and yields one `StateResource` at a time, checked as `load_state` checks it (the same
schema, the same deployment version, one stack); the caller keeps what it needs of each.

What it accepts is what `load_state` accepts, and its errors are `load_state`'s: when anything is wrong
(not JSON, a schema error, resources of several stacks) it lets `load_state` read the whole file and
raises the error that gives (the same file, key path and text as ever; only a bad file pays for a full
read). A file the stream cannot take in order (`version` after `deployment`, as no export writes it) is
read by `load_state` too, before any resource is yielded. A key given twice (`deployment`, `resources`,
`version`), which a JSON parser would silently resolve to the last, is an error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import IO, Any

from amlkit.errors import ConfigError, elide
from amlkit.review.plan.state import DEPLOYMENT_VERSION, SCHEMA, StateResource, load_state
from amlkit.review.plan.state import _resource as state_resource
from amlkit.review.urns import urn_owner

__all__ = ["CHUNK", "StateStream", "peek_owner"]

CHUNK = 1 << 20  # characters read at a time
_SPACE = re.compile(r"[ \t\n\r]*")


class _Irregular(Exception):
    """The file is not a well-formed export the stream can follow: `load_state` decides."""


class StateStream:
    """One state file, read once from start to end by `resources()`.

    project / stack: the state's owner, known once the first resource is read (`peek_owner` reads
    just that far); read: resources yielded so far; fraction(): how much of the file is read."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.file = str(path)
        self.project = self.stack = ""
        self.secrets_provider = ""
        self.read = 0
        self.size = 0
        self._consumed = 0  # characters before the buffer
        self._chars: _Chars | None = None

    def fraction(self) -> float:
        """The part of the file read so far (of its characters, near enough of its bytes)."""
        position = self._consumed + (self._chars.pos if self._chars else 0)
        return min(1.0, position / self.size) if self.size else 1.0

    def resources(self) -> Generator[StateResource, None, None]:
        """Every resource of the file in its order; a ConfigError (load_state's) when the file is bad."""
        try:
            with self.path.open(encoding="utf-8") as handle:
                self.size = max(1, self.path.stat().st_size)
                self._chars = _Chars(handle, self)
                yield from self._stream(self._chars)
        except (OSError, UnicodeDecodeError, _Irregular, ConfigError) as problem:
            if isinstance(problem, _Fallback):
                yield from self._whole()
                return
            self._explain(problem)

    def _whole(self) -> Iterator[StateResource]:
        state = load_state(self.path)
        self.project, self.stack, self.secrets_provider = state.project, state.stack, state.secrets_provider
        self._chars, self._consumed = None, self.size  # all of it is read
        for resource in state.resources:
            self.read += 1
            yield resource

    def _explain(self, problem: Exception) -> None:
        """load_state's error for this file; the stream's own when load_state finds none."""
        load_state(self.path)
        if isinstance(problem, ConfigError):
            raise problem
        raise ConfigError(self.file, "", f"not a state amlkit can read: {problem}")

    def _stream(self, chars: _Chars) -> Iterator[StateResource]:
        seen: set[str] = set()
        chars.expect("{")
        for key in chars.members():
            _once(self.file, seen, key, elide(key))
            if key == "version":
                version = chars.value()
                if version != DEPLOYMENT_VERSION:
                    raise _Irregular("version")
            elif key == "deployment":
                if "version" not in seen:
                    raise _Fallback("version after deployment")
                yield from self._deployment(chars)
            else:
                chars.value()
        chars.end()
        if "deployment" not in seen or "version" not in seen:
            raise _Irregular("no deployment")

    def _deployment(self, chars: _Chars) -> Iterator[StateResource]:
        header: dict[str, Any] = {}
        chars.expect("{")
        for key in chars.members():
            _once(self.file, header, key, f"deployment.{elide(key)}")
            if key != "resources":
                header[key] = chars.value()
                continue
            header[key] = []
            chars.expect("[")
            for raw in chars.items():
                yield self._resource(raw)
        _check_header(header)
        provider = header.get("secrets_providers")
        self.secrets_provider = provider.get("type", "") if isinstance(provider, dict) else ""

    def _resource(self, raw: Any) -> StateResource:
        if not _CHECK.valid(raw):
            raise _Irregular("schema")
        owner = urn_owner(raw["urn"])
        if self.read == 0:
            self.project, self.stack = owner
        elif owner != (self.project, self.stack):
            raise _Irregular("several stacks")
        self.read += 1
        return state_resource(raw)


def peek_owner(path: Path) -> tuple[str, str]:
    """(project, stack) of a state file, reading only up to its first resource; ("", "") for a state
    without resources; load_state's ConfigError when the file is bad that far (or unreadable)."""
    stream = StateStream(path)
    resources = stream.resources()
    try:
        next(resources, None)
    finally:
        resources.close()
    return stream.project, stream.stack


class _Fallback(_Irregular):
    """A valid file in an order the stream cannot follow: load_state reads it whole."""


def _once(file: str, seen: set[str] | dict[str, Any], key: str, path: str) -> None:
    if key in seen:
        raise ConfigError(file, path, "given twice (a JSON parser would silently keep the last one); "
                          "expected the output of `pulumi stack export`")
    if isinstance(seen, set):
        seen.add(key)


def _check_header(header: dict[str, Any]) -> None:
    """The deployment without its resources against the schema (the resources were checked one by one)."""
    import jsonschema

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    if not jsonschema.Draft202012Validator(schema["properties"]["deployment"]).is_valid(header):
        raise _Irregular("deployment schema")


class _Chars:
    """The file's characters through a buffer refilled in chunks; JSON values decoded with the json module."""

    def __init__(self, handle: IO[str], stream: StateStream) -> None:
        self.handle, self.stream = handle, stream
        self.buf, self.pos, self.eof = "", 0, False
        self.decoder = json.JSONDecoder()

    def _fill(self) -> bool:
        if self.eof:
            return False
        chunk = self.handle.read(max(CHUNK, len(self.buf) - self.pos))  # doubles for a value longer than a chunk
        self.stream._consumed += self.pos
        self.buf, self.pos = self.buf[self.pos:] + chunk, 0
        self.eof = not chunk
        return bool(chunk)

    def peek(self) -> str:
        while True:
            self.pos = _SPACE.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self._fill():
                return ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise _Irregular(f"expected {char!r}")
        self.pos += 1

    def value(self) -> Any:
        self.peek()
        while True:
            try:
                value, end = self.decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError:
                if self._fill():
                    continue
                raise _Irregular("not JSON") from None
            if end < len(self.buf) or self.eof or not self._fill():  # a number may go on in the next chunk
                self.pos = end
                return value

    def members(self) -> Iterator[str]:
        """The keys of the object whose `{` was just read; the caller reads each member's value."""
        if self.peek() == "}":
            self.pos += 1
            return
        while True:
            if self.peek() != '"':
                raise _Irregular("key")
            key = self.value()
            self.expect(":")
            yield key
            following = self.peek()
            self.pos += 1
            if following == "}":
                return
            if following != ",":
                raise _Irregular("expected ','")

    def items(self) -> Iterator[Any]:
        """The values of the array whose `[` was just read."""
        if self.peek() == "]":
            self.pos += 1
            return
        while True:
            yield self.value()
            following = self.peek()
            self.pos += 1
            if following == "]":
                return
            if following != ",":
                raise _Irregular("expected ','")

    def end(self) -> None:
        if self.peek() != "":
            raise _Irregular("extra data")


class _ResourceCheck:
    """The schema's resourceV3 as plain checks (jsonschema took ~90 µs per resource, 9 s for 100,000):
    `valid` is True only for a resource jsonschema would accept; what it cannot judge it leaves to
    jsonschema. Built from amlkit/data/pulumi_deployment_v3.schema.json, not a copy of it."""

    _TYPES: dict[str, type | tuple[type, ...]] = {"string": str, "boolean": bool, "object": dict, "array": list}

    def __init__(self) -> None:
        schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
        self.defs = schema["$defs"]
        resource = self.defs["resourceV3"]
        self.required = tuple(resource["required"])
        self.checks = {key: self._compile(spec) for key, spec in resource["properties"].items()}
        self._fallback: Any = None

    def _compile(self, spec: dict[str, Any]) -> Any:
        if "$ref" in spec:
            spec = self.defs[spec["$ref"].removeprefix("#/$defs/")]
        if set(spec) - {"type", "pattern", "items"} or spec.get("type") not in self._TYPES:
            return None  # jsonschema judges it
        kind = self._TYPES[spec["type"]]
        pattern = re.compile(spec["pattern"]) if "pattern" in spec else None
        items = self._compile(spec["items"]) if "items" in spec else True
        return kind, pattern, items

    def valid(self, raw: Any) -> bool:
        if not isinstance(raw, dict) or any(key not in raw for key in self.required):
            return False
        for key, value in raw.items():
            check = self.checks.get(key, True)
            if check is None or (check is not True and not self._fits(check, value)):
                return self._jsonschema(raw)
        return True

    def _fits(self, check: Any, value: Any) -> bool:
        kind, pattern, items = check
        if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            return False
        if pattern is not None and not pattern.search(value):
            return False
        if items is True or not isinstance(value, list):
            return True
        return items is not None and all(self._fits(items, item) for item in value)

    def _jsonschema(self, raw: Any) -> bool:
        import jsonschema

        if self._fallback is None:
            self._fallback = jsonschema.Draft202012Validator({"$defs": self.defs, "$ref": "#/$defs/resourceV3"})
        return bool(self._fallback.is_valid(raw))


_CHECK = _ResourceCheck()
