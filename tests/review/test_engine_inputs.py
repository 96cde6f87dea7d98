"""The review's inputs refused before any program runs: a stack file or policy config linking out of the project,
a document that is no mapping, a missing `main:`, a malformed AMLKIT_REVIEW_DATE or AMLKIT_PROGRAM_WORKERS. Each
exits 2 naming the file (or variable), the key and what is allowed, and no output format quotes more than CUT
characters of any file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from amlkit import cli
from amlkit.errors import CUT
from amlkit.policies.framework import REVIEW_DATE_ENV
from amlkit.review.proc import workers
from tests.review.helpers import RAW

runner = CliRunner()
FORMATS = ("table", "json", "sarif", "markdown")
CANARY = "ghp_canary-token-never-shown"
CREDENTIALS = f"https://user:{CANARY}@github.com\n"  # a ~/.git-credentials line


@pytest.fixture(scope="module")
def linked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """RAW with three bad stacks: `leak` links to a credentials file outside the project, `text` is a long text
    document, `dev`'s policy config links out of the project too."""
    root = tmp_path_factory.mktemp("linked")
    shutil.copytree(RAW, root / "p")
    (root / "credentials").write_text(CREDENTIALS + "x" * 500 + "\n")
    (root / "p" / "Pulumi.leak.yaml").symlink_to(root / "credentials")
    (root / "p" / "Pulumi.text.yaml").write_text(CANARY + " " + "y" * 500 + "\n")
    (root / "p" / "policy-config").mkdir()
    (root / "p" / "policy-config" / "dev.json").symlink_to(root / "credentials")
    return root


@pytest.fixture(scope="module")
def outputs(linked: Path) -> dict[str, tuple[int, str]]:
    project = linked / "p"
    results = {fmt: runner.invoke(cli.app, ["check", "-C", str(project), "-s", "leak", "-s", "text", "-s", "dev",
                                            "-f", fmt]) for fmt in FORMATS}
    return {fmt: (result.exit_code, result.stdout) for fmt, result in results.items()}


def test_no_format_quotes_a_linked_or_non_mapping_file(outputs: dict[str, tuple[int, str]]) -> None:
    """Before 0.3.0 each format quoted the whole linked file (`must be a YAML mapping (got 'https://user:...')`),
    and JSON and SARIF carried it whole in `error_detail.value`."""
    assert {fmt: code for fmt, (code, _) in outputs.items()} == dict.fromkeys(FORMATS, 2)
    for _, text in outputs.values():
        assert CANARY not in text and "x" * CUT not in text and "y" * CUT not in text


def test_the_errors_name_the_link_and_its_target_only(linked: Path, outputs: dict[str, tuple[int, str]]) -> None:
    stacks = {s["stack"]: s for s in json.loads(outputs["json"][1])["stacks"]}
    target = linked / "credentials"
    assert stacks["leak"]["error"] == (f"stack leak: Pulumi.leak.yaml: a symbolic link to {target}, outside the "
                                       f"project; allowed: a file inside the project ({linked / 'p'})")
    assert stacks["text"]["error"] == "stack text: Pulumi.text.yaml: the document is text; allowed: a YAML mapping"
    assert stacks["dev"]["error"] == (f"stack dev: policy-config/dev.json: a symbolic link to {target}, outside the "
                                      f"project; allowed: a file inside the project ({linked / 'p'})")
    assert {name: (s["error_kind"], s["error_detail"]["file"], s["error_detail"]["value"])
            for name, s in stacks.items()} == {"leak": ("config", "Pulumi.leak.yaml", None),
                                               "text": ("config", "Pulumi.text.yaml", None),
                                               "dev": ("config", "policy-config/dev.json", None)}
    sarif = json.loads(outputs["sarif"][1])["runs"][0]
    assert sorted(r["message"]["text"] for r in sarif["results"]) == sorted(
        f"Stack {name} was not reviewed: {s['error'].removeprefix(f'stack {name}: ')}" for name, s in stacks.items())


