"""A policy pack config reconciled once per distinct pack and file, not once per stack (#33).

Reconciliation (`config.reconcile`) is a pure function of the pack's
GetAnalyzerInfo answer, the config file's entries and its name, so a review of many stacks with one
config file validates it once. Each stack still sends its own ConfigureStack and Configure with the
whole reconciled config, as the engine's protocol requires; a config that fails raises every time.
"""

from __future__ import annotations

import pickle
from typing import Any

from amlkit.review.pack.config import PolicyConfig, PolicySchema, reconcile

__all__ = ["reconciled"]

_CACHE: dict[tuple[bytes, bytes, str | None], bytes] = {}  # the reconciled config, pickled
_MAX = 8  # distinct (pack, config file) pairs kept, as wire.parsed_schemas keeps distinct packs


def reconciled(info: bytes, schemas: list[PolicySchema], initial: dict[str, PolicyConfig],
               config_file: dict[str, PolicyConfig] | None, name: str | None) -> dict[str, Any]:
    """The reconciled config as the engine sends it in Configure, a fresh copy per call (unpickled: a deep copy,
    several times cheaper than `copy.deepcopy` of the same dicts)."""
    key = (info, pickle.dumps(config_file), name)
    if key not in _CACHE:
        config = reconcile(schemas, initial, config_file, name)
        if len(_CACHE) >= _MAX:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = pickle.dumps(config)
    fresh: dict[str, Any] = pickle.loads(_CACHE[key])  # noqa: S301 - bytes this module pickled itself
    return fresh
