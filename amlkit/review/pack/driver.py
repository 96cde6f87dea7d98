"""Drive a CrossGuard policy pack over the analyzer gRPC protocol, as the Pulumi engine does.

The pack runs as `python -u -m pulumi.policy <engine-address> <pack-dir>` (cwd = pack dir) with
PULUMI_PROJECT, PULUMI_STACK, PULUMI_DRY_RUN=true and PULUMI_CONFIG set; its first stdout line is
its port. Calls follow the engine's order: Handshake (UNIMPLEMENTED in pulumi-policy 1.21:
tolerated), ConfigureStack, GetAnalyzerInfo, Configure (the fully reconciled config), Analyze per
resource, one AnalyzeStack. Every call has a deadline; every failure is a ReviewFailed.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import json
import subprocess
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import grpc
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc

from amlkit.errors import ReviewFailed
from amlkit.policies.framework import PACK_NAME
from amlkit.policies.rule_baseline import BASELINE_POLICY
from amlkit.policies.secret_reads import BY_VALUE_NOTE
from amlkit.review.model import Severity
from amlkit.review.pack.config import PolicyConfig, PolicySchema
from amlkit.review.pack.info import pack_version
from amlkit.review.pack.reconciled import reconciled
from amlkit.review.proc import environment, processes, warm
from amlkit.review.urns import alias_urns

__all__ = [
    "ANALYZE_WINDOW", "Analysis", "Diagnostic", "ENGINE_ADDRESS", "MAX_ENV_VALUE", "NotApplicable", "PackPool",
    "PackProcess", "Session", "VERBOSE_STDERR_LINES", "analyze_request", "analyze_result", "collect", "config_env",
    "configure", "default_provider_name", "find_failing_policy", "handshake", "initial_config", "is_unknown",
    "one_version", "policy_config_message", "policy_schema", "policy_severities", "provider_resource",
    "reported_text", "resource_options", "severity_name", "stack_resource", "stack_tags", "to_struct",
]

ENGINE_ADDRESS = "127.0.0.1:0"  # pulumi.policy accepts it and never dials it
ANALYZE_WINDOW = 16  # Analyze calls in flight at once (the pack serves 4 threads)
VERBOSE_STDERR_LINES = 20  # the end of a failed pack's stderr that --verbose shows

_LEVEL_NAMES = {analyzer_pb2.ADVISORY: "advisory", analyzer_pb2.MANDATORY: "mandatory",
                analyzer_pb2.DISABLED: "disabled", analyzer_pb2.REMEDIATE: "remediate"}
_LEVEL_VALUES = {name: value for value, name in _LEVEL_NAMES.items()}
_SEVERITY_NAMES: dict[int, Severity] = {
    analyzer_pb2.POLICY_SEVERITY_LOW: "low", analyzer_pb2.POLICY_SEVERITY_MEDIUM: "medium",
    analyzer_pb2.POLICY_SEVERITY_HIGH: "high", analyzer_pb2.POLICY_SEVERITY_CRITICAL: "critical"}


@dataclass(frozen=True)
class Diagnostic:
    """A pack's answer about one resource (or the stack), before it becomes a Violation/Unknown."""

    policy: str
    level: str  # mandatory | advisory
    severity: Severity
    urn: str  # empty for stack-level findings without a resource
    message: str  # the reported text only (description prefix removed)
    unknown: bool = False


@dataclass(frozen=True)
class NotApplicable:
    policy: str
    urn: str  # the analyzed resource ("" for AnalyzeStack)
    reason: str


@dataclass
class Analysis:
    pack_name: str
    pack_version: str
    policies: list[analyzer_pb2.PolicyInfo]
    config: dict[str, PolicyConfig]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    not_applicable: list[NotApplicable] = field(default_factory=list)
    reported_version: str = ""  # what the pack says of itself (pulumi-policy's Python packs: 0.0.1)
    by_value: bool = False  # amlkit's own pack confirmed it redacts secrets by value (policies.secret_reads)
    remediations: list[Any] = field(default_factory=list)  # remediate.Remediated answers, in the order made


