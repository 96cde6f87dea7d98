"""amlkit.errors: exit codes, and how a bad value is shown in a message."""

from __future__ import annotations

import pulumi
import pytest

from amlkit.errors import CUT, AmlkitError, ConfigError, ReviewFailed, UsageError, cut, show_value


class Opaque:
    pass


class Named:
    _name = "mlw"


SHOWN = [
    ("four", "'four'"),
    (4.5, "4.5"),
    (["a", 1], "['a', 1]"),
    ("x" * 300, repr("x" * 300)[:38] + "..." + repr("x" * 300)[-39:]),
    (10 ** 5000, "an int value too large to show"),  # past Python's 4,300-digit conversion limit
    ({"n": [10 ** 5000]}, "a dict value too large to show"),
    (pulumi.Output.from_input("secret"), "an Output (known only after deployment)"),
    (Opaque(), "an Opaque"),
    (Named(), "a Named 'mlw'"),
]


@pytest.mark.parametrize(("value", "shown"), SHOWN, ids=[
    "str", "float", "list", "long", "huge-int", "huge-int-inside", "output", "object", "named"])
def test_show_value_never_shows_an_object_repr(value, shown):
    assert show_value(value) == shown
    assert " object at 0x" not in show_value(value)


@pytest.mark.parametrize(("error", "code"), [
    (AmlkitError("x"), 3), (ReviewFailed("x"), 3), (ConfigError(None, "k", "p"), 2), (UsageError("x"), 2)])
def test_exit_codes(error, code):
    assert error.exit_code == code


CUT_VALUES = [
    ("four", "four"), (4, 4), (4.5, 4.5), (True, True), (None, None), (["a", 1], ["a", 1]), ({"k": "v"}, {"k": "v"}),
    ("x" * 300, "x" * 38 + "..." + "x" * 39),
    (["x" * 100], "['" + "x" * 36 + "..." + "x" * 37 + "']"),
    ({"document": "line\n" * 50}, r"{'document': 'line\nline\nline\nline\n...nline\nline\nline\nline\nline\nline\n'}"),
    (10 ** 5000, "an int value too large to show"),
]


@pytest.mark.parametrize(("value", "carried"), CUT_VALUES, ids=[
    "str", "int", "float", "bool", "none", "short-list", "short-dict", "long-str", "long-list", "document", "huge-int"])
def test_an_error_carries_at_most_cut_characters_of_a_value(value, carried):
    assert cut(value) == carried
    assert len(str(cut(value))) <= CUT
