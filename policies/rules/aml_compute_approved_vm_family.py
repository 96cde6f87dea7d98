"""aml-compute-approved-vm-family: clusters and instances use a VM size from an allowed series."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.errors import ConfigError, UnknownVmSize
from amlkit.policies import catalogue as catalogue_schema
from amlkit.policies.azure import sized_of
from amlkit.policies.framework import Change, Finding, ResourceInput, Rule, alz, must
from amlkit.policies.rules.aml_compute_retired_vm_series import as_of
from amlkit.vmsizes import (
    Catalogue,
    VmFamily,
    VmSize,
    default_approved_series,
    default_exclusion,
    family_by_series,
    parse_vm_size,
)

NAME = "aml-compute-approved-vm-family"


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    sized = sized_of(resource.type, resource.name, resource.props)
    if sized is None:
        return
    subject = sized.subject
    catalogue = catalogue_schema.catalogue(config, NAME)
    raw = sized.vm_size
    if raw is None:
        if sized.size_required:  # an instance without vmSize gets Azure's default size
            yield Finding(must(subject, f"set {sized.size_input} to a size from an allowed series", "none"))
        return
    try:
        size = parse_vm_size(raw, catalogue)
    except UnknownVmSize:
        yield Finding(must(subject, "use a known Azure VM size", f"{raw!r}, which is not a known Azure VM size name"))
        return
    if sized.compute is not None and sized.compute.is_instance and size.family.clusters_only:
        found = f"{size.name} of series {size.family.series}, which Azure ML runs on clusters only"
        yield Finding(must(subject, "use a VM size that compute instances support", found))
        return
    if size.retirement is not None and size.retirement.date <= as_of(config, NAME):
        return  # one finding per cause: aml-compute-retired-vm-series reports it, with its successors
    allowed = allowed_families(config, catalogue)
    if size.family not in allowed:
        yield Finding(must(subject, "use a VM size from an allowed series", _why_not(size, catalogue, allowed)))


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


def _why_not(size: VmSize, catalogue: Catalogue, allowed: tuple[VmFamily, ...]) -> str:
    """What was found: the size, its series, why the series is not allowed and what to use instead."""
    family = size.family
    why = []
    if size.retirement is not None:
        why.append(f"retiring on {size.retirement.text}")
    if family.capacity_restricted is not None:
        why.append(f"capacity-restricted since {family.capacity_restricted.text}: new subscriptions cannot deploy it")
    if not why and default_exclusion(family, catalogue):
        why.append(default_exclusion(family, catalogue))
    reason = f"not in allowedSeries: {', '.join(why)}" if why else "not in allowedSeries"
    return (f"{size.name} of series {family.series} ({reason})"
            f"{catalogue_schema.successor_text(family, catalogue, allowed)}")


RULE = Rule(
    name=NAME,
    ref="AMLK-0004",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    changed=(
        Change("0.2.0", "the default allowedSeries is derived from the VM catalogue's facts (modern v5, v6 and v7 "
               "CPU series and current NVIDIA NC, NV and ND series) instead of the 2024 supported-series table "
               "(CHANGELOG 0.2.0, 'Defaults and the VM catalogue'; sizes/lifecycle/lifecycle-overview.md)",
               config={"allowedSeries": ["Ddsv4", "Eav4", "FX", "HBv3", "NCasT4_v3", "NDasrA100_v4", "ND-H100-v5",
                                         "ND-H200-v5"]}),
    ),
    display_name="Approved VM series",
    group="compute",
    equivalents=(
        alz("Deny-MachineLearning-Compute-VmSize"),
    ),
    stack_key="size",
    description="AmlCompute clusters, compute instances and managed online deployments (instanceType) must "
    "use a known VM size whose series is in "
    "allowedSeries. The default is derived from the VM catalogue's facts: the modern (Current or Extended "
    "lifecycle stage) x86 general purpose, memory and compute optimised v5, v6 and v7 series and the current "
    "NVIDIA NC, NV and ND GPU series, large 8-GPU ND nodes included (their cost is aml-quota-budget's), without "
    "a retirement date, capacity restriction, preview tag or historical approval requirement (`amlkit sizes "
    "--approved` lists it). HPC, storage optimised, burstable, Arm64, confidential, AMD GPU, preview and "
    "approval-required series are allowed only by config. Clusters must set vmSize. A size already retired on "
    "the review date is left to aml-compute-retired-vm-series (one finding per cause); another series outside "
    "the list is reported with why the default leaves it out and its successors.",
    severity="medium",
    level="mandatory",
    tags=("cost", "governance"),
    url="https://learn.microsoft.com/azure/machine-learning/concept-compute-target#supported-vm-series-and-sizes",
    remediation="Pick a size from an allowed series (`az ml compute list-sizes --location <region>` lists what "
    "the region offers), e.g. Standard_D4ds_v5 for CPU or Standard_NC4as_T4_v3 for GPU. To allow another "
    "series, add it to allowedSeries in the pack config (the default is `amlkit sizes --approved`); series "
    "that historically required Azure approval (M, NDv2 among the current ones) pass only when listed "
    "explicitly, after the support request and quota are in place.",
    check=check,
    config={
        "allowedSeries": {
            "type": "array",
            "items": {"type": "string"},
            "default": list(default_approved_series()),
            "description": "VM series (as Azure docs name them, e.g. Ddsv5, NCasT4_v3) clusters and instances "
            "may use; case-insensitive.",
        },
        "asOf": {
            "type": "string",
            "pattern": r"^\d{4}-\d{2}-\d{2}$",
            "description": "The day (YYYY-MM-DD) on which a size counts as retired, and is left to "
            "aml-compute-retired-vm-series, instead of the review date; give both rules the same asOf.",
        },
        "extraFamilies": catalogue_schema.SCHEMA,
    },
)