MAX_ENV_VALUE = 120_000  # Linux refuses a single environment string over 128 KiB (MAX_ARG_STRLEN)
_CHANNEL = [("grpc.max_receive_message_length", 400 * 2**20)]  # the engine's (pulumi sdk/go/common/util/rpcutil)


def config_env(config: dict[str, str]) -> str:
    """PULUMI_CONFIG for the pack. Values that would not fit the environment are left out of it
    (largest first); ConfigureStack still carries the whole stack config."""
    kept = dict(config)
    text = json.dumps(kept)
    for key in sorted(config, key=lambda k: len(config[k]), reverse=True):
        if len(text) <= MAX_ENV_VALUE:
            break
        del kept[key]
        text = json.dumps(kept)
    return text


class PackProcess:
    """One running policy pack. Use as a context manager: the process group dies on exit.

    Both of its output streams are read for its whole life (processes.Drain), so a pack that logs can
    never block on a full pipe; the end of its stderr goes into every failure it causes (the last line;
    the last VERBOSE_STDERR_LINES with `verbose`).
    """

    def __init__(self, pack_dir: Path, project: str, stack: str, config: dict[str, str], timeout: float,
                 verbose: bool = False) -> None:
        self.pack_dir = pack_dir
        self.timeout = timeout
        self.verbose = verbose
        env = dict(PULUMI_PROJECT=project, PULUMI_STACK=stack, PULUMI_DRY_RUN="true",
                   PULUMI_CONFIG=config_env(config), PYTHONUNBUFFERED="1")
        # `python -u -m pulumi.policy <engine> <pack dir>` (cwd = pack dir), forked warm
        self.started_in = environment.state()  # reused only in the same (amlkit.review.proc.environment)
        self.process = warm.spawn_pack(pack_dir, ENGINE_ADDRESS, env)
        # the drains own the streams from here on (kill() must not close them under the readers)
        self.stdout = processes.Drain(self.process.stdout, f"pack {self.process.pid} stdout")
        self.stderr = processes.Drain(self.process.stderr, f"pack {self.process.pid} stderr")
        self.process.stdout = self.process.stderr = None
        self.channel: grpc.Channel | None = None
        self._stub: analyzer_pb2_grpc.AnalyzerStub | None = None
        self.handshaken = False  # the engine sends Handshake once per plugin process
        self._info: analyzer_pb2.AnalyzerInfo | None = None

    def analyzer_info(self) -> analyzer_pb2.AnalyzerInfo:
        """GetAnalyzerInfo, asked once per process (a pack's policies and schemas do not change while it runs)."""
        if self._info is None:
            self._info = self.call("GetAnalyzerInfo", empty_pb2.Empty(), "GetAnalyzerInfo")
        return self._info

    def schemas(self) -> tuple[list[PolicySchema], dict[str, PolicyConfig]]:
        """What reconciliation reads of GetAnalyzerInfo: each policy's schema and the pack's initial config.
        Converted from protobuf once per distinct answer (MessageToDict of 31 schemas takes ~50 ms)."""
        schemas, initial = _schemas(self.analyzer_info().SerializeToString(deterministic=True))
        return list(schemas), {name: PolicyConfig(entry.level, copy.deepcopy(entry.properties))
                               for name, entry in initial.items()}

    def __enter__(self) -> PackProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.channel is not None:
            self.channel.close()
        processes.kill(self.process)

    @property
    def stub(self) -> analyzer_pb2_grpc.AnalyzerStub:
        if self._stub is None:
            port = self._read_port()
            self.channel = grpc.insecure_channel(f"127.0.0.1:{port}", _CHANNEL)
            self._stub = analyzer_pb2_grpc.AnalyzerStub(self.channel)
        return self._stub

    def _read_port(self) -> int:
        """The first stdout line, within the deadline; a pack that exits or stays silent fails closed."""
        deadline = time.monotonic() + self.timeout
        line = self.stdout.first_line(min(1.0, self.timeout))
        while line is None and not self.stdout.ended() and time.monotonic() < deadline:
            if processes.cancelled():  # Ctrl-C: the pack is being killed, stop waiting for it
                raise ReviewFailed(f"policy pack {self.pack_dir}: stopped before it started")
            line = self.stdout.first_line(min(1.0, max(0.0, deadline - time.monotonic())))
        if line is None and not self.stdout.ended():
            raise ReviewFailed(f"policy pack {self.pack_dir}: did not print its port within {self.timeout:g}s "
                               f"(is __main__.py building a PolicyPack?){self._stderr_note()}")
        if line is None:
            raise ReviewFailed(f"policy pack {self.pack_dir}: exited before it started "
                               f"(exit code {self._exit_code()}): {self.stderr_tail()}{self._verbose_tail()}")
        line = line.strip()
        if not line.isdigit():
            raise ReviewFailed(f"policy pack {self.pack_dir}: expected its port as the first line, got "
                               f"{line[:80]!r}{self._stderr_note()}")
        return int(line)

    def _exit_code(self) -> int | None:
        try:
            return self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return None

    def stderr_tail(self) -> str:
        """The pack's last meaningful stderr line (the exception line of a traceback), once it has exited."""
        self._exit_code()
        lines = self.stderr.tail_lines(1, timeout=1)
        return lines[-1].strip() if lines else "(no output)"

    def _stderr_note(self) -> str:
        """For a pack still running: its last stderr line so far (all of the tail with `verbose`)."""
        lines = self.stderr.tail_lines(1)
        note = f"; its stderr ends: {lines[-1].strip()}" if lines else ""
        return note + self._verbose_tail()

    def _verbose_tail(self) -> str:
        if not self.verbose:
            return ""
        lines = self.stderr.tail_lines(VERBOSE_STDERR_LINES)
        if not lines:
            return "\npack stderr: (no output)"
        return f"\npack stderr (last {len(lines)} lines):\n" + "\n".join(lines)

    def call(self, method: str, request: Any, what: str) -> Any:
        """One unary RPC with the per-call deadline; failures become ReviewFailed naming the call."""
        try:
            return getattr(self.stub, method)(request, timeout=self.timeout)
        except grpc.RpcError as error:
            raise self.failure(error, what) from None

    def failure(self, error: grpc.RpcError, what: str, culprit: str | None = None) -> ReviewFailed:
        """What a failed call means; `culprit`: the policy found to raise (see find_failing_policy)."""
        code = error.code()
        if code == grpc.StatusCode.DEADLINE_EXCEEDED:
            return ReviewFailed(f"policy pack {self.pack_dir}: {what} did not answer within {self.timeout:g}s"
                                f"{self._stderr_note()}")
        if self.process.poll() is not None or code == grpc.StatusCode.UNAVAILABLE:
            return ReviewFailed(f"policy pack {self.pack_dir}: exited during {what} "
                                f"(exit code {self.process.poll()}): {self.stderr_tail()}{self._verbose_tail()}")
        details = (error.details() or "").removeprefix("Exception calling application: ")
        blame = f": policy '{culprit}' raised an error" if culprit else ""
        return ReviewFailed(f"policy pack {self.pack_dir}: {what} failed: {details}{blame}{self._verbose_tail()}")


