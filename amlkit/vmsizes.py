"""Azure VM sizes: name -> family, vCPUs, lifecycle and GPU facts, from `amlkit/data/vm_families.yaml`.

Every fact (series, quota family, Azure ML support, retirement, sizes) lives in the data file; this
module only reads it. A size is known when a family's template produces it exactly (any casing):
`Standard_DS3_v2` -> DSv2 with 4 vCPUs, `Standard_M8-2ms` -> M with 2 active vCPUs. Anything else
raises `UnknownVmSize`: amlkit never guesses a family from a name that merely looks plausible.
"""

from __future__ import annotations

import datetime

from amlkit.errors import UnknownVmSize
from amlkit.vmload import DATA_FILE, build_catalogue, extended, packaged
from amlkit.vmmodel import (
    CATEGORIES,
    DEFAULT_CATEGORIES,
    STAGES,
    Catalogue,
    CudaMin,
    Dated,
    GpuArchitecture,
    SizeQuotaFamilies,
    SizeSet,
    Source,
    Stage,
    VmFamily,
    VmSize,
    cuda_tuple,
    quota_key,
    series_key,
)

__all__ = [
    "CATEGORIES", "DATA_FILE", "DEFAULT_CATEGORIES", "STAGES", "Catalogue", "CudaMin", "Dated", "GpuArchitecture",
    "SizeQuotaFamilies", "SizeSet", "Source", "Stage", "VmFamily", "VmSize", "all_families", "all_sizes",
    "architecture_exclusion", "build_catalogue", "catalogue_as_of", "cuda_tuple", "default_approved_series",
    "default_exclusion", "default_online_series", "extended", "instance_refusal", "online_exclusion", "online_sizes",
    "family_by_quota_family", "family_by_series", "gpu_architecture", "min_cuda", "parse_vm_size",
    "quota_family_name", "quota_key", "series_key", "status",
]

_catalogue = packaged


def quota_family_name(quota_family: str) -> str | None:
    """The catalogue's spelling of `quota_family` (a series' quota family or a size's own, any casing and
    spacing, e.g. `Standard EIv5 Family`), None when the catalogue does not know it."""
    if not isinstance(quota_family, str):
        return None
    catalogue = _catalogue()
    key = quota_key(quota_family)
    family = catalogue.by_quota.get(key)
    return family.quota_family if family is not None else catalogue.size_quota.get(key)


def parse_vm_size(name: str, catalogue: Catalogue | None = None) -> VmSize:
    """The size called `name` (case-insensitive). Raises `UnknownVmSize` for anything else.

    `catalogue`: an `extended()` catalogue; default: the packaged one (the same for every function here)."""
    if not isinstance(name, str):
        raise UnknownVmSize(
            f"VM size must be a string such as 'Standard_D4ds_v5', got {type(name).__name__} {name!r}"
        )
    size = (catalogue or _catalogue()).sizes.get(name.casefold())
    if size is None:
        raise UnknownVmSize(f"unknown VM size {name!r}: not a known Azure VM size name")
    return size


def family_by_series(series: str, catalogue: Catalogue | None = None) -> VmFamily:
    """The family called `series` or one of its aliases (case-insensitive, `-series` suffix allowed)."""
    family = (catalogue or _catalogue()).by_key.get(series_key(series)) if isinstance(series, str) else None
    if family is None:
        raise UnknownVmSize(f"unknown VM series {series!r}: not a series in the amlkit VM catalogue")
    return family


def family_by_quota_family(quota_family: str) -> VmFamily:
    """The family whose quota family is `quota_family` (`az vm list-usage` name.value or its display form,
    e.g. `standardNCASv3_T4Family` or `Standard NCASv3_T4 Family`; case-insensitive)."""
    family = _catalogue().by_quota.get(quota_key(quota_family)) if isinstance(quota_family, str) else None
    if family is None:
        raise UnknownVmSize(f"unknown quota family {quota_family!r}: not a quota family in the amlkit VM catalogue")
    return family


def all_families(catalogue: Catalogue | None = None) -> tuple[VmFamily, ...]:
    return (catalogue or _catalogue()).families


def catalogue_as_of() -> datetime.date:
    """The date the catalogue's sources were last checked (`as_of` in the data file)."""
    return _catalogue().as_of


def gpu_architecture(name: str) -> GpuArchitecture:
    return _catalogue().architectures[name]


def default_approved_series(catalogue: Catalogue | None = None) -> tuple[str, ...]:
    """The default allowedSeries: every family `default_exclusion` lets in, in data-file order."""
    catalogue = catalogue or _catalogue()
    return tuple(f.series for f in catalogue.families if not default_exclusion(f, catalogue))


