"""`amlkit fix` (amlkit.fix_cmd) end to end on the real engine: the done-when stack (min 2 nodes, public SSH, a
missing required tag) gets three key changes with comments kept, --diff and --check write nothing, the fixed file
passes `amlkit check`; the pre-commit hook's entry runs; a platform repository's program findings are only
printed. Usage errors run against no engine."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from amlkit import cli

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "fix_stack"
FIXED = ROOT / "tests" / "fix" / "data" / "Pulumi.team.fixed.yaml"
AMLKIT = Path(sys.executable).with_name("amlkit")
runner = CliRunner()

DIFF = """\
--- a/Pulumi.team.yaml
+++ b/Pulumi.team.yaml
@@ -6,6 +6,7 @@
   amlkit:resourceGroup: {name: rg-ml-team}
   amlkit:tags:
     owner: "ml-platform"   # who pays
+    cost-center: '4711'
   amlkit:workspace:
     name: mlw-team
     kind: default
@@ -17,12 +18,12 @@
     # the shared CPU cluster: kept warm for the morning stand-up demo
     - name: cpu-cluster
       size: Standard_D4ds_v5
-      min_instances: 2        # two warm nodes
+      min_instances: 0        # two warm nodes
       max_instances: 4
       idle_time_before_scale_down: 120
       tier: "dedicated"
       enable_node_public_ip: false
-      ssh_public_access_enabled: true   # opened for debugging, "temporarily"
+      ssh_public_access_enabled: false  # opened for debugging, "temporarily"
       description: >-
         Shared CPU training,
         kept warm
"""
CHANGES = """\
Pulumi.team.yaml:20: amlkit:clusters[cpu-cluster].min_instances: 2 -> 0 (aml-cluster-min-nodes-zero, resource \
team-cluster-cpu-cluster-compute)
Pulumi.team.yaml:25: amlkit:clusters[cpu-cluster].ssh_public_access_enabled: true -> false (aml-cluster-ssh-disabled, \
resource team-cluster-cpu-cluster-compute)
Pulumi.team.yaml:7: amlkit:tags.cost-center: (unset) -> "4711" (aml-required-tags, resource team-workspace-appinsights)
"""


def _sources(project: Path) -> dict[Path, bytes]:
    """Every file of the project but Python's bytecode (the program's imports write it when bytecode is on)."""
    return {path: path.read_bytes() for path in project.rglob("*")
            if path.is_file() and "__pycache__" not in path.relative_to(project).parts}


def _project(tmp_path: Path, source: Path = FIXTURE) -> Path:
    project = tmp_path / "project"
    shutil.copytree(source, project, ignore=shutil.ignore_patterns(".venv", "__pycache__"))
    return project


@pytest.mark.slow
def test_three_key_changes_then_the_fixed_file_passes_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = _project(tmp_path)
    monkeypatch.chdir(project)
    stack_file = project / "Pulumi.team.yaml"
    before = stack_file.read_text(encoding="utf-8")
    stack_file.chmod(0o640)

    shown = runner.invoke(cli.app, ["fix", "--diff"])
    assert (shown.exit_code, shown.stdout) == (0, DIFF), shown.output
    assert shown.stderr == CHANGES + "amlkit fix: would make 3 change(s) in 1 stack file(s) (Pulumi.team.yaml)\n"
    checked = runner.invoke(cli.app, ["fix", "--check"])
    assert (checked.exit_code, checked.stdout) == (
        1, CHANGES + "amlkit fix: would make 3 change(s) in 1 stack file(s) (Pulumi.team.yaml)\n")
    assert stack_file.read_text(encoding="utf-8") == before  # --diff and --check write nothing

    fixed = runner.invoke(cli.app, ["fix"])
    assert (fixed.exit_code, fixed.stdout) == (
        0, CHANGES + "amlkit fix: made 3 change(s) in 1 stack file(s) (Pulumi.team.yaml)\n")
    assert stack_file.read_text(encoding="utf-8") == FIXED.read_text(encoding="utf-8")
    assert stack_file.stat().st_mode & 0o777 == 0o640

    review = runner.invoke(cli.app, ["check", "-f", "json"])
    assert review.exit_code == 0, review.output
    assert "aml-cluster-min-nodes-zero" not in review.stdout and "aml-cluster-ssh-disabled" not in review.stdout
    assert "aml-required-tags" not in review.stdout
    again = runner.invoke(cli.app, ["fix", "--check"])
    assert (again.exit_code, again.stdout) == (0, "amlkit fix: no stack file to change\n")


@pytest.mark.slow
def test_at_level_remediate_the_source_gets_the_same_three_changes(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The pack remediates the resources at every deployment; `amlkit fix` still brings the stack file in line."""
    project = _project(tmp_path)
    (project / "policy-config" / "team.json").write_text(json.dumps({
        "aml-cluster-min-nodes-zero": "remediate", "aml-cluster-ssh-disabled": "remediate",
        "aml-required-tags": {"enforcementLevel": "remediate", "requiredTags": ["owner", "cost-center"],
                              "defaultTagValues": {"cost-center": "4711"}}}), encoding="utf-8")
    monkeypatch.chdir(project)
    shown = runner.invoke(cli.app, ["fix", "--diff"])
    assert (shown.exit_code, shown.stdout) == (0, DIFF), shown.output


