"""How the `amlkit` commands print and write a report, and how they name a pack's directory."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from types import ModuleType

from rich.console import Console
from rich.text import Text

__all__ = ["pack_source", "packs", "relative", "show", "write"]


def show(report: Text | str) -> None:
    if isinstance(report, Text):
        Console(highlight=False, markup=False, emoji=False, soft_wrap=True).print(report, end="")
    else:
        sys.stdout.write(report)
        sys.stdout.flush()


def write(path: Path, report: Text | str) -> None:
    from amlkit.review.report.files import write_report  # all or nothing: amlkit.review.report.files

    write_report(path, report.plain if isinstance(report, Text) else report)


def pack_source(policy_pack: Path | None) -> str:
    """How the pack line names the pack's directory: as given, else amlkit's pack relative to cwd."""
    if policy_pack is not None:
        return str(policy_pack)
    try:
        default = Path(packs().default_pack_dir())
    except Exception:  # the label is cosmetic; the review itself reports engine failures
        return ""
    return relative(default)


def relative(path: Path) -> str:
    try:
        return Path(os.path.abspath(path)).relative_to(Path.cwd()).as_posix() or "."
    except ValueError:
        return str(path)


def packs() -> ModuleType:
    """What describes a pack without reviewing (`amlkit.packs`: amlkit's own pack from its rules'
    metadata, without grpc, pulumi-policy or the engine), imported on first use (replaceable by tests)."""
    return importlib.import_module("amlkit.packs")
