"""The JSON report of `amlkit check --shard K/N`, and `amlkit merge` reading it back.

A shard's JSON report is the JSON report of its stacks (amlkit.review.report.json) plus one `shard`
object: the spec, the amlkit version, the whole run's stack list, the setup every shard must share, and
the shard's review in full (what the SARIF and Markdown renderers read beyond the JSON report: each pack's
policies, resource parents and program lines, the name inputs that locate a finding in a stack file).
`merge` rebuilds one Review from the shards and renders it with the same renderers, so its reports and
exit code are those of the unsharded run, byte for byte. Resource inputs other than the names are not
carried (no input value can leak through a shard report either).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from amlkit import __version__
from amlkit.errors import UsageError
from amlkit.review.model import (
    NAME_INPUTS,
    Lookup,
    PackInfo,
    PolicyInfo,
    Remediation,
    ResourceRecord,
    Review,
    StackReview,
    Unknown,
    Violation,
)
from amlkit.review.report import json as report_json
from amlkit.review.shard import Shard, assign

__all__ = ["SHARD_FORMAT", "Merged", "load", "render"]

SHARD_FORMAT = 1


def render(review: Review, shard: Shard) -> str:
    """The shard's JSON report: the JSON report of its stacks plus the `shard` object."""
    packs: dict[str, int] = {}
    stacks = [_stack(stack, packs) for stack in review.ordered_stacks()]
    data = report_json.to_dict(review)
    data["shard"] = {
        "format": SHARD_FORMAT, "amlkit": __version__, "spec": shard.spec, "index": shard.index,
        "count": shard.count, "project_dir": shard.project_dir, "stacks": shard.stacks, "setup": shard.setup,
        "packs": [json.loads(text) for text in packs], "review": stacks,
    }
    return report_json.indented(data) + "\n"


def _stack(stack: StackReview, packs: dict[str, int]) -> dict[str, Any]:
    if stack.plan is not None:  # check never plans; a shard of a plan is not a thing merge can rebuild
        raise UsageError("--shard reviews without a plan (amlkit check): no --state / --base plan")

    def pack_index(pack: PackInfo) -> int:
        return packs.setdefault(json.dumps(asdict(pack), sort_keys=True), len(packs))

    data = {key: value for key, value in asdict(stack).items() if key not in ("pack", "packs", "resources", "plan")}
    data["pack"] = None if stack.pack is None else pack_index(stack.pack)
    data["packs"] = [pack_index(pack) for pack in stack.packs]
    data["resources"] = [{**asdict(r), "inputs": {k: r.inputs[k] for k in NAME_INPUTS if k in r.inputs}}
                         for r in stack.resources]
    return data


def _pack(data: dict[str, Any]) -> PackInfo:
    from amlkit.policies.framework import Equivalent

    policies = tuple(PolicyInfo(**{**p, "tags": tuple(p["tags"]),
                                   "framework": tuple(p["framework"]) if p["framework"] else None,
                                   "equivalents": tuple(Equivalent(**e) for e in p["equivalents"])})
                     for p in data["policies"])
    return PackInfo(**{**data, "policies": policies})


def _review(stacks: list[dict[str, Any]], packs: list[PackInfo]) -> list[StackReview]:
    return [StackReview(**{
        **data, "pack": None if data["pack"] is None else packs[data["pack"]],
        "packs": tuple(packs[index] for index in data["packs"]),
        "resources": tuple(ResourceRecord(**r) for r in data["resources"]),
        "violations": tuple(Violation(**v) for v in data["violations"]),
        "unknown": tuple(Unknown(**u) for u in data["unknown"]),
        "remediations": tuple(Remediation(**r) for r in data["remediations"]),
        "lookups": tuple(Lookup(**lookup) for lookup in data["lookups"]),
        "warnings": tuple(data["warnings"]),
    }) for data in stacks]


class Merged:
    """The shards of one run, checked to fit together: the review, the project and the run's setup."""

    def __init__(self, review: Review, project_dir: Path, setup: dict[str, Any]) -> None:
        self.review, self.project_dir, self.setup = review, project_dir, setup


def load(paths: list[Path]) -> Merged:
    """Read and check the shard reports: same amlkit, setup and stack list, shards 1..N each exactly once, each
    with its share of the stacks, one version per pack. Anything else is a UsageError (exit 2)."""
    shards = [(path, _read(path)) for path in paths]
    first_path, first = shards[0]
    for path, shard in shards[1:]:
        for key, what in (("count", "shard count"), ("project_dir", "project"), ("stacks", "stack list"),
                          ("setup", "setup (policy packs, their configs, --strict, stack and config files)")):
            if shard[key] != first[key]:
                raise UsageError(f"{path}: another run than {first_path}: its {what} differs "
                                 f"({_short(shard[key])} against {_short(first[key])})")
    _check_cover(shards)
    stacks: list[StackReview] = []
    versions: dict[str, tuple[str, Path]] = {}
    for path, shard in shards:
        packs = [_pack(p) for p in shard["packs"]]
        for pack in packs:
            seen = versions.setdefault(pack.name, (pack.version, path))
            if seen[0] != pack.version:
                raise UsageError(f"{path}: pack {pack.name} {pack.version}, but {seen[1]} ran {pack.name} {seen[0]}")
        stacks += _review(shard["review"], packs)
    return Merged(Review(stacks=tuple(stacks)), Path(first["project_dir"]), first["setup"])


def _check_cover(shards: list[tuple[Path, dict[str, Any]]]) -> None:
    count = shards[0][1]["count"]
    given: dict[int, Path] = {}
    for path, shard in shards:
        if shard["index"] in given:
            raise UsageError(f"shards overlap: {shard['spec']} is both {given[shard['index']]} and {path}")
        given[shard["index"]] = path
    missing = [f"{k}/{count}" for k in range(1, count + 1) if k not in given]
    if missing:
        raise UsageError(f"shard(s) {', '.join(missing)} missing: give the reports of all {count} shards")
    share = assign(shards[0][1]["stacks"], count)
    for path, shard in shards:
        mine = sorted(name for name, k in share.items() if k == shard["index"])
        reviewed = sorted(s["stack"] for s in shard["review"])
        if reviewed != mine:
            raise UsageError(f"{path}: shard {shard['spec']} reviewed {_short(reviewed)}, its share is {_short(mine)}")


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"{path}: cannot read a shard report: {exc}") from exc
    shard = data.get("shard") if isinstance(data, dict) else None
    if not isinstance(shard, dict):
        raise UsageError(f"{path}: not a shard report (no \"shard\" object): write one with "
                         f"`amlkit check --shard K/N -f json -o FILE`")
    if shard.get("format") != SHARD_FORMAT or shard.get("amlkit") != __version__:
        raise UsageError(f"{path}: a shard report of amlkit {shard.get('amlkit')} (shard format "
                         f"{shard.get('format')}); this is amlkit {__version__} (shard format {SHARD_FORMAT}): "
                         f"run every shard and the merge with one amlkit")
    return shard


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 120 else text[:117] + "..."
