"""amlkit.policies.raw_stack: AnalyzeStack's request kept as received and read one resource at a time gives the
resources the parsed request has (in order, each equal), the whole message when anything else is in it, the same
DecodeError when it is not valid; the gRPC registration makes only AnalyzeStack's handler raw; off when the code is
not what it was verified on."""

from __future__ import annotations

import dataclasses
import types
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import empty_pb2
from google.protobuf.message import DecodeError
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc

from amlkit import patches
from amlkit.policies import raw_stack
from amlkit.policies.raw_stack import RawStackRequest
from amlkit.review.pack import snapshot, wire
from amlkit.review.plan.stream import StateStream
from tests.benchmods import platform_state


def _state_request(tmp_path: Path) -> bytes:
    """The AnalyzeStack request `amlkit check --state` sends for a generated 3-environment ML platform state."""
    providers: dict[str, Any] = {}
    request = analyzer_pb2.AnalyzeStackRequest()
    for resource in StateStream(platform_state(tmp_path / "state.json", 3)).resources():
        if resource.type.startswith("pulumi:providers:"):
            providers[resource.urn] = snapshot._provider(resource)
        analyze = snapshot._request(resource, snapshot.blind(resource.inputs), providers)
        request.resources.append(snapshot._stack_resource(resource, analyze, snapshot.blind(resource.outputs)))
    return request.SerializeToString()


def _resource(name: str, **properties: Any) -> analyzer_pb2.AnalyzerResource:
    return analyzer_pb2.AnalyzerResource(type="azure-native:resources:ResourceGroup", name=name, urn=f"urn:{name}",
                                         properties=wire.to_struct(properties))


def test_a_raw_requests_resources_are_the_parsed_requests(tmp_path):
    data = _state_request(tmp_path)
    parsed = analyzer_pb2.AnalyzeStackRequest.FromString(data)
    raw = RawStackRequest(data)
    assert len(parsed.resources) == 62
    for _ in range(2):  # each iteration parses afresh, in the request's order
        assert list(raw.resources) == list(parsed.resources)
    assert raw.message() == parsed
    raw.release()
    with pytest.raises(RuntimeError, match="read after it was released"):
        raw.message()


def _serialized(*parts: bytes) -> bytes:
    return b"".join(parts)


