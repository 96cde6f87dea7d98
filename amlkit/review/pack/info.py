"""A policy pack's version as reports show it, and where amlkit's own pack is.

What a pack says of its policies reaches the review only through its GetAnalyzerInfo answer
(`amlkit.review.pack.findings`); amlkit's own pack described without starting it, from its rules, is an
entry point's business (`amlkit.packs`, for `amlkit rules` and `amlkit fix`).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import yaml

from amlkit.review.packdir import POLICY_PACK_FILES, default_pack_dir, installed_pack_dir

__all__ = ["POLICY_PACK_FILES", "PYTHON_PACK_VERSION", "default_pack_dir", "installed_pack_dir", "pack_version"]


def pack_version(pack_dir: Path, reported: str) -> str:
    """The version to display: PulumiPolicy.yaml's `version` (Python packs report 0.0.1 themselves)."""
    path = pack_dir / "PulumiPolicy.yaml"
    try:
        version = _version(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return reported
    return str(version) if version else reported


@functools.lru_cache(maxsize=16)
def _version(text: str) -> Any:
    """PulumiPolicy.yaml's `version`, parsed once per distinct text (each stack's session asks; a failure is not
    cached)."""
    data = yaml.safe_load(text) or {}
    return data.get("version") if isinstance(data, dict) else None


PYTHON_PACK_VERSION = "0.0.1"  # what pulumi-policy's PolicyPack reports as its version
