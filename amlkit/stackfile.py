"""Loading an environment: from a stack file (offline review) or from the running program's config.

Both entry points end in the same validation, `amlkit.schema.validate_environment`:

- `load_stack_file(path)`: reads `stacks/Pulumi.<stack>.yaml` safely (size cap, one document, no
  duplicate keys, bounded alias expansion, mapping documents only). `secure:` values become
  `Secret` markers; they are never decrypted.
- `spec_from_pulumi_config()`: reads `pulumi.Config` as the engine passes it (strings, objects
  JSON-encoded, secret keys flagged by `pulumi.runtime.is_config_secret`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from amlkit.errors import ConfigError

if TYPE_CHECKING:
    from amlkit.schema import EnvironmentSpec

# amlkit.schema (pydantic models) is imported where it is used: reading a YAML file or a stack name
# (the review's parent process) does not need it.

MAX_FILE_BYTES = 1_048_576
MAX_NODES = 20_000
"""Upper bound on YAML nodes after alias expansion (a stack file has a few hundred)."""
MAX_DEPTH = 40
"""Deepest nesting accepted; checked while composing, so PyYAML's recursion never nears Python's limit."""
NAMESPACE = "amlkit"
LOCATION_KEY = "azure-native:location"
_STACK_FILE = re.compile(r"Pulumi\.(?P<stack>.+)\.ya?ml")


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
    def __init__(self, path: tuple[Any, ...]) -> None:
        super().__init__()
        self.path = path


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
                raise _TooDeep(tuple(self._path))
            return super().compose_node(parent, index)
        finally:
            self._path.pop()

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, TypeError, IndexError, KeyError, AttributeError, OverflowError) as error:
            value = node.value if isinstance(node, yaml.ScalarNode) else ""
            shown = value if len(value) <= 40 else value[:37] + "..."
            raise yaml.constructor.ConstructorError(
                None, None, f"cannot read {node.tag} value {shown!r} ({type(error).__name__})", node.start_mark
            ) from None


class _Walk:
    """Checks a composed YAML node tree: duplicate keys, alias cycles, expansion size and depth."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.count = 0

    def fail(self, path: tuple[Any, ...], problem: str) -> None:
        raise ConfigError(self.file, _config_path(path), problem)

    def visit(self, node: yaml.Node, path: tuple[Any, ...], active: frozenset[int]) -> None:
        self.count += 1
        if self.count > MAX_NODES:
            self.fail((), f"the YAML expands to more than {MAX_NODES} values (alias bomb?); allowed: a plain "
                          "stack file")
        if id(node) in active:
            self.fail(path, "a YAML alias refers to itself; allowed: plain values")
        if len(path) > MAX_DEPTH:
            self.fail(path, f"nested more than {MAX_DEPTH} levels deep")
        inside = active | {id(node)}
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
                    self.fail((*path, key), f"duplicate key (lines {seen[key]} and {line}); allowed: each key once")
                seen[key] = line
            self.visit(value_node, (*path, key), active)


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
    """Parse one YAML document safely, or raise ConfigError naming the file and the problem."""
    file = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ConfigError(file, "", f"the file is {size} bytes; allowed: at most {MAX_FILE_BYTES} bytes")
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(file, "", f"cannot read the file: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise ConfigError(file, "", "the file is not UTF-8 text") from None
    loader: _Loader | None = None
    try:
        loader = _Loader(text)
        node = loader.get_single_node()
        if node is None:
            return None
        _Walk(file).visit(node, (), frozenset())
        return loader.construct_document(node)
    except _TooDeep as error:
        raise ConfigError(file, _config_path(error.path), f"nested more than {MAX_DEPTH} levels deep") from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError(file, "", one_line(f"not valid YAML{where}: {error.problem or error.context}")) from None
    except yaml.reader.ReaderError as error:
        character = f"#x{error.character:04x}" if isinstance(error.character, int) else repr(error.character)
        raise ConfigError(file, "", f"not valid YAML: character {character} at position {error.position} is "
                          "not allowed (control characters are not text)") from None
    except yaml.YAMLError as error:
        raise ConfigError(file, "", one_line(f"not valid YAML: {error}")) from None
    finally:
        if loader is not None:
            loader.dispose()


def one_line(text: str) -> str:
    """Messages stay on one line: line breaks and control characters are escaped."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def printable_key(key: str) -> str:
    """A key as it may appear in a key path: control characters (and newlines) escaped."""
    return one_line(key)


# --- secrets ---------------------------------------------------------------------------------------


def _is_secure(value: Any) -> bool:
    return isinstance(value, Mapping) and list(value) == ["secure"] and isinstance(value["secure"], str)


def mark_secrets(value: Any, decrypted: bool = False) -> Any:
    """Replace `{secure: <ciphertext>}` with Secret(None); with `decrypted`, wrap credential-named text.

    `decrypted` is for a top-level key the engine flagged secret: its values arrive in plaintext and
    the credential fields in it (`admin_password`...) are the secret parts.
    """
    from amlkit.schema import Secret, is_credential_key

    if _is_secure(value):
        return Secret(None)
    if isinstance(value, Mapping):
        return {
            key: Secret(str(item)) if decrypted and is_credential_key(str(key)) and isinstance(item, str)
            else mark_secrets(item, decrypted)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [mark_secrets(item, decrypted) for item in value]
    return value


# --- namespace -------------------------------------------------------------------------------------


def _namespace_key(key: str) -> str | None:
    """`amlkit:workspace` or bare `workspace` -> `workspace`; `azure-native:location` -> `location`."""
    if key == LOCATION_KEY:
        return "location"
    if key.startswith(f"{NAMESPACE}:"):
        return key[len(NAMESPACE) + 1:]
    return None if ":" in key else key


def namespace_problem(key: str, project: str) -> str | None:
    """Why a `namespace:name` config key is refused: its namespace is a near miss of `amlkit` (a typo
    such as `amlkt`, `AMLKIT` or `aml-kit`), else None. Providers, the project's own namespace and
    other packages (`azure-native`, `amlkit-platform`) are left alone. Both the offline review and the
    program under `pulumi preview` ask this, so a typo fails both the same way."""
    namespace = key.split(":", 1)[0] if ":" in key else None
    if namespace is None or namespace in (NAMESPACE, project) or not near_miss(namespace, NAMESPACE):
        return None
    return (f"unknown config namespace {namespace!r}; did you mean {NAMESPACE!r}? "
            f"(only {NAMESPACE}: keys configure amlkit)")


def near_miss(word: str, target: str) -> bool:
    """A typo of `target`: at most two single-character edits (or a case change) away, but not equal."""
    return word != target and (word.lower() == target or edit_distance(word.lower(), target) <= 2)


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insertions, deletions, substitutions)."""
    previous = list(range(len(b) + 1))
    for i, char in enumerate(a, 1):
        current = [i]
        for j, other in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char != other)))
        previous = current
    return previous[-1]


