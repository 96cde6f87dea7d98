"""Loading and validating the VM catalogue (`amlkit/data/vm_families.yaml`), and extending it from config.

`build_catalogue` checks every entry and names the bad key in its `ConfigError`; `packaged()` is the packaged
catalogue (read once); `extended()` adds a policy pack config's `extraFamilies`. `amlkit.vmsizes` re-exports both.
"""

from __future__ import annotations

import datetime
import functools
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from amlkit.errors import ConfigError
from amlkit.vmcache import cached_parse
from amlkit.vmmodel import (
    CATEGORIES,
    CPU_ARCHITECTURES,
    STAGES,
    Catalogue,
    CpuArchitecture,
    CudaMin,
    Dated,
    GpuArchitecture,
    SizeQuotaFamilies,
    SizeSet,
    Source,
    Stage,
    Unsupported,
    VmFamily,
    VmSize,
    quota_key,
    series_key,
)

__all__ = ["DATA_FILE", "build_catalogue", "extended", "packaged"]

DATA_FILE = "amlkit/data/vm_families.yaml"

_TOP_KEYS = {"as_of", "sources", "gpu_architectures", "families"}
_FAMILY_KEYS = {
    "series", "aliases", "category", "quota_family", "aml_supported", "gpu_generation", "gpu_model", "retired",
    "capacity_restricted", "approval_required", "isolated_sizes", "sizes", "source", "lifecycle", "preview",
    "default_excluded", "cuda_min", "gpu_memory_gb_per_gpu", "clusters_only", "skip_online_reserve",
    "size_quota_families", "cpu_architecture", "online_sizes", "instance_unsupported",
}
_SIZE_KEYS = {"template", "vcpus", "constrained", "gpus", "gpu_memory_gb_total", "retired"}

# --- loading -----------------------------------------------------------------------------------------


@functools.cache
def _raw() -> Mapping[str, Any]:
    """The parsed data file: from the parsed copy beside the bytecode when it is current (amlkit.vmcache)."""
    source = resources.files("amlkit").joinpath("data/vm_families.yaml")
    if isinstance(source, Path):
        import yaml

        return cached_parse(source, _parse, f"PyYAML {yaml.__version__}")
    return _parse(source.read_text(encoding="utf-8"))


def _parse(text: str) -> Mapping[str, Any]:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: ~10x faster
    data: Mapping[str, Any] = yaml.load(text, Loader=loader)  # a safe loader either way
    return data


@functools.cache
def packaged() -> Catalogue:
    """The packaged catalogue, read and checked once."""
    return build_catalogue(_raw())


# --- extending the catalogue without a release (policy pack config `extraFamilies`) -------------------------


def extended(extra: Any, key_path: str) -> Catalogue:
    """The packaged catalogue plus `extra`: a list of family entries in the data file's schema (JSON, so dates
    are strings). An entry whose `series` (or alias) is a known series overrides the keys it gives (e.g. a
    `retired` date); any other entry adds a family and needs `category`, `source` and `sizes`. Errors name
    `<key_path>[i]...`. The same `extra` gives the same (cached) catalogue."""
    if not extra:
        return packaged()
    if not isinstance(extra, list):
        raise ConfigError(None, key_path, "expected a list of VM family entries", extra)
    return _extended(json.dumps(extra, sort_keys=True, default=str), key_path)


@functools.cache
def _extended(extra_json: str, key_path: str) -> Catalogue:
    base = _raw()
    families = [dict(entry) for entry in base["families"]]
    index = {series_key(name): i for i, entry in enumerate(families)
             for name in [entry["series"], *entry.get("aliases", [])]}
    origin: dict[int, int] = {}
    for number, entry in enumerate(json.loads(extra_json)):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("series"), str):
            raise ConfigError(None, f"{key_path}[{number}]", "expected an object with a series name", entry)
        target = index.get(series_key(entry["series"]))
        if target is None:
            families.append(_from_json(entry))
            target = len(families) - 1
        else:
            families[target] = {**families[target], **_from_json(entry), "series": families[target]["series"]}
        origin[target] = number
    try:
        return build_catalogue({**base, "families": families}, file=None)
    except ConfigError as error:
        match = re.match(r"families\[(\d+)\](.*)", error.key_path)
        if match is None or int(match[1]) not in origin:
            raise
        raise ConfigError(None, f"{key_path}[{origin[int(match[1])]}]{match[2]}", error.problem,
                          error.value) from None


