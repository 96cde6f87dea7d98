"""Rule baselines: upgrading amlkit never makes a platform's CI fail without a decision.

A pack config pins a baseline, the amlkit release whose rules the platform has adopted:

    {"baseline": {"version": "0.1.0"}}

Under it, a rule that arrived after that release (`Rule.since`) runs as advisory whatever level the config
gives it (`all: mandatory` included; a disabled one stays disabled), and a rule whose default level or facts
changed after it (`Rule.changed`) keeps the defaults it had in that release: the old default level when the
configured level is the current default, each old config default when the configured value is the current
default (a level or a value set to something else is the platform's decision and stays). Raising the
baseline is how a platform adopts what came later (docs/upgrading.md).

Why an object under a `baseline` key and not `"baseline": "0.1.0"`: the Pulumi engine reads a string entry of
a policy pack config as an enforcement level and refuses anything else (pkg/resource/analyzer/config.go,
`parsePolicyPackConfig`), and it refuses to Configure an entry that has no policy behind it (the entry gets no
level; plugin `analyzer.Configure`). So the pack carries a policy named `baseline` that checks nothing (see
`amlkit.policies.pack.baseline_policy`): its config entry passes the engine unchanged, schema-checked, and the
pack applies it when the engine configures it. The offline review applies the same function, so its reports
show the levels the pack runs with.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from amlkit.policies.framework import Rule

__all__ = [
    "BASELINE_POLICY", "BASELINE_SCHEMA", "BLOCKING", "BaselineError", "FIRST_RELEASE", "VERSION_PATTERN",
    "at_baseline", "check_release", "level_at_baseline", "newer", "pack_release", "rebase", "release",
]

BASELINE_POLICY = "baseline"
"""The pack config key of the rule baseline (a policy of the pack that checks nothing)."""
FIRST_RELEASE = "0.1.0"
VERSION_PATTERN = r"^\d+\.\d+\.\d+$"
BASELINE_SCHEMA: dict[str, Any] = {
    "version": {
        "type": "string",
        "pattern": VERSION_PATTERN,
        "description": "The amlkit release whose rules this stack has adopted (e.g. 0.1.0): rules that arrived "
        "later run as advisory and rules changed later keep that release's default level and facts.",
    },
}
BLOCKING = ("mandatory", "remediate")


class BaselineError(ValueError):
    """A baseline that names no release of this pack. The review fails (closed) rather than guess."""


def pack_release() -> str:
    """This pack's release (the amlkit package version)."""
    from amlkit import __version__

    return __version__


def release(version: str) -> tuple[int, ...]:
    """`0.2.0` -> (0, 2, 0), for ordering releases."""
    return tuple(int(part) for part in version.split("."))


def check_release(version: Any) -> str:
    """The baseline version when it names a release from the first one to this pack's, else BaselineError."""
    current = pack_release()
    allowed = f"a release from {FIRST_RELEASE} to {current} (the version of this pack)"
    if not isinstance(version, str) or not re.fullmatch(VERSION_PATTERN, version):
        raise BaselineError(f"{BASELINE_POLICY}.version: {version!r} is not a release; allowed: {allowed}")
    if not release(FIRST_RELEASE) <= release(version) <= release(current):
        raise BaselineError(f"{BASELINE_POLICY}.version: {version} is not a release of this pack; allowed: {allowed}")
    return version


def newer(version: str, baseline: str) -> bool:
    return release(version) > release(baseline)


def at_baseline(rule: Rule, baseline: str, level: str, properties: Mapping[str, Any] | None,
                ) -> tuple[str, dict[str, Any] | None]:
    """The level and config `rule` runs with under `baseline`, given its reconciled level and properties."""
    props = None if properties is None else dict(properties)
    levels_before = tuple((change.version, change.level) for change in rule.changed if change.level is not None)
    level = level_at_baseline(rule.since, levels_before, rule.level, baseline, level)
    if newer(rule.since, baseline):
        return level, props
    later = [change for change in rule.changed if newer(change.version, baseline)]
    defaults = rule.defaults()
    for key in {key for change in later for key in change.config}:
        old = next(change.config[key] for change in later if key in change.config)
        if props is not None and key in props and props[key] == defaults.get(key):
            props[key] = old
    return level, props


def level_at_baseline(since: str, levels_before: Sequence[tuple[str, str]], default: str, baseline: str,
                      level: str) -> str:
    """The level a rule runs with under `baseline`, given its reconciled `level`: advisory for a blocking level
    when the rule arrived (`since`) after the baseline; else its default level before the oldest later release
    that changed it (`levels_before`: (release, level before it), oldest first) when `level` is its current
    `default`. What the pack's GetAnalyzerInfo says of a rule is enough (`amlkit.policies.metadata`)."""
    if newer(since, baseline):
        return "advisory" if level in BLOCKING else level
    old_level = next((before for version, before in levels_before if newer(version, baseline)), None)
    return old_level if old_level is not None and level == default else level


def rebase(rules: Sequence[Rule], config: Mapping[str, tuple[str, dict[str, Any] | None]],
           ) -> dict[str, tuple[str, dict[str, Any] | None]]:
    """The reconciled pack config (policy -> (level, properties)) with its baseline applied; unchanged without
    one. Raises BaselineError for a baseline that names no release of this pack."""
    entry = config.get(BASELINE_POLICY)
    version = (entry[1] or {}).get("version") if entry else None
    if version is None:
        return dict(config)
    baseline = check_release(version)
    result = dict(config)
    for rule in rules:
        if rule.name in result:
            result[rule.name] = at_baseline(rule, baseline, *result[rule.name])
    return result
