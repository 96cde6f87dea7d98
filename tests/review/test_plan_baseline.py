"""`amlkit preview --base REV`: the plan between a git revision and the working tree, on a temporary repo."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from amlkit import cli
from tests.review.helpers import RAW, run_runner

AMLKIT = Path(sys.executable).with_name("amlkit")
COMPUTE = "azure-native:machinelearningservices:Compute"
WORKSPACE = "azure-native:machinelearningservices:Workspace"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository whose `infra/` is the raw_aml fixture, committed on `main`."""
    root = tmp_path / "repo"
    shutil.copytree(RAW, root / "infra")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    git(root, "-c", "user.email=t@example.com", "-c", "user.name=t", "add", ".")
    git(root, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "base")
    git(root, "tag", "base")
    return root


def preview(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`amlkit preview` by the console script."""
    return subprocess.run([str(AMLKIT), "preview", "-C", str(repo / "infra"), *args], capture_output=True, text=True,
                          timeout=300)


def preview_in_process(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The same command in this process (typer's CliRunner), where the console script adds nothing.
    `--no-color` sets NO_COLOR for the process: CliRunner puts back the value it had."""
    command = ["preview", "-C", str(repo / "infra"), *args]
    done = CliRunner().invoke(cli.app, command, env={"NO_COLOR": os.environ.get("NO_COLOR")})
    return subprocess.CompletedProcess(command, done.exit_code, done.stdout, done.stderr)


@pytest.mark.slow
def test_base_plans_the_pull_request(repo: Path, tmp_path: Path) -> None:
    stack = repo / "infra" / "Pulumi.prod.yaml"
    stack.write_text(stack.read_text().replace("maxNodes: 8", "maxNodes: 12") +
                     "    - name: cpu-new\n      minNodes: 0\n      maxNodes: 2\n")
    program = repo / "infra" / "__main__.py"
    before = 'vm_size="Standard_D4ds_v5",\n                scale_settings=ml.ScaleSettingsArgs(min_node_count=min_nodes'
    source = program.read_text()
    assert source.count(before) == 1  # the edit below must change the program
    program.write_text(source.replace(before, before.replace("D4ds_v5", "D8ds_v5")))
    report = tmp_path / "plan.json"
    done = preview(repo, "-s", "prod", "--base", "base", "-f", "json", "-o", str(report))
    assert done.stderr == ""
    assert done.returncode == 1  # the cluster is protected through its parent workspace: replacing it is refused
    (data,) = json.loads(report.read_text())["stacks"]
    commit = git(repo, "rev-parse", "--short=7", "base").strip()
    assert data["planBase"] == f"git base ({commit})"
    assert data["changeSummary"] == {"create": 1, "replace": 1, "same": 4}
    steps = {s["urn"].rsplit("::", 1)[-1]: s for s in data["steps"] if s["op"] != "same"}
    assert set(steps) == {"gpu-warm", "cpu-new"}
    assert steps["cpu-new"] == {"op": "create", "urn": steps["cpu-new"]["urn"], "type": COMPUTE, "protect": True,
                                "retainOnDelete": True}
    warm = steps["gpu-warm"]
    assert warm["diffReasons"] == ["properties"] and warm["replaceReasons"] == ["properties"]
    assert warm["detailedDiff"] == {
        "properties.properties.scaleSettings.maxNodeCount": {"kind": "update", "inputDiff": True, "old": 8, "new": 12},
        "properties.properties.vmSize": {"kind": "update-replace", "inputDiff": True, "old": "Standard_D4ds_v5",
                                         "new": "Standard_D8ds_v5"},
    }
    assert warm["error"].startswith(f'unable to replace resource "{warm["urn"]}"\nas it is currently marked')
    assert git(repo, "worktree", "list").count("\n") == 1  # the temporary worktree is gone


def test_a_stack_new_in_the_working_tree_is_all_creates(repo: Path) -> None:
    shutil.copy(repo / "infra" / "Pulumi.prod.yaml", repo / "infra" / "Pulumi.qa.yaml")
    done = preview_in_process(repo, "-s", "qa", "--base", "base", "--no-color", "--policy-pack-config",
                   str(Path(__file__).parents[2] / "policy-config" / "dev.json"))
    assert "Plan against git base" in done.stdout
    assert " +   pulumi:pulumi:Stack " in done.stdout
    assert "Resources:\n    + 5 to create\n" in done.stdout
    assert "\x1b[" not in done.stdout


BAD_BASES = [
    pytest.param("no-such-branch", "amlkit: error: --base no-such-branch: not a revision of the repository at {root} "
                 "(give a branch, tag or commit, e.g. origin/main)\n", id="unknown-revision"),
    pytest.param("--help", "amlkit: error: --base --help: not a revision of the repository at {root} (give a branch, "
                 "tag or commit, e.g. origin/main)\n", id="option-like"),
]


@pytest.mark.parametrize(("rev", "stderr"), BAD_BASES)
def test_a_base_that_is_not_a_revision(repo: Path, tmp_path: Path, rev: str, stderr: str) -> None:
    report = tmp_path / "r.json"
    done = preview_in_process(repo, "-s", "prod", f"--base={rev}", "-f", "json", "-o", str(report))
    assert (done.returncode, done.stdout, done.stderr) == (2, "", stderr.format(root=repo.resolve()))
    assert not report.exists()


@pytest.mark.slow
def test_a_base_outside_git(tmp_path: Path) -> None:
    shutil.copytree(RAW, tmp_path / "infra")
    done = subprocess.run([str(AMLKIT), "preview", "-C", str(tmp_path / "infra"), "--base", "main"],
                          capture_output=True, text=True, timeout=120, env={"GIT_CEILING_DIRECTORIES": str(tmp_path),
                                                                            "PATH": "/usr/bin:/bin"})
    assert (done.returncode, done.stderr) == (
        2, f"amlkit: error: --base main: {tmp_path / 'infra'} is not inside a git repository\n")


def test_state_and_base_together(repo: Path, tmp_path: Path) -> None:
    state = tmp_path / "s.json"
    state.write_text("{}")
    done = preview_in_process(repo, "-s", "prod", "--base", "base", "--state", str(state))
    assert (done.returncode, done.stderr) == (2, "amlkit: error: give --state or --base, not both\n")


def test_runner_imports_a_package_from_the_base_tree(tmp_path: Path) -> None:
    """`--base` on amlkit's own repository runs the program with the components as they were at REV."""
    package = tmp_path / "components"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "naming.py").write_text('PREFIX = "from-base"\n')
    program = tmp_path / "prog"
    program.mkdir()
    (program / "__main__.py").write_text(
        "from pulumi_azure_native import resources\nfrom amlkit.components import naming\n"
        "resources.ResourceGroup(naming.PREFIX, resource_group_name='rg', location='westeurope')\n")
    result = run_runner({"program": str(program), "project": "p", "stack": "dev", "config": {}, "secret_keys": [],
                         "packages": {"amlkit.components": str(package)}})
    assert [r["name"] for r in result["resources"]] == ["from-base"]


