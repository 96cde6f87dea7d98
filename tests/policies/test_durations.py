import re
from datetime import timedelta

import pytest

from amlkit.policies.durations import (
    DurationError,
    describe_seconds,
    duration_seconds,
    is_duration,
    parse_duration,
)

VALID = [
    ("PT120S", 120.0),
    ("PT2M30S", 150.0),
    ("PT1H", 3600.0),
    ("P1D", 86400.0),
    ("P1DT2H", 93600.0),
    ("PT0.5S", 0.5),
    ("PT1,5S", 1.5),
    ("PT1M0.25S", 60.25),
    ("PT1.5H", 5400.0),
    ("P2W", 1209600.0),
    ("P1W1DT1H1M1S", 694861.0),
    ("PT0S", 0.0),
    ("PT15M", 900.0),
    ("P3D", 259200.0),
    ("PT90M", 5400.0),
]


@pytest.mark.parametrize(("text", "seconds"), VALID, ids=[v[0] for v in VALID])
def test_valid_durations(text, seconds):
    assert duration_seconds(text) == seconds
    assert parse_duration(text) == timedelta(seconds=seconds)
    assert is_duration(text)


INVALID = [
    ("empty", ""),
    ("bare-P", "P"),
    ("bare-PT", "PT"),
    ("trailing-T", "P1DT"),
    ("no-P", "T120S"),
    ("plain-number", "120"),
    ("lower-case", "pt120s"),
    ("negative", "-PT120S"),
    ("minutes-before-T", "P2M30S"),
    ("wrong-order", "PT30S2M"),
    ("spaces", "PT 120S"),
    ("unit-missing", "PT120"),
    ("fraction-not-last", "PT1.5H30M"),
    ("seconds-words", "120 seconds"),
]


@pytest.mark.parametrize("text", [i[1] for i in INVALID], ids=[i[0] for i in INVALID])
def test_invalid_durations_raise_naming_the_value(text):
    with pytest.raises(DurationError, match=re.escape(repr(text))):
        parse_duration(text)
    assert not is_duration(text)


def test_invalid_message_shows_examples():
    with pytest.raises(DurationError) as error:
        parse_duration("2 minutes")
    assert str(error.value) == (
        "'2 minutes' is not an ISO-8601 duration (for example PT120S, PT2M30S, PT1H, P1D, P1DT2H)"
    )


@pytest.mark.parametrize("text", ["P1Y", "P1M", "P1Y2M3DT4H"])
def test_years_and_months_are_rejected_not_guessed(text):
    with pytest.raises(DurationError, match="years or months, which have no fixed length"):
        parse_duration(text)


def test_fraction_only_on_last_component_message():
    with pytest.raises(DurationError) as error:
        parse_duration("PT1.5H30M")
    assert str(error.value) == "'PT1.5H30M': only the last component of an ISO-8601 duration may have a fraction"


@pytest.mark.parametrize("value", [None, 120, 120.0, ["PT1H"]])
def test_non_strings_are_rejected(value):
    with pytest.raises(DurationError, match="is not an ISO-8601 duration"):
        parse_duration(value)


@pytest.mark.parametrize(("seconds", "text"), [(3600.0, "3600 seconds"), (1.0, "1 second"),
                                               (0.5, "0.5 seconds"), (1e6, "1000000 seconds")])
def test_describe_seconds(seconds, text):
    assert describe_seconds(seconds) == text