def test_error_detail_carries_a_value_cut_as_the_message_quotes_it(tmp_path: Path) -> None:
    shutil.copytree(RAW, tmp_path / "p")
    (tmp_path / "p" / "policy-config").mkdir()
    (tmp_path / "p" / "policy-config" / "dev.json").write_text(json.dumps({"aml-cluster-max-nodes": {
        "maxNodes": CANARY + "z" * 500}}))
    result = runner.invoke(cli.app, ["check", "-C", str(tmp_path / "p"), "-s", "dev", "-f", "json"])
    [stack] = json.loads(result.stdout)["stacks"]
    cut = CANARY + "z" * 10 + "..." + "z" * 39  # its start and its end, 80 characters in all
    assert (result.exit_code, stack["error_detail"]["value"]) == (2, cut)
    shown = f"'{CANARY}{'z' * 9}...{'z' * 38}'"
    assert stack["error"] == (f"stack dev: policy-config/dev.json: aml-cluster-max-nodes.maxNodes: {shown} is not of "
                              "type 'integer'; allowed: type integer; >= 1.0")


def test_a_malformed_review_date_is_a_usage_error_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before 0.3.0: exit 3, `policy pack ... Analyze of <the first resource> failed: ... policy
    'aml-cluster-min-nodes-zero' raised an error`, blaming a policy that has nothing to do with dates."""
    monkeypatch.setenv(REVIEW_DATE_ENV, "2026-02-30")
    result = runner.invoke(cli.app, ["check", "-C", str(RAW), "-s", "dev"])
    assert (result.exit_code, result.output) == (2, f"amlkit: error: {REVIEW_DATE_ENV}='2026-02-30' is not a date; "
                                                    "allowed: YYYY-MM-DD (a real day, e.g. 2026-11-28), or unset for "
                                                    "today\n")


WORKERS_ALLOWED = ("allowed: 1 (run each job's stacks one after another in a program worker, the default; unset or "
                   "empty is the same) or 0 (a fresh process per stack)")


@pytest.mark.parametrize("value", ["2", "no", "true", "00", " 1x"])
def test_a_bad_program_workers_switch_is_a_usage_error_naming_the_variable(monkeypatch: pytest.MonkeyPatch,
                                                                           value: str) -> None:
    """Before 0.3.0: any value but `0` (`no`, `false`, `off`) silently meant workers."""
    monkeypatch.setenv(workers.SWITCH, value)
    result = runner.invoke(cli.app, ["check", "-C", str(RAW), "-s", "dev"])
    assert (result.exit_code, result.output) == (2, f"amlkit: error: AMLKIT_PROGRAM_WORKERS={value!r} is not "
                                                    f"allowed; {WORKERS_ALLOWED}\n")


@pytest.mark.parametrize(("value", "expected"), [("0", False), ("1", True), (" 0 ", False), ("", True), (None, True)])
def test_the_program_workers_switch_values(monkeypatch: pytest.MonkeyPatch, value: str | None, expected: bool) -> None:
    if value is None:
        monkeypatch.delenv(workers.SWITCH, raising=False)
    else:
        monkeypatch.setenv(workers.SWITCH, value)
    assert workers.enabled() is expected


def test_a_missing_main_is_a_config_error_not_a_program_failure(tmp_path: Path) -> None:
    """Before 0.3.0: exit 3, `the program failed: FileNotFoundError: ... No such file or directory`."""
    shutil.copytree(RAW, tmp_path / "p")
    (tmp_path / "p" / "Pulumi.yaml").write_text("name: raw-aml\nruntime: python\nmain: src/\n")
    result = runner.invoke(cli.app, ["check", "-C", str(tmp_path / "p"), "-s", "dev"])
    assert (result.exit_code, result.output) == (2, f"amlkit: error: {tmp_path / 'p' / 'Pulumi.yaml'}: main: 'src' "
                                                    "does not exist; allowed: the program's directory or file, "
                                                    "relative to Pulumi.yaml\n")
