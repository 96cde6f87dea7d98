"""The start-up canary: pulumi-policy's "cannot tell" must still read as *unknown*, or the review fails.

pulumi-policy says a policy could not run on a value unknown at preview only in the text of an advisory
diagnostic ("can't run policy '<name>' from policy pack ... during preview: ..."); the protocol has no
field for it, so `amlkit.review.pack.diagnostics.is_unknown` recognises the wording. If a pulumi-policy release
rewords it, every unknown would silently become an advisory finding. So before any stack is reviewed,
the installed pulumi-policy's own servicer (in process: no gRPC server, channel or thread, so the review's
parent stays safe to start children) analyzes one resource whose only property is unknown, with one
resource policy and one stack policy that read it; each diagnostic must classify as unknown. Otherwise the
review fails (exit 3) and says what pulumi-policy now sends.

It runs where pulumi is already imported: in this process when it imported pulumi-policy already (the library, the
tests), else in a child of the review's fork server (amlkit.review.proc.warm; the server has imported pulumi
before it forks anything), started beside the first stack's children (`start`) and read when the review is about
to return (`check_unknowns`). A one-stack CLI review's parent then never imports pulumi (its side of the protocol
needs only the protobufs, amlkit.review.pack.proto). A child that fails, or answers anything but the canary's
answer, fails the review, as a canary that cannot run in process does.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import threading
from importlib import metadata
from typing import Any

from amlkit.errors import ReviewFailed

__all__ = ["CHILD_TIMEOUT", "POLICIES", "check_unknowns", "child_answer", "main", "start", "unknown_canary"]

POLICIES = ("amlkit-canary-resource", "amlkit-canary-stack")
CHILD_TIMEOUT = 120.0  # seconds for the canary's child to answer (it runs in ~20 ms)
_LOCK = threading.Lock()
_CHILD: list[Any] = []  # the canary's child (a warm.WarmChild), once started


@functools.cache
def unknown_canary() -> str | None:
    """None when both of pulumi-policy's "cannot tell" diagnostics classify as unknown; else why not."""
    from google.protobuf import struct_pb2
    from pulumi.runtime import rpc
    from pulumi.runtime.proto import analyzer_pb2
    from pulumi_policy import EnforcementLevel, ResourceValidationPolicy, StackValidationPolicy
    from pulumi_policy.policy import _PolicyAnalyzerServicer

    from amlkit.review.pack.diagnostics import is_unknown

    def read_resource(args: Any, report: Any) -> None:
        report(f"decided on {args.props['value']}")  # reading the unknown raises pulumi-policy's UnknownValueError

    def read_stack(args: Any, report: Any) -> None:
        for resource in args.resources:
            report(f"decided on {resource.props['value']}")

    policies = [
        ResourceValidationPolicy(name=POLICIES[0], description="canary", validate=read_resource,
                                 enforcement_level=EnforcementLevel.MANDATORY),
        StackValidationPolicy(name=POLICIES[1], description="canary", validate=read_stack,
                              enforcement_level=EnforcementLevel.MANDATORY),
    ]
    try:
        servicer = _PolicyAnalyzerServicer("amlkit-canary", "0.0.1", policies, EnforcementLevel.MANDATORY)
        properties = struct_pb2.Struct()
        properties.update({"value": rpc.UNKNOWN})
        type_, name = "amlkit:canary:Resource", "canary"
        urn = f"urn:pulumi:canary::canary::{type_}::{name}"
        analyze: Any = servicer.Analyze  # pulumi-policy's servicer methods are untyped
        analyze_stack: Any = servicer.AnalyzeStack
        diagnostics = [
            *analyze(analyzer_pb2.AnalyzeRequest(type=type_, name=name, urn=urn, properties=properties),
                     None).diagnostics,
            *analyze_stack(analyzer_pb2.AnalyzeStackRequest(resources=[analyzer_pb2.AnalyzerResource(
                type=type_, name=name, urn=urn, properties=properties)]), None).diagnostics,
        ]
    except Exception as error:  # fail closed: a canary that cannot run proves nothing
        return f"{_version()}: the canary could not run ({type(error).__name__}: {error})"
    problems = [f"'{d.policyName}' sent {d.message!r}" for d in diagnostics if not is_unknown(d)]
    missing = sorted(set(POLICIES) - {d.policyName for d in diagnostics})
    problems += [f"'{name}' sent no diagnostic" for name in missing]
    if not problems:
        return None
    return (f"{_version()} no longer says \"can't run policy ... during preview\" for a value unknown at "
            f"preview ({'; '.join(problems)}); amlkit would report unknowns as findings")


def check_unknowns() -> None:
    """Raise ReviewFailed (exit 3) when the canary fails."""
    reason = unknown_canary() if _in_process() else _from_child()
    if reason is not None:
        raise ReviewFailed(f"start-up canary: {reason}")


def start() -> None:
    """Fork the canary's child now (once per process), unless it runs in process (see the module doc)."""
    if _in_process():
        return
    with _LOCK:
        if not _CHILD:
            from amlkit.review.proc import warm

            _CHILD.append(warm.spawn_canary())


def _in_process() -> bool:
    return "pulumi_policy" in sys.modules


@functools.cache
def _from_child() -> str | None:
    start()
    child = _CHILD[0]
    try:
        code = child.wait(timeout=CHILD_TIMEOUT)
    except subprocess.TimeoutExpired:
        code = None
    from amlkit.review.proc import processes

    out = child.stdout.read() if code is not None else b""
    err = child.stderr.read() if code is not None else b""
    processes.kill(child)
    return child_answer(code, out, err)


def child_answer(code: int | None, out: bytes, err: bytes) -> str | None:
    """What the canary's child said (`main`'s one JSON line on stdout, exit code 0), or why it said nothing usable."""
    if code == 0:
        try:
            answer = json.loads(out)
        except ValueError:
            answer = None
        if isinstance(answer, dict) and set(answer) == {"reason"} and isinstance(answer["reason"], (str, type(None))):
            return answer["reason"]
    lines = [line.strip() for line in err.decode(errors="replace").splitlines() if line.strip()]
    said = lines[-1] if lines else f"stdout {out[:200]!r}"
    what = f"did not answer within {CHILD_TIMEOUT:g}s" if code is None else f"exit code {code}: {said}"
    return f"{_version()}: the canary could not run (its process: {what})"


def main() -> int:
    """The canary's child (`python -m amlkit.review.pack.canary`, forked by amlkit.review.proc.warm): print
    `{"reason": unknown_canary()}` as one JSON line."""
    print(json.dumps({"reason": unknown_canary()}))
    return 0


def _version() -> str:
    try:
        return f"pulumi-policy {metadata.version('pulumi-policy')}"
    except metadata.PackageNotFoundError:
        return "pulumi-policy (not installed)"


if __name__ == "__main__":  # pragma: no cover - run as a fork server's child (amlkit.review.children.fork_server)
    sys.exit(main())
