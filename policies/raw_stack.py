"""AnalyzeStack's request as gRPC received it (its bytes), read one resource at a time by amlkit's shared stack.

pulumi-policy registers its servicer with pulumi's generated `add_AnalyzerServicer_to_server`, whose AnalyzeStack
handler parses the whole request (`AnalyzeStackRequest.FromString`) before the servicer runs; gRPC then holds that
message until the answer is sent. protobuf's parsed form of a stack is ~3.3 times its size on the wire: at 100,000
resources ~490 MB, alive through the whole call beside the stack amlkit's stack policies read (shared_stack).

Here the AnalyzeStack handler keeps the bytes instead (`RawStackRequest`, the handler's deserializer; every other
method's handler is pulumi's). amlkit's shared stack parses and converts one resource at a time
(`RawStackRequest.resources`: the same `AnalyzerResource`s, in the same order, as the parsed request's) and lets the
bytes go once the stack is converted (`release`). Anything else that reads the request gets the parsed message
(`message()`): a servicer with a stack policy that is not amlkit's is served exactly the message pulumi's handler
would have parsed. A request holding anything but resources (field 1) is parsed whole, as pulumi's handler parses it.

A request that is not valid protobuf fails where it is read, in the servicer (gRPC's UNKNOWN, "Exception calling
application: Error parsing message ...") instead of in the handler (INTERNAL, "Exception deserializing request!");
the engine and amlkit send only what they serialized.

Installed by `amlkit.policies.pack.convert_each_request_once`, only on the code it was verified on (amlkit.patches
`raw-stack-request`: pulumi's generated registration, gRPC's method handler, and pulumi-policy's `PolicyPack`, which
registers through its module's name `analyzer_pb2_grpc`; the generated registration adds one generic handler). The
same code runs under `pulumi preview --policy-pack`:
no offline fork.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["ANALYZE_STACK", "RawStackRequest", "install"]

ANALYZE_STACK = "/pulumirpc.Analyzer/AnalyzeStack"
_RESOURCE_TAG = 0x0A  # AnalyzeStackRequest.resources: field 1, length-delimited


class RawStackRequest:
    """An AnalyzeStackRequest as received: `resources` parses one resource at a time, `message()` all of it."""

    def __init__(self, data: bytes) -> None:
        self._data: bytes | None = data
        self._spans: array[int] | None = None  # start, end of each resource; empty: not only resources

    def message(self) -> Any:
        """The request parsed whole, as pulumi's handler parses it (its DecodeError when it is not valid)."""
        from pulumi.runtime.proto import analyzer_pb2

        return analyzer_pb2.AnalyzeStackRequest.FromString(self._bytes())

    @property
    def resources(self) -> Iterable[Any]:
        """The request's resources in order, each parsed as it is reached (a fresh iteration each time)."""
        if self._spans is None:
            self._spans = _spans(self._bytes())
        if not self._spans:
            resources: Iterable[Any] = self.message().resources
            return resources
        return self._each(self._spans)

    def release(self) -> None:
        """Nothing reads the request again: its bytes go (with the last iteration still running, if any)."""
        self._data = None

    def _bytes(self) -> bytes:
        if self._data is None:
            raise RuntimeError("the AnalyzeStack request was read after it was released")
        return self._data

    def _each(self, spans: array[int]) -> Iterator[Any]:
        from google.protobuf.message import DecodeError
        from pulumi.runtime.proto import analyzer_pb2

        parse, data = analyzer_pb2.AnalyzerResource.FromString, memoryview(self._bytes())
        for index in range(0, len(spans), 2):
            try:
                resource = parse(data[spans[index]:spans[index + 1]])  # type: ignore[arg-type]  # bytes-like
            except DecodeError:
                self.message()  # the error of the whole request, as pulumi's handler raises it
                raise
            yield resource


def _spans(data: bytes) -> array[int]:
    """Where each resource of a request holding only resources lies (start, end, ...); empty for anything else
    (no resource, another field, a length past the end): then the request is parsed whole."""
    spans, position, end = array("q"), 0, len(data)
    try:
        while position < end:
            if data[position] != _RESOURCE_TAG:
                return array("q")
            size, position = _varint(data, position + 1)
            if position + size > end:
                return array("q")
            spans.extend((position, position + size))
            position += size
    except IndexError:  # a varint cut short
        return array("q")
    return spans


def _varint(data: bytes, position: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, position
        shift += 7
        if shift > 63:
            raise IndexError("varint too long")


def install(servicer_module: Any) -> bool:
    """Make pulumi-policy's `PolicyPack` register AnalyzeStack with `RawStackRequest` as its deserializer (through its
    module's name `analyzer_pb2_grpc`); False when the code is not what this was verified on."""
    from amlkit.patches import off_reason

    if off_reason("raw-stack-request") is not None:
        return False
    registration = getattr(servicer_module, "analyzer_pb2_grpc", None)
    if registration is None:
        return False
    if not isinstance(registration, _Registration):
        servicer_module.analyzer_pb2_grpc = _Registration(registration)
    return True


class _Registration:
    """pulumi's `analyzer_pb2_grpc` module, its `add_AnalyzerServicer_to_server` registering AnalyzeStack raw."""

    def __init__(self, module: Any) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)

    def add_AnalyzerServicer_to_server(self, servicer: Any, server: Any) -> None:  # noqa: N802 - pulumi's name
        self._module.add_AnalyzerServicer_to_server(servicer, _Server(server))


def _raw(handler: Any) -> Any:
    return handler._replace(request_deserializer=RawStackRequest)


class _Server:
    """The gRPC server as the generated registration sees it: the AnalyzeStack handler it adds is made raw."""

    def __init__(self, server: Any) -> None:
        self._server = server

    def __getattr__(self, name: str) -> Any:
        return getattr(self._server, name)

    def add_generic_rpc_handlers(self, handlers: Iterable[Any]) -> None:
        self._server.add_generic_rpc_handlers(tuple(_generic(handler) for handler in handlers))


def _generic(handler: Any) -> Any:
    import grpc

    class Raw(grpc.ServiceRpcHandler):
        """The generated generic handler, its AnalyzeStack handler raw."""

        def service_name(self) -> str:
            return str(handler.service_name())

        def service(self, details: Any) -> Any:
            found = handler.service(details)
            return _raw(found) if found is not None and details.method == ANALYZE_STACK else found

    return Raw() if isinstance(handler, grpc.ServiceRpcHandler) else handler
