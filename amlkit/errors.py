"""The errors amlkit raises on purpose. Each carries the exit code the CLI ends with."""

from __future__ import annotations

from typing import Any


class AmlkitError(Exception):
    """Base class: a failure amlkit explains itself, never shown as a traceback."""

    exit_code = 1


class ConfigError(AmlkitError):
    """Bad input: names the file, the key path, the bad value and what is allowed."""

    exit_code = 2

    def __init__(self, file: str | None, key_path: str, problem: str, value: Any = None) -> None:
        self.file = file
        self.key_path = key_path
        self.problem = problem
        self.value = value
        where = f"{file}: " if file else ""
        key = f"{key_path}: " if key_path else ""
        super().__init__(f"{where}{key}{problem}")


class UsageError(AmlkitError):
    """The command line itself is wrong (unknown stack, missing directory, bad flag value)."""

    exit_code = 2


class UnknownVmSize(AmlkitError, ValueError):
    """A VM size name amlkit cannot classify. It never guesses a family."""

    exit_code = 2


class ReviewFailed(AmlkitError):
    """The program or the policy pack failed: the review is not clean, it did not happen."""

    exit_code = 3
