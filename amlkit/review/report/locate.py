"""Find the line of a stack file that a finding is about, for SARIF and editors.

A finding names a resource by URN. The resource, or one of its ancestors (a cluster's component, the
environment), was built from one entry of the stack's amlkit config: the workspace mapping or one item of
`amlkit:clusters` / `amlkit:instances` / `amlkit:attached` or of a hub's `amlkit:workspace.projects`, each with a
`name:`. We walk the parent chain, match a logical name (or the Azure name input, `computeName` /
`workspaceName`) to such an entry, and point at the entry's key the policy is about when the entry sets it
(`min_instances:` for the minimum-nodes rule: the policy's `PolicyInfo.stack_key`, from the review's pack info,
never from the rules), else at the entry's `name:`. Anything not found, or a file that cannot be read, is line 1.

Programs that are not stack-file driven have no such entries: a finding is then located at the
program line that declared the resource (`source_of`, from the registration's `sourcePosition`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from amlkit.review.model import NAME_INPUTS, ResourceRecord

__all__ = ["SECTIONS", "Entry", "ancestry", "children_index", "find_entry_line", "find_line",
           "index_stack_file", "locate", "related_names", "source_of"]

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: same nodes and marks
SECTIONS = ("amlkit:workspace", "amlkit:clusters", "amlkit:instances", "amlkit:attached")


@dataclass(frozen=True)
class Entry:
    """One named entry of the stack's amlkit config: the line of its `name:` and of each key."""

    line: int
    keys: Mapping[str, int] = field(default_factory=dict)


def index_stack_file(path: Path) -> dict[str, Entry]:
    """Entry name -> Entry for the workspace (and a hub's projects), clusters, instances and attached computes of a
    stack file ({} if unreadable)."""
    try:
        root = yaml.compose(path.read_text(encoding="utf-8"), Loader=_LOADER)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    config = _get(root, "config")
    entries: dict[str, Entry] = {}
    for section in SECTIONS:
        node = _get(config, section)
        items = node.value if isinstance(node, yaml.SequenceNode) else [node]
        for item in items:
            _add_entry(entries, item)
    projects = _get(_get(config, "amlkit:workspace"), "projects")  # a hub's projects (#31): entries of their own
    for item in projects.value if isinstance(projects, yaml.SequenceNode) else []:
        _add_entry(entries, item)
    return entries


def ancestry(
    urn: str, resources: Sequence[ResourceRecord] | Mapping[str, ResourceRecord]
) -> list[ResourceRecord]:
    """The resource with this URN, then its parent, grandparent... (empty if the URN is not known).

    Pass a {urn: record} mapping instead of the list when calling this for many findings.
    """
    by_urn = resources if isinstance(resources, Mapping) else {r.urn: r for r in resources}
    chain: list[ResourceRecord] = []
    current = by_urn.get(urn)
    while current is not None and current not in chain:
        chain.append(current)
        current = by_urn.get(current.parent) if current.parent else None
    return chain


def children_index(resources: Sequence[ResourceRecord]) -> dict[str, list[ResourceRecord]]:
    """parent URN -> its direct children."""
    children: dict[str, list[ResourceRecord]] = {}
    for record in resources:
        if record.parent:
            children.setdefault(record.parent, []).append(record)
    return children


def related_names(chain: Sequence[ResourceRecord], children: Mapping[str, Sequence[ResourceRecord]]) -> list[str]:
    """Names of the direct children of the chain's nested components (never the root component): a
    workspace's storage account is found through the ML workspace created next to it."""
    names: list[str] = []
    for record in chain:
        if not record.custom and not _top_level(record):
            for child in children.get(record.urn, ()):
                names += _names(child)
    return names


def find_line(
    entries: Mapping[str, Entry], chain: Sequence[ResourceRecord], key: str = "", related: Sequence[str] = ()
) -> int:
    """The line a finding on chain[0] points at: exact names in the chain, then exact `related` names,
    then `<prefix>-<name>` names in the chain; on the entry, the line of `key` (the policy's stack-file key,
    `PolicyInfo.stack_key`) when the entry sets it, else the entry's `name:`."""
    return find_entry_line(entries, chain, key, related) or 1


def find_entry_line(
    entries: Mapping[str, Entry], chain: Sequence[ResourceRecord], key: str = "", related: Sequence[str] = ()
) -> int | None:
    """`find_line`, or None when no entry of the stack file is about the finding."""
    names = [name for record in chain for name in _names(record)]
    exact = next((entries[n] for n in [*names, *related] if n in entries), None)
    entry = exact or _fuzzy(entries, names)
    if entry is None:
        return None
    return entry.keys.get(key, entry.line) if key else entry.line


def source_of(chain: Sequence[ResourceRecord]) -> tuple[str, int] | None:
    """(program file, line) that declared chain[0], else its nearest ancestor with a known position."""
    for record in chain:
        if record.source_file and record.source_line:
            return record.source_file, record.source_line
    return None


def locate(path: Path, urn: str, resources: Sequence[ResourceRecord], key: str = "") -> int:
    """One-shot: the line in stack file `path` of a finding on `urn` about stack-file key `key`."""
    chain = ancestry(urn, resources)
    return find_line(index_stack_file(path), chain, key, related_names(chain, children_index(resources)))


def _get(node: yaml.Node | None, key: str) -> yaml.Node | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            found: yaml.Node = v
            return found
    return None


def _add_entry(entries: dict[str, Entry], item: yaml.Node | None) -> None:
    name = _get(item, "name")
    if not isinstance(item, yaml.MappingNode) or not isinstance(name, yaml.ScalarNode):
        return
    keys = {k.value: k.start_mark.line + 1 for k, _ in item.value if isinstance(k, yaml.ScalarNode)}
    entries.setdefault(str(name.value), Entry(line=keys["name"], keys=keys))


def _top_level(record: ResourceRecord) -> bool:
    """No parent, or only the stack itself (whose children span the whole environment)."""
    return record.parent is None or "::pulumi:pulumi:Stack::" in record.parent


def _names(record: ResourceRecord) -> list[str]:
    inputs = [record.inputs.get(key) for key in NAME_INPUTS]
    return [record.name, *(value for value in inputs if isinstance(value, str))]


def _fuzzy(entries: Mapping[str, Entry], names: Sequence[str]) -> Entry | None:
    """An entry whose name ends a logical name after a dash (`prod-cpu` -> `cpu`); longest wins."""
    for name in names:
        hits = [e for e in entries if name.endswith(f"-{e}")]
        if hits:
            return entries[max(hits, key=len)]
    return None
