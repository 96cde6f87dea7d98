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
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from amlkit.errors import ConfigError
from amlkit.namespace import NAMESPACE, namespace_problem
from amlkit.yamlfile import (
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_NODES,
    Position,
    dump_yaml,
    one_line,
    printable_key,
    read_text,
    read_yaml,
    read_yaml_positions,
    yaml_syntax_error,
)

if TYPE_CHECKING:
    from amlkit.schema import EnvironmentSpec

__all__ = [
    "LOCATION_KEY", "MAX_DEPTH", "MAX_FILE_BYTES", "MAX_NODES", "Position", "dump_yaml", "environment_config",
    "key_position", "load_stack_file", "locate_error", "mark_secrets", "one_line", "printable_key", "read_text",
    "read_yaml", "read_yaml_positions", "spec_from_pulumi_config", "stack_name", "yaml_syntax_error",
]

# amlkit.schema (pydantic models) is imported where it is used: reading a YAML file or a stack name
# (the review's parent process) does not need it.

LOCATION_KEY = "azure-native:location"
_STACK_FILE = re.compile(r"Pulumi\.(?P<stack>.+)\.ya?ml")


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


def environment_config(items: Iterable[tuple[Any, Any]], file: str) -> dict[str, Any]:
    """The `amlkit:` namespace (prefix stripped) plus `location`, from (config key, value) pairs."""
    from amlkit.schema import TOP_LEVEL_KEYS, EnvironmentSpec, Secret, credential_problem, is_credential_key
    from amlkit.suggest import unknown_key

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
            problem = unknown_key(name, TOP_LEVEL_KEYS, f"{NAMESPACE}:")
            raise ConfigError(file, path, f"{problem}; allowed keys: {EnvironmentSpec.allowed_keys_text()}")
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
    from amlkit.schema import validate_environment

    try:
        raw = environment_config(config.items(), file)
        _default_environment(raw, stack)
        return validate_environment(mark_secrets(raw), file)
    except ConfigError as error:
        locate_error(error, path)
        raise


_PART = re.compile(r"\.([^.\[]+)|\[(\d+)\]")


def key_position(positions: Mapping[tuple[Any, ...], Position], key_path: str) -> Position | None:
    """Where a message's key path (`amlkit:clusters[0].size`, `config.amlkt:tags`, `azure-native:location`) is
    in a stack file: the bad key, list item or, for a key that is missing, the nearest mapping that holds it."""
    text = key_path.removeprefix("config.")
    head = re.match(r"[^.\[]+", text)
    if head is None:
        return None
    wanted = _namespace_key(head[0]) or head[0]
    keys = [path[1] for path in positions if len(path) == 2 and path[0] == "config"]
    key = next((k for k in keys if isinstance(k, str) and printable_key(k) == head[0]), None) or next(
        (k for k in keys if isinstance(k, str) and _namespace_key(k) == wanted), None)
    if key is None:  # a top-level key that is missing: the `config:` mapping that should hold it, or the document
        return positions.get(("config",), positions.get(()))
    path: tuple[Any, ...] = ("config", key)
    for name, index in _PART.findall(text[head.end():]):
        path = (*path, int(index) if index else name)
    while len(path) > 1 and path not in positions:
        path = path[:-1]
    return positions.get(path)


def locate_error(error: ConfigError, path: Path, shown: str | None = None) -> None:
    """Place a config error about stack file `path` at the line and column of its key path (named `shown` in
    the message, default the path as given). A file that cannot be read leaves the error as it is."""
    if not error.key_path or error.line is not None:
        return
    try:
        positions = read_yaml_positions(path)[1]
    except ConfigError:
        return
    found = key_position(positions, error.key_path)
    if found is not None:
        error.at(shown or str(path), *found)


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
    from amlkit.schema import validate_environment

    try:
        raw = environment_config(pairs, file)
        _default_environment(raw, stack)
        return validate_environment(raw, file, secret_keys)
    except ConfigError as error:
        _locate_in_project(error, stack)
        raise


def _locate_in_project(error: ConfigError, stack: str) -> None:
    """Place the program's config error at its line of the stack file, found as the Pulumi CLI finds the project
    (the nearest `Pulumi.yaml` from the working directory up); the file is then named relative to the working
    directory. Without a readable stack file the error stays as it is."""
    from amlkit.errors import UsageError
    from amlkit.review.project import load_project, project_root

    here = Path.cwd()
    try:
        path = load_project(project_root(here)).stack_file(stack)
    except (ConfigError, UsageError):
        return
    if path.is_file():
        shown = os.path.relpath(path, here) if path.is_relative_to(here) else str(path)
        locate_error(error, path, shown)
