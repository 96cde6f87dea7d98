"""What an unknown finding could not know, named: the resource and the property, and the resource the value
comes from (`compute instance 'ci-x': workspaceName can't be known during preview (from workspace 'mlw')`).

pulumi-policy reports a value unknown at preview only by its path (`string value at .workspaceName can't be
known during preview`, pulumi_policy/proxy.py `UnknownValueError`), and for a stack policy without the
resource. The resource is the analyzed one for a resource policy; for a stack policy, every resource of the
stack whose outputs (what AnalyzeStack gets) are unknown at that path. Where it comes from is the registration's
`propertyDependencies` for that property, as the engine records them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from amlkit.review.secrets import UNKNOWN, UNKNOWN_TEXT

__all__ = ["UNKNOWN_AT", "noun", "what_is_unknown"]

UNKNOWN_AT = re.compile(r"value at \.(\S*) can't be known during preview")
_SHOWN = 3  # resources named for a stack policy; the rest are counted
_COMPUTE_KINDS = {"ComputeInstance": "compute instance", "AmlCompute": "compute cluster",
                  "Kubernetes": "Kubernetes compute", "VirtualMachine": "virtual machine compute",
                  "SynapseSpark": "Synapse Spark compute"}
_WORKSPACE_KINDS = {"hub": "hub", "project": "project"}


def noun(record: Mapping[str, Any]) -> str:
    """How a message names a resource's kind: `compute instance`, `compute cluster`, `hub`, `workspace`,
    `resource group`; else its type's name in words (`management lock by scope`)."""
    kind = str(record["type"]).rsplit(":", 1)[-1]
    inputs = record.get("inputs") or {}
    if kind == "Compute":
        properties = inputs.get("properties")
        compute_type = properties.get("computeType") if isinstance(properties, dict) else None
        return _COMPUTE_KINDS.get(str(compute_type), "compute")
    if kind == "Workspace" and "machinelearning" in str(record["type"]):
        return _WORKSPACE_KINDS.get(str(inputs.get("kind", "")).lower(), "workspace")
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r" \1", kind).lower()


def what_is_unknown(message: str, record: Mapping[str, Any] | None,
                    records: Sequence[Mapping[str, Any]]) -> str | None:
    """`<kind> '<name>': <path> can't be known during preview (from <kind> '<name>')` for the resource the
    diagnostic is about (`record`, None for a stack policy: then each resource of `records` unknown at that
    path); None when the message names no unknown path or no resource holds it."""
    found = UNKNOWN_AT.search(message)
    if found is None:
        return None
    path = found[1]
    holders = [record] if record is not None else [r for r in records if _unknown_in_outputs(r, path)]
    if not holders:
        return None
    by_urn = {r["urn"]: r for r in records}
    named = [_one(holder, path, by_urn) for holder in holders[:_SHOWN]]
    if len(holders) > _SHOWN:
        named.append(f"and {len(holders) - _SHOWN} more")
    return "; ".join(named)


def _one(record: Mapping[str, Any], path: str, by_urn: Mapping[str, Mapping[str, Any]]) -> str:
    text = f"{noun(record)} '{record['name']}': {path} can't be known during preview"
    sources = [by_urn[urn] for urn in (record.get("propertyDependencies") or {}).get(path.split(".", 1)[0], [])
               if urn in by_urn]
    if sources:
        text += " (from " + ", ".join(f"{noun(s)} '{s['name']}'" for s in sources) + ")"
    return text


def _unknown_in_outputs(record: Mapping[str, Any], path: str) -> bool:
    """Whether a stack policy read an unknown at `path` of this resource: AnalyzeStack sends outputs, and a path
    input azure-native's outputs lack (`workspaceName`) is read from the `id` output (amlkit.policies.outputs), so it
    is unknown when that id is."""
    outputs = record.get("outputs") or {}
    head = path.split(".", 1)[0]
    if head in outputs or head not in (record.get("inputs") or {}):
        return _unknown_at(outputs, path)
    return _unknown_at(outputs, "id")


def _unknown_at(inputs: Any, path: str) -> bool:
    value = inputs
    for part in path.split(".") if path else []:
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return False
    return value in (UNKNOWN, UNKNOWN_TEXT)
