"""A Pulumi Python project on disk: `Pulumi.yaml`, its stack files and their config, as the CLI reads them.

The one reader of `Pulumi.yaml`: the review, `amlkit init` and the pre-commit stack mapping all use
`find_project_file` and `load_project`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from amlkit.errors import ConfigError, UsageError
from amlkit.namespace import namespace_problem
from amlkit.yamlfile import read_yaml

__all__ = [
    "PROJECT_FILES", "Project", "SECRET_PLACEHOLDER", "StackConfig", "check_main", "find_project_file",
    "ignored_stack_files", "inside", "list_stacks", "load_project", "load_stack_config", "project_root",
    "refuse_outside_link", "refuse_state_link", "unknown_stack",
]

# What a `secure:` value becomes: the review never decrypts, the program sees this placeholder.
SECRET_PLACEHOLDER = "amlkit-review-secret-placeholder"
PROJECT_FILES = ("Pulumi.yaml", "Pulumi.yml")
"""The names the Pulumi CLI accepts for a project file, in the order it looks for them."""


@dataclass(frozen=True)
class Project:
    """The parts of `Pulumi.yaml` the review needs."""

    dir: Path
    name: str
    main: Path  # the program's directory or file
    stack_config_dir: Path

    def stack_file(self, stack: str) -> Path:
        return self.stack_config_dir / f"Pulumi.{stack}.yaml"

    def relative(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.dir))
        except ValueError:
            return str(path)


@dataclass(frozen=True)
class StackConfig:
    """A stack's config as the CLI hands it to the program: `ns:key` -> string, objects JSON-encoded."""

    stack: str
    file: Path
    values: dict[str, str] = field(default_factory=dict)
    secret_keys: tuple[str, ...] = ()

    def environment(self) -> str:
        """`amlkit:environment` when the stack sets it, else the stack name."""
        value = self.values.get("amlkit:environment")
        return value if value else self.stack


def load_project(project_dir: Path) -> Project:
    """Read `Pulumi.yaml`; a missing or malformed file is a ConfigError naming file and key."""
    project_dir = Path(project_dir).resolve()
    if not project_dir.is_dir():
        raise UsageError(f"{project_dir}: not a directory")
    path = find_project_file(project_dir)
    if path is None:
        raise UsageError(f"{project_dir}: no Pulumi.yaml (not a Pulumi project directory)")
    data = _read_yaml(path)
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise ConfigError(str(path), "name", "required: the project name (a non-empty string)", name)
    _python_only(path, data.get("runtime"))
    main = _optional_str(path, data, "main", "a path")
    config_dir = _optional_str(path, data, "stackConfigDir", "a directory path")
    return Project(
        dir=project_dir,
        name=name,
        main=(project_dir / main) if main else project_dir,
        stack_config_dir=(project_dir / config_dir) if config_dir else project_dir,
    )


def check_main(project: Project) -> None:
    """The program `main:` names must exist: a missing one is a config error of Pulumi.yaml (exit 2), not a
    program failure."""
    if not project.main.exists():
        file = find_project_file(project.dir)
        shown = project.relative(project.main)
        raise ConfigError(str(file), "main", f"{shown!r} does not exist; allowed: the program's directory or "
                          "file, relative to Pulumi.yaml")


def refuse_outside_link(path: Path, roots: Iterable[Path]) -> None:
    """Refuse a file inside the project whose real path is outside every root (a symbolic link leaving the
    project): a committed link must never make amlkit read another file, nor quote it in an error. The error
    names the link and its target's path only."""
    real = Path(os.path.realpath(path))
    bounds = [Path(os.path.realpath(root)) for root in roots]
    if any(real == bound or bound in real.parents for bound in bounds):
        return
    raise ConfigError(str(path), "", f"a symbolic link to {real}, outside the project; allowed: a file inside "
                      f"the project ({bounds[0]})")


def refuse_state_link(path: Path, root: Path) -> None:
    """A state file (`check --state`, `analyze --file`) written as a path inside `root` (the project, or the
    working directory without one) must really be there: a committed link naming another file is refused, as
    for stack files. A path written outside `root` is the user's explicit choice, read as given."""
    if inside(path, root):
        refuse_outside_link(path, [root])


def inside(path: Path, root: Path) -> bool:
    """Whether `path`, as written (links not followed), lies under `root`."""
    absolute, base = Path(os.path.abspath(path)), Path(os.path.abspath(root))
    return absolute == base or base in absolute.parents


def find_project_file(directory: Path) -> Path | None:
    """The directory's `Pulumi.yaml` (or `Pulumi.yml`); None when it has neither."""
    return next((directory / name for name in PROJECT_FILES if (directory / name).is_file()), None)


def project_root(start: Path) -> Path:
    """The project a command run in `start` works on, found as the Pulumi CLI finds it: the nearest of `start`
    and its parents with a `Pulumi.yaml` (`start` as given when it has one, or when none has one: then the error
    names it)."""
    if find_project_file(start) is not None:
        return start
    return next((directory for directory in Path(start).resolve().parents if find_project_file(directory)), start)


def _python_only(path: Path, runtime: Any) -> None:
    """The offline review runs Python programs; any other runtime (`nodejs`, `yaml`, or a `runtime:` mapping
    naming another language) is a usage error that says how the pack reviews it: with the Pulumi CLI."""
    name = runtime.get("name") if isinstance(runtime, dict) else runtime
    if name is None or name == "python":
        return
    from amlkit.review.packdir import default_pack_dir

    raise UsageError(f"{path}: runtime {name!r}: amlkit reviews Python programs offline only; review this program "
                     f"with the Pulumi CLI: pulumi preview --policy-pack {default_pack_dir()}")


