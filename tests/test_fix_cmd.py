"""`amlkit fix` (amlkit.fix_cmd): the docs show the diff the command gives; usage errors exit 2 without a
traceback."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
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


def _project(tmp_path: Path, source: Path = FIXTURE) -> Path:
    project = tmp_path / "project"
    shutil.copytree(source, project, ignore=shutil.ignore_patterns(".venv", "__pycache__"))
    return project


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
