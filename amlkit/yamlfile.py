"""Reading YAML files safely (size cap, one document, no duplicate keys, bounded alias expansion and nesting),
with the position of each key, and YAML syntax errors in plain words. Stack files (amlkit.stackfile) and the
project files are read through it."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import yaml

from amlkit.errors import ConfigError

__all__ = [
    "MAX_DEPTH", "MAX_FILE_BYTES", "MAX_NODES", "Position", "dump_yaml", "one_line", "printable_key", "read_text",
    "read_yaml", "read_yaml_positions", "yaml_syntax_error",
]

MAX_FILE_BYTES = 1_048_576
MAX_NODES = 20_000
"""Upper bound on YAML nodes after alias expansion (a stack file has a few hundred)."""
MAX_DEPTH = 40
"""Deepest nesting accepted; checked while composing, so PyYAML's recursion never nears Python's limit."""


# --- YAML ------------------------------------------------------------------------------------------


def _config_path(path: tuple[Any, ...]) -> str:
    """Key path for messages: inside `config:` the config key leads (`amlkit:clusters[0].name`)."""
    if len(path) >= 2 and path[0] == "config" and isinstance(path[1], str):
        text, rest = printable_key(path[1]), path[2:]
    else:
        text, rest = "", path
    for part in rest:
        key = printable_key(str(part))
        text += f"[{part}]" if isinstance(part, int) else (f".{key}" if text else key)
    return text


class _TooDeep(Exception):
    def __init__(self, path: tuple[Any, ...], mark: yaml.Mark) -> None:
        super().__init__()
        self.path = path
        self.mark = mark


class _Loader(yaml.SafeLoader):
    """SafeLoader that refuses nesting deeper than MAX_DEPTH while composing (naming the key path)
    and reports constructor failures (PyYAML's int(), float() and timestamp constructors raise plain
    ValueErrors) as YAML errors."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._path: list[Any] = []

    def compose_node(self, parent: Any, index: Any) -> Any:
        if parent is None:
            return super().compose_node(parent, index)
        if isinstance(index, int):
            part: Any = index
        else:
            part = index.value if isinstance(index, yaml.ScalarNode) else "<key>"
        self._path.append(part)
        try:
            if len(self._path) > MAX_DEPTH:
                raise _TooDeep(tuple(self._path), self.get_mark())
            return super().compose_node(parent, index)
        finally:
            self._path.pop()

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, TypeError, IndexError, KeyError, AttributeError, OverflowError):
            value = node.value if isinstance(node, yaml.ScalarNode) else ""
            shown = value if len(value) <= 40 else value[:37] + "..."
            tag = node.tag.replace("tag:yaml.org,2002:", "!!")
            raise yaml.constructor.ConstructorError(
                None, None, f"cannot read {shown!r} as {tag} (write the value without the tag, or quote it)",
                node.start_mark) from None


