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
    default_online_series,
    family_by_series,
    instance_refusal,
    online_exclusion,
    parse_vm_size,
)

__all__ = ["EXAMPLE_CPU", "EXAMPLE_GPU", "KEY", "NAME", "ONLINE_KEY", "RULE", "allowed_families", "check"]

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
    refusal = instance_refusal(size.family) if sized.compute is not None and sized.compute.is_instance else ""
    if refusal:
        found = f"{size.name} of series {size.family.series}, {refusal}"
        yield Finding(must(subject, "use a VM size that compute instances support", found))
        return
    if size.retirement is not None and size.retirement.date <= as_of(config, NAME):
        return  # one finding per cause: aml-compute-retired-vm-series reports it, with its successors
    online = sized.deployment is not None
    if online and not size.online_deployable:
        return  # one finding per cause: aml-online-deployment-supported-size reports it, with listed sizes
    key = ONLINE_KEY if online else KEY
    allowed = allowed_families(config, catalogue, key)
    if size.family not in allowed:
        found = _why_not(size, catalogue, allowed, key)
        yield Finding(must(subject, "use a VM size from an allowed online series" if online else
                           "use a VM size from an allowed series", found))


KEY, ONLINE_KEY = "allowedSeries", "allowedOnlineSeries"
_V020_DEFAULT = [
    "Dv5", "Dsv5", "Ddv5", "Ddsv5", "Dasv5", "Dadsv5", "Dlsv5", "Dldsv5", "Dsv6", "Ddsv6", "Dlsv6", "Dldsv6",
    "Dasv6", "Dadsv6", "Dalsv6", "Daldsv6", "Ev5", "Esv5", "Edv5", "Edsv5", "Easv5", "Eadsv5", "Ebsv5",
    "Ebdsv5", "Esv6", "Edsv6", "Easv6", "Eadsv6", "Fasv6", "Falsv6", "Famsv6", "NCasT4_v3", "NC_A100_v4",
    "NCads_H100_v5", "NDasrA100_v4", "NDm_A100_v4", "ND-H100-v5", "ND-H200-v5", "NVadsA10_v5", "ND_GB200_v6",
    "ND_GB300_v6", "Dasv7", "Dadsv7", "Easv7", "Eadsv7", "Fasv7", "Falsv7", "Famsv7", "Dalsv7", "Daldsv7",
    "Fadsv7", "Faldsv7", "Famdsv7",
]
"""0.2.0's default allowedSeries (with the Arm64 ND_GB200_v6 and ND_GB300_v6), kept for rule baselines."""
EXAMPLE_CPU, EXAMPLE_GPU = "Standard_D4ds_v5", "Standard_NC4as_T4_v3"
"""The sizes the remediation suggests; tests/policies/test_catalogue.py checks that the default allows them."""


def allowed_families(config: Mapping[str, Any], catalogue: Catalogue | None = None,
                     key: str = KEY) -> tuple[VmFamily, ...]:
    """The families config `allowedSeries` (or `allowedOnlineSeries`) names; an entry that is not a known series
    is a config error."""
    series = config.get(key)
    if not isinstance(series, list):
        raise ConfigError(None, f"{NAME}.{key}", "expected a list of VM series names", series)
    families = []
    for index, name in enumerate(series):
        try:
            families.append(family_by_series(name, catalogue))
        except UnknownVmSize:
            problem = f"unknown VM series {name!r}; use series names such as DSv2, Esv3, NCasT4_v3"
            raise ConfigError(None, f"{NAME}.{key}[{index}]", problem, name) from None
    return tuple(families)


