"""The errors amlkit raises on purpose. Each carries the exit code the CLI ends with."""

from __future__ import annotations

import json
from typing import Any

# public (docs/embedding.md): what amlkit raises; the helpers below (`cut`, `show_value`...) are the package's own
__all__ = [
    "AmlkitError", "ComponentArgError", "ConfigError", "CouldNotFinish", "ReviewFailed", "UnknownVmSize", "UsageError",
]

CUT = 80
"""The most characters of a bad value an error quotes (its message and its `error_detail`)."""


class AmlkitError(Exception):
    """Base class: a failure amlkit explains itself, never shown as a traceback. A subclass that does not
    say otherwise is amlkit's own failure: exit 3 (exit 1 means mandatory violations, never an error)."""

    exit_code = 3


def show_value(value: Any, limit: int = CUT) -> str:
    """A bad value for a message: its repr when that is data (`'four'`, `4.5`, `['a']`, elided past
    `limit`), else its type and what little is known (`an Output (known only after deployment)`, `a
    Workspace 'mlw'`): never an object repr like `<pulumi.output.Output object at 0x7f...>`."""
    kind = type(value)
    if kind.__name__ == "Output" and kind.__module__.startswith("pulumi"):
        return "an Output (known only after deployment)"
    article = "an" if kind.__name__[:1].lower() in "aeiou" else "a"
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # an int past Python's 4,300-digit limit, or nesting too deep
        return f"{article} {kind.__name__} value too large to show"
    if text.startswith("<") and text.endswith(">"):
        name = getattr(value, "_name", None)  # a Pulumi resource's name
        return f"{article} {kind.__name__}" + (f" {name!r}" if isinstance(name, str) else "")
    return elide(text, limit)


def elide(text: str, limit: int = CUT) -> str:
    """`text` when it has at most `limit` characters, else its start and its end around `...` (`limit` in all):
    an ARM id keeps the subscription and the resource type and name that tell what is wrong."""
    if len(text) <= limit:
        return text
    head = (limit - 3) // 2
    return text[:head] + "..." + text[len(text) - (limit - 3 - head):]


def cut(value: Any) -> Any:
    """A bad value as an error's fields carry it (`error_detail.value`): short data as is, anything whose text
    is longer than CUT characters as `show_value`'s shortened text, so an error never carries a whole document."""
    if value is None or isinstance(value, (bool, float)):
        return value
    if isinstance(value, int):
        return value if value.bit_length() <= 256 else show_value(value)
    if isinstance(value, str):
        return elide(value, CUT)
    try:
        short = len(json.dumps(value)) <= CUT
    except (TypeError, ValueError, RecursionError):
        short = False
    return value if short else show_value(value)


def schema_message(error: Any) -> str:
    """A jsonschema ValidationError's message with the bad value as `show_value` shows it (cut), never a whole
    document."""
    try:
        full = repr(error.instance)
    except (ValueError, RecursionError):
        return f"got {show_value(error.instance)}"
    message: str = error.message
    return message.replace(full, show_value(error.instance)) if full in message else message


class ConfigError(AmlkitError):
    """Bad input: names the file, the key path, the bad value and what is allowed."""

    exit_code = 2

    line: int | None = None
    """1-based line of the bad key or value in `file` (stack files), when known."""
    column: int | None = None
    """1-based column of the bad key or value in `file`, when known."""

    def __init__(self, file: str | None, key_path: str, problem: str, value: Any = None) -> None:
        self.file = file
        self.key_path = key_path
        self.problem = problem
        self.value = value
        super().__init__(self._text())

    def _text(self) -> str:
        """`file:line:column: key path: problem` (the position when known, as compilers and editors write it)."""
        position = f":{self.line}:{self.column}" if self.file and self.line else ""
        where = f"{self.file}{position}: " if self.file else ""
        key = f"{self.key_path}: " if self.key_path else ""
        return f"{where}{key}{self.problem}"

    def at(self, file: str, line: int, column: int) -> None:
        """Place the error at `file:line:column` (where the stack file says the bad key or value)."""
        self.file, self.line, self.column = file, line, column
        self.args = (self._text(), *self.args[1:])


class ComponentArgError(ConfigError):
    """A component argument is wrong: names the component, the argument (key path), the bad value and
    what is allowed; an unknown key names the closest allowed key.

    `component` is the component's class and Pulumi name (`ComputeCluster "cpu"`); `arg` the argument's
    key path (`ssh_settings.admin_username`); `key_path` is both (`ComputeCluster "cpu": min_node`), so
    code that shows a ConfigError's file, key path and problem names the component too. `allowed` says
    in words what the argument takes (for an unknown key: every allowed key); `closest` is the nearest
    allowed key of an unknown one, or None.
    """

    def __init__(
        self, component: str, key_path: str, problem: str, value: Any = None, *,
        allowed: str | None = None, closest: str | None = None,
    ) -> None:
        self.component = component
        self.arg = key_path
        self.allowed = allowed
        self.closest = closest
        super().__init__(None, f"{component}: {key_path}", problem, value)


class UsageError(AmlkitError):
    """The command line itself is wrong (unknown stack, missing directory, bad flag value)."""

    exit_code = 2


class UnknownVmSize(AmlkitError, ValueError):
    """A VM size name amlkit cannot classify. It never guesses a family."""

    exit_code = 2


class CouldNotFinish(AmlkitError):
    """amlkit itself could not finish (e.g. writing the report failed: disk full): exit 3, what was there stays."""

    exit_code = 3


class ReviewFailed(AmlkitError):
    """The program or the policy pack failed: the review is not clean, it did not happen."""

    exit_code = 3
