"""aml-compute-isolated-size: when required, compute runs on an isolated size (one customer per host)."""

from __future__ import annotations

import datetime
from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.errors import ConfigError
from amlkit.policies import catalogue as catalogue_schema
from amlkit.policies.azure import sized_of
from amlkit.policies.framework import Finding, ResourceInput, Rule, must
from amlkit.policies.rules.aml_compute_retired_vm_series import as_of, known_size
from amlkit.vmsizes import Catalogue, all_sizes, status

__all__ = ["NAME", "RULE", "check", "findings", "offered", "required"]

NAME = "aml-compute-isolated-size"


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    if required(config):
        yield from findings(resource, as_of(config, NAME), catalogue_schema.catalogue(config, NAME))


def findings(resource: ResourceInput, today: datetime.date, catalogue: Catalogue | None = None) -> Iterator[Finding]:
    """Pure: a finding unless the size is an isolated size still offered on `today`.

    A missing or unknown size is left to aml-compute-approved-vm-family."""
    sized = sized_of(resource.type, resource.name, resource.props)
    if sized is None:
        return
    size = known_size(sized.vm_size, catalogue)
    if size is None:
        return
    subject = sized.subject
    if not size.isolated:
        yield Finding(must(subject, "use an isolated VM size", f"{size.name}, which shares its host; "
                           f"isolated sizes offered: {', '.join(offered(today, catalogue))}"))
    elif status(size, today) == "retired":
        yield Finding(must(subject, "use an isolated VM size that is still offered",
                           f"{size.name}, retired on {size.retirement.text}"))  # type: ignore[union-attr]


def offered(today: datetime.date, catalogue: Catalogue | None = None) -> list[str]:
    """Isolated sizes not retired on `today`, in catalogue order."""
    return [s.name for s in all_sizes(catalogue) if s.isolated and status(s, today) != "retired"]


def required(config: Mapping[str, Any]) -> bool:
    raw = config.get("required", False)
    if not isinstance(raw, bool):
        raise ConfigError(None, f"{NAME}.required", "expected true or false", raw)
    return raw


RULE = Rule(
    name=NAME,
    ref="AMLK-0030",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="Isolated VM size when required",
    group="compute",
    description="When required is true (default false), AmlCompute clusters, compute instances and managed online "
    "deployments must use an isolated VM size (dedicated to one customer) that is not retired on the review date, "
    f"per the amlkit VM catalogue: {catalogue_schema.isolated_text()}.",
    severity="high",
    level="mandatory",
    tags=("security", "governance"),
    url="https://learn.microsoft.com/azure/machine-learning/concept-compute-target#compute-isolation",
    remediation="Use one of the isolated sizes the message lists (`amlkit sizes` shows the isolation column), "
    "or set required to false for environments without an isolation requirement.",
    check=check,
    config={
        "required": {
            "type": "boolean",
            "default": False,
            "description": "Require isolated sizes for every cluster and instance.",
        },
        "asOf": {
            "type": "string",
            "pattern": r"^\d{4}-\d{2}-\d{2}$",
            "description": "Judge whether an isolated size is retired as of this day (YYYY-MM-DD) instead of today.",
        },
        "extraFamilies": catalogue_schema.SCHEMA,
    },
)