def _from_json(entry: Mapping[str, Any]) -> dict[str, Any]:
    """JSON object keys are strings: size maps keyed by n become int-keyed as in the data file."""
    result = dict(entry)
    if isinstance(result.get("sizes"), list):
        result["sizes"] = [{key: _int_keys(value) for key, value in spec.items()} if isinstance(spec, Mapping)
                           else spec for spec in result["sizes"]]
    return result


def _int_keys(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {int(k) if isinstance(k, str) and k.isdigit() else k: v for k, v in value.items()}
    return value


def build_catalogue(data: Any, file: str | None = DATA_FILE) -> Catalogue:
    """Validate the parsed data file and index it; a bad entry raises `ConfigError` naming its key."""
    entries, as_of = _top_level(file, data)
    sources = _sources(file, data.get("sources"))
    architectures = _architectures(file, data.get("gpu_architectures", {}), sources)
    index = _Index()
    for position, entry in enumerate(entries):
        path = f"families[{position}]"
        _add_family(file, path, _family(file, path, entry, sources, architectures), entry, sources, index)
    size_quota: dict[str, str] = {}
    for position, family in enumerate(index.families):
        _check_size_quota_families(file, f"families[{position}]", family, index.by_quota, size_quota)
        _check_successors(file, f"families[{position}]", family, index.by_key)
    return Catalogue(as_of, tuple(index.families), index.by_key, index.by_quota, index.sizes, architectures,
                     size_quota)


@dataclass
class _Index:
    """The catalogue's indexes, filled family by family (each name unique across the file)."""

    families: list[VmFamily] = field(default_factory=list)
    by_key: dict[str, VmFamily] = field(default_factory=dict)  # series_key of a series or alias -> its family
    by_quota: dict[str, VmFamily] = field(default_factory=dict)  # quota_key of a quota family -> its family
    sizes: dict[str, VmSize] = field(default_factory=dict)  # casefolded size name -> the size


def _top_level(file: str | None, data: Any) -> tuple[list[Any], datetime.date]:
    """The file's top-level keys: only the known ones, a non-empty list of families and an `as_of` date."""
    if not isinstance(data, Mapping):
        raise ConfigError(file, "families", "expected a non-empty list of VM families")
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise ConfigError(file, ".", f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(_TOP_KEYS))}")
    entries = data.get("families")
    if not isinstance(entries, list) or not entries:
        raise ConfigError(file, "families", "expected a non-empty list of VM families")
    as_of = data.get("as_of")
    if not isinstance(as_of, datetime.date):
        raise ConfigError(file, "as_of", f"{as_of!r} is not a date (YYYY-MM-DD)")
    return entries, as_of


def _add_family(file: str | None, path: str, family: VmFamily, entry: Mapping[str, Any],
                sources: Mapping[str, Source], index: _Index) -> None:
    """Index one family by its quota family, series, aliases and sizes, each defined once in the file."""
    index.families.append(family)
    quota = family.quota_family
    if quota is not None:
        _add_unique(file, f"{path}.quota_family", index.by_quota, quota_key(quota), family, f"quota family {quota!r}")
    for key in [family.series, *_strings(file, f"{path}.aliases", entry.get("aliases", []))]:
        _add_unique(file, f"{path}.aliases", index.by_key, series_key(key), family, f"series name {key!r}")
    for size in _sizes(file, path, entry, family, sources):
        _add_unique(file, f"{path}.sizes", index.sizes, size.name.casefold(), size, f"size {size.name!r}")
    _check_own_sizes(file, path, family, index.sizes)