def list_stacks(project_dir: Path) -> list[str]:
    """Every stack with a `Pulumi.<stack>.yaml` in the project's stack config dir, sorted."""
    project = load_project(project_dir)
    if not project.stack_config_dir.is_dir():
        return []
    names = [p.name[len("Pulumi.") : -len(".yaml")] for p in project.stack_config_dir.glob("Pulumi.*.yaml")]
    return sorted(name for name in names if name)


def ignored_stack_files(project: Project) -> list[Path]:
    """`Pulumi.<stack>.yml` files (and other spellings) in the stack config dir: neither Pulumi nor amlkit
    reads them as stack files, which a user who named one so should be told."""
    if not project.stack_config_dir.is_dir():
        return []
    return sorted(path for path in project.stack_config_dir.glob("Pulumi.*")
                  if path.is_file() and path.suffix.lower() in (".yml", ".yaml") and path.suffix != ".yaml")


def load_stack_config(project: Project, stack: str) -> StackConfig:
    """The stack's config as the CLI passes it: keys namespaced, objects JSON, `secure:` kept secret."""
    path = project.stack_file(stack)
    if not path.exists() and not path.is_symlink():
        raise UsageError(unknown_stack(project, stack))
    refuse_outside_link(path, (project.dir, project.stack_config_dir))
    data = _read_yaml(path, allow_empty=True)
    config = data.get("config") or {}
    if not isinstance(config, dict):
        raise ConfigError(str(path), "config", "must be a mapping of config keys to values", config)
    values: dict[str, str] = {}
    secret_keys: list[str] = []
    for key, value in config.items():
        full_key = _namespaced(path, project.name, key)
        text, secret = _config_value(path, f"config.{key}", value)
        values[full_key] = text
        if secret:
            secret_keys.append(full_key)
    return StackConfig(stack, path, values, tuple(secret_keys))


def unknown_stack(project: Project, stack: str) -> str:
    """`unknown stack 'prdo': stacks/Pulumi.prdo.yaml does not exist; did you mean 'prod'? (stacks here: dev, prod)`."""
    from amlkit.suggest import did_you_mean

    known = list_stacks(project.dir)
    where = project.relative(project.stack_config_dir) if project.stack_config_dir != project.dir else "."
    there = f" (stacks here: {', '.join(known)})" if known else f" (no Pulumi.<stack>.yaml in {where})"
    return (f"unknown stack {stack!r}: {project.relative(project.stack_file(stack))} does not exist"
            f"{did_you_mean(stack, known)}{there}")


def _namespaced(path: Path, project: str, key: Any) -> str:
    if not isinstance(key, str) or not key or key.startswith(":") or key.endswith(":"):
        raise ConfigError(str(path), f"config.{key}", "config keys are `name` or `namespace:name`", key)
    if ":" not in key:
        return f"{project}:{key}"
    problem = namespace_problem(key, project)
    if problem:
        raise ConfigError(str(path), f"config.{key}", problem)
    return key


def _config_value(path: Path, key_path: str, value: Any) -> tuple[str, bool]:
    """(string the program sees, is secret). A `secure:` value becomes a placeholder, never decrypted."""
    if _is_secure(value):
        return SECRET_PLACEHOLDER, True
    if isinstance(value, (dict, list)):
        if _contains_secure(value):
            return json.dumps(_replace_secure(value)), True
        return json.dumps(value), False
    if isinstance(value, bool):
        return ("true" if value else "false"), False
    if value is None:
        return "", False
    if isinstance(value, (str, int, float)):
        return str(value), False
    raise ConfigError(str(path), key_path, f"unsupported value of type {type(value).__name__}", value)


def _is_secure(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"secure"}


def _contains_secure(value: Any) -> bool:
    if _is_secure(value):
        return True
    if isinstance(value, dict):
        return any(_contains_secure(v) for v in value.values())
    if isinstance(value, list):
        return any(_contains_secure(v) for v in value)
    return False


def _replace_secure(value: Any) -> Any:
    if _is_secure(value):
        return SECRET_PLACEHOLDER
    if isinstance(value, dict):
        return {k: _replace_secure(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_secure(v) for v in value]
    return value


def _read_yaml(path: Path, allow_empty: bool = False) -> dict[str, Any]:
    """A project or stack file through amlkit's one safe reader (size cap, UTF-8, duplicate keys,
    alias bombs, nesting depth): every problem is a ConfigError naming the file."""
    data = read_yaml(path)
    if data is None and allow_empty:
        return {}
    if not isinstance(data, dict):  # the document itself is never quoted: it may be any file
        kinds = {list: "a list", str: "text", bool: "a boolean", int: "a number", float: "a number"}
        kind = "empty" if data is None else kinds.get(type(data), f"a {type(data).__name__} value")
        raise ConfigError(str(path), "", f"the document is {kind}; allowed: a YAML mapping")
    return data


def _optional_str(path: Path, data: dict[str, Any], key: str, what: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        from amlkit.schema import show  # pydantic loads only for a bad Pulumi.yaml, not for every command

        raise ConfigError(str(path), key, f"got {show(value)}; allowed: {what} relative to Pulumi.yaml", value)
    return value
