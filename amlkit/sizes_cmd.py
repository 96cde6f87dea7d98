"""`amlkit sizes [NAME...]`: what the VM catalogue knows about sizes, filtered.

Shows per size: series, lifecycle status and dates (as of `--as-of`, default today), successors,
approval under a policy pack config (the pack's defaults unless `--policy-pack-config` is given; that
config's `extraFamilies` for aml-compute-approved-vm-family extend the catalogue), capacity restriction,
isolation, vCPUs (active, and the quota vCPUs a constrained size is charged: its base size's), processor
architecture, whether managed online endpoints accept it, GPU model / count / memory, minimum CUDA and quota
family. An unknown NAME exits 2 with the closest known names.
"""

from __future__ import annotations

import datetime
import difflib
import json
from collections.abc import Iterable, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from amlkit.errors import UnknownVmSize, UsageError
from amlkit.guard import guarded
from amlkit.vmsizes import (
    Catalogue,
    VmFamily,
    VmSize,
    all_sizes,
    catalogue_as_of,
    family_by_series,
    min_cuda,
    parse_vm_size,
)
from amlkit.vmsizes import status as size_status

__all__ = ["APPROVED_RULE", "COLUMNS", "SizesFormat", "Status", "render_table", "sizes"]

APPROVED_RULE = "aml-compute-approved-vm-family"


class SizesFormat(StrEnum):
    table = "table"
    json = "json"


class Status(StrEnum):
    current = "current"
    retiring = "retiring"
    retired = "retired"


def sizes(
    names: Annotated[list[str] | None, typer.Argument(metavar="[NAME...]", help="VM size names, e.g. "
                                                      "Standard_D4ds_v5 (any casing). Default: every size.")] = None,
    gpu: Annotated[bool, typer.Option("--gpu", help="Only GPU sizes.")] = False,
    family: Annotated[list[str] | None, typer.Option("--family", help="Only sizes of this series (repeatable), "
                                                     "e.g. NCasT4_v3.")] = None,
    status: Annotated[Status | None, typer.Option("--status", help="Only sizes in this lifecycle status.")] = None,
    aml_supported: Annotated[bool, typer.Option("--aml-supported", help="Only series of Azure ML's 2024 "
                                                "supported-series table (concept-compute-target.md); newer series "
                                                "the defaults approve are not in it.")] = False,
    online: Annotated[bool, typer.Option("--online", help="Only sizes managed online endpoints accept "
                                         "(reference-managed-online-endpoints-vm-sku-list.md).")] = False,
    approved: Annotated[bool, typer.Option("--approved", help="Only sizes aml-compute-approved-vm-family allows "
                                           "under the policy pack config.")] = False,
    policy_pack_config: Annotated[Path | None, typer.Option(
        "--policy-pack-config", dir_okay=False, help="Policy pack config JSON whose allowedSeries decides approval "
        "(default: the pack's defaults).")] = None,
    as_of: Annotated[str | None, typer.Option("--as-of", metavar="YYYY-MM-DD", help="Judge retirement dates as "
                                              "of this day (default: today).")] = None,
    format: Annotated[SizesFormat, typer.Option("--format", "-f", help="Output format.")] = SizesFormat.table,
) -> None:
    """Show what amlkit's VM catalogue knows about sizes: lifecycle, successors, approval, GPU and CUDA facts."""
    with guarded():
        today = _day(as_of)
        catalogue, allowed = _allowed(policy_pack_config)
        selected = _named(names, catalogue) if names else list(all_sizes(catalogue))
        families = {family_by_series(name, catalogue) for name in family} if family else None
        rows = [_row(size, today, allowed) for size in selected
                if (not gpu or size.family.gpu_generation)
                and (families is None or size.family in families)
                and (status is None or size_status(size, today) == status)
                and (not aml_supported or size.family.aml_supported)
                and (not online or size.online_deployable)
                and (not approved or size.family in allowed)]
        if format is SizesFormat.json:
            typer.echo(json.dumps({"asOf": today.isoformat(), "catalogueAsOf": catalogue_as_of().isoformat(),
                                   "sizes": rows}, indent=2))
        else:
            typer.echo(render_table(rows), nl=False)