def _check_own_sizes(file: str | None, path: str, family: VmFamily, sizes: Mapping[str, VmSize]) -> None:
    """Each size a family's size lists name is one of its own sizes, spelled as its template makes it."""
    exempt = family.skip_online_reserve.sizes if family.skip_online_reserve else ()
    own = family.size_quota_families.families if family.size_quota_families else ()
    online = family.online_sizes.sizes if family.online_sizes else ()
    for key, named in (("isolated_sizes", family.isolated_sizes), ("skip_online_reserve.sizes", exempt),
                       ("size_quota_families.sizes", tuple(name for name, _ in own)),
                       ("online_sizes.sizes", online)):
        for name in named:
            found = sizes.get(name.casefold())
            if found is None or found.family is not family or found.name != name:
                raise ConfigError(file, f"{path}.{key}", f"{name!r} is not a size of this family")


def _check_size_quota_families(file: str | None, path: str, family: VmFamily, by_quota: Mapping[str, VmFamily],
                               size_quota: dict[str, str]) -> None:
    """A size's own quota family is no series' quota family; collects them (quota_key -> name) in `size_quota`."""
    for name, quota in family.size_quota_families.families if family.size_quota_families else ():
        if quota_key(quota) in by_quota:
            series = by_quota[quota_key(quota)].series
            raise ConfigError(file, f"{path}.size_quota_families.sizes.{name}",
                              f"{quota!r} is the quota family of series {series}")
        size_quota.setdefault(quota_key(quota), quota)


def _check_successors(file: str | None, path: str, family: VmFamily, by_key: Mapping[str, VmFamily]) -> None:
    """A retired family's successors are series of the catalogue."""
    for successor in family.successors:
        if series_key(successor) not in by_key:
            raise ConfigError(file, f"{path}.retired.successors", f"{successor!r} is not a series here")


def _sources(file: str | None, raw: Any) -> dict[str, Source]:
    if not isinstance(raw, Mapping) or not raw:
        raise ConfigError(file, "sources", "expected a map of source id -> {url, file?}")
    sources = {}
    for key, value in raw.items():
        url = value.get("url") if isinstance(value, Mapping) else None
        if not isinstance(url, str) or not url.startswith("https://") or set(value) - {"url", "file"}:
            raise ConfigError(file, f"sources.{key}", "expected {url: https://..., file?: '<repo> <path>'}")
        sources[key] = Source(url, value.get("file"))
    return sources


def _source(file: str | None, path: str, raw: Any, sources: Mapping[str, Source]) -> Source:
    """A source id from the `sources` table, or an inline https URL."""
    if isinstance(raw, str) and raw.startswith("https://"):
        return Source(raw)
    if not isinstance(raw, str) or raw not in sources:
        raise ConfigError(file, path, f"{raw!r} is not a source id from `sources` or an https URL")
    return sources[raw]


def _dated(file: str | None, path: str, raw: Any, sources: Mapping[str, Source], key: str = "date") -> Dated:
    if not isinstance(raw, Mapping) or key not in raw or "source" not in raw:
        raise ConfigError(file, path, f"expected {{{key}: YYYY-MM-DD or YYYY-MM, source: <id or URL>, ...}}")
    value = raw[key]
    if isinstance(value, datetime.date):
        day, text = value, value.isoformat()
    else:
        try:
            full = isinstance(value, str) and len(value) == 10
            day, text = datetime.date.fromisoformat(value if full else f"{value}-01"), str(value)
        except (TypeError, ValueError):
            raise ConfigError(file, f"{path}.{key}", f"{value!r} is not a date (YYYY-MM-DD or YYYY-MM)") from None
    return Dated(day, text, _source(file, f"{path}.source", raw["source"], sources))