@pytest.mark.slow
def test_the_pre_commit_hook_entry_runs_on_the_changed_stack_file(tmp_path: Path) -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    hook = next(h for h in hooks if h["id"] == "amlkit-fix")
    assert hook["entry"] == "amlkit fix --check --diff"
    check_files = next(h for h in hooks if h["id"] == "amlkit-check")["files"]
    assert (hook["pass_filenames"], hook["require_serial"], hook["files"]) == (True, True, check_files)
    project = _project(tmp_path)
    changed = [path for path in ("Pulumi.team.yaml", "policy-config/team.json", "README.md")
               if re.search(hook["files"], path)]
    assert changed == ["Pulumi.team.yaml", "policy-config/team.json"]
    command = [str(AMLKIT), *hook["entry"].split()[1:], *changed]
    ran = subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=600, check=False)
    assert (ran.returncode, ran.stdout) == (1, DIFF), ran.stderr
    assert (project / "Pulumi.team.yaml").read_text(encoding="utf-8") == (FIXTURE / "Pulumi.team.yaml").read_text(
        encoding="utf-8")


@pytest.mark.slow
def test_platform_repo_program_findings_are_printed_never_edited(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    project = _project(tmp_path, ROOT / "examples" / "platform-repo")
    nonprod = project / "stacks" / "Pulumi.nonprod.yaml"
    nonprod.write_text(nonprod.read_text(encoding="utf-8").replace("idleSeconds: 120\n    - name: gpu",
                                                                   "idleSeconds: 1800\n    - name: gpu"), "utf-8")
    files = _sources(project)
    monkeypatch.chdir(project)
    result = runner.invoke(cli.app, ["fix"])
    line = next(number for number, text in enumerate((project / "__main__.py").read_text().splitlines(), 1)
                if "ComputeCluster(" in text)
    assert (result.exit_code, result.stdout) == (0, (
        f"__main__.py:{line}: set properties.properties.scaleSettings.nodeIdleTimeBeforeScaleDown to \"PT300S\" "
        "(aml-cluster-idle-scale-down, resource cpu-cluster-compute) (not changed: a program file: amlkit fix edits "
        "stack files only)\n"
        "amlkit fix: no stack file to change; 1 change(s) printed only, not made\n")), result.output
    assert _sources(project) == files


def test_the_docs_show_the_diff_the_command_gives() -> None:
    review = (ROOT / "docs" / "review.md").read_text(encoding="utf-8")
    assert f"$ amlkit fix --diff\n{DIFF}```" in review


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["fix", "Pulumi.team.yaml", "--stack", "team"], "give stack files or --stack, not both",
                     id="files-and-stack"),
        pytest.param(["fix", "--policy-pack-config", "missing.json"], None, id="missing-config"),
    ],
)
def test_bad_usage_exits_2_without_a_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str],
                                               message: str | None) -> None:
    project = _project(tmp_path)
    monkeypatch.chdir(project)
    result = runner.invoke(cli.app, args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    if message:
        assert result.stderr == f"amlkit: error: {message}\n"
