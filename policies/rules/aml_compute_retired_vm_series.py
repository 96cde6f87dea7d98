"""aml-compute-retired-vm-series: no cluster or instance on a VM series retired for Azure ML compute.

Purity: `findings(resource, today)` decides everything from its arguments. `check` only picks `today`:
config `asOf` (YYYY-MM-DD) when given, else the review date (`amlkit.policies.framework.review_date`:
`$AMLKIT_REVIEW_DATE`, else the clock). Reproducible reviews set `asOf` or the review date.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.errors import ConfigError, UnknownVmSize
from amlkit.policies import catalogue as catalogue_schema
from amlkit.policies.azure import sized_of
from amlkit.policies.framework import Finding, ResourceInput, Rule, must, review_date
from amlkit.vmsizes import Catalogue, VmSize, parse_vm_size

__all__ = ["NAME", "RULE", "as_of", "check", "findings", "known_size", "successors"]

NAME = "aml-compute-retired-vm-series"


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    return findings(resource, as_of(config), catalogue_schema.catalogue(config, NAME))


def findings(resource: ResourceInput, today: datetime.date, catalogue: Catalogue | None = None) -> Iterator[Finding]:
    """Pure: a finding when the resource's size (or its series) retired on or before `today`.

    A missing or unknown size is left to aml-compute-approved-vm-family, which reports both; an announced
    retirement still ahead is aml-compute-vm-series-retiring's.
    """
    sized = sized_of(resource.type, resource.name, resource.props)
    if sized is None:
        return
    size = known_size(sized.vm_size, catalogue)
    if size is None or size.retirement is None or size.retirement.date > today:
        return
    found = (f"{size.name} of series {size.family.series}, retired on {size.retirement.text}"
             f"{successors(size, catalogue, online=sized.deployment is not None)}")
    yield Finding(must(sized.subject, "not use a VM series retired for Azure ML compute",
                       found))


def known_size(raw: Any, catalogue: Catalogue | None = None) -> VmSize | None:
    """The catalogue size `raw` names; None when it is missing or unknown (another rule reports those)."""
    if raw is None:
        return None
    try:
        return parse_vm_size(raw, catalogue)
    except UnknownVmSize:
        return None


def successors(size: VmSize, catalogue: Catalogue | None = None, online: bool = False) -> str:
    """The successors from the series' migration guidance, as `catalogue.successor_text` words them against the
    pack's default allowedSeries (a managed online deployment's: allowedOnlineSeries, deployable successors only);
    '' when none is published."""
    key = "allowedOnlineSeries" if online else "allowedSeries"
    return catalogue_schema.successor_text(size.family, catalogue or catalogue_schema.catalogue({}, NAME), key=key)


def as_of(config: Mapping[str, Any], rule: str = NAME) -> datetime.date:
    """Config `asOf` as a date; the review date when it is not set."""
    raw = config.get("asOf")
    if raw is None:
        return review_date()
    try:
        return datetime.date.fromisoformat(raw)
    except (TypeError, ValueError):
        raise ConfigError(None, f"{rule}.asOf", "expected a date as YYYY-MM-DD", raw) from None


RULE = Rule(
    name=NAME,
    ref="AMLK-0005",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="No retired VM series",
    group="compute",
    stack_key="size",
    description="AmlCompute clusters, compute instances and managed online deployments (instanceType) must not "
    "use a VM series (or size) already retired on the review date, per the amlkit VM catalogue (on its date: "
    f"{catalogue_schema.retired_text()}). The message names the successors from Microsoft's migration guidance "
    "(for a managed online deployment, those managed online endpoints accept). Announced retirements still ahead "
    "are aml-compute-vm-series-retiring's.",
    severity="high",
    level="mandatory",
    tags=("reliability", "governance"),
    url="https://learn.microsoft.com/azure/virtual-machines/sizes/lifecycle/retirements-and-capacity-restrictions",
    remediation="Recreate the compute on one of the successors the message names (`amlkit sizes <size>` shows "
    "them with their status). A cluster's size cannot be changed in place: create a new cluster, move the "
    "jobs, delete the old one.",
    check=check,
    config={
        "asOf": {
            "type": "string",
            "pattern": r"^\d{4}-\d{2}-\d{2}$",
            "description": "Judge retirement dates as of this day (YYYY-MM-DD) instead of today, for "
            "reproducible reviews. A series retiring after this day passes this rule.",
        },
        "extraFamilies": catalogue_schema.SCHEMA,
    },
)