def _architectures(file: str | None, raw: Any, sources: Mapping[str, Source]) -> dict[str, GpuArchitecture]:
    if not isinstance(raw, Mapping):
        raise ConfigError(file, "gpu_architectures", "expected a map of architecture -> facts")
    found = {}
    for name, facts in raw.items():
        path = f"gpu_architectures.{name}"
        if not isinstance(facts, Mapping) or set(facts) - {"vendor", "cuda_min", "cuda_dropped_in", "source"}:
            raise ConfigError(file, path, "expected {vendor, cuda_min?, cuda_dropped_in?, source}")
        cuda = [facts.get("cuda_min"), facts.get("cuda_dropped_in")]
        if not all(v is None or (isinstance(v, str) and _cuda_ok(v)) for v in cuda):
            raise ConfigError(file, path, f"CUDA versions must be strings such as '12.0', got {cuda}")
        found[name] = GpuArchitecture(name, str(facts.get("vendor")), cuda[0], cuda[1],
                                      _source(file, f"{path}.source", facts.get("source"), sources))
    return found


def _cuda_ok(text: str) -> bool:
    parts = text.split(".")
    return len(parts) == 2 and all(p.isdigit() for p in parts)


def _family(file: str | None, path: str, entry: Any, sources: Mapping[str, Source],
            architectures: Mapping[str, GpuArchitecture]) -> VmFamily:
    if not isinstance(entry, Mapping):
        raise ConfigError(file, path, "expected a mapping describing one VM series")
    unknown = sorted(set(entry) - _FAMILY_KEYS)
    if unknown:
        allowed = ", ".join(sorted(_FAMILY_KEYS))
        raise ConfigError(file, path, f"unknown key(s) {', '.join(unknown)}; allowed: {allowed}")
    if not isinstance(entry.get("series"), str) or not entry["series"]:
        raise ConfigError(file, f"{path}.series", "required, a non-empty string")
    quota = entry.get("quota_family")
    if quota is not None and (not isinstance(quota, str) or not quota):
        raise ConfigError(file, f"{path}.quota_family", "a non-empty string when given")
    if entry.get("category") not in CATEGORIES:
        problem = f"{entry.get('category')!r}; allowed: {', '.join(CATEGORIES)}"
        raise ConfigError(file, f"{path}.category", problem)
    if "source" not in entry:
        raise ConfigError(file, f"{path}.source", "required: the page that documents this series")
    source = _source(file, f"{path}.source", entry["source"], sources)
    retirement = _dated(file, f"{path}.retired", entry["retired"], sources) if "retired" in entry else None
    successors = tuple(_strings(file, f"{path}.retired.successors", entry["retired"].get("successors", []))
                       if retirement else [])
    restricted = (_dated(file, f"{path}.capacity_restricted", entry["capacity_restricted"], sources, "since")
                  if "capacity_restricted" in entry else None)
    lifecycle = _stage(file, f"{path}.lifecycle", entry["lifecycle"], sources) if "lifecycle" in entry else None
    excluded = entry.get("default_excluded")
    if excluded is not None and (not isinstance(excluded, str) or not excluded):
        raise ConfigError(file, f"{path}.default_excluded", "a non-empty reason when given")
    generation = entry.get("gpu_generation")
    if generation is not None and generation not in architectures:
        raise ConfigError(file, f"{path}.gpu_generation", f"{generation!r} is not in gpu_architectures")
    return VmFamily(
        series=entry["series"],
        category=entry["category"],
        quota_family=quota,
        aml_supported=_flag(file, f"{path}.aml_supported", entry.get("aml_supported", False)),
        gpu_generation=generation,
        retired=retirement.date if retirement else None,
        approval_required=_flag(file, f"{path}.approval_required", entry.get("approval_required", False)),
        isolated_sizes=tuple(_strings(file, f"{path}.isolated_sizes", entry.get("isolated_sizes", []))),
        source=source,
        retirement=retirement,
        successors=successors,
        capacity_restricted=restricted,
        gpu_model=entry.get("gpu_model"),
        lifecycle=lifecycle,
        preview=_flag(file, f"{path}.preview", entry.get("preview", False)),
        default_excluded=excluded,
        cuda_min=_cuda_min(file, f"{path}.cuda_min", entry.get("cuda_min"), sources),
        gpu_memory_gb_per_gpu=_positive(file, f"{path}.gpu_memory_gb_per_gpu", entry.get("gpu_memory_gb_per_gpu")),
        clusters_only=_flag(file, f"{path}.clusters_only", entry.get("clusters_only", False)),
        skip_online_reserve=_size_set(file, f"{path}.skip_online_reserve", entry.get("skip_online_reserve"), sources),
        size_quota_families=_size_quota(file, f"{path}.size_quota_families", entry.get("size_quota_families"),
                                        sources),
        cpu_architecture=_architecture(file, f"{path}.cpu_architecture", entry.get("cpu_architecture"), sources),
        online_sizes=_size_set(file, f"{path}.online_sizes", entry.get("online_sizes"), sources),
        instance_unsupported=_unsupported(file, f"{path}.instance_unsupported", entry.get("instance_unsupported"),
                                          sources),
    )


