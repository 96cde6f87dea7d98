"""Cron expressions and start times of compute instance schedules."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, Any

from pydantic import BeforeValidator

from amlkit.schema.types import Allowed, refuse_secret, reject

__all__ = ["Cron", "StartTime", "cron_ok"]

# --- cron ------------------------------------------------------------------------------------------

_CRON_FIELDS: tuple[tuple[str, int, int, dict[str, int]], ...] = (
    ("minute", 0, 59, {}),
    ("hour", 0, 23, {}),
    ("day of month", 1, 31, {}),
    ("month", 1, 12, {m: i + 1 for i, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))}),
    ("day of week", 0, 6, {d: i for i, d in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}),
)


def _small_number(token: str) -> int | None:
    """An ASCII number of at most 4 digits (cron fields never need more), else None."""
    return int(token) if re.fullmatch(r"[0-9]{1,4}", token) else None


def _cron_number(token: str, low: int, high: int, names: Mapping[str, int]) -> bool:
    number = names.get(token.lower(), _small_number(token))
    return number is not None and low <= number <= high


def _cron_part(part: str, low: int, high: int, names: Mapping[str, int]) -> bool:
    base, _, step = part.partition("/")
    step_number = _small_number(step) if step else 1
    if step_number is None or step_number < 1:
        return False
    if base == "*":
        return True
    start, _, end = base.partition("-")
    if not _cron_number(start, low, high, names):
        return False
    return not end or _cron_number(end, low, high, names)


def cron_ok(expression: str) -> bool:
    """True for a five-field cron expression (minute hour day-of-month month day-of-week)."""
    fields = expression.split()
    if len(fields) != 5:
        return False
    return all(
        all(_cron_part(part, low, high, names) for part in field.split(","))
        for field, (_, low, high, names) in zip(fields, _CRON_FIELDS, strict=True)
    )


_CRON_ALLOWED = "a five-field cron expression 'minute hour day-of-month month day-of-week', e.g. '0 19 * * 1-5'"


def _cron(value: Any) -> str:
    refuse_secret(value)
    if not isinstance(value, str) or not cron_ok(value):
        reject(value, _CRON_ALLOWED)
    return value


Cron = Annotated[str, BeforeValidator(_cron), Allowed(_CRON_ALLOWED)]

_START_TIME_ALLOWED = "a local time 'yyyy-MM-ddTHH:mm:ss', e.g. '2026-01-05T08:00:00'"


def _start_time(value: Any) -> str:
    refuse_secret(value)
    try:
        datetime.strptime(value, "%Y-%m-%dT%H:%M:%S")
    except (TypeError, ValueError):
        reject(value, _START_TIME_ALLOWED)
    return str(value)


StartTime = Annotated[str, BeforeValidator(_start_time), Allowed(_START_TIME_ALLOWED)]
