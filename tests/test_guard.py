"""amlkit.guard: every command's failures become one message on stderr and an exit code (table-driven)."""

from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

from amlkit.errors import ConfigError, ReviewFailed, UsageError
from amlkit.guard import guarded

HINT = "amlkit: run again with --verbose to see the traceback\n"

# (raised, exit code, stderr without --verbose); verbose=None is a command without --verbose (no hint)
CASES = [
    pytest.param(UsageError("give --state or --base, not both"), 2, "amlkit: error: give --state or --base, not both\n",
                 id="usage-error"),
    pytest.param(ConfigError("Pulumi.dev.yaml", "config.amlkit:clusters", "must be a list", 3), 2,
                 "amlkit: error: Pulumi.dev.yaml: config.amlkit:clusters: must be a list\n", id="config-error"),
    pytest.param(ReviewFailed("policy pack p: did not answer"), 3, "amlkit: error: policy pack p: did not answer\n",
                 id="amlkit-failure"),
    pytest.param(KeyError("urn"), 3, "amlkit: error: internal error: KeyError: 'urn'\n", id="unexpected"),
    pytest.param(KeyboardInterrupt(), 130, "amlkit: error: interrupted\n", id="ctrl-c"),
    pytest.param(typer.Abort(), 130, "amlkit: error: interrupted\n", id="prompt-abort"),
]


def _run(error: BaseException, verbose: bool | None) -> tuple[int, str]:
    app = typer.Typer()

    @app.command()
    def command() -> None:
        with guarded(verbose):
            raise error

    result = CliRunner().invoke(app, [])
    return result.exit_code, result.stderr


@pytest.mark.parametrize(("error", "code", "message"), CASES)
def test_a_command_without_verbose_prints_one_line(error: BaseException, code: int, message: str) -> None:
    assert _run(error, None) == (code, message)


@pytest.mark.parametrize(("error", "code", "message"), CASES)
def test_without_verbose_an_amlkit_failure_says_how_to_see_the_traceback(error: BaseException, code: int,
                                                                          message: str) -> None:
    assert _run(error, False) == (code, message + (HINT if code == 3 else ""))


@pytest.mark.parametrize(("error", "code", "message"), CASES)
def test_verbose_prints_the_traceback_first(error: BaseException, code: int, message: str) -> None:
    exit_code, stderr = _run(error, True)
    assert (exit_code, stderr.startswith("Traceback (most recent call last):"), stderr.endswith(message)) == (
        code, True, True)


@pytest.mark.parametrize("verbose", [None, False, True])
@pytest.mark.parametrize("exit_", [typer.Exit(0), typer.Exit(1), typer.Exit(2)], ids=["exit-0", "exit-1", "exit-2"])
def test_typer_exits_pass_through(exit_: typer.Exit, verbose: bool | None) -> None:
    assert _run(exit_, verbose) == (exit_.exit_code, "")