def environment_config(items: Iterable[tuple[Any, Any]], file: str) -> dict[str, Any]:
    """The `amlkit:` namespace (prefix stripped) plus `location`, from (config key, value) pairs."""
    from amlkit.schema import TOP_LEVEL_KEYS, EnvironmentSpec, Secret, credential_problem, is_credential_key

    raw: dict[str, Any] = {}
    for key, value in items:
        if not isinstance(key, str):
            raise ConfigError(file, printable_key(str(key)), "config keys must be text")
        name = _namespace_key(key)
        if name is None:
            continue
        path = printable_key(f"{NAMESPACE}:{name}")
        if key != LOCATION_KEY and name not in TOP_LEVEL_KEYS:
            if is_credential_key(name) and not isinstance(value, (Mapping, list, Secret)) and not _is_secure(value):
                raise ConfigError(file, path, credential_problem(path))
            raise ConfigError(file, path, f"unknown key; allowed keys: {EnvironmentSpec.allowed_keys_text()}")
        if name in raw:
            raise ConfigError(file, printable_key(key),
                              f"given twice (as '{printable_key(name)}' and '{path}'); allowed: once")
        raw[name] = value
    return raw


def stack_name(path: Path) -> str:
    """`Pulumi.prod.yaml` -> `prod`."""
    match = _STACK_FILE.fullmatch(path.name)
    if not match:
        raise ConfigError(str(path), "", "a stack file must be named Pulumi.<stack>.yaml")
    return match["stack"]


def _default_environment(raw: dict[str, Any], stack: str) -> None:
    if "environment" not in raw:
        raw["environment"] = stack.rsplit("/", 1)[-1].lower()


def load_stack_file(path: str | Path) -> EnvironmentSpec:
    """Load and validate `Pulumi.<stack>.yaml`. Raises ConfigError (file, key path, problem)."""
    path = Path(path)
    file = str(path)
    stack = stack_name(path)
    document = read_yaml(path)
    if not isinstance(document, Mapping):
        raise ConfigError(file, "", f"the document is {_kind(document)}; allowed: a mapping with a config: key")
    config = document.get("config") or {}
    if not isinstance(config, Mapping):
        raise ConfigError(file, "config", f"got {_kind(config)}; allowed: a mapping of config keys")
    raw = environment_config(config.items(), file)
    _default_environment(raw, stack)
    from amlkit.schema import validate_environment

    return validate_environment(mark_secrets(raw), file)


def _kind(value: Any) -> str:
    if value is None:
        return "empty"
    if isinstance(value, list):
        return "a list"
    return f"a {type(value).__name__} value" if not isinstance(value, str) else "text"


# --- the running program ---------------------------------------------------------------------------


def _all_config_keys() -> list[str]:
    from pulumi.runtime import config as runtime_config

    return sorted(set(runtime_config.CONFIG.get()) | set(runtime_config.get_config_env()))


def _decode(name: str, value: Any, key: str, file: str, secret: bool) -> Any:
    """Engine config values are strings; objects, lists and booleans arrive JSON-encoded."""
    if name in ("environment", "location") or not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        shown = "a secret value" if secret else repr(value if len(value) <= 80 else value[:77] + "...")
        raise ConfigError(file, key, f"got {shown}; allowed: a YAML mapping, list or boolean") from None


def spec_from_pulumi_config() -> EnvironmentSpec:
    """Load and validate the running program's `amlkit:` config. Raises ConfigError."""
    import pulumi
    from pulumi.runtime import config as runtime_config

    stack = pulumi.get_stack()
    file = f"Pulumi.{stack}.yaml"
    pairs: list[tuple[str, Any]] = []
    secret_keys: list[str] = []
    for key in _all_config_keys():
        problem = namespace_problem(key, pulumi.get_project())
        if problem:
            raise ConfigError(file, key, problem)
        name = _namespace_key(key)
        if name is None:
            continue
        secret = runtime_config.is_config_secret(key)
        value = _decode(name, runtime_config.get_config(key), key, file, secret)
        if secret:
            secret_keys.append(name)
        pairs.append((key, mark_secrets({name: value}, decrypted=secret)[name]))
    raw = environment_config(pairs, file)
    _default_environment(raw, stack)
    from amlkit.schema import validate_environment

    return validate_environment(raw, file, secret_keys)
