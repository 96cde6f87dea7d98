"""The one guard every amlkit command runs under: a failure is one message on stderr and its exit code.

`guarded(verbose)` turns an amlkit error into `amlkit: error: <message>` and the error's exit code (2 bad
input, 3 amlkit itself failed), Ctrl-C (or a prompt's Abort) into exit 130, and any other exception into
an internal error, exit 3: fail closed, never a traceback for an expected failure. `verbose` is the
command's `--verbose`: True prints the traceback too; False adds, to an exit 3, how to see it; None
(the command has no `--verbose`) does neither. Typer's own exits pass through.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import typer

from amlkit.errors import AmlkitError

__all__ = ["fail", "guarded"]


@contextmanager
def guarded(verbose: bool | None = None) -> Iterator[None]:
    """Every failure inside becomes one message on stderr and its exit code (see the module doc)."""
    try:
        yield
    except (typer.Exit, typer.TyperException):
        raise
    except (KeyboardInterrupt, typer.Abort):  # Ctrl-C (a prompt turns it into Abort): 130, as everywhere
        fail("interrupted", 130, verbose)
    except AmlkitError as error:
        fail(str(error), error.exit_code, verbose)
    except Exception as error:  # fail closed: an unexpected error is never a clean review or a success
        detail = str(error).splitlines()[0] if str(error) else ""
        fail(f"internal error: {type(error).__name__}{': ' + detail if detail else ''}", 3, verbose)


def fail(message: str, code: int, verbose: bool | None = None) -> NoReturn:
    """`amlkit: error: <message>` on stderr, then exit `code` (see `guarded` for `verbose`)."""
    if verbose:
        traceback.print_exc(file=sys.stderr)
    typer.echo(f"amlkit: error: {message}", err=True)
    if verbose is False and code == 3:
        typer.echo("amlkit: run again with --verbose to see the traceback", err=True)
    raise typer.Exit(code)