BIG = _resource("big", description="x" * 300)  # a length over 127: a varint of two bytes
ENTRY = analyzer_pb2.AnalyzeStackRequest(resources=[_resource("a"), BIG, _resource("a")]).SerializeToString()
CASES = {
    "empty": b"",
    "one empty resource": b"\x0a\x00",
    "resources, one long, one twice": ENTRY,
    "an unknown varint field after them": ENTRY + b"\x10\x01",
    "an unknown field before them": b"\x1a\x01x" + ENTRY,
    "field 1 as a varint": b"\x08\x05" + ENTRY,
    "a length over two varint bytes given in three": b"\x0a\x80\x80\x00",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_raw_request_reads_as_protobuf_parses_it(name):
    data = CASES[name]
    parsed = analyzer_pb2.AnalyzeStackRequest.FromString(data)
    raw = RawStackRequest(data)
    assert list(raw.resources) == list(parsed.resources) and raw.message() == parsed


@pytest.mark.parametrize("data", [ENTRY[:-1], b"\x0a", b"\x0a\x85", b"\x0a\x05ab", b"\x0a\x02\x0a\x05"],
                         ids=["cut short", "no length", "length cut", "length past the end", "a bad resource"])
def test_a_raw_request_that_is_not_valid_fails_as_protobuf_fails(data):
    with pytest.raises(DecodeError) as expected:
        analyzer_pb2.AnalyzeStackRequest.FromString(data)
    with pytest.raises(DecodeError) as got:
        list(RawStackRequest(data).resources)
    assert str(got.value) == str(expected.value)


class _Servicer(analyzer_pb2_grpc.AnalyzerServicer):
    def __init__(self) -> None:
        self.got: list[Any] = []

    def AnalyzeStack(self, request: Any, context: Any) -> Any:  # noqa: N802 - the protocol's name
        self.got.append((type(request), [r.name for r in request.resources]))
        return analyzer_pb2.AnalyzeResponse()

    def Analyze(self, request: Any, context: Any) -> Any:  # noqa: N802
        self.got.append((type(request), request.name))
        return analyzer_pb2.AnalyzeResponse()

    def GetAnalyzerInfo(self, request: Any, context: Any) -> Any:  # noqa: N802
        self.got.append((type(request), None))
        return analyzer_pb2.AnalyzerInfo(name="fixture")


def test_over_grpc_only_analyze_stack_gets_the_request_raw():
    servicer = _Servicer()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    raw_stack._Registration(analyzer_pb2_grpc).add_AnalyzerServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = analyzer_pb2_grpc.AnalyzerStub(channel)
            stub.AnalyzeStack(analyzer_pb2.AnalyzeStackRequest(resources=[_resource("a"), BIG]), timeout=30)
            stub.Analyze(analyzer_pb2.AnalyzeRequest(name="one"), timeout=30)
            assert stub.GetAnalyzerInfo(empty_pb2.Empty(), timeout=30).name == "fixture"
    finally:
        server.stop(None)
    assert servicer.got == [(RawStackRequest, ["a", "big"]), (analyzer_pb2.AnalyzeRequest, "one"),
                            (empty_pb2.Empty, None)]


class _Recorder:
    """A server that records the handlers the generated registration adds."""

    def __init__(self) -> None:
        self.generic: list[Any] = []

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        self.generic += handlers


def test_the_registration_changes_only_analyze_stacks_deserializer():
    servicer, plain, raw = _Servicer(), _Recorder(), _Recorder()
    analyzer_pb2_grpc.add_AnalyzerServicer_to_server(servicer, plain)
    raw_stack._Registration(analyzer_pb2_grpc).add_AnalyzerServicer_to_server(servicer, raw)
    [generic], [plain_generic] = raw.generic, plain.generic
    assert isinstance(generic, grpc.ServiceRpcHandler)
    assert generic.service_name() == plain_generic.service_name() == "pulumirpc.Analyzer"
    names = [name for name in dir(analyzer_pb2_grpc.AnalyzerServicer) if name[0].isupper()]
    assert len(names) == 9 and "AnalyzeStack" in names
    for name in [*names, "Nothing"]:
        details = types.SimpleNamespace(method=f"/pulumirpc.Analyzer/{name}", invocation_metadata=())
        handler = plain_generic.service(details)
        assert (handler is None) == (name == "Nothing")
        expected = handler._replace(request_deserializer=RawStackRequest) if name == "AnalyzeStack" else handler
        assert generic.service(details) == expected, name


def test_it_is_off_when_the_code_is_not_what_it_was_verified_on(monkeypatch):
    assert patches.off_reason("raw-stack-request") is None
    module = types.SimpleNamespace(analyzer_pb2_grpc=analyzer_pb2_grpc)
    monkeypatch.setitem(patches.PATCHES, "raw-stack-request",
                        dataclasses.replace(patches.PATCHES["raw-stack-request"], verified=frozenset()))
    patches.off_reason.cache_clear()
    try:
        assert raw_stack.install(module) is False and module.analyzer_pb2_grpc is analyzer_pb2_grpc
        assert "add_AnalyzerServicer_to_server" in str(patches.off_reason("raw-stack-request"))
    finally:
        patches.off_reason.cache_clear()


def test_it_is_installed_once_on_the_verified_code():
    module = types.SimpleNamespace(analyzer_pb2_grpc=analyzer_pb2_grpc)
    assert raw_stack.install(module) is True and isinstance(module.analyzer_pb2_grpc, raw_stack._Registration)
    installed = module.analyzer_pb2_grpc
    assert raw_stack.install(module) is True and module.analyzer_pb2_grpc is installed  # never wrapped twice
    assert installed.AnalyzerStub is analyzer_pb2_grpc.AnalyzerStub  # the rest is pulumi's module
