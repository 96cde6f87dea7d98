"""aml-compute-vm-series-retiring: warn ahead of a VM series' announced retirement.

Purity: `findings(resource, today, lead_days)` decides everything from its arguments; `check` only reads the
config (`asOf`, else the clock; `leadDays`). Tests and reproducible reviews set `asOf`.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.errors import ConfigError
from amlkit.policies import catalogue as catalogue_schema
from amlkit.policies.azure import sized_of
from amlkit.policies.framework import Finding, ResourceInput, Rule, must
from amlkit.policies.rules.aml_compute_retired_vm_series import as_of, known_size, successors
from amlkit.vmsizes import Catalogue

__all__ = ["DEFAULT_LEAD_DAYS", "NAME", "RULE", "check", "findings", "lead_days"]

NAME = "aml-compute-vm-series-retiring"
DEFAULT_LEAD_DAYS = 365


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    return findings(resource, as_of(config, NAME), lead_days(config), catalogue_schema.catalogue(config, NAME))


def findings(resource: ResourceInput, today: datetime.date, lead: int,
             catalogue: Catalogue | None = None) -> Iterator[Finding]:
    """Pure: a finding when the size's retirement falls after `today` and within `lead` days of it."""
    sized = sized_of(resource.type, resource.name, resource.props)
    if sized is None:
        return
    size = known_size(sized.vm_size, catalogue)
    retirement = size.retirement if size is not None else None
    if retirement is None or not today < retirement.date <= today + datetime.timedelta(days=lead):
        return
    days = (retirement.date - today).days
    found = (f"{size.name} of series {size.family.series}, which retires on {retirement.text} "  # type: ignore[union-attr]
             f"(in {days} days){successors(size, catalogue, sized.deployment is not None)}")  # type: ignore[arg-type]
    yield Finding(must(sized.subject,
                       f"not use a VM series that retires within {lead} days", found))


def lead_days(config: Mapping[str, Any]) -> int:
    raw = config.get("leadDays", DEFAULT_LEAD_DAYS)
    if not isinstance(raw, int) or isinstance(raw, bool) or raw < 0:
        raise ConfigError(None, f"{NAME}.leadDays", "expected a whole number of days, 0 or more", raw)
    return raw


RULE = Rule(
    name=NAME,
    ref="AMLK-0028",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="No VM series retiring soon",
    group="compute",
    description="AmlCompute clusters, compute instances and managed online deployments (instanceType) should "
    "not use a VM series (or size) whose announced "
    "retirement falls within leadDays (default 365) of the review date; the message gives the date and the "
    "successors from Microsoft's migration guidance. Already retired sizes are aml-compute-retired-vm-series'.",
    severity="medium",
    level="advisory",
    tags=("reliability", "governance"),
    url="https://learn.microsoft.com/azure/virtual-machines/sizes/lifecycle/retirements-and-capacity-restrictions",
    remediation="Plan the move before the date: create a cluster or instance on one of the named successors "
    "(`amlkit sizes <size>` shows them), move the jobs, delete the old compute.",
    check=check,
    config={
        "leadDays": {
            "type": "integer",
            "minimum": 0,
            "default": DEFAULT_LEAD_DAYS,
            "description": "How many days ahead of a retirement to start reporting it.",
        },
        "asOf": {
            "type": "string",
            "pattern": r"^\d{4}-\d{2}-\d{2}$",
            "description": "Judge retirement dates as of this day (YYYY-MM-DD) instead of today, for "
            "reproducible reviews.",
        },
        "extraFamilies": catalogue_schema.SCHEMA,
    },
)
