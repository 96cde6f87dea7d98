"""Reading `pulumi stack export` files: every bad input is one clear error (exit 2), nothing written."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from amlkit import cli
from amlkit.errors import ConfigError
from amlkit.review.plan.state import ENCRYPTED, check_owner, load_state, wire
from amlkit.review.secrets import SECRET_SIG, SECRET_SIG_KEY
from tests.review.helpers import RAW
from tests.review.statefiles import MANIFEST, write_state

AMLKIT = Path(sys.executable).with_name("amlkit")
STACK_URN = "urn:pulumi:dev::raw-aml::pulumi:pulumi:Stack::raw-aml-dev"
RG_URN = "urn:pulumi:dev::raw-aml::azure-native:resources:ResourceGroup::rg"


def resources(stack: str = "dev", project: str = "raw-aml") -> list[dict]:
    return [{"urn": f"urn:pulumi:{stack}::{project}::pulumi:pulumi:Stack::{project}-{stack}",
             "type": "pulumi:pulumi:Stack", "custom": False},
            {"urn": f"urn:pulumi:{stack}::{project}::azure-native:resources:ResourceGroup::rg",
             "type": "azure-native:resources:ResourceGroup", "custom": True, "id": "/subscriptions/x/resourceGroups/rg",
             "inputs": {"resourceGroupName": "rg-ml"}, "protect": True, "retainOnDelete": True}]


def test_reads_a_version_3_export(tmp_path: Path) -> None:
    state = load_state(write_state(tmp_path / "dev.json", resources()))
    assert (state.project, state.stack, state.secrets_provider) == ("raw-aml", "dev", "passphrase")
    rg = state.by_urn()[RG_URN]
    assert (rg.name, rg.protect, rg.retain_on_delete, rg.inputs) == ("rg", True, True, {"resourceGroupName": "rg-ml"})


def test_secrets_in_wire_form_and_encrypted_ones_marked() -> None:
    plain = {SECRET_SIG_KEY: SECRET_SIG, "plaintext": '{"a": [1]}'}
    encrypted = {SECRET_SIG_KEY: SECRET_SIG, "ciphertext": "v1:abc"}
    assert wire({"p": plain, "e": encrypted}) == {"p": {SECRET_SIG_KEY: SECRET_SIG, "value": {"a": [1]}},
                                                  "e": {SECRET_SIG_KEY: SECRET_SIG, "value": ENCRYPTED}}


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "state.json"
    path.write_text(text)
    return path


BAD = [
    pytest.param(lambda: json.dumps({"version": 3, "deployment": {"manifest": MANIFEST,
                                                                  "resources": resources()}})[:-40],
                 "state.json: not valid JSON (a truncated or partial export?): Unterminated string starting at "
                 "(line 1, column 536); expected the output of `pulumi stack export`", id="truncated"),
    pytest.param(lambda: json.dumps({"version": 4, "deployment": {}}),
                 "state.json: version: deployment version 4 is not supported: amlkit reads version 3, what "
                 "`pulumi stack export` of Pulumi CLI v3 writes", id="other-version"),
    pytest.param(lambda: json.dumps([1, 2]),
                 "state.json: version: missing: not a `pulumi stack export` file (expected an object with "
                 "`version` and `deployment`)", id="not-an-export"),
    pytest.param(lambda: json.dumps({"version": 3, "deployment": {"manifest": MANIFEST,
                                                                  "resources": [{"urn": RG_URN}]}}),
                 "state.json: deployment.resources[0]: 'type' is a required property (not a valid deployment "
                 "version 3 state)", id="resource-without-type"),
    pytest.param(lambda: json.dumps({"version": 3, "deployment": {"manifest": MANIFEST, "resources": [
        {"urn": RG_URN, "type": "t", "protect": "yes"}]}}),
                 "state.json: deployment.resources[0].protect: 'yes' is not of type 'boolean' (not a valid "
                 "deployment version 3 state)", id="bad-field-type"),
    pytest.param(lambda: json.dumps({"version": 3, "deployment": {"manifest": MANIFEST, "resources":
                                                                  resources() + resources("prod")}}),
                 "state.json: deployment.resources: resources of several stacks: dev (raw-aml), prod (raw-aml)",
                 id="mixed-stacks"),
]


@pytest.mark.parametrize(("text", "message"), BAD)
def test_bad_state_files(tmp_path: Path, text, message: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as caught:
        _write(tmp_path, text())
        load_state(Path("state.json"))
    assert str(caught.value) == message


def test_state_of_another_stack_or_project(tmp_path: Path) -> None:
    state = load_state(write_state(tmp_path / "s.json", resources("prod", "other")))
    with pytest.raises(ConfigError, match=r"deployment.resources\[0\].urn: this is the state of stack 'prod' of "
                       r"project 'other', not of stack 'dev' of project 'raw-aml'; export it with "
                       r"`pulumi stack export --stack dev`$"):
        check_owner(state, "raw-aml", "dev")


CLI_BAD = [
    pytest.param(["-s", "dev"], resources("prod"), "amlkit: error: {state}: deployment.resources[0].urn: this is the "
                 "state of stack 'prod' of project 'raw-aml', not of stack 'dev' of project 'raw-aml'; export it with "
                 "`pulumi stack export --stack dev`\n", id="another-stack"),
    pytest.param(["-s", "dev", "-s", "prod"], resources("staging"), "amlkit: error: {state}: the state of stack "
                 "'staging', which is not reviewed (reviewed: dev, prod)\n", id="a-stack-not-reviewed"),
    pytest.param(["-s", "dev"], resources("dev", "other"), "amlkit: error: {state}: deployment.resources[0].urn: this "
                 "is the state of stack 'dev' of project 'other', not of stack 'dev' of project 'raw-aml'; export it "
                 "with `pulumi stack export --stack dev`\n", id="another-project"),
]


@pytest.mark.parametrize(("args", "state_resources", "stderr"), CLI_BAD)
def test_cli_refuses_a_state_of_another_stack_or_project(tmp_path: Path, args: list[str], state_resources: list,
                                                         stderr: str) -> None:
    """In process (the console script's own run is test_cli_refuses_a_truncated_state)."""
    state = write_state(tmp_path / "s.json", state_resources)
    report = tmp_path / "report.json"
    done = CliRunner().invoke(cli.app, ["preview", "-C", str(RAW), *args, "--state", str(state), "-f", "json",
                                        "-o", str(report)])
    assert (done.exit_code, done.stdout, done.stderr) == (2, "", stderr.format(state=state))
    assert not report.exists()  # nothing half-written


def test_cli_refuses_a_truncated_state(tmp_path: Path) -> None:
    state = _write(tmp_path, '{"version": 3, "deployment": {"manifest"')
    done = subprocess.run([str(AMLKIT), "preview", "-C", str(RAW), "--state", str(state)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr == (f"amlkit: error: {state}: not valid JSON (a truncated or partial export?): Expecting ':' "
                           "delimiter (line 1, column 41); expected the output of `pulumi stack export`\n")


# --- no file contents in errors (#32): a state file's error quotes at most 80 characters of a value ----------

LONG = "ghp_" + "S" * 300  # stands for a credential inside a file given as a state


def _cut(text: str) -> str:
    return text[:38] + "..." + text[-39:]


LONG_BAD = [
    pytest.param(lambda: json.dumps({"version": LONG, "deployment": {}}),
                 f"state.json: version: deployment version {_cut(repr(LONG))} is not supported: amlkit reads "
                 "version 3, what `pulumi stack export` of Pulumi CLI v3 writes", id="long-version"),
    pytest.param(lambda: json.dumps({"version": 3, "deployment": {"manifest": MANIFEST, "resources": [
        {"urn": RG_URN, "type": "t", "protect": LONG}]}}),
                 f"state.json: deployment.resources[0].protect: {_cut(repr(LONG))} is not of type 'boolean' (not a "
                 "valid deployment version 3 state)", id="long-field-value"),
    pytest.param(lambda: json.dumps({"version": 3, "deployment": LONG}),
                 f"state.json: deployment: {_cut(repr(LONG))} is not of type 'object' (not a valid deployment "
                 "version 3 state)", id="a-document-in-place-of-the-deployment"),
]


@pytest.mark.parametrize(("text", "message"), LONG_BAD)
def test_a_bad_state_file_error_quotes_at_most_80_characters(tmp_path: Path, text, message: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Before 0.3.0 the whole value was quoted (a 300-character string in every format)."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as caught:
        _write(tmp_path, text())
        load_state(Path("state.json"))
    assert (str(caught.value), LONG in str(caught.value)) == (message, False)


def test_another_stacks_state_quotes_its_names_cut(tmp_path: Path) -> None:
    state = load_state(write_state(tmp_path / "s.json", resources(LONG)))
    with pytest.raises(ConfigError) as caught:
        check_owner(state, "raw-aml", "dev")
    assert f"this is the state of stack {_cut(repr(LONG))} of project 'raw-aml'" in str(caught.value)
    assert LONG not in str(caught.value)


def test_preview_refuses_a_state_linking_out_of_the_project(tmp_path: Path) -> None:
    """`preview --state` plans against the file: a link inside the project naming another file is refused before
    it is read (#32), as stack files are."""
    project = tmp_path / "p"
    shutil.copytree(RAW, project, ignore=shutil.ignore_patterns("__pycache__"))
    target = write_state(tmp_path / "elsewhere.json", resources())
    link = project / "state.json"
    link.symlink_to(target)
    done = CliRunner().invoke(cli.app, ["preview", "-C", str(project), "-s", "dev", "--state", str(link)])
    assert (done.exit_code, done.stdout, done.stderr) == (
        2, "", f"amlkit: error: {link}: a symbolic link to {target}, outside the project; allowed: a file inside "
        f"the project ({project})\n")