def default_exclusion(family: VmFamily, catalogue: Catalogue | None = None) -> str:
    """Why `family` is not in the default allowedSeries ('' when it is). The default is derived from the
    catalogue's facts: a modern series (lifecycle stage Current or Extended, as Azure's retirements page
    recommends "v5, v6, and v7 VM series in the Current or Extended stage" and its previous-generation page
    lists no GPU series) of a CPU general purpose, memory or compute optimised family or an NVIDIA GPU family,
    on an x64 processor its size page names, with no retirement (past or announced), no capacity restriction, no
    preview tag and no historical approval requirement; `default_excluded` records a curated reason (confidential
    VMs, v4)."""
    catalogue = catalogue or _catalogue()
    if family.retirement is not None:
        return f"retired or retiring on {family.retirement.text}"
    if family.capacity_restricted is not None:
        return f"capacity-restricted since {family.capacity_restricted.text}: new subscriptions cannot deploy it"
    if family.approval_required:
        return "approval-required: allowed only by config"
    if family.category not in DEFAULT_CATEGORIES:
        return f"{family.category.replace('_', ' ')} series are allowed only by config"
    if family.gpu_generation is not None and catalogue.architectures[family.gpu_generation].vendor != "NVIDIA":
        return "AMD GPU (no CUDA): allowed only by config"
    if family.lifecycle is None:
        return "no lifecycle stage in the catalogue's sources"
    if family.lifecycle.stage == "previous":
        return "previous generation"
    if family.preview:
        return "preview: allowed only by config"
    if family.default_excluded:
        return family.default_excluded
    return architecture_exclusion(family)


def architecture_exclusion(family: VmFamily) -> str:
    """Why the processor keeps `family` out of every default ('' for a sourced x64 processor): Arm64 series and
    series whose processor the catalogue's sources do not name are allowed only by config."""
    if family.cpu_architecture is None:
        return "no processor architecture in the catalogue's sources: allowed only by config"
    if family.is_arm64:
        return "Arm64 processor: allowed only by config"
    return ""


def default_online_series(catalogue: Catalogue | None = None) -> tuple[str, ...]:
    """The default allowedOnlineSeries: every series with sizes on the managed online endpoints SKU list
    (`online_sizes`) that is not retired on the catalogue's date and runs on a sourced x64 processor."""
    catalogue = catalogue or _catalogue()
    return tuple(f.series for f in catalogue.families if f.online_sizes and not online_exclusion(f, catalogue))


def online_exclusion(family: VmFamily, catalogue: Catalogue | None = None) -> str:
    """Why `family` is not in the default allowedOnlineSeries ('' when it is)."""
    catalogue = catalogue or _catalogue()
    if not family.online_sizes:
        return "not on the managed online endpoints SKU list"
    if family.retirement is not None and family.retirement.date <= catalogue.as_of:
        return f"retired on {family.retirement.text}"
    return architecture_exclusion(family)


def online_sizes(catalogue: Catalogue | None = None) -> tuple[VmSize, ...]:
    """Every size managed online endpoints accept, in data-file order."""
    return tuple(size for size in all_sizes(catalogue) if size.online_deployable)


def instance_refusal(family: VmFamily) -> str:
    """Why a compute instance cannot use `family` ('' when nothing the catalogue knows refuses it)."""
    if family.clusters_only:
        return "which Azure ML runs on clusters only"
    if family.is_arm64:
        return ("an Arm64 series: Azure ML's supported series for compute instances (concept-compute-target.md) "
                "are all x64")
    if family.instance_unsupported is not None:
        return f"{family.instance_unsupported.reason} ({family.instance_unsupported.source.url})"
    return ""


def all_sizes(catalogue: Catalogue | None = None) -> tuple[VmSize, ...]:
    """Every size the catalogue knows, in data-file order."""
    return tuple((catalogue or _catalogue()).sizes.values())


def status(size: VmSize, today: datetime.date) -> str:
    """`retired` on or after its retirement date, `retiring` when one is announced, else `current`."""
    retirement = size.retirement
    if retirement is None:
        return "current"
    return "retired" if retirement.date <= today else "retiring"


def min_cuda(size: VmSize) -> str | None:
    """The first CUDA toolkit that supports the size's GPU: the family's own `cuda_min` when its GPU needs a later
    toolkit than its architecture's first (A10, GB300), else the architecture's (None: no GPU or not CUDA)."""
    if size.family.cuda_min is not None:
        return size.family.cuda_min.version
    generation = size.family.gpu_generation
    return gpu_architecture(generation).cuda_min if generation else None
