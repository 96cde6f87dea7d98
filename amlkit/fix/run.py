"""`amlkit fix` after the review: plan each stack's changes, make the safe ones in the stack file, diff them.

Each stack file is read as `amlkit check` reads it (a file inside the project that links out of it is refused), its
edits applied one by one (`amlkit.fix.yamledit`), each kept only when the file still validates against amlkit's
stack-file schema afterwards (a node public IP turned off without a network, for example, is refused with the
schema's own message); the file is written all or nothing (`amlkit.review.report.files.write_report`), keeping
its mode.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from amlkit.errors import ConfigError
from amlkit.fix.plan import SECTIONS, Change, EntryAt, StackFile, plan_stack
from amlkit.fix.yamledit import Edit, EditRefused, apply, unified_diff
from amlkit.policies.framework import Rule
from amlkit.review.model import Review, StackReview
from amlkit.review.project import refuse_outside_link
from amlkit.review.report.locate import index_stack_file
from amlkit.stackfile import MAX_FILE_BYTES, load_stack_file, read_text

__all__ = ["FileFix", "Outcome", "fix_review", "write"]


@dataclass(frozen=True)
class FileFix:
    """One stack file: its path, its text before and after, and the diff as printed."""

    path: Path
    shown: str
    before: str
    after: str

    @property
    def diff(self) -> str:
        return unified_diff(self.before, self.after, self.shown)


@dataclass
class Outcome:
    """Every change planned (made or printed), and the files whose text changes."""

    changes: list[Change] = field(default_factory=list)
    files: list[FileFix] = field(default_factory=list)

    @property
    def made(self) -> list[Change]:
        return [change for change in self.changes if not change.why_not]


def fix_review(review: Review, project_dir: Path, policy_pack_config: Path | None) -> Outcome:
    """The changes for every stack of `review` that was reviewed (a failed stack is the CLI's to report)."""
    from amlkit.policies import ALL_RULES

    rules = {rule.name: rule for rule in ALL_RULES}
    outcome = Outcome()
    for stack in review.ordered_stacks():
        if stack.error is None:
            _fix_stack(stack, project_dir, policy_pack_config, rules, outcome)
    return outcome


def write(outcome: Outcome) -> None:
    """Write every changed file, all or nothing each, keeping its mode."""
    from amlkit.review.report.files import write_report

    for file in outcome.files:
        write_report(file.path, file.after, what="stack file")


def _fix_stack(stack: StackReview, project_dir: Path, policy_pack_config: Path | None, rules: Mapping[str, Rule],
               outcome: Outcome) -> None:
    path = project_dir / stack.stack_file
    refuse_outside_link(path, (project_dir,))
    text = read_text(path, MAX_FILE_BYTES)
    shown = _shown(str(path))
    configs = _configs(stack, project_dir, policy_pack_config, rules)
    changes = plan_stack(stack, _stack_file(path, text, shown), configs, rules, _shown)
    changes, after = _apply(path, text, changes)
    outcome.changes += changes
    if after != text:
        outcome.files.append(FileFix(path, shown, text, after))


def _configs(stack: StackReview, project_dir: Path, policy_pack_config: Path | None,
             rules: Mapping[str, Rule]) -> dict[str, dict[str, Any]]:
    """Each rule's effective config for the stack: the config file the review gave amlkit's pack, as the pack
    reads it (reconciled, rule baseline applied, numbers as the protocol carries them)."""
    from amlkit.packs import default_pack_dir, own_config
    from amlkit.review.pack.multi import PackSpec, config_path

    spec = PackSpec(default_pack_dir(), policy_pack_config, own=True)
    config = own_config(config_path(spec, project_dir, stack.stack, stack.environment), project_dir)
    return {name: rule.effective_config((config[name].properties or {}) if name in config else {})
            for name, rule in rules.items()}


def _stack_file(path: Path, text: str, shown: str) -> StackFile:
    """Locate's index of the file, and its clusters, instances and tags as ruamel.yaml reads them (with lines)."""
    try:
        document = YAML(typ="rt").load(text)
    except YAMLError:
        document = None
    found = document.get("config") if isinstance(document, dict) else None
    config: Any = found if isinstance(found, dict) else {}
    entries_at = [_entry(section, index, item) for section in SECTIONS
                  for index, item in enumerate(config.get(section) or []) if isinstance(item, dict)]
    tags = config.get("amlkit:tags")
    tags_line = config.lc.key("amlkit:tags")[0] + 1 if isinstance(tags, dict) else 1
    return StackFile(shown, index_stack_file(path), entries_at, dict(tags) if isinstance(tags, dict) else {},
                     tags_line)


def _entry(section: str, index: int, item: Any) -> EntryAt:
    lines = frozenset(item.lc.key(key)[0] + 1 for key in item)
    return EntryAt(section, index, str(item.get("name", index)), lines, dict(item))


def _apply(path: Path, text: str, changes: Sequence[Change]) -> tuple[list[Change], str]:
    """The edits that keep the file valid, one by one; the others become printed changes with the reason."""
    kept: list[Edit] = []
    result, after = [], text
    for change in changes:
        if change.edit is None:
            result.append(change)
            continue
        try:
            candidate = apply(text, [*kept, change.edit])
        except EditRefused as refused:
            result.append(replace(change, why_not=f"cannot edit the file safely: {refused}"))
            continue
        problem = _schema_problem(path, candidate)
        if problem:
            result.append(replace(change, why_not=f"the stack file would be invalid: {problem}"))
            continue
        kept.append(change.edit)
        result.append(change)
        after = candidate
    return result, after


def _schema_problem(path: Path, text: str) -> str | None:
    """What amlkit's stack-file schema says of `text` as the file `path` (None: valid)."""
    with tempfile.TemporaryDirectory(prefix="amlkit-fix-") as directory:
        candidate = Path(directory) / path.name
        candidate.write_text(text, encoding="utf-8")
        try:
            load_stack_file(candidate)
        except ConfigError as error:
            return f"{error.key_path}: {error.problem}" if error.key_path else error.problem
    return None


def _shown(path: str) -> str:
    """A path as printed: relative to the working directory when under it."""
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute)
    return absolute if relative.startswith("..") else relative
