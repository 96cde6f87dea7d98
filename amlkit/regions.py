"""Azure region names: the public cloud's regions as sourced data, plus the names a stack adds by config.

`amlkit/data/azure_regions.yaml` lists every public region (programmatic name and display name) from
Microsoft's regions list (the file names its source). A region is checked against it wherever amlkit takes
one: stack files (`azure-native:location`, a compute's `location`), the components' `location` arguments,
`amlkit init --location` and the region keys of the `aml-quota-budget` config. A misspelt name is refused
with the closest region ("did you mean 'westeurope'?"), so a setting keyed by a typo never silently applies
to nothing. Sovereign clouds and regions newer than the data are added by config: `amlkit:extraRegions`
(stack config, read by stack files and components) and `extraRegions` (the quota rule's config).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml

from amlkit.suggest import closest, shown

__all__ = [
    "DATA_FILE", "EXTRA_KEY", "NAME", "NAME_ALLOWED", "Region", "allowed_text", "extra_problem", "public_names",
    "public_regions", "region_hint", "region_problem", "source",
]

DATA_FILE = "data/azure_regions.yaml"
NAME = re.compile(r"[a-z][a-z0-9]{2,39}")
NAME_ALLOWED = "an Azure region name in lowercase, e.g. westeurope"
EXTRA_KEY = "amlkit:extraRegions"
"""The stack config key that adds region names (sovereign clouds, new regions)."""


@dataclass(frozen=True)
class Region:
    """One public Azure region: `name` is what ARM's `location` takes, `display_name` what the portal shows."""

    name: str
    display_name: str
    access: str = ""
    """`restricted`, `coming_soon` or empty (generally available), as the source's table marks it."""


@functools.cache
def public_regions() -> tuple[Region, ...]:
    """Every region of the data file, in its order."""
    text = resources.files("amlkit").joinpath(DATA_FILE).read_text(encoding="utf-8")
    return tuple(Region(**entry) for entry in yaml.safe_load(text)["regions"])


@functools.cache
def source() -> dict[str, str]:
    """Where the data comes from: url, repo, path, commit, date."""
    text = resources.files("amlkit").joinpath(DATA_FILE).read_text(encoding="utf-8")
    return {key: str(value) for key, value in yaml.safe_load(text)["source"].items()}


@functools.cache
def public_names() -> frozenset[str]:
    return frozenset(region.name for region in public_regions())


def allowed_text(extra_key: str = EXTRA_KEY) -> str:
    """What a region may be, in words (the `allowed:` of every region error)."""
    return f"an Azure public region name such as westeurope, or a name listed in {extra_key}"


def region_problem(value: Any, extra: Iterable[str] = (), extra_key: str = EXTRA_KEY) -> str | None:
    """Why `value` is not a usable region (`got 'westeurop'; allowed: ...; did you mean 'westeurope'?`), or
    None when it is a public region or one of `extra`."""
    extra = tuple(extra)
    if isinstance(value, str) and (value in public_names() or value in extra):
        return None
    return f"got {shown(value)}; allowed: {allowed_text(extra_key)}{region_hint(value, extra)}"


def region_hint(value: Any, extra: Iterable[str] = ()) -> str:
    """`; did you mean 'westeurope'?` for the closest region name (a display name such as `West Europe` suggests
    its programmatic name), else empty."""
    by_display = {region.display_name: region.name for region in public_regions()}
    match = closest(value, [*sorted(public_names()), *extra, *by_display])
    match = by_display.get(match, match) if match is not None else None
    return f"; did you mean {match!r}?" if match is not None and match != value else ""


def extra_problem(value: Any) -> str | None:
    """Why a name given to add as a region is refused (not lowercase letters and digits), or None."""
    if isinstance(value, str) and NAME.fullmatch(value):
        return None
    return f"got {shown(value)}; allowed: {NAME_ALLOWED}"