class PackPool:
    """Pack processes reused across stacks, and across the reviews of one process: one per worker.

    A stack takes an idle pack (or starts one) with `pack()`, and gives it back when its conversation
    ended cleanly; each stack sends its own ConfigureStack and Configure (the whole reconciled config),
    so a reused pack answers as a fresh one would (tests/review/test_pack_reuse.py). A pack whose stack
    failed in any way (the pack crashed or hung, the program failed mid-way with Analyze calls in flight,
    find_failing_policy reconfigured it) is killed, never reused: the next stack starts a new one, so a
    crash fails only its own stack. At most `keep` packs wait idle; they die with the process (their
    fork server dies at exit, amlkit.review.proc.warm, and every child with it).

    Only amlkit's own pack is reused (`shared`): its rules are pure functions of (type, inputs, config)
    and read nothing of the process's PULUMI_PROJECT / PULUMI_STACK / PULUMI_CONFIG, which a process
    keeps from the stack it was started for. Another pack may read them (pulumi.get_stack(),
    pulumi.Config()), so it gets a fresh process per stack (`PackPool(dir, reuse=False)`), as
    `pulumi preview` gives it.
    """

    _shared: dict[Path, PackPool] = {}
    _shared_lock = threading.Lock()

    def __init__(self, pack_dir: Path, reuse: bool, keep: int = 1) -> None:
        self.pack_dir, self.reuse, self.keep = pack_dir, reuse, keep
        self._idle: list[PackProcess] = []
        self._lock = threading.Lock()
        self.started = 0  # packs started (for tests)

    @classmethod
    def shared(cls, pack_dir: Path, keep: int) -> PackPool:
        """This process's pool of reused packs of `pack_dir` (keeping at most `keep` idle, the largest asked)."""
        with cls._shared_lock:
            pool = cls._shared.setdefault(pack_dir, cls(pack_dir, reuse=True, keep=keep))
            pool.keep = max(pool.keep, keep)
            return pool

    @contextlib.contextmanager
    def pack(self, project: str, stack: str, config: dict[str, str], timeout: float,
             verbose: bool) -> Iterator[PackProcess]:
        """A pack for one stack: an idle one when reuse is on and one is alive, else a new one."""
        pack = self._take()
        if pack is None:
            pack = PackProcess(self.pack_dir, project, stack, config, timeout, verbose)
            with self._lock:
                self.started += 1
        pack.timeout, pack.verbose = timeout, verbose  # this review's
        clean = False
        try:
            yield pack
            clean = True
        finally:
            if not (clean and self.reuse and pack.process.poll() is None and self._give_back(pack)):
                pack.close()

    def _give_back(self, pack: PackProcess) -> bool:
        with self._lock:
            if len(self._idle) >= self.keep:
                return False
            self._idle.append(pack)
            return True

    def _take(self) -> PackProcess | None:
        if not self.reuse:
            return None
        while True:
            with self._lock:
                if not self._idle:
                    return None
                pack = self._idle.pop()
            if pack.process.poll() is None and pack.started_in == environment.state():
                return pack
            pack.close()  # died while idle, or started in another environment, umask or time zone

    @classmethod
    def shared_idle_pids(cls) -> list[int]:
        """The process ids of this process's reused packs waiting idle (for measurements and tests)."""
        with cls._shared_lock:
            pools = list(cls._shared.values())
        pids = []
        for pool in pools:
            with pool._lock:
                pids += [pack.process.pid for pack in pool._idle]
        return pids

    def close(self) -> None:
        """Stop the idle packs."""
        with self._lock:
            idle, self._idle = self._idle, []
        for pack in idle:
            pack.close()


