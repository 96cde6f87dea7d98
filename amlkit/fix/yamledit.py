"""Edit a stack file in place with ruamel.yaml's round trip, touching nothing but the edited keys.

The file is parsed in round-trip mode (comments, key order, quoting and flow style kept) with the indentation it
is written in: the first of a few common layouts whose unedited round trip gives the file back byte for byte. The
edits are applied to the parsed document, which is dumped again; then the result is proven to be the file with
only the edited lines changed or added, and to read back as the original data with exactly the edits applied. A
file no layout reproduces, or an edit that would move any other byte, is refused (`EditRefused`): `amlkit fix`
then prints the change instead of making it.
"""

from __future__ import annotations

import copy
import difflib
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.error import YAMLError
from ruamel.yaml.util import load_yaml_guess_indent

__all__ = ["Edit", "EditRefused", "apply", "unified_diff"]

Key = str | int
LAYOUTS = ((2, 4, 2), (2, 2, 0), (4, 4, 0), (4, 6, 4), (4, 4, 2), (2, 4, 0), (3, 5, 3))
"""(mapping indent, sequence indent, dash offset) tried after the one ruamel guesses."""
WIDTH = 1 << 20  # never fold a long line


@dataclass(frozen=True)
class Edit:
    """Set the key at `path` (keys and list indexes from the document root) to `value`; a missing last key is
    added (after the mapping's `name:` when it has one, else at its end), a missing mapping on the way too."""

    path: tuple[Key, ...]
    value: Any


class EditRefused(Exception):
    """The file cannot be edited without changing more than the edited keys (the message says why)."""


def apply(text: str, edits: Sequence[Edit]) -> str:
    """`text` with `edits` applied, every other byte as it was (see the module doc)."""
    if not edits:
        return text
    body, newline, bom = _split_encoding(text)
    yaml, document = _round_trip(body)
    targets: set[int] = set()
    for edit in edits:
        targets |= _set(document, edit)
    out = io.StringIO()
    yaml.dump(document, out)
    result = out.getvalue()
    if not body.endswith("\n"):
        result = result.removesuffix("\n")
    _prove(body, result, targets, edits)
    return bom + (result.replace("\n", "\r\n") if newline == "\r\n" else result)


def unified_diff(before: str, after: str, name: str) -> str:
    """`diff -u` of one file (`a/<name>`, `b/<name>`), '' when nothing changed."""
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 f"a/{name}", f"b/{name}")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def _split_encoding(text: str) -> tuple[str, str, str]:
    """The text with LF line ends and no byte-order mark, its line end and its mark."""
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body = text.removeprefix(bom)
    newline = "\r\n" if "\r\n" in body else "\n"
    if newline == "\r\n":
        if body.replace("\r\n", "").count("\n") or body.replace("\r\n", "").count("\r"):
            raise EditRefused("it mixes CRLF and LF line ends")
        body = body.replace("\r\n", "\n")
    return body, newline, bom


def _round_trip(body: str) -> tuple[YAML, Any]:
    """The parser/dumper whose unedited round trip gives `body` back, and the parsed document."""
    try:
        _, indent, offset = load_yaml_guess_indent(body)
    except YAMLError as error:
        raise EditRefused(f"it is not YAML ruamel.yaml can read: {str(error).splitlines()[0]}") from None
    guessed = (offset or 2, indent or 4, offset or 0) if indent else None
    for layout in dict.fromkeys([*([guessed] if guessed else []), *LAYOUTS]):
        yaml = _yaml(layout)
        document = yaml.load(body)
        out = io.StringIO()
        yaml.dump(document, out)
        if out.getvalue() in (body, body + "\n"):
            return yaml, yaml.load(body)
    raise EditRefused("ruamel.yaml cannot write it back byte for byte (an unusual indentation or layout)")


def _yaml(layout: tuple[int, int, int]) -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = WIDTH
    mapping, sequence, offset = layout
    yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
    return yaml


def _set(document: Any, edit: Edit) -> set[int]:
    """Apply one edit; the 0-based lines it replaces (a key added replaces none)."""
    node = document
    for depth, key in enumerate(edit.path[:-1]):
        child = _child(node, key)
        if child is None:
            if not isinstance(key, str) or not isinstance(node, CommentedMap):
                raise EditRefused(f"{_show_path(edit.path[:depth + 1])} is not in the file")
            child = CommentedMap()
            _add(node, key, child)
        node = child
    last = edit.path[-1]
    if not isinstance(node, CommentedMap) or not isinstance(last, str):
        raise EditRefused(f"{_show_path(edit.path[:-1])} is not a mapping")
    if last in node:
        if isinstance(node[last], (dict, list)):
            raise EditRefused(f"{_show_path(edit.path)} is not a single value")
        line: int = node.lc.value(last)[0]
        node[last] = edit.value
        return {line}
    _add(node, last, edit.value)
    return set()


def _child(node: Any, key: Key) -> Any:
    if isinstance(key, int):
        return node[key] if isinstance(node, list) and 0 <= key < len(node) else None
    return node.get(key) if isinstance(node, dict) else None


def _add(node: CommentedMap, key: str, value: Any) -> None:
    """A new key right after `name:` (an entry of a list keeps its name first), else at the end of the mapping,
    taking over the comment (or blank lines) that followed the mapping's last key."""
    keys = list(node)
    if "name" in keys and not isinstance(node["name"], (dict, list)):
        node.insert(keys.index("name") + 1, key, value)
        return
    node[key] = value
    if keys and not isinstance(node[keys[-1]], (dict, list)):
        _move_trailing_lines(node, keys[-1], key)


def _move_trailing_lines(node: CommentedMap, last: str, key: str) -> None:
    """The lines after the last key's line (blank lines, comments of what follows) stay after the new key; the last
    key keeps its end-of-line comment."""
    slots = node.ca.items.get(last)
    token = slots[2] if slots and len(slots) > 2 else None
    if token is None or "\n" not in token.value:
        return
    head, tail = token.value.split("\n", 1)
    if not tail:
        return
    token.value = head + "\n"
    moved = copy.copy(token)
    moved.value = "\n" + tail
    node.ca.items[key] = [None, None, moved, None]


def _prove(before: str, after: str, targets: set[int], edits: Sequence[Edit]) -> None:
    """Only `targets` lines changed and new lines added, and the data is the old data with the edits."""
    old, new = before.splitlines(), after.splitlines()
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        touched = set(range(i1, i2)) - targets if tag in ("replace", "delete") else set()
        if touched:
            line = min(touched)
            raise EditRefused(f"the edit would also rewrite line {line + 1} ({old[line].strip()!r})")
    expected = _plain(YAML(typ="safe", pure=True).load(before))
    for edit in edits:
        _set_plain(expected, edit)
    if _plain(YAML(typ="safe", pure=True).load(after)) != expected:
        raise EditRefused("the rewritten file would not read back as the intended values")


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _set_plain(document: Any, edit: Edit) -> None:
    node = document
    for key in edit.path[:-1]:
        node = node.setdefault(key, {}) if isinstance(key, str) else node[key]
    node[edit.path[-1]] = edit.value


def _show_path(path: Sequence[Key]) -> str:
    return "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in path).lstrip(".")
