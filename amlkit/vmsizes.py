"""Azure VM sizes: name -> family and vCPUs, from the one catalogue in `amlkit/data/vm_families.yaml`.

Every fact (series, quota family, Azure ML support, retirement, sizes) lives in the data file; this
module only reads it. A size is known when a family's template produces it exactly (any casing):
`Standard_DS3_v2` -> DSv2 with 4 vCPUs, `Standard_M8-2ms` -> M with 2 active vCPUs. Anything else
raises `UnknownVmSize`: amlkit never guesses a family from a name that merely looks plausible.
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml

from amlkit.errors import ConfigError, UnknownVmSize

DATA_FILE = "amlkit/data/vm_families.yaml"

_FAMILY_KEYS = {
    "series", "aliases", "category", "quota_family", "aml_supported", "gpu_generation", "retired",
    "approval_required", "isolated_sizes", "sizes",
}
_SIZE_KEYS = {"template", "vcpus", "constrained"}
CATEGORIES = (
    "general_purpose", "burstable", "memory_optimized", "compute_optimized", "hpc",
    "storage_optimized", "gpu", "fpga",
)


@dataclass(frozen=True)
class VmFamily:
    """One VM series (one quota family) as the catalogue describes it."""

    series: str
    category: str
    quota_family: str
    aml_supported: bool
    gpu_generation: str | None
    retired: datetime.date | None
    approval_required: bool
    isolated_sizes: tuple[str, ...]


@dataclass(frozen=True)
class VmSize:
    name: str  # canonical casing, e.g. "Standard_DS3_v2"
    family: VmFamily
    vcpus: int  # active vCPUs (constrained sizes count the active ones)


@dataclass(frozen=True)
class _Catalogue:
    families: tuple[VmFamily, ...]
    by_key: Mapping[str, VmFamily]  # series and aliases, folded
    by_quota: Mapping[str, VmFamily]  # quota family names, folded
    sizes: Mapping[str, VmSize]  # size name, folded


def parse_vm_size(name: str) -> VmSize:
    """The size called `name` (case-insensitive). Raises `UnknownVmSize` for anything else."""
    if not isinstance(name, str):
        raise UnknownVmSize(
            f"VM size must be a string such as 'Standard_DS3_v2', got {type(name).__name__} {name!r}"
        )
    size = _catalogue().sizes.get(name.casefold())
    if size is None:
        raise UnknownVmSize(f"unknown VM size {name!r}: not a known Azure VM size name")
    return size


def family_by_series(series: str) -> VmFamily:
    """The family called `series` or one of its aliases (case-insensitive, `-series` suffix allowed)."""
    family = _catalogue().by_key.get(series_key(series)) if isinstance(series, str) else None
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


def all_families() -> tuple[VmFamily, ...]:
    return _catalogue().families


def default_approved_series() -> tuple[str, ...]:
    """Series supported for Azure ML managed compute, not retired and never approval-gated."""
    return tuple(
        f.series for f in all_families() if f.aml_supported and f.retired is None and not f.approval_required
    )


def all_sizes() -> tuple[VmSize, ...]:
    """Every size the catalogue knows, in data-file order."""
    return tuple(_catalogue().sizes.values())


def series_key(series: str) -> str:
    """How series names compare: casefolded, without a trailing `-series`."""
    key = series.strip().casefold()
    for suffix in ("-series", " series"):
        key = key.removesuffix(suffix)
    return key


def quota_key(quota_family: str) -> str:
    """How quota family names compare: casefolded, without spaces."""
    return "".join(quota_family.split()).casefold()


# --- loading -----------------------------------------------------------------------------------------


@functools.cache
def _catalogue() -> _Catalogue:
    text = resources.files("amlkit").joinpath("data/vm_families.yaml").read_text(encoding="utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: ~10x faster
    return build_catalogue(yaml.load(text, Loader=loader))  # a safe loader either way


def build_catalogue(data: Any, file: str = DATA_FILE) -> _Catalogue:
    """Validate the parsed data file and index it; a bad entry raises `ConfigError` naming its key."""
    entries = data.get("families") if isinstance(data, Mapping) else None
    if not isinstance(entries, list) or not entries:
        raise ConfigError(file, "families", "expected a non-empty list of VM families")
    families: list[VmFamily] = []
    by_key: dict[str, VmFamily] = {}
    by_quota: dict[str, VmFamily] = {}
    sizes: dict[str, VmSize] = {}
    for index, entry in enumerate(entries):
        path = f"families[{index}]"
        family = _family(file, path, entry)
        families.append(family)
        quota = family.quota_family
        _add_unique(file, f"{path}.quota_family", by_quota, quota_key(quota), family, f"quota family {quota!r}")
        for key in [family.series, *_strings(file, f"{path}.aliases", entry.get("aliases", []))]:
            _add_unique(file, f"{path}.aliases", by_key, series_key(key), family, f"series name {key!r}")
        for size in _sizes(file, path, entry, family):
            _add_unique(file, f"{path}.sizes", sizes, size.name.casefold(), size, f"size {size.name!r}")
        for isolated in family.isolated_sizes:
            found = sizes.get(isolated.casefold())
            if found is None or found.family is not family or found.name != isolated:
                raise ConfigError(file, f"{path}.isolated_sizes", f"{isolated!r} is not a size of this family")
    return _Catalogue(tuple(families), by_key, by_quota, sizes)


def _family(file: str, path: str, entry: Any) -> VmFamily:
    if not isinstance(entry, Mapping):
        raise ConfigError(file, path, "expected a mapping describing one VM series")
    unknown = sorted(set(entry) - _FAMILY_KEYS)
    if unknown:
        allowed = ", ".join(sorted(_FAMILY_KEYS))
        raise ConfigError(file, path, f"unknown key(s) {', '.join(unknown)}; allowed: {allowed}")
    for key in ("series", "quota_family"):
        if not isinstance(entry.get(key), str) or not entry[key]:
            raise ConfigError(file, f"{path}.{key}", "required, a non-empty string")
    if entry.get("category") not in CATEGORIES:
        problem = f"{entry.get('category')!r}; allowed: {', '.join(CATEGORIES)}"
        raise ConfigError(file, f"{path}.category", problem)
    retired = entry.get("retired")
    if retired is not None and not isinstance(retired, datetime.date):
        raise ConfigError(file, f"{path}.retired", f"{retired!r} is not a date (YYYY-MM-DD)")
    generation = entry.get("gpu_generation")
    if generation is not None and not isinstance(generation, str):
        raise ConfigError(file, f"{path}.gpu_generation", f"{generation!r} is not a string")
    return VmFamily(
        series=entry["series"],
        category=entry["category"],
        quota_family=entry["quota_family"],
        aml_supported=_flag(file, f"{path}.aml_supported", entry.get("aml_supported", False)),
        gpu_generation=generation,
        retired=retired,
        approval_required=_flag(file, f"{path}.approval_required", entry.get("approval_required", False)),
        isolated_sizes=tuple(_strings(file, f"{path}.isolated_sizes", entry.get("isolated_sizes", []))),
    )


def _sizes(file: str, path: str, entry: Mapping[str, Any], family: VmFamily) -> Iterator[VmSize]:
    templates = entry.get("sizes")
    if not isinstance(templates, list) or not templates:
        raise ConfigError(file, f"{path}.sizes", "expected a non-empty list of size templates")
    for index, spec in enumerate(templates):
        yield from _expand(file, f"{path}.sizes[{index}]", spec, family)


def _expand(file: str, path: str, spec: Any, family: VmFamily) -> Iterator[VmSize]:
    if not isinstance(spec, Mapping) or set(spec) - _SIZE_KEYS or "template" not in spec:
        raise ConfigError(file, path, "expected {template, vcpus, constrained?}")
    template = spec["template"]
    if not isinstance(template, str) or template.count("{n}") != 1:
        raise ConfigError(file, f"{path}.template", f"{template!r} must contain {{n}} exactly once")
    vcpus = _vcpu_table(file, f"{path}.vcpus", spec.get("vcpus"))
    for number, count in vcpus.items():
        yield VmSize(template.replace("{n}", str(number)), family, count)
    constrained = spec.get("constrained", {})
    if not isinstance(constrained, Mapping):
        raise ConfigError(file, f"{path}.constrained", "expected a map of n -> active vCPU counts")
    for number, actives in constrained.items():
        if number not in vcpus or not isinstance(actives, list):
            raise ConfigError(file, f"{path}.constrained.{number}", "must name a listed n with a list of counts")
        for active in actives:
            if not isinstance(active, int) or not 0 < active < vcpus[number]:
                raise ConfigError(file, f"{path}.constrained.{number}", f"{active!r} is not below {vcpus[number]}")
            yield VmSize(template.replace("{n}", f"{number}-{active}"), family, active)


def _vcpu_table(file: str, path: str, raw: Any) -> dict[int, int]:
    table = {n: n for n in raw} if isinstance(raw, list) else raw
    if not isinstance(table, Mapping) or not table:
        raise ConfigError(file, path, "expected a list of vCPU counts or a map n -> vCPUs")
    for number, count in table.items():
        if not isinstance(number, int) or not isinstance(count, int) or number < 0 or count < 1:
            raise ConfigError(file, path, f"{number!r}: {count!r} is not a non-negative n with a positive count")
    return dict(table)


def _flag(file: str, path: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(file, path, f"{value!r} is not true or false")
    return value


def _strings(file: str, path: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise ConfigError(file, path, "expected a list of non-empty strings")
    return value


def _add_unique(file: str, path: str, index: dict[str, Any], key: str, value: Any, what: str) -> None:
    if key in index:
        raise ConfigError(file, path, f"{what} is defined twice")
    index[key] = value
