"""aml-compute-retired-vm-series: no cluster or instance on a VM series retired for Azure ML compute.

Purity: `findings(resource, today)` decides everything from its arguments. `check` only picks `today`:
config `asOf` (YYYY-MM-DD) when given, else the clock. Tests and reproducible reviews set `asOf`.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.errors import ConfigError, UnknownVmSize
from amlkit.policies.azure import MANAGED, compute_of, compute_subject
from amlkit.policies.framework import Finding, ResourceInput, Rule, must
from amlkit.vmsizes import parse_vm_size

NAME = "aml-compute-retired-vm-series"


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    return findings(resource, as_of(config))


def findings(resource: ResourceInput, today: datetime.date) -> Iterator[Finding]:
    """Pure: a finding when the resource's size belongs to a series with a retirement date.

    A missing or unknown size is left to aml-compute-approved-vm-family, which reports both.
    """
    compute = compute_of(resource.type, resource.props, MANAGED)
    if compute is None or compute.vm_size is None:
        return
    try:
        size = parse_vm_size(compute.vm_size)
    except UnknownVmSize:
        return
    retired = size.family.retired
    if retired is None:
        return
    when = f"retired on {retired}" if retired <= today else f"which retires on {retired}"
    found = f"{size.name} of series {size.family.series}, {when}"
    yield Finding(must(compute_subject(resource.name, compute), "not use a VM series retired for Azure ML compute",
                       found))


def as_of(config: Mapping[str, Any]) -> datetime.date:
    """Config `asOf` as a date; today's date when it is not set."""
    raw = config.get("asOf")
    if raw is None:
        return datetime.date.today()
    try:
        return datetime.date.fromisoformat(raw)
    except (TypeError, ValueError):
        raise ConfigError(None, f"{NAME}.asOf", "expected a date as YYYY-MM-DD", raw) from None


RULE = Rule(
    name=NAME,
    description="AmlCompute clusters and compute instances must not use a VM series retired (or scheduled "
    "to retire) for Azure ML compute: NC, NCv2, ND, NV (incl. promo sizes) since 2023-08-31, Av1 and HB "
    "since 2024-08-31, NCv3 since 2025-09-30.",
    severity="high",
    level="mandatory",
    tags=("reliability", "governance"),
    url="https://learn.microsoft.com/azure/machine-learning/concept-compute-target#supported-vm-series-and-sizes",
    remediation="Recreate the compute on a supported current series: NCasT4_v3, NDasrA100_v4, ND-H100-v5 or "
    "ND-H200-v5 instead of NC, NCv2, NCv3, ND or NV; Dv3 or DSv2 instead of A; HBv3 instead of HB. A "
    "cluster's size cannot be changed in place: create a new cluster, move the jobs, delete the old one.",
    check=check,
    config={
        "asOf": {
            "type": "string",
            "pattern": r"^\d{4}-\d{2}-\d{2}$",
            "description": "Judge retirement dates as of this day (YYYY-MM-DD) instead of today, for "
            "reproducible reviews. A series retiring after this day is reported as 'retires on'.",
        },
    },
)
