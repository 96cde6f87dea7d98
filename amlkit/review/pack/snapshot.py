"""The policy packs over a deployed state, as `pulumi policy analyze --file` drives them (pulumi/pulumi
`pkg/resource/deploy/analyze_snapshot.go`): per resource `Remediate` (only when a policy is at level
remediate; what would change is reported as an advisory finding, never applied) then `Analyze` with the
state **inputs**; one `AnalyzeStack` with the state **outputs**, parent, dependencies and property
dependencies, where a finding on a URN the state does not have is the root stack's. A secret the export
left encrypted reaches the packs as the string `[secret]` (`blind`). amlkit.review.state_audit runs it per file.

The state streams through (amlkit.review.plan.stream): each resource is sent to every pack as it is read,
with a window of Analyze calls in flight per pack, and kept only as its AnalyzeStack entry (serialized) and
what the report needs; the whole audit of the file, reading included, has one deadline (`Deadline`).
"""

from __future__ import annotations

import dataclasses
import io
import math
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import grpc
from google.protobuf import json_format

from amlkit.errors import ReviewFailed
from amlkit.review.model import NAME_INPUTS, ResourceRecord
from amlkit.review.pack import diagnostics, process, session, wire
from amlkit.review.pack.proto import analyzer_pb2
from amlkit.review.plan.state import ENCRYPTED, StateResource
from amlkit.review.plan.stream import StateStream
from amlkit.review.secrets import REDACTED, SECRET_SIG, SECRET_SIG_KEY, Secrets, is_secret
from amlkit.review.urns import STACK_TYPE, stack_urn

__all__ = ["HELPERS_AFTER", "MAX_STACK_REQUEST", "Deadline", "Helpers", "Seen", "StackRequest", "analyze_state",
           "blind"]

MAX_STACK_REQUEST = 400 * 2**20  # pulumi_policy/policy.py _MAX_RPC_MESSAGE_SIZE: the pack's gRPC receive limit
_STACK_RESOURCES_TAG = b"\x0a"  # AnalyzeStackRequest.resources: field 1, length-delimited
_ANALYZE_STACK = "/pulumirpc.Analyzer/AnalyzeStack"  # the method's path (pulumi.runtime.proto.analyzer_pb2_grpc)


class Deadline:
    """The audit of one state file within `--timeout` seconds, reading included; what a timeout says."""

    def __init__(self, seconds: float, stack: str, label: str) -> None:
        self.seconds, self.stack, self.label = seconds, stack, label
        self.start = time.monotonic()
        self.end = self.start + seconds
        self.analysed = 0
        self.stream: StateStream | None = None
        self.read_all = False

    def remaining(self) -> float:
        """Seconds left; past the deadline, the ReviewFailed that says how far the audit got."""
        left = self.end - time.monotonic()
        if left <= 0:
            raise self.exceeded()
        return left

    def passed(self) -> bool:
        return time.monotonic() >= self.end

    def explain(self, failure: ReviewFailed) -> ReviewFailed:
        """A failure after the deadline (a call cut short, a pack that had no time to start) is the timeout."""
        return self.exceeded() if self.passed() else failure

    def exceeded(self) -> ReviewFailed:
        read = self.stream.read if self.stream else 0
        if self.read_all:
            done = f"{self.analysed:,} of {read:,} resources analysed"
            total = read
            if self.analysed == read:
                done = f"all {read:,} resources analysed, the stack policies (AnalyzeStack) had not answered"
        else:
            fraction = self.stream.fraction() if self.stream else 0.0
            total = round(read / fraction) if read and fraction else 0
            done = (f"{self.analysed:,} resources analysed of about {total:,} ({read:,} read, "
                    f"{fraction:.0%} of the file)" if total else f"{self.analysed:,} resources analysed")
        return ReviewFailed(f"the audit of {self.label} did not finish within {self.seconds:g}s: {done}; "
                            f"raise --timeout{self._hint(total)}")

    def _hint(self, total: int) -> str:
        if not self.analysed or not total:
            return ""
        elapsed = time.monotonic() - self.start
        needed = elapsed * total / self.analysed * 1.25
        return (f" (at this pace its resources need about --timeout {max(60, math.ceil(needed / 60) * 60)}, "
                "its stack policies more on top)")


