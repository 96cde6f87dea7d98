"""The VM catalogue's model: the dataclasses `amlkit.vmsizes` returns and the names it compares by.

No facts here: they are in `amlkit/data/vm_families.yaml`, read by `amlkit.vmload`."""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "CATEGORIES", "CPU_ARCHITECTURES", "Catalogue", "CpuArchitecture", "CudaMin", "DEFAULT_CATEGORIES", "Dated",
    "GpuArchitecture", "STAGES", "SizeQuotaFamilies", "SizeSet", "Source", "Stage", "Unsupported", "VmFamily", "VmSize",
    "cuda_tuple", "quota_key", "series_key",
]

CATEGORIES = (
    "general_purpose", "burstable", "memory_optimized", "compute_optimized", "hpc",
    "storage_optimized", "gpu", "fpga",
)
STAGES = ("current", "extended", "previous")
"""Azure's lifecycle stages of a series that is not End of Life (sizes/lifecycle/lifecycle-overview.md: Current,
Extended; `previous`: listed on the previous-generation page, sizes/lifecycle/previous-gen-sizes-list.md). End of
Life and Retired are the `retired` date (announced or past)."""
DEFAULT_CATEGORIES = ("general_purpose", "memory_optimized", "compute_optimized", "gpu")
"""The categories the default allowedSeries draws from: CPU general purpose, memory and compute optimised, and GPU.
HPC, storage optimised, burstable and FPGA series are allowed only by config."""
CPU_ARCHITECTURES = ("x64", "Arm64")
"""The processor architectures the size pages name ("[x86-64]", "[Arm64]"; the ND GB200/GB300 pages name the "Nvidia
Grace CPU", an Arm CPU)."""


@dataclass(frozen=True)
class Source:
    """A cited public page: its learn.microsoft.com (or vendor) URL and, for docs repositories, the file."""

    url: str
    file: str | None = None


@dataclass(frozen=True)
class Dated:
    """A sourced date. `text` keeps the published precision ("2021-03" when only the month is published);
    `date` is the first day it can mean, used for comparisons."""

    date: datetime.date
    text: str
    source: Source


@dataclass(frozen=True)
class Stage:
    """A series' lifecycle stage (one of `STAGES`) and the page that gives it."""

    stage: str
    source: Source


@dataclass(frozen=True)
class CpuArchitecture:
    """A series' processor architecture (one of `CPU_ARCHITECTURES`) and the page that names its processor."""

    name: str
    source: Source


@dataclass(frozen=True)
class Unsupported:
    """Why Azure ML does not run a series on compute instances, and the page that says so."""

    reason: str
    source: Source


@dataclass(frozen=True)
class CudaMin:
    """The first CUDA toolkit a family's GPU needs, when later than its architecture's first, and its source."""

    version: str
    source: Source


@dataclass(frozen=True)
class SizeSet:
    """Sizes of one family that a sourced fact names (e.g. the sizes without an online upgrade reserve)."""

    sizes: tuple[str, ...]
    source: Source


@dataclass(frozen=True)
class SizeQuotaFamilies:
    """Sizes of one family that Azure counts against a quota family of their own (e.g. the isolated
    Standard_E104i_v5 against standardEIv5Family, not its series' standardEv5Family), and the source."""

    families: tuple[tuple[str, str], ...]  # (size name, quota family), in data-file order
    source: Source


@dataclass(frozen=True)
class GpuArchitecture:
    name: str
    vendor: str
    cuda_min: str | None  # first CUDA toolkit that supports it; None: not a CUDA device
    cuda_dropped_in: str | None  # first CUDA toolkit that no longer supports it
    source: Source


