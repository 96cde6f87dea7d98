"""The parent's side of the program run: the runner child (amlkit.review.run.runner) started from the fork
server, its JSON request on stdin, its JSON lines read back as the program registers resources, and what a
failure of the program means (ProgramFailed, exit 3; ProgramConfigError, the program's amlkit ConfigError
rebuilt with every field it had, exit 2).
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import tempfile
import time
from collections.abc import Iterator
from typing import Any

from amlkit.errors import ConfigError, ReviewFailed
from amlkit.review.proc import learned, processes, warm, workers
from amlkit.review.project import Project, StackConfig

__all__ = ["ProgramConfigError", "ProgramFailed", "Runner"]


class ProgramFailed(ReviewFailed):
    """The program (not the pack) failed: crashed, raised, or did not finish."""


class ProgramConfigError(ConfigError):
    """A ConfigError the program raised, rebuilt from the runner's message: its text as the program's
    ConfigError printed it, and every field it had (whatever fields that ConfigError type carries)."""

    def __init__(self, message: str, fields: dict[str, Any], component: dict[str, str] | None,
                 source: dict[str, Any] | None = None) -> None:
        Exception.__init__(self, message)
        self.source = source  # {file, line}: the program line that built the component
        self.file = fields.get("file")
        self.key_path = fields.get("key_path") or ""
        self.problem = fields.get("problem") or message
        self.value = fields.get("value")
        self.fields = fields
        self.component = component


class Runner:
    """The program's child process: a JSON request on stdin, JSON lines back (see amlkit.review.run.runner)."""

    def __init__(self, project: Project, config: StackConfig, extra: dict[str, Any], timeout: float,
                 verbose: bool) -> None:
        """`extra`: the rest of the request (alias_shortcut, lookups, azure, state, packages: see the runner)."""
        self.stack = config.stack
        self.timeout, self.verbose = timeout, verbose
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close(); a file never blocks
        request = {
            "program": str(project.main), "project": project.name, "stack": config.stack,
            "config": config.values, "secret_keys": list(config.secret_keys), **extra,
        }
        self.lookups: list[dict[str, Any]] = []  # unanswered lookups, as the runner reports them
        self.program = project.main
        self.types: set[str] = set()  # the resource types registered (amlkit.review.proc.learned)
        self.finished = False  # the runner said done or error
        try:
            self.process = self._start(project, request)
        except BaseException:
            self.stderr.close()
            raise
        self.stack_outputs: dict[str, Any] = {}  # what the program exports, wire form
        self.deadline = time.monotonic() + timeout

    def _start(self, project: Project, request: dict[str, Any]) -> warm.WarmChild | workers.StackRun:
        if workers.enabled() and not request.get("packages"):  # `--base` replaces amlkit.components: fresh
            return workers.start(project.main, project.dir, self.stderr, request)
        process = warm.spawn_runner(project.dir, self.stderr)  # `python -P -m amlkit.review.run.runner`, forked warm
        assert process.stdin is not None
        try:
            process.stdin.write(json.dumps(request).encode())
            process.stdin.close()
        except BaseException:
            processes.kill(process)
            raise
        return process

    def close(self) -> None:
        learned.note(self.program, [*self.types, *(lookup.get("token", "") for lookup in self.lookups)])
        if isinstance(self.process, workers.StackRun):
            workers.finish(self.process, self.finished)
        else:
            processes.kill(self.process)
        self.stderr.close()

    def records(self) -> Iterator[dict[str, Any]]:
        """Registrations as the program makes them; then returns, or raises the program's failure."""
        for message in self._messages():
            if "resource" in message:
                self.types.add(message["resource"].get("type", ""))
                yield message["resource"]
            elif "stack_outputs" in message:
                self.stack_outputs = message["stack_outputs"]
            elif "lookup" in message:
                self.lookups.append(message["lookup"])
            elif message.get("done"):
                self.finished = True
                return
            elif "error" in message:
                self.finished = True
                raise self._failure(message["error"])
        try:
            code = self.process.wait(timeout=max(self.deadline - time.monotonic(), 1.0))
        except subprocess.TimeoutExpired:
            raise ProgramFailed(f"stack {self.stack}: the program runner closed its output but did not exit "
                                 f"within {self.timeout:g}s: {self._stderr_tail()}") from None
        how = f"signal {-code}" if code < 0 else f"exit code {code}"
        raise ProgramFailed(f"stack {self.stack}: the program runner crashed ({how}): {self._stderr_tail()}")

    def _messages(self) -> Iterator[dict[str, Any]]:
        stdout = self.process.stdout
        assert stdout is not None
        buffer = b""
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ)
            while True:
                remaining = self.deadline - time.monotonic()
                if remaining <= 0:
                    raise ProgramFailed(f"stack {self.stack}: the program did not finish within "
                                       f"{self.timeout:g}s")
                if not selector.select(min(remaining, 1.0)):
                    if stdout.closed:  # killed and closed by another thread (Ctrl-C): epoll forgot it
                        return
                    continue
                chunk = os.read(stdout.fileno(), 1 << 16)
                if not chunk:
                    return
                *lines, buffer = (buffer + chunk).split(b"\n")
                for line in lines:
                    yield json.loads(line)

    def _failure(self, error: dict[str, Any]) -> Exception:
        if error["kind"] == "config":
            return ProgramConfigError(error["message"], error["fields"], error.get("component"), error.get("source"))
        component = error.get("component")
        where = f" (in component {component['name']} of type {component['type']})" if component else ""
        message = f"stack {self.stack}: the program failed{where}: {error['message']}"
        if self.verbose and error.get("traceback"):
            message += "\n" + error["traceback"]
        return ProgramFailed(message)

    def _stderr_tail(self) -> str:
        """The last non-blank line of what the program and the runner wrote to stderr (read from its end)."""
        size = self.stderr.seek(0, os.SEEK_END)
        self.stderr.seek(max(0, size - processes.TAIL_BYTES))
        lines = [line for line in self.stderr.read().decode(errors="replace").splitlines() if line.strip()]
        return lines[-1].strip() if lines else "no output"