@dataclasses.dataclass
class Seen:
    """What the audit keeps of the state's resources (not marked for deletion) once the packs have them."""

    records: list[ResourceRecord] = dataclasses.field(default_factory=list)  # inputs: NAME_INPUTS only, raw
    findings: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # urn, type, name
    plaintexts: set[str] = dataclasses.field(default_factory=set)
    encrypted: bool = False  # a secret the export left encrypted
    root: str = ""  # the root Stack resource's URN


@dataclasses.dataclass(frozen=True)
class Helpers:
    """More processes of one pack (amlkit's own) to share its Analyze calls (`analyze_state`): how many, and
    what starts one (a PackProcess that `analyze_state` closes once the Analyze calls are answered)."""

    count: int
    start: Callable[[], process.PackProcess]


HELPERS_AFTER = 2_000  # resources read before a pack's helpers start: a small state is not worth a process


class _Pack:
    """One pack's side of the conversation: its Analysis and its Analyze calls in flight, on its process and
    on its helpers once they run (round robin; answers are collected in the state's order all the same)."""

    def __init__(self, pack: process.PackProcess, analysis: diagnostics.Analysis, helpers: Helpers | None,
                 config: tuple[Any, str | None]) -> None:
        self.pack, self.analysis, self.helpers, self.config = pack, analysis, helpers, config
        self.workers = [pack]
        self.turn = 0
        self.remediates = any(entry.level == "remediate" for entry in analysis.config.values())
        self.pending: deque[tuple[process.PackProcess, Any, analyzer_pb2.AnalyzeRequest]] = deque()
        self.settled = 0  # resources whose Analyze answer is collected

    def worker(self) -> process.PackProcess:
        self.turn = (self.turn + 1) % len(self.workers)
        return self.workers[self.turn]


def analyze_state(packs: Sequence[process.PackProcess], configs: Sequence[tuple[Any, str | None]],
                  stream: StateStream, project: str, stack: str, deadline: Deadline, seen: Seen,
                  helpers: Sequence[Helpers | None] = ()) -> list[diagnostics.Analysis]:
    """Every pack over one state: the conversation's start, Remediate (reported) and Analyze per resource
    as the file is read, then AnalyzeStack, each call within what is left of the deadline (a failure past it
    is the timeout: `deadline.explain`). `seen` gets
    what the report needs of the resources (also when the audit fails: the warning about secrets).

    helpers: per pack, None or what starts more processes of it; once HELPERS_AFTER resources are read, they
    get the same conversation up to Configure and then a share of the Analyze calls (only for a pack whose
    policies are pure functions of each request, as amlkit's own: `pool.PackPool`). AnalyzeStack goes to
    the pack's own process, which the engine would send everything."""
    deadline.stream = stream
    sides = [_Pack(pack, _configure(pack, project, stack, config, name, deadline), extra, (config, name))
             for pack, (config, name), extra in zip(packs, configs, [*helpers] or [None] * len(packs), strict=True)]
    try:
        stack_request = _each_resource(sides, stream, deadline, seen, project, stack)
    finally:  # the helpers' part is over (or failed): their memory and CPU go back before AnalyzeStack
        for side in sides:
            for helper in side.workers[1:]:
                helper.close()
            del side.workers[1:]
    request = StackRequest(stack_request.getvalue(), len(sides))  # the buffer itself, not a copy
    stack_request.close()
    del stack_request
    for side in sides:
        _analyze_stack(side, request, seen, project, stack, deadline)
    return [side.analysis for side in sides]


