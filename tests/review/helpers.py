"""Shared paths and helpers for the review engine tests."""

from __future__ import annotations

import atexit
import json
import tempfile
from pathlib import Path
from typing import Any

from amlkit.review.proc import processes, warm

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
RAW = FIXTURES / "raw_aml"
FAULTY = FIXTURES / "faulty"
SECRET = FIXTURES / "secret"
PACKS = FIXTURES / "packs"
MIN_NODES = "aml-cluster-min-nodes-zero"


_SERVER: list[warm.ForkServer] = []


def _fork_server() -> warm.ForkServer:
    """This test process's own warm-start server for runner runs (a review never adopts it, so a review
    never inherits its environment); stopped at exit."""
    if not _SERVER or not _SERVER[0].alive():
        _SERVER[:] = [warm.ForkServer()]
        atexit.register(_SERVER[0].close)
    return _SERVER[0]


def runner_output(request: dict[str, Any]) -> bytes:
    """The runner child's stdout, forked warm as the engine forks it (amlkit.review.proc.warm: what `python -P
    -m amlkit.review.run.runner` runs, cwd = the program's directory); the server preloads what the program
    imports once, so many runs of the same programs stay cheap. tests/review/test_proc_warm.py checks that a
    cold `python -m amlkit.review.run.runner` records the same."""
    program = Path(request["program"])
    server = _fork_server()
    if program.exists():
        server.plan(program, None, 2)  # two or more: import the program's modules before forking
    with tempfile.TemporaryFile() as stderr:
        child = processes.adopt(lambda: server.fork("runner", program if program.is_dir() else program.parent,
                                                    (warm.PIPE, warm.PIPE, stderr)))
        try:
            child.stdin.write(json.dumps(request).encode())
            child.stdin.close()
            output = child.stdout.read()
            code = child.wait(timeout=120)
        finally:
            processes.kill(child)
        stderr.seek(0)
        assert code == 0, stderr.read().decode(errors="replace")[-3000:]
    return output


def run_runner(request: dict[str, Any]) -> dict[str, Any]:
    """Run the runner child as the engine does: {"resources": [...]} or {"error": {...}}."""
    lines = [json.loads(line) for line in runner_output(request).splitlines()]
    resources = [line["resource"] for line in lines if "resource" in line]
    if "error" in lines[-1]:
        return {"error": lines[-1]["error"]}
    assert lines[-1] == {"done": True}
    return {"resources": resources}


def raw_request(stack: str = "dev", **config: str) -> dict[str, Any]:
    return {"program": str(RAW), "project": "raw-aml", "stack": stack,
            "config": {f"raw-aml:{k}": v for k, v in config.items()}, "secret_keys": []}


def normalized(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Registrations in a stable order (the SDK registers concurrently; sets arrive as lists)."""
    for record in records:
        record["dependencies"] = sorted(record["dependencies"])
        record["propertyDependencies"] = {k: sorted(v) for k, v in record["propertyDependencies"].items()}
    return sorted(records, key=lambda r: r["urn"])


def record_pack_calls(monkeypatch: Any) -> dict[str, list[Any]]:
    """Every request the review sends a pack through `PackProcess.call` (ConfigureStack, GetAnalyzerInfo,
    Configure, AnalyzeStack, Remediate...), by protocol method, as sent on the wire; the calls still go through."""
    from amlkit.review.pack import process

    sent: dict[str, list[Any]] = {}
    call = process.PackProcess.call

    def recording(pack: process.PackProcess, method: str, request: Any, what: str) -> Any:
        sent.setdefault(method, []).append(request)
        return call(pack, method, request, what)

    monkeypatch.setattr(process.PackProcess, "call", recording)
    return sent


def line_in(path: Path, text: str) -> int:
    """The 1-based number of the first line of `path` that contains `text`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, start=1) if text in line)
