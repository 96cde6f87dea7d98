"""`amlkit check --shard K/N` and `amlkit merge`: the CLI side of sharding (the split is amlkit.review.shard,
the shard report amlkit.review.report.shardfile). Light: imported by the CLI at start-up, it imports the
report code only when a shard runs or a merge is asked for."""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any

import typer

from amlkit.errors import UsageError
from amlkit.review.model import Review
from amlkit.review.options import ReviewOptions
from amlkit.review.shard import Shard, parse_spec

__all__ = ["Merged", "command", "load", "setup", "shard_json", "shard_option"]

# No `from __future__ import annotations` here: `command` builds the merge command's signature from the
# CLI's own -f/-o/--no-color option types, which typer reads from the function's annotations.


def command(formats: Any, outputs: Any, no_color_type: Any, cli: ModuleType) -> Callable[..., None]:
    """The `amlkit merge` command, with the CLI's own report options (paired -f/-o, --no-color) and reporting
    (`cli`: the CLI module as it runs)."""
    def merge(
        reports: Annotated[list[Path], typer.Argument(metavar="SHARD.json", exists=True, dir_okay=False,
                                                      help="The JSON reports of every shard of one run.")],
        format: formats = None,
        output: outputs = None,
        no_color: no_color_type = False,
    ) -> None:
        """Combine the JSON reports of `amlkit check --shard K/N` (K = 1..N) into the reports and exit code the
        unsharded `amlkit check` gives; shards of different runs, setups or amlkit versions exit 2."""
        import os

        from amlkit.guard import guarded

        if no_color:
            os.environ["NO_COLOR"] = "1"
        with guarded(False):
            merged = load(reports)
            pairs = cli._pairs(format, output)
            cli._report(merged.review, cli._Report(pairs, strict=merged.strict), merged.project_dir, merged.options)

    return merge


def shard_option(spec: str, stack_files: list[Path] | None, states: list[Path] | None, strict: bool) -> Shard:
    """The `--shard` of `amlkit check`: a project's stacks (-C, --stack), not stack files or a --state audit."""
    if stack_files or states:
        raise UsageError("--shard splits the stacks of a project (--project-dir, --stack): it takes no stack files "
                         "and no --state")
    index, count = parse_spec(spec)
    return Shard(index, count, setup={"strict": strict})


def setup(options: ReviewOptions) -> dict[str, Any]:
    """What every shard of one run must share: the packs and configs as given (the files' contents are in the
    shard's digest)."""
    def given(value: Path | tuple[Path, ...] | Any) -> list[str]:
        values = [] if value is None else [value] if isinstance(value, Path) else list(value)
        return [str(path) for path in values]

    return {"policy_pack": given(options.policy_pack), "policy_pack_config": given(options.policy_pack_config)}


def shard_json(review: Review, shard: Shard) -> str:
    from amlkit.review.report import shardfile

    return shardfile.render(review, shard)


@dataclass(frozen=True)
class Merged:
    """The shards' combined review, and what the unsharded run reported with."""

    review: Review
    project_dir: Path
    options: ReviewOptions
    strict: bool


def load(paths: list[Path]) -> Merged:
    from amlkit.review.report import shardfile

    if not paths:
        raise UsageError("give the JSON reports of every shard")
    merged = shardfile.load(paths)
    packs = tuple(Path(p) for p in merged.setup["policy_pack"])
    configs = tuple(Path(p) for p in merged.setup["policy_pack_config"])
    options = ReviewOptions(policy_pack=packs[0] if len(packs) == 1 else packs or None,
                            policy_pack_config=configs[0] if len(configs) == 1 else configs or None)
    return Merged(merged.review, merged.project_dir, options, bool(merged.setup["strict"]))