class StackRequest:
    """The serialized AnalyzeStack request (never parsed and serialized again: `_send_stack`), held in one place: the
    last pack's call takes it (`take`), so it is freed once gRPC has sent it, while that pack still works on it (at
    100,000 resources, 150 MB here and as much again in gRPC's copy, during the pack's whole `AnalyzeStack`)."""

    def __init__(self, data: bytes, calls: int) -> None:
        self.size = len(data)
        self._data: bytes | None = data
        self._calls = calls

    def take(self) -> bytes:
        """The request for one call; the last call's take leaves no reference here."""
        data, self._calls = self._data, self._calls - 1
        if self._calls <= 0:
            self._data = None
        if data is None:
            raise RuntimeError("the AnalyzeStack request was taken by more calls than it was made for")
        return data


def _configure(pack: process.PackProcess, project: str, stack: str, config: Any, name: str | None,
               deadline: Deadline) -> diagnostics.Analysis:
    pack.timeout = deadline.remaining()
    session.handshake(pack)
    pack.timeout = deadline.remaining()
    pack.call("ConfigureStack", analyzer_pb2.AnalyzerStackConfigureRequest(
        stack=stack, project=project, organization="organization", dry_run=True,
        tags=wire.stack_tags(project)), "ConfigureStack")
    pack.timeout = deadline.remaining()
    return session.configure(pack, config, name)


def _each_resource(sides: list[_Pack], stream: StateStream, deadline: Deadline, seen: Seen, project: str,
                   stack: str) -> io.BytesIO:
    """Read the state, send each live resource to every pack, keep its AnalyzeStack entry (serialized)."""
    providers: dict[str, analyzer_pb2.AnalyzerProviderResource] = {}
    stack_request = io.BytesIO()  # getvalue() hands over its buffer without a copy (CPython's BytesIO)
    for number, resource in enumerate(stream.resources()):
        deadline.remaining()
        if number == HELPERS_AFTER:
            for side in sides:
                _start_helpers(side, project, stack, deadline)
        if resource.type.startswith("pulumi:providers:"):
            providers[resource.urn] = _provider(resource)
        if not seen.root and resource.type == STACK_TYPE and not resource.parent:
            seen.root = resource.urn
        if resource.pending_delete:
            continue
        secret_inputs, secret_outputs = _has_secret(resource.inputs), _has_secret(resource.outputs)
        _keep(seen, resource, secret_inputs or secret_outputs)
        request = _request(resource, _blind(resource.inputs) if secret_inputs else resource.inputs, providers)
        for side in sides:
            worker = side.worker()
            if side.remediates:
                worker.timeout = deadline.remaining()
                _remediations(worker, side.analysis, resource, request)
            side.pending.append((worker, worker.stub.Analyze.future(request, timeout=deadline.remaining()), request))
            while len(side.pending) > session.ANALYZE_WINDOW * len(side.workers):
                _settle(side, deadline)
        deadline.analysed = min(side.settled for side in sides)
        outputs = _blind(resource.outputs) if secret_outputs else resource.outputs
        entry = _stack_resource(resource, request, outputs).SerializeToString()
        stack_request.write(_STACK_RESOURCES_TAG + _varint(len(entry)) + entry)
    deadline.read_all = True
    for side in sides:
        while side.pending:
            _settle(side, deadline)
            deadline.analysed = min(side.settled for side in sides)
    return stack_request


def _start_helpers(side: _Pack, project: str, stack: str, deadline: Deadline) -> None:
    """The pack's helpers, each configured as the pack was (its Analysis is the same: the same pack and config)."""
    if side.helpers is None:
        return
    config, name = side.config
    for _ in range(side.helpers.count):
        helper = side.helpers.start()
        side.workers.append(helper)  # closed by analyze_state, whatever happens next
        _configure(helper, project, stack, config, name, deadline)


def _settle(side: _Pack, deadline: Deadline) -> None:
    """Collect the oldest Analyze in flight (answers are collected in the state's order)."""
    worker, future, request = side.pending.popleft()
    worker.timeout = max(deadline.end - time.monotonic(), 0.001)  # what a failure message names
    response = session.analyze_result(worker, future, request, side.analysis)
    diagnostics.collect(side.analysis, response, request.urn)
    side.settled += 1


