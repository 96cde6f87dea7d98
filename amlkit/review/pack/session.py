"""The engine's conversation with a policy pack for one stack, over the analyzer gRPC protocol.

Calls follow the engine's order: Handshake (UNIMPLEMENTED in pulumi-policy 1.21: tolerated),
ConfigureStack, GetAnalyzerInfo, Configure (the fully reconciled config), Analyze per resource, one
AnalyzeStack. Every call has a deadline; every failure is a ReviewFailed. What one stack tells its
packs is one `SessionParams`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from amlkit.policies.framework import PACK_NAME
from amlkit.policies.rule_baseline import BASELINE_POLICY
from amlkit.policies.secret_reads import BY_VALUE_NOTE
from amlkit.review.pack.config import PolicyConfig
from amlkit.review.pack.diagnostics import Analysis, collect
from amlkit.review.pack.info import pack_version
from amlkit.review.pack.levels import at_baseline
from amlkit.review.pack.process import ENGINE_ADDRESS, PackProcess
from amlkit.review.pack.proto import analyzer_pb2
from amlkit.review.pack.reconciled import reconciled
from amlkit.review.pack.wire import analyze_request, policy_config_message, stack_resource, stack_tags

__all__ = [
    "ANALYZE_WINDOW", "Session", "SessionParams", "analyze_result", "configure", "find_failing_policy", "handshake",
]

ANALYZE_WINDOW = 16  # Analyze calls in flight at once (the pack serves 4 threads)


@dataclass(frozen=True)
class SessionParams:
    """What one stack's review tells each of its packs: the stack (ConfigureStack, and a new pack process's
    PULUMI_PROJECT / PULUMI_STACK / PULUMI_CONFIG) and how it waits on them (each call's deadline, and
    whether a failure shows the end of the pack's stderr)."""

    project: str
    stack: str
    stack_config: dict[str, str]  # the stack's config values, secrets decrypted (ConfigureStack's `config`)
    secret_keys: tuple[str, ...]  # the keys of its secret values
    timeout: float  # seconds, per call
    verbose: bool = False

    def start(self, pack_dir: Path) -> PackProcess:
        """A new pack process for this stack."""
        return PackProcess(pack_dir, self.project, self.stack, self.stack_config, self.timeout, self.verbose)


class Session:
    """The engine's conversation with a pack for one stack, fed resource by resource.

    Opening it runs Handshake, ConfigureStack, GetAnalyzerInfo and Configure (with `config_file`, the
    pack's `--policy-pack-config` read from `config_file_name`, or None for its defaults); `submit` sends
    Analyze for each registration as it arrives (a window of calls in flight); `finish` collects the
    answers in the given resource order and sends the one AnalyzeStack.
    """

    def __init__(self, pack: PackProcess, params: SessionParams, config_file: dict[str, PolicyConfig] | None = None,
                 config_file_name: str | None = None) -> None:
        self.pack, self.project, self.stack = pack, params.project, params.stack
        if not pack.handshaken:
            handshake(pack)
        pack.call("ConfigureStack", analyzer_pb2.AnalyzerStackConfigureRequest(
            stack=params.stack, project=params.project, organization="organization", dry_run=True,
            config=params.stack_config, config_secret_keys=list(params.secret_keys), tags=stack_tags(params.project),
        ), "ConfigureStack")
        self.analysis = configure(pack, config_file, config_file_name)
        self.by_urn: dict[str, dict[str, Any]] = {}
        self.requests: dict[str, analyzer_pb2.AnalyzeRequest] = {}
        self.responses: dict[str, analyzer_pb2.AnalyzeResponse] = {}
        self.pending: deque[tuple[Any, analyzer_pb2.AnalyzeRequest]] = deque()

    def submit(self, resource: dict[str, Any]) -> None:
        self.by_urn[resource["urn"]] = resource
        request = analyze_request(resource, self.by_urn, self.stack, self.project)
        self.requests[request.urn] = request
        self.pending.append((self.pack.stub.Analyze.future(request, timeout=self.pack.timeout), request))
        while len(self.pending) > ANALYZE_WINDOW:
            self._settle()

    def _settle(self) -> None:
        future, request = self.pending.popleft()
        self.responses[request.urn] = analyze_result(self.pack, future, request, self.analysis)

    def finish(self, resources: Sequence[dict[str, Any]]) -> Analysis:
        while self.pending:
            self._settle()
        for resource in resources:
            collect(self.analysis, self.responses[resource["urn"]], resource["urn"])
        stack_request = analyzer_pb2.AnalyzeStackRequest(
            resources=[stack_resource(r, self.requests[r["urn"]]) for r in resources])
        collect(self.analysis, self.pack.call("AnalyzeStack", stack_request, "AnalyzeStack"), "")
        return self.analysis


def handshake(pack: PackProcess) -> None:
    request = analyzer_pb2.AnalyzerHandshakeRequest(
        engine_address=ENGINE_ADDRESS, root_directory=str(pack.pack_dir), program_directory=str(pack.pack_dir))
    try:
        pack.stub.Handshake(request, timeout=pack.timeout)
    except grpc.RpcError as error:
        if error.code() != grpc.StatusCode.UNIMPLEMENTED:
            raise pack.failure(error, "Handshake") from None
    pack.handshaken = True


def configure(pack: PackProcess, config_file: dict[str, PolicyConfig] | None,
              config_file_name: str | None) -> Analysis:
    """GetAnalyzerInfo, reconcile the config once per file as the engine does, and Configure with ALL of it. The
    analysis keeps the levels the pack then runs with (its rule baseline applied: `levels.at_baseline`)."""
    info = pack.analyzer_info()
    policies = list(info.policies)
    info_bytes, (schemas, initial) = info.SerializeToString(deterministic=True), pack.schemas()
    config = reconciled(info_bytes, schemas, initial, config_file, config_file_name)
    runs_with, by_value = config, False
    if info.name == PACK_NAME:
        by_value = any(p.name == BASELINE_POLICY and p.description.endswith(BY_VALUE_NOTE) for p in policies)
        policies = [p for p in policies if p.name != BASELINE_POLICY]  # config, not a rule
        runs_with = at_baseline(config, policies, schemas, config_file_name)  # the levels reports show
    request = analyzer_pb2.ConfigureAnalyzerRequest()
    for name, entry in config.items():
        request.policyConfig[name].CopyFrom(policy_config_message(entry))
    pack.call("Configure", request, "Configure")
    return Analysis(info.name, pack_version(pack.pack_dir, info.version), policies, runs_with,
                    reported_version=info.version, by_value=by_value)


def analyze_result(pack: PackProcess, future: Any, request: analyzer_pb2.AnalyzeRequest, analysis: Analysis) -> Any:
    """The answer of an Analyze call in flight; a failure is a ReviewFailed naming the policy that raised."""
    try:
        return future.result()
    except grpc.RpcError as error:
        culprit = None
        if error.code() == grpc.StatusCode.UNKNOWN and pack.process.poll() is None:
            culprit = find_failing_policy(pack, request, analysis)
        raise pack.failure(error, f"Analyze of {request.urn}", culprit) from None


def find_failing_policy(pack: PackProcess, request: analyzer_pb2.AnalyzeRequest, analysis: Analysis) -> str | None:
    """Re-run the failed Analyze with one policy enabled at a time to name the one that raises."""
    enabled = [n for n, c in analysis.config.items() if c.level not in ("disabled", "") and
               n in {p.name for p in analysis.policies}]
    for name in enabled:
        request_config = analyzer_pb2.ConfigureAnalyzerRequest()
        for other, entry in analysis.config.items():
            level = entry.level if other == name else "disabled"
            request_config.policyConfig[other].CopyFrom(policy_config_message(PolicyConfig(level, entry.properties)))
        try:
            pack.stub.Configure(request_config, timeout=pack.timeout)
            pack.stub.Analyze(request, timeout=pack.timeout)
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.UNKNOWN:
                return name
            return None
    return None