@dataclass(frozen=True)
class VmFamily:
    """One VM series (one quota family) as the catalogue describes it."""

    series: str
    category: str
    quota_family: str | None  # None: not published in the sources read
    aml_supported: bool
    gpu_generation: str | None
    retired: datetime.date | None
    approval_required: bool
    isolated_sizes: tuple[str, ...]
    source: Source | None = None
    retirement: Dated | None = None
    successors: tuple[str, ...] = ()
    capacity_restricted: Dated | None = None
    gpu_model: str | None = None
    lifecycle: Stage | None = None  # None: no stage published in the sources read
    preview: bool = False  # the series' size page carries a preview tag
    default_excluded: str | None = None  # why a current series stays out of the default allowedSeries
    cuda_min: CudaMin | None = None  # a GPU that needs a later CUDA than its architecture's first (A10 sm_86: 11.1)
    gpu_memory_gb_per_gpu: int | None = None  # one physical GPU's memory (None: its page publishes only totals)
    clusters_only: bool = False  # Azure ML runs the series on clusters, not on compute instances (FX)
    skip_online_reserve: SizeSet | None = None  # sizes whose managed online deployments take no 20% upgrade reserve
    size_quota_families: SizeQuotaFamilies | None = None  # sizes with a quota family other than the series'
    cpu_architecture: CpuArchitecture | None = None  # None: no processor named in the sources read
    online_sizes: SizeSet | None = None  # sizes managed online endpoints accept (the online SKU list)
    instance_unsupported: Unsupported | None = None  # a sourced reason compute instances cannot run the series

    @property
    def is_arm64(self) -> bool:
        return self.cpu_architecture is not None and self.cpu_architecture.name == "Arm64"


@dataclass(frozen=True)
class VmSize:
    name: str  # canonical casing, e.g. "Standard_DS3_v2"
    family: VmFamily
    vcpus: int  # active vCPUs (constrained sizes count the active ones)
    gpus: str | None = None  # GPU count as the size page publishes it ("1", "1/6")
    gpu_memory_gb_total: int | None = None  # GPU memory the size gets: all its GPUs, or its share of a fractional one
    own_retirement: Dated | None = None  # a size retiring apart from its series
    base_vcpus: int | None = None  # a constrained size: its base size's vCPUs, all charged to quota

    @property
    def quota_vcpus(self) -> int:
        """The vCPUs a VM of this size counts against quota: a constrained size's base size's ("For Constrained
        vCPU capable VM sizes, this number represents the total vCPUs of quota that the VM uses",
        VirtualMachineSize.numberOfCores, Azure Compute REST API), else its vCPUs."""
        return self.base_vcpus or self.vcpus

    @property
    def online_deployable(self) -> bool:
        """Managed online endpoints accept this size (reference-managed-online-endpoints-vm-sku-list.md)."""
        listed = self.family.online_sizes
        return listed is not None and self.name in listed.sizes

    @property
    def retirement(self) -> Dated | None:
        return self.own_retirement or self.family.retirement

    @property
    def gpu_memory_gb_per_gpu(self) -> int | None:
        """The memory of one of the size's (physical) GPUs, from its family."""
        return self.family.gpu_memory_gb_per_gpu

    @property
    def isolated(self) -> bool:
        return self.name in self.family.isolated_sizes

    @property
    def skips_online_reserve(self) -> bool:
        """A managed online deployment of this size reserves no extra 20% of quota for upgrades ("Skip 20%
        Reservation" in reference-managed-online-endpoints-vm-sku-list.md)."""
        exempt = self.family.skip_online_reserve
        return exempt is not None and self.name in exempt.sizes

    @property
    def quota_family(self) -> str | None:
        """The quota family Azure counts this size's cores against: its own (`size_quota_families`), else its
        series' (None: not published in the sources read)."""
        own = self.family.size_quota_families
        return dict(own.families).get(self.name, self.family.quota_family) if own else self.family.quota_family


@dataclass(frozen=True)
class Catalogue:
    as_of: datetime.date
    families: tuple[VmFamily, ...]
    by_key: Mapping[str, VmFamily]  # series and aliases, folded
    by_quota: Mapping[str, VmFamily]  # quota family names, folded
    sizes: Mapping[str, VmSize]  # size name, folded
    architectures: Mapping[str, GpuArchitecture]
    size_quota: Mapping[str, str] = dataclasses.field(default_factory=dict)  # sizes' own quota families, folded


def series_key(series: str) -> str:
    """How series names compare: casefolded, without a trailing `-series`."""
    key = series.strip().casefold()
    for suffix in ("-series", " series"):
        key = key.removesuffix(suffix)
    return key


def quota_key(quota_family: str) -> str:
    """How quota family names compare: casefolded, without spaces."""
    return "".join(quota_family.split()).casefold()


def cuda_tuple(text: str) -> tuple[int, int]:
    """'12.4' -> (12, 4), for comparing CUDA versions."""
    major, minor = text.split(".")
    return int(major), int(minor)