def _why_not(size: VmSize, catalogue: Catalogue, allowed: tuple[VmFamily, ...], key: str) -> str:
    """What was found: the size, its series, why the series is not allowed and what to use instead (for a
    deployment, only successors managed online endpoints accept)."""
    family = size.family
    why = []
    if size.retirement is not None:
        why.append(f"retiring on {size.retirement.text}")
    if family.capacity_restricted is not None:
        why.append(f"capacity-restricted since {family.capacity_restricted.text}: new subscriptions cannot deploy it")
    excluded = online_exclusion(family, catalogue) if key == ONLINE_KEY else default_exclusion(family, catalogue)
    if not why and excluded:
        why.append(excluded)
    reason = f"not in {key}: {', '.join(why)}" if why else f"not in {key}"
    successors = catalogue_schema.successor_text(family, catalogue, allowed, key)
    return f"{size.name} of series {family.series} ({reason}){successors}"


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
        Change("0.3.0", "ND_GB200_v6 and ND_GB300_v6 (NVIDIA Grace, Arm64 CPUs: nd-gb200-v6-series-specs.md) left the "
               "default allowedSeries, which now needs a sourced x64 processor; managed online deployments are "
               "judged against allowedOnlineSeries (reference-managed-online-endpoints-vm-sku-list.md); Arm64 and "
               "A10 series are refused on compute instances (CHANGELOG 0.3.0, 'Domain truth')",
               config={"allowedSeries": _V020_DEFAULT}),
    ),
    display_name="Approved VM series",
    group="compute",
    equivalents=(
        alz("Deny-MachineLearning-Compute-VmSize"),
    ),
    stack_key="size",
    description="AmlCompute clusters and compute instances must use a known VM size whose series is in "
    "allowedSeries, managed online deployments (instanceType) one whose series is in allowedOnlineSeries. The "
    "allowedSeries default is derived from the VM catalogue's facts: the modern (Current or Extended lifecycle "
    "stage) general purpose, memory and compute optimised v5, v6 and v7 series and the current NVIDIA NC, NV and "
    "ND GPU series on an x64 processor their size pages name, large 8-GPU ND nodes included (their cost is "
    "aml-quota-budget's), without a retirement date, capacity restriction, preview tag or historical approval "
    "requirement (`amlkit sizes --approved` lists it). The allowedOnlineSeries default is every series of Azure's "
    "managed online endpoints SKU list that is not retired (`amlkit sizes --online`). HPC, storage optimised, "
    "burstable, Arm64, confidential, AMD GPU, preview and approval-required series are allowed only by config; "
    "Arm64 series and series Azure ML runs on clusters only or does not support on compute instances are refused "
    "on an instance even when listed. Clusters must set vmSize. A size already retired on the review date is left "
    "to aml-compute-retired-vm-series, a deployment size off the SKU list to aml-online-deployment-supported-size "
    "(one finding per cause); another series outside the list is reported with why the default leaves it out and "
    "its successors.",
    severity="medium",
    level="mandatory",
    tags=("cost", "governance"),
    url="https://learn.microsoft.com/azure/machine-learning/concept-compute-target#supported-vm-series-and-sizes",
    remediation="Pick a size from an allowed series (`az ml compute list-sizes --location <region>` lists what "
    f"the region offers), e.g. {EXAMPLE_CPU} for CPU or {EXAMPLE_GPU} for GPU. To allow another series, add it to "
    "allowedSeries (allowedOnlineSeries for online deployments) in the pack config (the defaults are `amlkit sizes "
    "--approved` and `amlkit sizes --online`); series that historically required Azure approval "
    f"({catalogue_schema.approval_text()} among the current ones) pass only when listed explicitly, after the "
    "support request and quota are in place.",
    check=check,
    config={
        "allowedSeries": {
            "type": "array",
            "items": {"type": "string"},
            "default": list(default_approved_series()),
            "description": "VM series (as Azure docs name them, e.g. Ddsv5, NCasT4_v3) clusters and instances "
            "may use; case-insensitive.",
        },
        "allowedOnlineSeries": {
            "type": "array",
            "items": {"type": "string"},
            "default": list(default_online_series()),
            "description": "VM series managed online deployments may use (instanceType); case-insensitive. The "
            "default is every series with sizes on Azure's managed online endpoints SKU list "
            "(reference-managed-online-endpoints-vm-sku-list.md) that is not retired and runs on an x64 "
            "processor; sizes that are not on the list are aml-online-deployment-supported-size's.",
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