def _architecture(file: str | None, path: str, raw: Any, sources: Mapping[str, Source]) -> CpuArchitecture | None:
    """{name: x64 | Arm64, source}: the processor architecture the series' size page names."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping) or set(raw) != {"name", "source"} or raw["name"] not in CPU_ARCHITECTURES:
        raise ConfigError(file, path, f"expected {{name: {' | '.join(CPU_ARCHITECTURES)}, source: <id or URL>}}",
                          raw)
    return CpuArchitecture(raw["name"], _source(file, f"{path}.source", raw["source"], sources))


def _unsupported(file: str | None, path: str, raw: Any, sources: Mapping[str, Source]) -> Unsupported | None:
    """{reason, source}: why Azure ML does not run the series on compute instances."""
    if raw is None:
        return None
    if (not isinstance(raw, Mapping) or set(raw) != {"reason", "source"} or not isinstance(raw["reason"], str)
            or not raw["reason"]):
        raise ConfigError(file, path, "expected {reason: <text>, source: <id or URL>}", raw)
    return Unsupported(raw["reason"], _source(file, f"{path}.source", raw["source"], sources))


def _size_quota(file: str | None, path: str, raw: Any, sources: Mapping[str, Source]) -> SizeQuotaFamilies | None:
    """{sizes: {size name: quota family}, source}; the sizes are checked against the family's once known."""
    if raw is None:
        return None
    if (not isinstance(raw, Mapping) or set(raw) != {"sizes", "source"} or not isinstance(raw["sizes"], Mapping)
            or not raw["sizes"]):
        raise ConfigError(file, path, "expected {sizes: {size name: quota family}, source: <id or URL>}", raw)
    for name, quota in raw["sizes"].items():
        if not isinstance(name, str) or not name or not isinstance(quota, str) or not quota:
            raise ConfigError(file, f"{path}.sizes", f"{name!r}: {quota!r} is not a size name and a quota family")
    return SizeQuotaFamilies(tuple(raw["sizes"].items()), _source(file, f"{path}.source", raw["source"], sources))


def _size_set(file: str | None, path: str, raw: Any, sources: Mapping[str, Source]) -> SizeSet | None:
    """{sizes: [names], source}; the sizes are checked against the family's once its sizes are known."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping) or set(raw) != {"sizes", "source"}:
        raise ConfigError(file, path, "expected {sizes: [size names], source: <id or URL>}", raw)
    return SizeSet(tuple(_strings(file, f"{path}.sizes", raw["sizes"])),
                   _source(file, f"{path}.source", raw["source"], sources))


def _cuda_min(file: str | None, path: str, raw: Any, sources: Mapping[str, Source]) -> CudaMin | None:
    """{version: '11.1', source}."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping) or set(raw) != {"version", "source"} or not (
            isinstance(raw["version"], str) and _cuda_ok(raw["version"])):
        raise ConfigError(file, path, "expected {version: '<major>.<minor>', source: <id or URL>}", raw)
    return CudaMin(raw["version"], _source(file, f"{path}.source", raw["source"], sources))


def _positive(file: str | None, path: str, raw: Any) -> int | None:
    if raw is not None and (not isinstance(raw, int) or isinstance(raw, bool) or raw < 1):
        raise ConfigError(file, path, f"{raw!r} is not a positive whole number")
    return raw


