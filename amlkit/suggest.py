""""Did you mean": the closest allowed value of a misspelt one, for every error that names what is allowed.

One helper for stack files, components, the CLI and the policy config, so a typo gets the same hint wherever it
is made. Matching is case-insensitive and ignores spaces, `-` and `_` (`West Europe` -> `westeurope`,
`standard_d4ds_V5` -> `Standard_D4ds_v5`); the suggestion is always spelt as allowed.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CUTOFF", "Problem", "VM_SIZE_ALLOWED", "closest", "did_you_mean", "fold", "shown", "size_problem", "unknown_key",
]

CUTOFF = 0.75
"""difflib's similarity ratio a candidate needs (0.75: one or two edits in a word of eight or more letters)."""


def fold(text: str) -> str:
    """How values compare for suggestions: casefolded, without spaces, `-` and `_`."""
    return "".join(char for char in text.casefold() if char not in " -_")


def closest(value: Any, allowed: Iterable[str], cutoff: float = CUTOFF) -> str | None:
    """The allowed value nearest to `value` (as allowed spells it), or None when none is near or `value` is
    not text. An allowed value that differs only in case, spaces, `-` or `_` always wins."""
    if not isinstance(value, str) or not value:
        return None
    spelled: dict[str, str] = {}
    for candidate in allowed:
        spelled.setdefault(fold(candidate), candidate)
    key = fold(value)
    if key in spelled:
        return spelled[key]
    found = difflib.get_close_matches(key, list(spelled), n=1, cutoff=cutoff)
    return spelled[found[0]] if found else None


def did_you_mean(value: Any, allowed: Iterable[str], cutoff: float = CUTOFF) -> str:
    """`; did you mean 'x'?` for the closest allowed value, else empty (to append to a problem)."""
    match = closest(value, allowed, cutoff)
    return f"; did you mean {match!r}?" if match is not None and match != value else ""


def unknown_key(key: Any, allowed: Iterable[str], prefix: str = "") -> str:
    """`unknown key 'min_instance' (did you mean 'min_instances'?)`: the start of every unknown-key problem.
    `prefix` (`amlkit:`) is shown before the key and the suggestion, not compared."""
    match = closest(str(key), allowed)
    hint = f" (did you mean {prefix + match!r}?)" if match is not None and match != key else ""
    return f"unknown key {shown(prefix + str(key))}{hint}"


VM_SIZE_ALLOWED = "a known Azure VM size name, e.g. Standard_D4ds_v5"


@dataclass(frozen=True)
class Problem:
    """A refused value: what is allowed and the closest allowed value as a hint (`; did you mean 'x'?` or '')."""

    got: str
    allowed: str
    hint: str

    @property
    def text(self) -> str:
        """`got 'x'; allowed: ...; did you mean 'y'?`: the same words in stack files and components."""
        return f"got {self.got}; allowed: {self.allowed}{self.hint}"


def size_problem(value: Any) -> Problem | None:
    """Why `value` is not a VM size of the catalogue (`amlkit.vmsizes`), with the closest size, or None."""
    from amlkit.errors import UnknownVmSize
    from amlkit.vmsizes import all_sizes, parse_vm_size

    if isinstance(value, str):
        try:
            parse_vm_size(value)
            return None
        except UnknownVmSize:
            pass
    names = {size.name.removeprefix("Standard_"): size.name for size in all_sizes()}
    match = closest(value.removeprefix("Standard_") if isinstance(value, str) else value, names)
    hint = f"; did you mean {names[match]!r}?" if match is not None and names[match] != value else ""
    return Problem(shown(value), VM_SIZE_ALLOWED, hint)


def shown(value: Any) -> str:
    """A refused value as messages quote it: text as its repr (cut to 80 characters), else its kind."""
    if isinstance(value, str):
        return repr(value if len(value) <= 80 else value[:77] + "...")
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    return f"a {type(value).__name__} value"