class _Walk:
    """Checks a composed YAML node tree: duplicate keys, alias cycles, expansion size and depth."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.count = 0
        self.positions: dict[tuple[Any, ...], Position] = {}
        """Key path -> (line, column), 1-based: of the key for a mapping entry, of the item for a list item."""

    def fail(self, path: tuple[Any, ...], problem: str, mark: yaml.Mark) -> None:
        error = ConfigError(self.file, _config_path(path), problem)
        error.at(self.file, *_position(mark))
        raise error

    def visit(self, node: yaml.Node, path: tuple[Any, ...], active: frozenset[int]) -> None:
        self.count += 1
        if self.count > MAX_NODES:
            self.fail((), f"the YAML expands to more than {MAX_NODES} values (alias bomb?); allowed: a plain "
                          "stack file", node.start_mark)
        if id(node) in active:
            self.fail(path, "a YAML alias refers to itself; allowed: plain values", node.start_mark)
        if len(path) > MAX_DEPTH:
            self.fail(path, f"nested more than {MAX_DEPTH} levels deep", node.start_mark)
        inside = active | {id(node)}
        self.positions.setdefault(path, _position(node.start_mark))
        if isinstance(node, yaml.MappingNode):
            self.visit_mapping(node, path, inside)
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                self.visit(item, (*path, index), inside)

    def visit_mapping(self, node: yaml.MappingNode, path: tuple[Any, ...], active: frozenset[int]) -> None:
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if key is not None and key != "<<":
                line = key_node.start_mark.line + 1
                if key in seen:
                    self.fail((*path, key), f"duplicate key (lines {seen[key]} and {line}); allowed: each key once",
                              key_node.start_mark)
                seen[key] = line
                self.positions.setdefault((*path, key), _position(key_node.start_mark))
            self.visit(value_node, (*path, key), active)


Position = tuple[int, int]
"""(line, column) in a file, both 1-based."""


def _position(mark: yaml.Mark) -> Position:
    return mark.line + 1, mark.column + 1


def dump_yaml(document: Any, **options: Any) -> str:
    """`yaml.safe_dump` with unicode written as is, except where PyYAML's emitter would write text that reads
    back differently (it writes NEL raw inside a quoted scalar, which a reader folds into a space): then
    with escapes, which always read back exactly."""
    text: str = yaml.safe_dump(document, allow_unicode=True, **options)
    if yaml.safe_load(text) == document:
        return text
    escaped: str = yaml.safe_dump(document, allow_unicode=False, **options)
    return escaped


def read_yaml(path: Path) -> Any:
    """Parse one YAML document safely, or raise ConfigError naming the file and the problem.

    A document that libyaml (PyYAML's C parser) composes and the checks accept is built from libyaml's nodes;
    anything else, whatever failed, is read again with the pure-Python parser, whose errors (and their
    positions) are the ones reported. The same checks and the same constructor run on both: the value is the
    same (tests/test_yamlfile.py compares the two readers)."""
    file = str(path)
    text = read_text(path, MAX_FILE_BYTES)
    fast = read_fast(file, text)
    return _read(file, text)[0] if fast is NOT_READ else fast


NOT_READ = object()
"""What `read_fast` returns for a document it leaves to the pure-Python parser."""
_PURE_ONLY = ("\t", "!", "|", ">", "%", "@", "`", "\ufeff", "\x85", "\u2028", "\u2029")
"""Where libyaml and the pure-Python parser disagree (found by tests/test_yamlfile.py's fuzzing): libyaml reads
`a: x<TAB>y` as a value (the pure-Python parser refuses the tab), a bare `!` tag as '' (pure: null), a byte
order mark after the start and the non-ASCII line breaks differently. A text holding one is read only by the
pure-Python parser."""


def read_fast(file: str, text: str) -> Any:
    """`text` read with libyaml and the same checks, or NOT_READ: no libyaml, anything failed, or a text with a
    character where the two parsers were seen to differ (`_PURE_ONLY`)."""
    if not yaml.__with_libyaml__ or any(character in text for character in _PURE_ONLY):
        return NOT_READ
    loader = yaml.CSafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _Walk(file).visit(node, (), frozenset())
        return loader.construct_document(node)
    except Exception:  # noqa: BLE001 - the pure-Python parser reads it again and reports what is wrong
        return NOT_READ
    finally:
        loader.dispose()


def read_yaml_positions(path: Path) -> tuple[Any, dict[tuple[Any, ...], Position]]:
    """`read_yaml`, plus where each key path is: (line, column) of a mapping key or a list item (always through
    the pure-Python parser, whose marks the messages use)."""
    file = str(path)
    return _read(file, read_text(path, MAX_FILE_BYTES))


def _read(file: str, text: str) -> tuple[Any, dict[tuple[Any, ...], Position]]:
    loader: _Loader | None = None
    try:
        loader = _Loader(text)
        node = loader.get_single_node()
        if node is None:
            return None, {}
        walk = _Walk(file)
        walk.visit(node, (), frozenset())
        return loader.construct_document(node), walk.positions
    except _TooDeep as error:
        too_deep = ConfigError(file, _config_path(error.path), f"nested more than {MAX_DEPTH} levels deep")
        too_deep.at(file, *_position(error.mark))
        raise too_deep from None
    except yaml.MarkedYAMLError as error:
        raise yaml_syntax_error(file, text, error) from None
    except yaml.reader.ReaderError as error:
        character = f"#x{error.character:04x}" if isinstance(error.character, int) else repr(error.character)
        raise ConfigError(file, "", f"not valid YAML: character {character} at position {error.position} is "
                          "not allowed (control characters are not text)") from None
    except yaml.YAMLError as error:
        raise ConfigError(file, "", one_line(f"not valid YAML: {error}")) from None
    finally:
        if loader is not None:
            loader.dispose()


def read_text(path: Path, limit: int) -> str:
    """A regular file's UTF-8 text, or a ConfigError naming the file: not a regular file (a named pipe would
    block the read), over `limit` bytes, unreadable, or not UTF-8 (with the offset of the first bad byte)."""
    file = str(path)
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(file, "", f"not a regular file ({_file_kind(info.st_mode)}); allowed: a regular file")
        if info.st_size > limit:
            raise ConfigError(file, "", f"the file is {info.st_size} bytes; allowed: at most {limit} bytes")
        data = path.read_bytes()
    except OSError as error:
        raise ConfigError(file, "", f"cannot read the file: {error.strerror or error}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(file, "", f"not UTF-8 text: byte 0x{data[error.start]:02x} at offset {error.start} "
                          f"({error.reason}); allowed: UTF-8 text") from None


def _file_kind(mode: int) -> str:
    kinds = ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISDIR, "a directory"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))
    return next((name for test, name in kinds if test(mode)), "a special file")


def one_line(text: str) -> str:
    """Messages stay on one line: line breaks and control characters are escaped."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def printable_key(key: str) -> str:
    """A key as it may appear in a key path: control characters (and newlines) escaped."""
    return one_line(key)


# --- YAML syntax errors ----------------------------------------------------------------------------

_INDENTATION = ("this line's indentation does not match the lines around it (YAML nests by indentation: indent "
                "a key like its siblings, with spaces)")
_SYNTAX: tuple[tuple[str, str], ...] = (
    ("expected <block end>", _INDENTATION),
    ("did not find expected key", _INDENTATION),
    ("did not find expected '-' indicator", _INDENTATION),
    ("cannot start any token", "a character that cannot start a value here (a tab? YAML indents with spaces; "
                               "quote a value starting with @ or `)"),
    ("could not find expected ':'", "a key without ':' (expected 'key: value')"),
    ("found another document", "a second YAML document (a '---' or '...' line): a stack file holds one"),
    ("expected alphabetic or numeric character", "an anchor (&name) or alias (*name) without a name of letters "
                                                 "and digits (quote a value that starts with & or *)"),
    ("found undefined alias", "an alias (*name) whose anchor (&name) is not defined above it"),
    ("end of stream", "a quote or bracket opened here is never closed"),
    ("expected ',' or ']'", "a list in [ ] that is not closed or not separated by ','"),
    ("expected ',' or '}'", "a mapping in { } that is not closed or not separated by ','"),
    ("found '<stream end>'", "the file ends inside an unfinished value (a [, { or quote that is never closed)"),
    ("expected the node content", "a value is missing here"),
)
"""PyYAML's problem texts (a distinctive part of each) and what they mean in words."""
_AT_CONTEXT = ("while scanning a quoted scalar", "while scanning a flow", "while parsing a flow",
               "while scanning a simple key")
"""Contexts whose mark is where the mistake starts (the problem mark is where PyYAML gave up, often a line later)."""


def yaml_syntax_error(file: str, text: str, error: yaml.MarkedYAMLError) -> ConfigError:
    """One line at the place of the mistake: `file:line:column: not valid YAML: <what is wrong, in words>`."""
    problem = error.problem or error.context or "not valid YAML"
    mark = error.problem_mark or error.context_mark
    if error.context_mark is not None and any(c in (error.context or "") for c in _AT_CONTEXT):
        mark = error.context_mark
    words = next((meaning for part, meaning in _SYNTAX if part in problem), one_line(problem))
    line, column = (mark.line, mark.column) if mark is not None else (0, 0)
    if "mapping values are not allowed" in problem:
        line, column, words = _misplaced_colon(text.splitlines(), line, column)
    found = ConfigError(file, "", f"not valid YAML: {words}")
    if mark is not None:
        found.at(file, line + 1, column + 1)
    return found


def _misplaced_colon(lines: list[str], line: int, column: int) -> tuple[int, int, str]:
    """Where a 'mapping values are not allowed here' error starts, 0-based, and what it means. PyYAML reports
    the ':' of the line AFTER the mistake when a key line lacks its ':' (`name mlw-dev` then `kind: hub` read as
    one plain value) or when a line is indented under a key that already has its value."""
    previous = line - 1
    while previous >= 0 and (not lines[previous].strip() or lines[previous].lstrip().startswith("#")):
        previous -= 1
    if previous < 0 or line >= len(lines):
        return line, column, "an unquoted value containing ': ' (quote the value)"
    before, here = lines[previous], lines[line]
    indent, before_indent = len(here) - len(here.lstrip()), len(before) - len(before.lstrip())
    if ":" not in before and before_indent == indent and not before.lstrip().startswith("-"):
        return previous, indent, f"a key without ':' ({before.strip()[:40]!r}; expected 'key: value')"
    key, _, value = before.strip().partition(": ")
    if indent > before_indent and value.strip() and not key.startswith("-"):
        return line, indent, (f"this line is indented under {key!r}, which already has a value on its line "
                              "(indent the key like its siblings)")
    return line, column, "an unquoted value containing ': ' (quote the value)"