def _keep(seen: Seen, resource: StateResource, secrets: bool) -> None:
    """What the report needs of the resource; `secrets`: whether its inputs or outputs hold one (most resources do
    not: then there is nothing to learn of secrets, and no walk of its values)."""
    values = (resource.inputs, resource.outputs)
    if secrets:
        seen.plaintexts.update(Secrets.from_inputs(values).plaintexts)
        seen.encrypted = seen.encrypted or _has_encrypted(values)
    names = {key: resource.inputs[key] for key in NAME_INPUTS if key in resource.inputs}
    seen.records.append(ResourceRecord(urn=resource.urn, type=resource.type, name=resource.name,
                                       parent=resource.parent, custom=resource.custom, inputs=names,
                                       options={"protect": resource.protect}))
    seen.findings.append({"urn": resource.urn, "type": resource.type, "name": resource.name})


def _provider(resource: StateResource) -> analyzer_pb2.AnalyzerProviderResource:
    return analyzer_pb2.AnalyzerProviderResource(type=resource.type, urn=resource.urn, name=resource.name,
                                                 properties=wire.to_struct(blind(resource.inputs)))


def _request(resource: StateResource, properties: dict[str, Any],
             providers: dict[str, analyzer_pb2.AnalyzerProviderResource]) -> analyzer_pb2.AnalyzeRequest:
    """The engine's AnalyzerResource of a state resource (`stateToAnalyzerResource`). Its provider: one read
    before it (the engine writes a provider before the resources that use it, and refuses a state where
    it does not: pulumi/pulumi pkg/resource/deploy/snapshot.go, VerifyIntegrity)."""
    pb = analyzer_pb2
    request = pb.AnalyzeRequest(
        type=resource.type, properties=wire.to_struct(properties), urn=resource.urn, name=resource.name,
        options=pb.AnalyzerResourceOptions(
            protect=resource.protect, ignoreChanges=list(resource.ignore_changes),
            additionalSecretOutputs=list(resource.additional_secret_outputs), aliases=list(resource.aliases),
            parent=resource.parent or ""),
    )
    provider = providers.get(resource.provider.rsplit("::", 1)[0]) if resource.provider else None
    if provider is not None:
        request.provider.CopyFrom(provider)
    return request


def _stack_resource(resource: StateResource, request: analyzer_pb2.AnalyzeRequest,
                    outputs: dict[str, Any]) -> analyzer_pb2.AnalyzerResource:
    """The resource as AnalyzeStack gets it: its state outputs (`blind`), parent, dependencies, property
    dependencies."""
    message = analyzer_pb2.AnalyzerResource(
        type=request.type, properties=wire.to_struct(outputs), urn=request.urn,
        name=request.name, options=request.options, parent=resource.parent or "",
        dependencies=list(resource.dependencies))
    if request.HasField("provider"):
        message.provider.CopyFrom(request.provider)
    for key, urns in resource.property_dependencies.items():
        message.propertyDependencies[key].urns.extend(urns)
    return message


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _remediations(pack: process.PackProcess, analysis: diagnostics.Analysis, resource: StateResource,
                  request: analyzer_pb2.AnalyzeRequest) -> None:
    """What the pack would remediate on a resource: reported as advisory findings, never applied."""
    response = pack.call("Remediate", request, f"Remediate of {resource.urn}")
    severities = diagnostics.policy_severities(analysis)
    before = json_format.MessageToDict(request.properties)
    for remediation in response.remediations:
        severity = severities.get(remediation.policyName, "unspecified")
        if remediation.diagnostic:
            message = remediation.diagnostic
        elif remediation.HasField("properties"):
            after = json_format.MessageToDict(remediation.properties)
            changed = sorted(key for key in {*before, *after} if before.get(key) != after.get(key))
            if not changed:
                continue
            message = (f"would remediate {', '.join(changed)} (reported, not applied: an audit never changes a "
                       "deployed resource)")
        else:
            continue
        analysis.diagnostics.append(diagnostics.Diagnostic(remediation.policyName, "advisory", severity, resource.urn,
                                                      message))


