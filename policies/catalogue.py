"""The VM catalogue as the size-reading rules see it: the packaged one plus the pack config's `extraFamilies`.

A platform team extends or corrects the catalogue without waiting for an amlkit release by giving the same
`extraFamilies` list to each rule that reads VM sizes (aml-compute-approved-vm-family,
aml-compute-retired-vm-series, aml-compute-vm-series-retiring, aml-gpu-cuda-compatible, aml-compute-isolated-size,
aml-online-deployment-supported-size). Entries use the data file's keys (`amlkit/data/vm_families.yaml`): an entry
naming a known series overrides the keys it gives (e.g. a `retired` date with its source); another entry adds a
family. The JSON schema below validates the shape; the catalogue loader then checks the facts (templates, dates,
sources, unique names) and names `<rule>.extraFamilies[i]...` in its errors.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from amlkit.vmsizes import (
    CATEGORIES,
    Catalogue,
    VmFamily,
    cuda_tuple,
    default_approved_series,
    default_online_series,
    extended,
    family_by_series,
)

__all__ = [
    "KEY", "SCHEMA", "approval_text", "catalogue", "cuda_text", "isolated_text", "retired_text", "successor_text",
]

KEY = "extraFamilies"
_DATE = {"type": "string", "pattern": r"^\d{4}-\d{2}(-\d{2})?$"}
_SOURCE = {"type": "string", "minLength": 1}
_STRINGS = {"type": "array", "items": {"type": "string", "minLength": 1}}
_PER_N = {"type": "object", "additionalProperties": {"type": ["integer", "string"]}}
_SIZE = {
    "type": "object",
    "required": ["template", "vcpus"],
    "additionalProperties": False,
    "properties": {
        "template": {"type": "string", "pattern": r"\{n\}"},
        "vcpus": {"type": ["array", "object"]},
        "constrained": {"type": "object"},
        "gpus": _PER_N,
        "gpu_memory_gb_total": _PER_N,
        "retired": {"type": "object", "required": ["date", "source"], "additionalProperties": False,
                    "properties": {"date": _DATE, "source": _SOURCE}},
    },
}
SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["series"],
        "additionalProperties": False,
        "properties": {
            "series": {"type": "string", "minLength": 1},
            "aliases": _STRINGS,
            "category": {"type": "string", "enum": list(CATEGORIES)},
            "source": _SOURCE,
            "quota_family": {"type": "string", "minLength": 1},
            "aml_supported": {"type": "boolean"},
            "approval_required": {"type": "boolean"},
            "gpu_generation": {"type": "string"},
            "gpu_model": {"type": "string"},
            "gpu_memory_gb_per_gpu": {"type": "integer", "minimum": 1},
            "cuda_min": {"type": "object", "required": ["version", "source"], "additionalProperties": False,
                         "properties": {"version": {"type": "string", "pattern": r"^\d+\.\d+$"}, "source": _SOURCE}},
            "clusters_only": {"type": "boolean"},
            "lifecycle": {"type": "object", "required": ["stage", "source"], "additionalProperties": False,
                          "properties": {"stage": {"type": "string", "enum": ["current", "extended", "previous"]},
                                         "source": _SOURCE}},
            "preview": {"type": "boolean"},
            "default_excluded": {"type": "string", "minLength": 1},
            "retired": {"type": "object", "required": ["date", "source"], "additionalProperties": False,
                        "properties": {"date": _DATE, "source": _SOURCE, "successors": _STRINGS}},
            "capacity_restricted": {"type": "object", "required": ["since", "source"], "additionalProperties": False,
                                    "properties": {"since": _DATE, "source": _SOURCE}},
            "isolated_sizes": _STRINGS,
            "cpu_architecture": {"type": "object", "required": ["name", "source"], "additionalProperties": False,
                                 "properties": {"name": {"type": "string", "enum": ["x64", "Arm64"]},
                                                "source": _SOURCE}},
            "online_sizes": {"type": "object", "required": ["sizes", "source"], "additionalProperties": False,
                             "properties": {"sizes": _STRINGS, "source": _SOURCE}},
            "instance_unsupported": {"type": "object", "required": ["reason", "source"], "additionalProperties": False,
                                     "properties": {"reason": {"type": "string", "minLength": 1}, "source": _SOURCE}},
            "sizes": {"type": "array", "minItems": 1, "items": _SIZE},
        },
    },
    "description": "VM families to add to or correct in amlkit's catalogue without a release: entries with the "
    "data file's keys (series, category, source, sizes, retired {date, source, successors}, "
    "capacity_restricted {since, source}, aml_supported, gpu_generation, ...). An entry naming a known series "
    "overrides the keys it gives; sources are https URLs. Give the same list to every size-reading rule.",
}


def catalogue(config: Mapping[str, Any], rule: str) -> Catalogue:
    """The catalogue for one rule's config (the packaged one when `extraFamilies` is not set)."""
    return extended(config.get(KEY), f"{rule}.{KEY}")


