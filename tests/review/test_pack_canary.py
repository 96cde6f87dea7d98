"""amlkit.review.pack.canary: the review fails (exit 3) when pulumi-policy's "cannot tell" no longer reads as
unknown."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from importlib import metadata
from typing import Any

import pytest
from pulumi_policy.policy import _PolicyAnalyzerServicer
from typer.testing import CliRunner

from amlkit import cli
from amlkit.review.pack import canary
from tests.review.helpers import RAW

VERSION = metadata.version("pulumi-policy")
PREFIX = (f"pulumi-policy {VERSION} no longer says \"can't run policy ... during preview\" for a value unknown at "
          "preview (")
SUFFIX = "); amlkit would report unknowns as findings"
RESOURCE_SAID = ("'amlkit-canary-resource' sent \"cannot evaluate policy 'amlkit-canary-resource' from policy pack "
                 "'amlkit-canary@v0.0.1' while previewing: string value at .value can't be known while previewing\"")
STACK_SAID = RESOURCE_SAID.replace("resource", "stack")


def reworded(diagnostic: Any) -> None:
    """What a pulumi-policy release that rewords its message would send."""
    diagnostic.message = diagnostic.message.replace("can't run policy", "cannot evaluate policy").replace(
        "during preview", "while previewing")


def silenced(response: Any) -> None:
    del response.diagnostics[:]


def per_diagnostic(change: Callable[[Any], None]) -> Callable[[Any], None]:
    def apply(response: Any) -> None:
        for diagnostic in response.diagnostics:
            change(diagnostic)
    return apply


@pytest.fixture
def pulumi_policy_says(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str, Callable[[Any], None]], None]]:
    """Change what the installed pulumi-policy's servicer answers to Analyze or AnalyzeStack."""

    def change(method: str, edit: Callable[[Any], None]) -> None:
        original = getattr(_PolicyAnalyzerServicer, method)

        def answer(self: Any, request: Any, context: Any) -> Any:
            response = original(self, request, context)
            edit(response)
            return response

        monkeypatch.setattr(_PolicyAnalyzerServicer, method, answer)

    canary.unknown_canary.cache_clear()
    yield change
    canary.unknown_canary.cache_clear()


CASES = {
    "as verified": ({}, None),
    "Analyze reworded": ({"Analyze": per_diagnostic(reworded)}, PREFIX + RESOURCE_SAID + SUFFIX),
    "AnalyzeStack reworded": ({"AnalyzeStack": per_diagnostic(reworded)}, PREFIX + STACK_SAID + SUFFIX),
    "both reworded": ({"Analyze": per_diagnostic(reworded), "AnalyzeStack": per_diagnostic(reworded)},
                      PREFIX + RESOURCE_SAID + "; " + STACK_SAID + SUFFIX),
    "Analyze silent": ({"Analyze": silenced}, PREFIX + "'amlkit-canary-resource' sent no diagnostic" + SUFFIX),
}


@pytest.mark.parametrize("edits, reason", list(CASES.values()), ids=list(CASES))
def test_unknown_canary(pulumi_policy_says, edits, reason):
    for method, edit in edits.items():
        pulumi_policy_says(method, edit)
    assert canary.unknown_canary() == reason


def test_a_canary_that_cannot_run_fails(pulumi_policy_says):
    def broken(response: Any) -> None:
        raise RuntimeError("servicer changed")

    pulumi_policy_says("AnalyzeStack", broken)
    assert canary.unknown_canary() == (
        f"pulumi-policy {VERSION}: the canary could not run (RuntimeError: servicer changed)")


def test_check_fails_with_exit_3_and_no_report_when_the_wording_changed(pulumi_policy_says):
    pulumi_policy_says("Analyze", per_diagnostic(reworded))
    result = CliRunner().invoke(cli.app, ["check", "--project-dir", str(RAW), "-s", "dev"])
    assert result.exit_code == 3
    assert result.stderr.splitlines()[0] == f"amlkit: error: start-up canary: {PREFIX}{RESOURCE_SAID}{SUFFIX}"
    assert result.stdout == ""  # the stacks ran, but no report is written


CHILD_ANSWERS = {
    "as verified": ((0, b'{"reason": null}\n', b""), None),
    "reworded": ((0, b'{"reason": "pulumi-policy 9 no longer says"}\n', b""), "pulumi-policy 9 no longer says"),
    "crashed": ((1, b"", b"Traceback (most recent call last):\nImportError: no pulumi_policy\n"),
                f"pulumi-policy {VERSION}: the canary could not run (its process: exit code 1: ImportError: no "
                "pulumi_policy)"),
    "said something else": ((0, b"hello\n", b""),
                            f"pulumi-policy {VERSION}: the canary could not run (its process: exit code 0: stdout "
                            "b'hello\\n')"),
    "another shape": ((0, b'{"reason": 3}\n', b""),
                      f"pulumi-policy {VERSION}: the canary could not run (its process: exit code 0: stdout "
                      "b'{\"reason\": 3}\\n')"),
    "hung": ((None, b"", b""),
             f"pulumi-policy {VERSION}: the canary could not run (its process: did not answer within 120s)"),
}


@pytest.mark.parametrize("answer, reason", list(CHILD_ANSWERS.values()), ids=list(CHILD_ANSWERS))
def test_what_the_canary_s_child_said(answer, reason):
    assert canary.child_answer(*answer) == reason


def test_the_canary_s_child_answers_what_the_canary_answers_in_process():
    from amlkit.review.proc import processes, warm

    child = warm.spawn_canary()
    try:
        code = child.wait(timeout=120)
        assert canary.child_answer(code, child.stdout.read(), child.stderr.read()) is None
    finally:
        processes.kill(child)
    assert canary.unknown_canary() is None


@pytest.fixture
def canary_child_says(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[bytes], None]]:
    """A review whose canary runs in a child (as in a CLI parent that never imported pulumi-policy), the child
    printing `said`."""
    import subprocess
    import sys

    from amlkit.review.proc import warm

    def says(said: bytes) -> None:
        monkeypatch.setattr(canary, "_in_process", lambda: False)
        monkeypatch.setattr(warm, "spawn_canary", lambda: subprocess.Popen(
            [sys.executable, "-c", f"import sys; sys.stdout.buffer.write({said!r})"], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE))

    canary._from_child.cache_clear()
    canary._CHILD.clear()
    yield says
    canary._from_child.cache_clear()
    canary._CHILD.clear()


def test_a_review_fails_with_exit_3_and_no_report_when_the_canary_s_child_says_so(canary_child_says):
    canary_child_says(b'{"reason": "pulumi-policy 9 reworded it"}\n')
    result = CliRunner().invoke(cli.app, ["check", "--project-dir", str(RAW), "-s", "dev"])
    assert result.exit_code == 3
    assert result.stderr.splitlines()[0] == "amlkit: error: start-up canary: pulumi-policy 9 reworded it"
    assert result.stdout == ""


def test_a_review_passes_when_the_canary_s_child_finds_it_as_verified(canary_child_says):
    canary_child_says(b'{"reason": null}\n')
    result = CliRunner().invoke(cli.app, ["check", "--project-dir", str(RAW), "-s", "dev"])
    assert result.exit_code in (0, 1), result.stderr
    assert "canary" not in result.stderr
