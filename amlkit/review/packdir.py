"""Where amlkit's own policy pack is: the directory of `amlkit.policies` (it imports nothing of the reviewer)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from amlkit.errors import ReviewFailed

__all__ = ["POLICY_PACK_FILES", "default_pack_dir", "installed_pack_dir"]

POLICY_PACK_FILES = ("PulumiPolicy.yaml", "__main__.py")


def default_pack_dir() -> Path:
    """amlkit's own policy pack: the directory of `amlkit.policies`, checked to hold the pack's files."""
    spec = importlib.util.find_spec("amlkit.policies")
    if spec is None or spec.origin is None:
        raise ReviewFailed("the amlkit.policies package is not installed")
    directory = Path(spec.origin).resolve().parent
    missing = [name for name in POLICY_PACK_FILES if not (directory / name).is_file()]
    if missing:
        raise ReviewFailed(f"{directory}: not a policy pack (missing {', '.join(missing)})")
    return directory


def installed_pack_dir() -> Path | None:
    """amlkit's own pack when it is installed, else None (a review of other packs does not need it)."""
    try:
        return default_pack_dir()
    except ReviewFailed:
        return None
