"""ISO-8601 durations as Azure ML uses them (`PT120S`, `PT2M30S`, `PT1H`, `P1D`, `P1DT2H`, `PT0.5S`).

Only designators with a fixed length are accepted: weeks, days, hours, minutes and seconds. Years and
months (`P1Y`, `P1M`) have no fixed length in seconds, so they are rejected rather than guessed.
Designators are upper case, every number is non-negative, a fraction (`.` or `,`) is allowed on the
last component only (ISO 8601), and at least one component must be present (`P` and `PT` are not
durations). Rules and the environment schema share this parser.
"""

from __future__ import annotations

import re
from datetime import timedelta

__all__ = [
    "DurationError", "EXAMPLES", "FORMAT", "describe_seconds", "duration_seconds", "is_duration", "parse_duration",
]

_NUMBER = r"\d+(?:[.,]\d+)?"
_DURATION = re.compile(
    rf"^P(?:(?P<years>{_NUMBER})Y)?(?:(?P<months>{_NUMBER})M)?(?:(?P<weeks>{_NUMBER})W)?"
    rf"(?:(?P<days>{_NUMBER})D)?"
    rf"(?:T(?:(?P<hours>{_NUMBER})H)?(?:(?P<minutes>{_NUMBER})M)?(?:(?P<seconds>{_NUMBER})S)?)?$"
)
_UNITS = ("weeks", "days", "hours", "minutes", "seconds")
EXAMPLES = "PT120S, PT2M30S, PT1H, P1D, P1DT2H"
FORMAT = "an ISO-8601 duration in weeks, days, hours, minutes or seconds (e.g. PT120S, PT15M, P1D)"


class DurationError(ValueError):
    """A string is not an ISO-8601 duration this project can turn into a fixed number of seconds."""


def parse_duration(text: str) -> timedelta:
    """`PT2M30S` -> timedelta(seconds=150). Raises `DurationError` naming the value and the format."""
    if not isinstance(text, str):
        raise DurationError(f"{text!r} is not an ISO-8601 duration (a string such as {EXAMPLES})")
    match = _DURATION.match(text)
    if match is None or text.endswith("T") or not any(match.groupdict().values()):
        raise DurationError(f"{text!r} is not an ISO-8601 duration (for example {EXAMPLES})")
    if match["years"] is not None or match["months"] is not None:
        raise DurationError(
            f"{text!r} uses years or months, which have no fixed length; use weeks, days, hours, "
            f"minutes or seconds (for example {EXAMPLES})"
        )
    present = [unit for unit in _UNITS if match[unit] is not None]
    if any(_has_fraction(match[unit]) for unit in present[:-1]):
        raise DurationError(f"{text!r}: only the last component of an ISO-8601 duration may have a fraction")
    return timedelta(**{unit: float(match[unit].replace(",", ".")) for unit in present})


def duration_seconds(text: str) -> float:
    """The duration in seconds (float, so fractional seconds survive)."""
    return parse_duration(text).total_seconds()


def is_duration(text: str) -> bool:
    try:
        parse_duration(text)
    except DurationError:
        return False
    return True


def describe_seconds(seconds: float) -> str:
    """`3600.0` -> `3600 seconds`, `0.5` -> `0.5 seconds`: a readable amount for messages."""
    amount = str(int(seconds)) if float(seconds).is_integer() else f"{seconds:.6f}".rstrip("0")
    return f"{amount} second" + ("" if seconds == 1 else "s")


def _has_fraction(number: str) -> bool:
    return "." in number or "," in number
