"""An exception raised inside an `apply` over a secret never carries the secret out of the program run.

A callback applied to a secret Output sees the plaintext, and its exception often quotes it (`int('s3cr3t')`:
`invalid literal for int() with base 10: 's3cr3t'`). The value may never reach a registration, so the review
could not know to redact it. `scrub_apply_errors` wraps `Output.apply` in the program's child: when the
callback of a secret Output raises, the exception is replaced, before anything formats it, by a
`SecretApplyError` whose message is the original one with every whole-token occurrence of the callback's
argument (its strings and numbers, at any depth) replaced by `[secret]`. The traceback is kept (its frames
show code, not values); the original exception is not chained, so no output shows its message.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["SecretApplyError", "scrub_apply_errors"]


class SecretApplyError(Exception):
    """An exception raised by a callback applied to a secret, its message scrubbed of the secret."""


def scrub_apply_errors() -> None:
    """Install the `Output.apply` wrapper (once per process; see the module doc)."""
    from pulumi.output import Output

    original = Output.apply
    if getattr(original, "_amlkit_scrubbed", False):
        return

    def apply(self: Any, func: Callable[[Any], Any], run_with_unknowns: bool = False) -> Any:
        def guarded(value: Any) -> Any:
            try:
                return func(value)
            except Exception as error:
                if not _is_secret(self):
                    raise
                raise _scrubbed(error, value).with_traceback(error.__traceback__) from None

        return original(self, guarded, run_with_unknowns)

    apply._amlkit_scrubbed = True  # type: ignore[attr-defined]
    apply.__doc__ = original.__doc__
    Output.apply = apply  # type: ignore[method-assign]


def _is_secret(output: Any) -> bool:
    """Whether the Output being applied is secret; True when that cannot be read (fail closed)."""
    try:
        data = output._data
        return not data.done() or bool(data.result().is_secret)
    except Exception:  # noqa: BLE001 - another SDK's internals: treat as secret
        return True


def _scrubbed(error: BaseException, value: Any) -> SecretApplyError:
    from amlkit.review.secrets import Secrets

    message = Secrets(_texts(value)).scrub(str(error))
    return SecretApplyError(f"{type(error).__name__} in an apply over a secret value: {message}")


def _texts(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
        yield str(value)
        if isinstance(value, float) and value.is_integer():
            yield str(int(value))