def _day(raw: str | None) -> datetime.date:
    if raw is None:
        return datetime.date.today()
    try:
        return datetime.date.fromisoformat(raw)
    except ValueError:
        raise UsageError(f"--as-of: {raw!r} is not a date as YYYY-MM-DD") from None


def _allowed(config: Path | None) -> tuple[Catalogue, set[VmFamily]]:
    """The catalogue (with the approved-family rule's `extraFamilies`) and the families its config allows."""
    from amlkit.policies.catalogue import catalogue
    from amlkit.policies.rules.aml_compute_approved_vm_family import RULE, allowed_families

    settings: Mapping[str, Any] = RULE.defaults()
    if config is not None:
        from amlkit.review.pack.config import load_config_file  # jsonschema and all: only with a config

        entry = load_config_file(config).get(APPROVED_RULE)
        if entry is not None and entry.properties:
            settings = {**settings, **entry.properties}
    extended = catalogue(settings, APPROVED_RULE)
    return extended, set(allowed_families(settings, extended))


def _named(names: Iterable[str], catalogue: Catalogue) -> list[VmSize]:
    found = []
    for name in names:
        try:
            found.append(parse_vm_size(name, catalogue))
        except UnknownVmSize:
            known = {size.name.casefold(): size.name for size in all_sizes(catalogue)}
            close = difflib.get_close_matches(name.casefold(), list(known), n=3, cutoff=0.6)
            hint = f"; closest known: {', '.join(known[c] for c in close)}" if close else ""
            raise UsageError(f"unknown VM size {name!r}{hint}") from None
    return found


def _row(size: VmSize, today: datetime.date, allowed: set[VmFamily]) -> dict[str, Any]:
    family = size.family
    retirement = size.retirement
    restricted = family.capacity_restricted
    return {
        "name": size.name,
        "series": family.series,
        "status": size_status(size, today),
        "retires": retirement.text if retirement else None,
        "retirementSource": retirement.source.url if retirement else None,
        "successors": list(family.successors),
        "approved": family in allowed,
        "amlSupported": family.aml_supported,
        "capacityRestrictedSince": restricted.text if restricted else None,
        "isolated": size.isolated,
        "vcpus": size.vcpus,
        "quotaVcpus": size.quota_vcpus,
        "cpuArchitecture": family.cpu_architecture.name if family.cpu_architecture else None,
        "onlineDeployable": size.online_deployable,
        "gpuModel": family.gpu_model,
        "gpuArchitecture": family.gpu_generation,
        "gpus": size.gpus,
        "gpuMemoryGb": size.gpu_memory_gb_total,
        "gpuMemoryGbPerGpu": size.gpu_memory_gb_per_gpu,
        "minCuda": min_cuda(size),
        "quotaFamily": size.quota_family,
        "source": family.source.url if family.source else None,
    }


COLUMNS = (
    ("SIZE", "name"), ("SERIES", "series"), ("STATUS", "status"), ("RETIRES", "retires"),
    ("SUCCESSORS", "successors"), ("APPROVED", "approved"), ("RESTRICTED", "capacityRestrictedSince"),
    ("ISOLATED", "isolated"), ("VCPUS", "vcpus"), ("QUOTA_VCPUS", "quotaVcpus"), ("CPU", "cpuArchitecture"),
    ("ONLINE", "onlineDeployable"), ("GPU", "gpuModel"), ("GPUS", "gpus"),
    ("GPU_GB", "gpuMemoryGb"), ("MIN_CUDA", "minCuda"), ("QUOTA_FAMILY", "quotaFamily"),
)


def render_table(rows: list[dict[str, Any]]) -> str:
    """A plain fixed-width table (never truncated, whatever the terminal width); '-' for no value."""
    if not rows:
        return "no VM size matches\n"
    cells = [[title for title, _ in COLUMNS]] + [[_cell(row[key]) for _, key in COLUMNS] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(COLUMNS))]
    return "".join("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() + "\n"
                   for line in cells)


def _cell(value: Any) -> str:
    if value is None or value == []:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ",".join(value)
    return str(value)