def test_a_program_failing_at_the_base_fails_that_stack_only(repo: Path) -> None:
    program = repo / "infra" / "__main__.py"
    good = program.read_text()
    program.write_text(good + "\nraise ValueError('broken at the base')\n")
    git(repo, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-am", "broken")
    git(repo, "tag", "broken")
    program.write_text(good)
    done = preview_in_process(repo, "-s", "prod", "-s", "dev", "--base", "broken")
    commit = git(repo, "rev-parse", "--short=7", "broken").strip()
    line = len((good + "\n").splitlines()) + 1  # the raise appended above: the program's own line is named
    assert done.returncode == 3
    assert done.stderr.splitlines() == [  # one line for the one failure, naming every stack it stopped
        f"amlkit: stacks dev, prod were NOT reviewed: at git broken ({commit}): the program failed: ValueError: "
        f"broken at the base (at __main__.py:{line})",
    ]


@pytest.mark.slow
def test_base_of_amlkits_own_repository_uses_the_components_at_rev(tmp_path: Path) -> None:
    """In a checkout of amlkit itself, the program at REV runs with `components/` as they were at REV."""
    root = tmp_path / "amlkit-repo"
    shutil.copytree(Path(__file__).parents[2] / "components", root / "components",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (root / "amlkit" / "review").mkdir(parents=True)
    (root / "amlkit" / "review" / "README").write_text("marks the repository as amlkit's own\n")
    (root / "Pulumi.yaml").write_text("name: own\nruntime: python\n")
    (root / "Pulumi.dev.yaml").write_text("config: {}\n")
    (root / "__main__.py").write_text(
        "from amlkit.components import ComputeCluster\n"
        "ComputeCluster('cpu', {'resource_group_name': 'rg', 'workspace_name': 'mlw', 'workspace_location': "
        "'westeurope', 'size': 'Standard_D4ds_v5', 'max_instances': 2, 'enable_node_public_ip': True})\n")
    cluster = root / "components" / "compute_cluster.py"
    current = cluster.read_text()
    base = current.replace('vm_priority=PRIORITIES[args.get("tier", "dedicated")]',
                           'vm_priority=PRIORITIES[args.get("tier", "low_priority")]')
    assert base != current
    cluster.write_text(base)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    git(root, "-c", "user.email=t@example.com", "-c", "user.name=t", "add", ".")
    git(root, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "base")
    cluster.write_text(current)
    report = tmp_path / "plan.json"
    done = subprocess.run([str(AMLKIT), "preview", "-C", str(root), "-s", "dev", "--base", "HEAD", "-f", "json",
                           "-o", str(report)], capture_output=True, text=True, timeout=300)
    assert done.stderr == ""
    (data,) = json.loads(report.read_text())["stacks"]
    (step,) = [s for s in data["steps"] if s["op"] != "same"]
    assert step["urn"].endswith("::cpu-compute") and step["op"] == "replace"
    assert step["detailedDiff"] == {"properties.properties.vmPriority": {
        "kind": "update-replace", "inputDiff": True, "old": "LowPriority", "new": "Dedicated"}}
