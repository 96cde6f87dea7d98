"""`amlkit check --shard K/N`: which stacks shard K of N reviews (for a CI matrix), and what it records so
that `amlkit merge` can check the shards fit together.

The rule (bounded-load rendezvous hashing), a function of the stack names only, so every shard computes
the same split without talking to the others:

- each stack ranks the N shards by sha256("<stack>\\0<shard>") (its own, fixed preference order);
- the stacks, taken in the order of sha256("<stack>"), each go to the first shard of their ranking that
  holds fewer than its bound: an even share (stacks / N) rounded up, or 10% over it when that is more.

So no shard gets more than 10% over an even share, and a stack added to the project only
moves an existing stack when its preferred shard is full (a pure hash would never move one, but lets one
shard of 4 get a third more than the others on 200 stacks: the largest shard sets the matrix's wall time).
"""

from __future__ import annotations

import hashlib
import math
import os
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from amlkit.errors import UsageError

__all__ = ["SLACK", "SPEC_FORM", "Shard", "assign", "bound", "parse_spec"]

SLACK = 0.1  # a shard holds at most 10% over an even share (see bound)
SPEC_FORM = "K/N with 1 <= K <= N (e.g. --shard 1/4)"


def parse_spec(text: str) -> tuple[int, int]:
    """`"2/4"` -> (2, 4); anything else is a usage error naming the allowed form."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    index, count = (int(match[1]), int(match[2])) if match else (0, 0)
    if not match or count < 1 or not 1 <= index <= count:
        raise UsageError(f"--shard {text!r}: expected {SPEC_FORM}")
    return index, count


def _hash(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256("\0".join(parts).encode()).digest()[:8], "big")


def bound(stacks: int, count: int) -> int:
    """The most stacks one shard holds: an even share rounded up, or 10% over it when that is more."""
    return max(math.ceil(stacks / count), math.floor((1 + SLACK) * stacks / count))


def assign(names: Sequence[str], count: int) -> dict[str, int]:
    """Stack name -> its shard (1..count), by the rule in the module docstring."""
    capacity = bound(len(set(names)), count)
    load: Counter[int] = Counter()
    shards: dict[str, int] = {}
    for name in sorted(set(names), key=lambda n: (_hash(n), n)):
        ranking = sorted(range(1, count + 1), key=lambda k: (-_hash(name, str(k)), k))
        shards[name] = next(k for k in ranking if load[k] < capacity)
        load[shards[name]] += 1
    return shards


@dataclass
class Shard:
    """One `--shard K/N` run: its spec, and once `select` ran, the run's whole stack list and setup."""

    index: int
    count: int
    project_dir: str = ""
    stacks: list[str] = field(default_factory=list)  # every stack of the unsharded run, sorted
    setup: dict[str, Any] = field(default_factory=dict)  # what must be the same in every shard

    @property
    def spec(self) -> str:
        return f"{self.index}/{self.count}"

    def select(self, project_dir: Path, stacks: Sequence[str] | None, setup: dict[str, Any]) -> list[str]:
        """This shard's stacks of the run (`stacks`, else every stack of the project), sorted; records
        the run for the shard report."""
        from amlkit.review.project import list_stacks

        self.project_dir = str(project_dir.resolve())
        self.stacks = sorted(set(stacks)) if stacks else list_stacks(project_dir)
        self.setup = {**self.setup, **setup, "digest": _digest(project_dir, setup.get("policy_pack_config") or [])}
        shards = assign(self.stacks, self.count)
        return [name for name in self.stacks if shards[name] == self.index]


def _digest(project_dir: Path, configs: Sequence[str]) -> str:
    """sha256 over the files every shard must see the same: Pulumi.yaml, every stack file, the project's
    policy-config/ and each --policy-pack-config (a file, or a directory's .json files)."""
    from amlkit.review.project import load_project

    project = load_project(project_dir)
    files = [project_dir / "Pulumi.yaml", *sorted(project.stack_config_dir.glob("Pulumi.*.yaml")),
             *sorted((project_dir / "policy-config").glob("*.json"))]
    for config in map(Path, configs):
        files += sorted(config.glob("*.json")) if config.is_dir() else [config]
    digest = hashlib.sha256()
    for path in files:
        if path.is_file():
            digest.update(f"{os.path.relpath(path.resolve(), project_dir.resolve())}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()