class Session:
    """The engine's conversation with a pack for one stack, fed resource by resource.

    Opening it runs Handshake, ConfigureStack, GetAnalyzerInfo and Configure; `submit` sends Analyze
    for each registration as it arrives (a window of calls in flight); `finish` collects the answers
    in the given resource order and sends the one AnalyzeStack.
    """

    def __init__(self, pack: PackProcess, project: str, stack: str, config_file: dict[str, PolicyConfig] | None,
                 config_file_name: str | None, stack_config: dict[str, str], secret_keys: Sequence[str]) -> None:
        self.pack, self.project, self.stack = pack, project, stack
        if not pack.handshaken:
            handshake(pack)
        pack.call("ConfigureStack", analyzer_pb2.AnalyzerStackConfigureRequest(
            stack=stack, project=project, organization="organization", dry_run=True,
            config=stack_config, config_secret_keys=list(secret_keys), tags=stack_tags(project),
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


def stack_tags(project: str) -> dict[str, str]:
    return {"pulumi:project": project, "pulumi:runtime": "python"}


def configure(pack: PackProcess, config_file: dict[str, PolicyConfig] | None,
              config_file_name: str | None) -> Analysis:
    """GetAnalyzerInfo, reconcile the config once per file as the engine does, and Configure with ALL of it."""
    info = pack.analyzer_info()
    policies = list(info.policies)
    info_bytes, (schemas, initial) = info.SerializeToString(deterministic=True), pack.schemas()
    config = reconciled(info_bytes, schemas, initial, config_file, config_file_name, info.name == PACK_NAME)
    by_value = False
    if info.name == PACK_NAME:
        by_value = any(p.name == BASELINE_POLICY and p.description.endswith(BY_VALUE_NOTE) for p in policies)
        policies = [p for p in policies if p.name != BASELINE_POLICY]  # config, not a rule
    request = analyzer_pb2.ConfigureAnalyzerRequest()
    for name, entry in config.items():
        request.policyConfig[name].CopyFrom(policy_config_message(entry))
    pack.call("Configure", request, "Configure")
    return Analysis(info.name, pack_version(pack.pack_dir, info.version), policies, config,
                    reported_version=info.version, by_value=by_value)


@functools.lru_cache(maxsize=8)
def _schemas(info: bytes) -> tuple[tuple[PolicySchema, ...], dict[str, PolicyConfig]]:
    """Callers copy what they may change: reconcile reads the schemas and builds new configs."""
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


def severity_name(severity: analyzer_pb2.PolicySeverity.ValueType) -> Severity:
    """A policy's or diagnostic's protocol severity as reports name it (`unspecified` when not set)."""
    return _SEVERITY_NAMES.get(severity, "unspecified")


def policy_severities(analysis: Analysis) -> dict[str, Severity]:
    """Policy name -> its severity, as the pack described it (GetAnalyzerInfo)."""
    return {p.name: severity_name(p.severity) for p in analysis.policies}


def collect(analysis: Analysis, response: analyzer_pb2.AnalyzeResponse, urn: str) -> None:
    """Add an Analyze or AnalyzeStack answer's diagnostics and not-applicable reasons to the analysis
    (`urn`: the analyzed resource, which a resource policy's diagnostic leaves out; "" for the stack)."""
    for diag in response.diagnostics:  # (the policies' severities are read only for a diagnostic without one)
        unknown = is_unknown(diag)
        level = "mandatory" if diag.enforcementLevel in (analyzer_pb2.MANDATORY, analyzer_pb2.REMEDIATE) \
            else "advisory"
        severity = _SEVERITY_NAMES.get(diag.severity) or policy_severities(analysis).get(diag.policyName, "unspecified")
        analysis.diagnostics.append(Diagnostic(
            diag.policyName, level, severity, diag.urn or urn,
            one_version(analysis, diag.message) if unknown else reported_text(diag.message, diag.description),
            unknown))
    for entry in response.not_applicable:
        analysis.not_applicable.append(NotApplicable(entry.policy_name, urn, entry.reason))


def is_unknown(diag: analyzer_pb2.AnalyzeDiagnostic) -> bool:
    """pulumi-policy's "can't run policy ... during preview" diagnostic: the protocol's unknown, never a finding.

    The protocol has no field for it, only this wording (pulumi-policy 1.21), so amlkit.review.pack.canary checks
    at the start of every review that the installed pulumi-policy still says it this way."""
    return diag.message.startswith(f"can't run policy '{diag.policyName}'") and " during preview" in diag.message


def one_version(analysis: Analysis, message: str) -> str:
    """pulumi-policy names the pack `<name>@v<its own version>` in "can't run policy" messages; the report
    names it by PulumiPolicy.yaml's version everywhere (as the header does)."""
    if not analysis.reported_version or analysis.reported_version == analysis.pack_version:
        return message
    return message.replace(f"'{analysis.pack_name}@v{analysis.reported_version}'",
                           f"'{analysis.pack_name}@v{analysis.pack_version}'")


def reported_text(message: str, description: str) -> str:
    """pulumi-policy sends `description + "\\n" + reported text`; keep the reported text."""
    if description and message.startswith(description + "\n"):
        return message[len(description) + 1:]
    if message == description:
        return ""
    return message


# --- requests ---------------------------------------------------------------------------------------

def to_struct(value: dict[str, Any]) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(value)
    return struct


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