def successor_text(family: VmFamily, catalogue: Catalogue, allowed: Collection[VmFamily] | None = None,
                   key: str = "allowedSeries") -> str:
    """The successors a message recommends, from Microsoft's migration guidance, split so that none is
    recommended without saying what it takes: those `allowed` lets in (`allowed` None: the pack's default
    `key` list, for rules that cannot see aml-compute-approved-vm-family's config), those that must be added
    to `key` first, and, for an NVIDIA series, AMD successors, which have no CUDA (aml-gpu-cuda-compatible
    refuses them once cudaVersion is set). For a managed online deployment (`key` allowedOnlineSeries) only
    successors with sizes on the managed online endpoints SKU list are named. '' when none is left."""
    online = key == "allowedOnlineSeries"
    names = [name for name in family.successors if not online or family_by_series(name, catalogue).online_sizes]
    if not names:
        return ""
    label = key if allowed is not None else f"the default {key}"
    if allowed is None:
        defaults = default_online_series(catalogue) if online else default_approved_series(catalogue)
        allowed = [family_by_series(name, catalogue) for name in defaults]
    cuda = _is_cuda(family, catalogue)
    groups: dict[str, list[str]] = {"in": [], "add": [], "amd": []}
    for name in names:
        successor = family_by_series(name, catalogue)
        if cuda and successor.gpu_generation is not None and not _is_cuda(successor, catalogue):
            groups["amd"].append(successor.series)
        elif successor in allowed:
            groups["in"].append(successor.series)
        else:
            groups["add"].append(successor.series)
    parts = []
    if groups["in"]:
        parts.append(f"successors in {label}: {', '.join(groups['in'])}")
    if groups["add"]:
        parts.append(f"successors to add to {label} first: {', '.join(groups['add'])}")
    if groups["amd"]:
        parts.append("AMD successors (no CUDA: aml-gpu-cuda-compatible refuses them once cudaVersion is set): "
                     + ", ".join(groups["amd"]))
    return "; " + "; ".join(parts)


def _is_cuda(family: VmFamily, catalogue: Catalogue) -> bool:
    generation = family.gpu_generation
    return generation is not None and catalogue.architectures[generation].cuda_min is not None


# --- rule texts generated from the catalogue (no hand-written date, size or series list in a rule's text) ----------


def retired_text(catalogue: Catalogue | None = None) -> str:
    """The series retired on the catalogue's date, grouped by date: "A8-A11 (2021-03), H (2022-08-31), ..."."""
    catalogue = catalogue or extended(None, "")
    groups: dict[str, list[str]] = {}
    for family in sorted(catalogue.families, key=lambda f: f.retirement.date if f.retirement else catalogue.as_of):
        if family.retirement is not None and family.retirement.date <= catalogue.as_of:
            groups.setdefault(family.retirement.text, []).append(family.series)
    return ", ".join(f"{' and '.join([', '.join(names[:-1]), names[-1]] if len(names) > 1 else names)} ({date})"
                     for date, names in groups.items())


def isolated_text(catalogue: Catalogue | None = None) -> str:
    """The isolated sizes the catalogue knows: how many are offered on its date, the first few, and those retired
    or retiring with their dates."""
    catalogue = catalogue or extended(None, "")
    isolated = [size for size in catalogue.sizes.values() if size.isolated]
    offered = [size.name for size in isolated if not size.retirement or size.retirement.date > catalogue.as_of]
    dated: dict[str, list[str]] = {}
    for size in isolated:
        if size.retirement is not None:
            dated.setdefault(size.retirement.text, []).append(size.name)
    ending = "; ".join(f"{', '.join(names)} ({date})" for date, names in sorted(dated.items()))
    return (f"{len(offered)} isolated sizes offered on {catalogue.as_of.isoformat()} (isolation.md), such as "
            f"{', '.join(offered[:3])}; retired or retiring: {ending}")


def approval_text(catalogue: Catalogue | None = None) -> str:
    """The series not retired that historically required Azure approval, in data-file order."""
    catalogue = catalogue or extended(None, "")
    return ", ".join(f.series for f in catalogue.families if f.approval_required and f.retirement is None)


def cuda_text(catalogue: Catalogue | None = None) -> str:
    """The CUDA facts a GPU rule's text cites, from the catalogue's architectures: the first toolkit of the two
    newest NVIDIA architectures, and the toolkits that dropped older ones."""
    catalogue = catalogue or extended(None, "")
    cuda = [a for a in catalogue.architectures.values() if a.cuda_min is not None]
    newest = sorted(cuda, key=lambda a: cuda_tuple(a.cuda_min or "0.0"))[-2:]
    dropped: dict[str, list[str]] = {}
    for architecture in cuda:
        if architecture.cuda_dropped_in is not None:
            dropped.setdefault(architecture.cuda_dropped_in, []).append(architecture.name)
    drops = "; ".join(f"{', '.join(names)} in {version}"
                      for version, names in sorted(dropped.items(), key=lambda item: cuda_tuple(item[0])))
    firsts = ", ".join(f"{a.name} {a.cuda_min}" for a in newest)
    return f"not older than the architecture's first CUDA toolkit (e.g. {firsts}), not dropped by it ({drops})"