def _stage(file: str | None, path: str, raw: Any, sources: Mapping[str, Source]) -> Stage:
    if not isinstance(raw, Mapping) or set(raw) != {"stage", "source"} or raw["stage"] not in STAGES:
        raise ConfigError(file, path, f"expected {{stage: {' | '.join(STAGES)}, source: <id or URL>}}", raw)
    return Stage(raw["stage"], _source(file, f"{path}.source", raw["source"], sources))


def _sizes(file: str | None, path: str, entry: Mapping[str, Any], family: VmFamily,
           sources: Mapping[str, Source]) -> Iterator[VmSize]:
    templates = entry.get("sizes")
    if not isinstance(templates, list) or not templates:
        raise ConfigError(file, f"{path}.sizes", "expected a non-empty list of size templates")
    for index, spec in enumerate(templates):
        yield from _expand(file, f"{path}.sizes[{index}]", spec, family, sources)


def _expand(file: str | None, path: str, spec: Any, family: VmFamily,
            sources: Mapping[str, Source]) -> Iterator[VmSize]:
    if not isinstance(spec, Mapping) or set(spec) - _SIZE_KEYS or "template" not in spec:
        raise ConfigError(file, path, "expected {template, vcpus, constrained?, gpus?, gpu_memory_gb_total?, retired?}")
    template = spec["template"]
    if not isinstance(template, str) or template.count("{n}") != 1:
        raise ConfigError(file, f"{path}.template", f"{template!r} must contain {{n}} exactly once")
    vcpus = _vcpu_table(file, f"{path}.vcpus", spec.get("vcpus"))
    gpus = _per_n(file, f"{path}.gpus", spec.get("gpus", {}), vcpus)
    memory = _per_n(file, f"{path}.gpu_memory_gb_total", spec.get("gpu_memory_gb_total", {}), vcpus)
    retired = _dated(file, f"{path}.retired", spec["retired"], sources) if "retired" in spec else None
    for number, count in vcpus.items():
        gpu_count = str(gpus[number]) if number in gpus else None
        yield VmSize(template.replace("{n}", str(number)), family, count, gpu_count, memory.get(number), retired)
    constrained = spec.get("constrained", {})
    if not isinstance(constrained, Mapping):
        raise ConfigError(file, f"{path}.constrained", "expected a map of n -> active vCPU counts")
    for number, actives in constrained.items():
        if number not in vcpus or not isinstance(actives, list):
            raise ConfigError(file, f"{path}.constrained.{number}", "must name a listed n with a list of counts")
        for active in actives:
            if not isinstance(active, int) or not 0 < active < vcpus[number]:
                raise ConfigError(file, f"{path}.constrained.{number}", f"{active!r} is not below {vcpus[number]}")
            yield VmSize(template.replace("{n}", f"{number}-{active}"), family, active, None, None, retired,
                         base_vcpus=vcpus[number])


def _per_n(file: str | None, path: str, raw: Any, vcpus: Mapping[int, int]) -> dict[int, Any]:
    if not isinstance(raw, Mapping) or any(n not in vcpus for n in raw):
        raise ConfigError(file, path, "expected a map n -> value for listed n only")
    return dict(raw)


def _vcpu_table(file: str | None, path: str, raw: Any) -> dict[int, int]:
    table = {n: n for n in raw} if isinstance(raw, list) else raw
    if not isinstance(table, Mapping) or not table:
        raise ConfigError(file, path, "expected a list of vCPU counts or a map n -> vCPUs")
    for number, count in table.items():
        if not isinstance(number, int) or not isinstance(count, int) or number < 0 or count < 1:
            raise ConfigError(file, path, f"{number!r}: {count!r} is not a non-negative n with a positive count")
    return dict(table)


def _flag(file: str | None, path: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(file, path, f"{value!r} is not true or false")
    return value


def _strings(file: str | None, path: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise ConfigError(file, path, "expected a list of non-empty strings")
    return value


def _add_unique(file: str | None, path: str, index: dict[str, Any], key: str, value: Any, what: str) -> None:
    if key in index:
        raise ConfigError(file, path, f"{what} is defined twice")
    index[key] = value
