"""One policy pack process, started as the Pulumi engine starts a policy plugin, and its unary calls.

The pack runs as `python -u -m pulumi.policy <engine-address> <pack-dir>` (cwd = pack dir) with
PULUMI_PROJECT, PULUMI_STACK, PULUMI_DRY_RUN=true and PULUMI_CONFIG set; its first stdout line is
its port. Every call has a deadline; every failure is a ReviewFailed that says what the pack did
(exited, hung, raised) with the end of its stderr.
"""

from __future__ import annotations

import copy
import subprocess
import time
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import empty_pb2

from amlkit.errors import ReviewFailed
from amlkit.review.pack.config import PolicyConfig, PolicySchema
from amlkit.review.pack.proto import analyzer_pb2, analyzer_pb2_grpc
from amlkit.review.pack.wire import parsed_schemas
from amlkit.review.proc import environment, processes, warm
from amlkit.review.proc.warm import ENGINE_ADDRESS, MAX_ENV_VALUE, config_env

__all__ = ["ENGINE_ADDRESS", "MAX_ENV_VALUE", "PackProcess", "VERBOSE_STDERR_LINES", "config_env"]

VERBOSE_STDERR_LINES = 20  # the end of a failed pack's stderr that --verbose shows
_CHANNEL = [("grpc.max_receive_message_length", 400 * 2**20)]  # the engine's (pulumi sdk/go/common/util/rpcutil)


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
        # `python -u -m pulumi.policy <engine> <pack dir>` (cwd = pack dir), forked warm (or ahead: warm.prefork_pack)
        self.started_in = environment.state()  # reused only in the same (amlkit.review.proc.environment)
        self.process = warm.spawn_pack(pack_dir, ENGINE_ADDRESS, warm.pack_env(project, stack, config))
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
        schemas, initial = parsed_schemas(self.analyzer_info().SerializeToString(deterministic=True))
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
        """What a failed call means; `culprit`: the policy found to raise (see session.find_failing_policy)."""
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
