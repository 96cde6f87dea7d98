"""aml-compute-approved-vm-family: clusters and instances use a VM size from an allowed series."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.errors import ConfigError, UnknownVmSize
from amlkit.policies import catalogue as catalogue_schema
from amlkit.policies.azure import MANAGED, compute_of, compute_subject
from amlkit.policies.framework import Finding, ResourceInput, Rule, alz, must
from amlkit.vmsizes import Catalogue, VmFamily, VmSize, default_approved_series, family_by_series, parse_vm_size

NAME = "aml-compute-approved-vm-family"


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    compute = compute_of(resource.type, resource.props, MANAGED)
    if compute is None:
        return
    subject = compute_subject(resource.name, compute)
    catalogue = catalogue_schema.catalogue(config, NAME)
    raw = compute.vm_size
    if raw is None:
        if compute.is_cluster:  # an instance without vmSize gets Azure's default size
            yield Finding(must(subject, "set vmSize to a size from an allowed series", "none"))
        return
    try:
        size = parse_vm_size(raw, catalogue)
    except UnknownVmSize:
        yield Finding(must(subject, "use a known Azure VM size", f"{raw!r}, which is not a known Azure VM size name"))
        return
    if size.family not in allowed_families(config, catalogue):
        yield Finding(must(subject, "use a VM size from an allowed series", _why_not(size)))


def allowed_families(config: Mapping[str, Any], catalogue: Catalogue | None = None) -> tuple[VmFamily, ...]:
    """The families config `allowedSeries` names; an entry that is not a known series is a config error."""
    series = config.get("allowedSeries")
    if not isinstance(series, list):
        raise ConfigError(None, f"{NAME}.allowedSeries", "expected a list of VM series names", series)
    families = []
    for index, name in enumerate(series):
        try:
            families.append(family_by_series(name, catalogue))
        except UnknownVmSize:
            problem = f"unknown VM series {name!r}; use series names such as DSv2, Esv3, NCasT4_v3"
            raise ConfigError(None, f"{NAME}.allowedSeries[{index}]", problem, name) from None
    return tuple(families)


def _why_not(size: VmSize) -> str:
    family = size.family
    if size.retirement is not None:
        reason = f"retired or retiring on {size.retirement.text}{_successors(family)}"
    elif family.capacity_restricted is not None:
        reason = (f"capacity-restricted since {family.capacity_restricted.text}: new subscriptions cannot deploy "
                  f"it{_successors(family)}")
    elif not family.aml_supported:
        reason = "not a supported series for Azure ML managed compute"
    elif family.approval_required:
        reason = "approval-required, so allowed only when listed in allowedSeries"
    else:
        reason = "not in allowedSeries"
    return f"{size.name} of series {family.series} ({reason})"


def _successors(family: VmFamily) -> str:
    return f"; successors: {', '.join(family.successors)}" if family.successors else ""


RULE = Rule(
    name=NAME,
    ref="AMLK-0004",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="Approved VM series",
    group="compute",
    equivalents=(
        alz("Deny-MachineLearning-Compute-VmSize"),
    ),
    stack_key="size",
    description="AmlCompute clusters and compute instances must use a known VM size whose series is in "
    "allowedSeries (default: current series supported for Azure ML managed compute: no retirement date, "
    "past or announced, no capacity restriction, never approval-required: Ddsv4, Eav4, FX, HBv3, NCasT4_v3, "
    "NDasrA100_v4, ND-H100-v5, ND-H200-v5). Clusters must set vmSize. A retired, retiring or "
    "capacity-restricted series outside the list is reported with its date and successors.",
    severity="medium",
    level="mandatory",
    tags=("cost", "governance"),
    url="https://learn.microsoft.com/azure/machine-learning/concept-compute-target#supported-vm-series-and-sizes",
    remediation="Pick a size from an allowed series (`az ml compute list-sizes --location <region>` lists what "
    "the region offers), e.g. Standard_D4ds_v4 for CPU or Standard_NC4as_T4_v3 for GPU. To allow another "
    "series, add it to allowedSeries in the pack config; series that historically required Azure approval "
    "(HB, HBv2, HC, M, NCv2, NCv3, ND, NDv2, NVv3) pass only when listed explicitly, after the support "
    "request and quota are in place.",
    check=check,
    config={
        "allowedSeries": {
            "type": "array",
            "items": {"type": "string"},
            "default": list(default_approved_series()),
            "description": "VM series (as Azure docs name them, e.g. Ddsv4, NCasT4_v3) clusters and instances "
            "may use; case-insensitive.",
        },
        "extraFamilies": catalogue_schema.SCHEMA,
    },
)