def _analyze_stack(side: _Pack, stack_request: StackRequest, seen: Seen, project: str, stack: str,
                   deadline: Deadline) -> None:
    analysis = side.analysis
    first = len(analysis.diagnostics)
    if stack_request.size > MAX_STACK_REQUEST:
        size = stack_request.size / 2**20
        raise ReviewFailed(f"the stack policies' AnalyzeStack request is {size:,.1f} MiB, over the "
                           f"{MAX_STACK_REQUEST / 2**20:,.1f} MiB a Python policy pack accepts (pulumi-policy's "
                           "_MAX_RPC_MESSAGE_SIZE; `pulumi policy analyze` cannot send it either)")
    side.pack.timeout = deadline.remaining()
    diagnostics.collect(analysis, _send_stack(side.pack, stack_request), "")
    known = {record.urn for record in seen.records}
    root = seen.root or stack_urn(project, stack)
    analysis.diagnostics[first:] = [d if d.urn in known else dataclasses.replace(d, urn=root)
                                    for d in analysis.diagnostics[first:]]


def _send_stack(pack: process.PackProcess, request: StackRequest) -> analyzer_pb2.AnalyzeResponse:
    """AnalyzeStack with its request as serialized: the bytes the stub would send (`AnalyzerStub.AnalyzeStack`),
    without parsing them into a message and serializing it again (at 100,000 resources those two copies were ~40%
    of amlkit's peak memory).

    The call goes out as a client stream of that one message: on the wire the same call (the method's path, the
    message, then the end of the stream; gRPC does not tell the server how the client made it), but gRPC
    completes sending the message before the answer, and drops its copy and this request's then (a unary call
    holds both until the answer arrives)."""
    stub = pack.stub  # connected
    assert pack.channel is not None and stub is not None
    call: grpc.StreamUnaryMultiCallable[bytes, analyzer_pb2.AnalyzeResponse] = pack.channel.stream_unary(
        _ANALYZE_STACK, request_serializer=None, response_deserializer=analyzer_pb2.AnalyzeResponse.FromString)
    try:
        return call(_one(request), timeout=pack.timeout)
    except grpc.RpcError as error:
        raise pack.failure(error, "AnalyzeStack") from None


def _one(request: StackRequest) -> Iterator[bytes]:
    yield request.take()  # not kept in this frame once yielded


def blind(value: Any) -> Any:
    """State values for the packs: a secret amlkit cannot decrypt becomes the string `[secret]` (still a
    secret), whatever its type, as `pulumi policy analyze` redacts it. A value without secrets is returned as it
    is (not copied)."""
    return _blind(value) if _has_secret(value) else value


def _has_secret(value: Any) -> bool:
    if isinstance(value, dict):
        if value.get(SECRET_SIG_KEY) == SECRET_SIG:
            return True
        for item in value.values():
            if _has_secret(item):
                return True
    elif isinstance(value, (list, tuple)):
        for item in value:
            if _has_secret(item):
                return True
    return False


def _blind(value: Any) -> Any:
    if is_secret(value):
        inner = value.get("value")
        return {SECRET_SIG_KEY: SECRET_SIG, "value": REDACTED if inner == ENCRYPTED else _blind(inner)}
    if isinstance(value, dict):
        return {key: _blind(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_blind(item) for item in value]
    return value


def _has_encrypted(values: Iterable[Any]) -> bool:
    def walk(value: Any) -> bool:
        if is_secret(value):
            return value.get("value") == ENCRYPTED or walk(value.get("value"))
        if isinstance(value, dict):
            return any(walk(item) for item in value.values())
        if isinstance(value, list):
            return any(walk(item) for item in value)
        return False

    return any(walk(value) for value in values)
