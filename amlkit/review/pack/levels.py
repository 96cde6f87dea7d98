"""The levels amlkit's pack runs with under the rule baseline its config pins, from what the pack says of itself.

The pack applies the `baseline` entry of the config the engine sends (`amlkit.policies.pack.apply_rule_baselines`):
a rule newer than the baseline runs as advisory, a rule whose default level changed after it keeps its old one.
The review sends Configure exactly as the engine does (the config reconciled from GetAnalyzerInfo and the config
file) and shows, in its reports, the levels the pack then runs with. It works them out from each policy's
GetAnalyzerInfo answer: its level and its `since:` and `level-before:` tags (`amlkit.policies.metadata`), never
from the rules themselves. The pack also rebases config values the baseline changes; the reports show none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from amlkit.errors import ConfigError
from amlkit.policies.metadata import read_tags
from amlkit.policies.rule_baseline import BASELINE_POLICY, BaselineError, check_release, level_at_baseline
from amlkit.review.pack.config import PolicyConfig, PolicySchema

__all__ = ["at_baseline", "baseline_error"]


def at_baseline(config: dict[str, PolicyConfig], policies: Sequence[Any], schemas: Sequence[PolicySchema],
                file: str | None) -> dict[str, PolicyConfig]:
    """`config` (policy -> PolicyConfig, reconciled) with each policy's level as the pack runs it under the config's
    rule baseline; unchanged without one. `policies`: the pack's PolicyInfo messages (their tags); `schemas`: what
    reconciliation read of them (each policy's default level). A baseline naming no release of the pack is a
    ConfigError (the pack would refuse it in Configure) naming `file`, the key and the allowed releases."""
    entry = config.get(BASELINE_POLICY)
    version = (entry.properties or {}).get("version") if entry else None
    if version is None:
        return config
    try:
        baseline = check_release(version)
    except BaselineError as error:
        raise baseline_error(error, file, version) from None
    result = dict(config)
    defaults = {schema.name: schema.level for schema in schemas}
    for policy in policies:
        meta = read_tags(tuple(policy.tags))
        given = result.get(policy.name)
        if given is None or not meta.since:
            continue
        level = level_at_baseline(meta.since, meta.levels_before, defaults[policy.name], baseline, given.level)
        result[policy.name] = PolicyConfig(level, given.properties)
    return result


def baseline_error(error: BaselineError, file: str | None, version: Any) -> ConfigError:
    """The ConfigError for a baseline the pack would refuse (`<key>: <message>`), naming `file` and the version."""
    key, _, message = str(error).partition(": ")
    return ConfigError(file, key, message, version)
