"""Secrets in a review: redacted from recorded inputs, scrubbed from every message amlkit produces.

Also the one home of the engine's wire sentinels (pulumi.runtime.rpc's): a secret is
`{SECRET_SIG_KEY: SECRET_SIG, "value": ...}`, a value unknown at preview is the string UNKNOWN; reports
show them as REDACTED and UNKNOWN_TEXT.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = ["REDACTED", "SECRET_SIG", "SECRET_SIG_KEY", "UNKNOWN", "UNKNOWN_TEXT", "Secrets", "is_secret"]

SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d"  # pulumi.runtime.rpc._special_sig_key
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"  # pulumi.runtime.rpc._special_secret_sig
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # the engine's "unknown during preview" sentinel
REDACTED = "[secret]"
_WORD = r"\w"  # what continues a token (so does a dot between word characters): the `3` inside `c3`, `2023-08-31`
# or `3.11.7` is not a secret `3`; a secret glued to other text by a hyphen (`x-hunter2`) is still scrubbed
UNKNOWN_TEXT = "[unknown]"


def is_secret(value: Any) -> bool:
    return isinstance(value, dict) and value.get(SECRET_SIG_KEY) == SECRET_SIG


class Secrets:
    """The plaintexts known to be secret in one stack."""

    def __init__(self, plaintexts: Iterable[str] = ()) -> None:
        # longest first, so a secret containing another is scrubbed whole
        self.plaintexts = sorted({p for p in plaintexts if p}, key=len, reverse=True)
        alternatives = "|".join(re.escape(p) for p in self.plaintexts)
        self._pattern = re.compile(f"(?<![{_WORD}])(?<!\\w\\.)(?:{alternatives})(?![{_WORD}])(?!\\.\\w)") \
            if alternatives else None

    @classmethod
    def from_inputs(cls, inputs: Iterable[Any], extra: Iterable[str] = ()) -> Secrets:
        found: list[str] = list(extra)
        for value in inputs:
            _collect(value, found, inside=False)
        return cls(found)

    def redact(self, value: Any) -> Any:
        """Secret values become "[secret]", unknowns "[unknown]"; strings holding a secret are scrubbed."""
        if is_secret(value):
            return REDACTED
        if isinstance(value, dict):
            return {key: self.redact(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.redact(item) for item in value]
        if value == UNKNOWN:
            return UNKNOWN_TEXT
        if isinstance(value, str):
            return self.scrub(value)
        return value

    def scrub(self, text: str) -> str:
        """Each whole-token occurrence of a secret in `text` becomes "[secret]": a token is not part of a longer
        name, number or date (`c3`, `2023-08-31` stay intact when a secret is `3`). The safety net for text
        amlkit did not build from values (a program's error, another pack's message)."""
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(REDACTED, text)


def _collect(value: Any, found: list[str], inside: bool) -> None:
    if is_secret(value):
        _collect(value.get("value"), found, inside=True)
    elif isinstance(value, dict):
        for item in value.values():
            _collect(item, found, inside)
    elif isinstance(value, list):
        for item in value:
            _collect(item, found, inside)
    elif inside and value is not None and not isinstance(value, bool):
        text = str(value)
        if text != UNKNOWN:
            found.append(text)
        if isinstance(value, float) and value.is_integer():
            found.append(str(int(value)))
