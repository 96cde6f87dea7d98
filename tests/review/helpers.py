"""Shared paths and helpers for the review engine tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
RAW = FIXTURES / "raw_aml"
FAULTY = FIXTURES / "faulty"
SECRET = FIXTURES / "secret"
PACKS = FIXTURES / "packs"
MIN_NODES = "aml-cluster-min-nodes-zero"


def run_runner(request: dict[str, Any]) -> dict[str, Any]:
    """Run the runner child as the engine does: {"resources": [...]} or {"error": {...}}."""
    done = subprocess.run(
        [sys.executable, "-m", "amlkit.review.runner"], input=json.dumps(request).encode(),
        capture_output=True, timeout=120, check=True,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
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
