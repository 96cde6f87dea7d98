"""amlkit.errors: exit codes, and how a bad value is shown in a message."""

from __future__ import annotations

import pulumi
import pytest

from amlkit.errors import AmlkitError, ConfigError, ReviewFailed, UsageError, show_value


class Opaque:
    pass


class Named:
    _name = "mlw"


SHOWN = [
    ("four", "'four'"),
    (4.5, "4.5"),
    (["a", 1], "['a', 1]"),
    ("x" * 300, repr("x" * 300)[:237] + "..."),
    (pulumi.Output.from_input("secret"), "an Output (known only after deployment)"),
    (Opaque(), "an Opaque"),
    (Named(), "a Named 'mlw'"),
]


@pytest.mark.parametrize(("value", "shown"), SHOWN, ids=["str", "float", "list", "long", "output", "object", "named"])
def test_show_value_never_shows_an_object_repr(value, shown):
    assert show_value(value) == shown
    assert " object at 0x" not in show_value(value)


@pytest.mark.parametrize(("error", "code"), [
    (AmlkitError("x"), 3), (ReviewFailed("x"), 3), (ConfigError(None, "k", "p"), 2), (UsageError("x"), 2)])
def test_exit_codes(error, code):
    assert error.exit_code == code
