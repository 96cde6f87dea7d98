"""The `amlkit` command line: exit codes for every outcome, formats, --output, usage errors.

These tests replace the review engine module with a fake (the CLI imports it lazily by name); the
same commands on the real engine are in test_cli_e2e.py.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from amlkit import __version__, cli
from amlkit.errors import ConfigError, ReviewFailed, UsageError
from amlkit.review.model import Review
from amlkit.review.options import ReviewOptions
from amlkit.review.report import json as report_json
from amlkit.review.report import markdown as report_markdown
from amlkit.review.report import sarif as report_sarif
from amlkit.review.report import table as report_table
from amlkit.review.report.resources import render_plan
from tests.data.reviews import PACK, SECRET_VALUE, dev_stack, failed_stack, full_review, prod_stack

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
        module = engine.module()
        monkeypatch.setitem(sys.modules, "amlkit.review.engine", module)
        monkeypatch.setitem(sys.modules, "amlkit.packs", module)  # `rules` describes the pack there
        return engine

    return install


def _stack_without(levels: set[str], unknown: bool = True):
    stack = prod_stack()
    stack = dataclasses.replace(stack, violations=tuple(v for v in stack.violations if v.level not in levels))
    return stack if unknown else dataclasses.replace(stack, unknown=())


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
    assert engine.calls == [{"project_dir": Path("proj"), "stacks": ["dev", "prod"], "options": ReviewOptions(
        policy_pack=Path("policies"), policy_pack_config=Path("pack.json"), jobs=4, timeout=30.0, verbose=False)}]


def test_defaults_passed_to_the_engine(fake) -> None:
    engine = fake(Review(stacks=[dev_stack()]))
    assert runner.invoke(cli.app, ["preview"]).exit_code == 0
    assert engine.calls == [{"project_dir": Path("."), "stacks": None, "options": ReviewOptions(
        policy_pack=None, policy_pack_config=None, jobs=None, timeout=120.0, verbose=False)}]


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


def test_a_failed_report_write_exits_3_and_leaves_the_previous_report(fake, tmp_path: Path, monkeypatch) -> None:
    """Before 0.3.0 a full disk left a truncated report and exited 2 (reserved for usage and config errors)."""
    import errno

    from amlkit.review.report import files

    fake(Review(stacks=[dev_stack()]))
    (tmp_path / "report.json").write_text("previous\n", encoding="utf-8")

    def disk_full(_descriptor: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", disk_full)
    result = runner.invoke(cli.app, ["check", "--format", "json", "--output", "report.json"])
    assert (result.exit_code, result.stderr) == (3, "amlkit: error: report.json: cannot write the report: No space "
                                                    "left on device; the previous report is unchanged\namlkit: run "
                                                    "again with --verbose to see the traceback\n")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith((".report", "report"))) == ["report.json"]
    assert (tmp_path / "report.json").read_text(encoding="utf-8") == "previous\n"


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
    assert runner.invoke(cli.app, ["--version"]).stdout == f"amlkit {__version__}\n"


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


def test_repeated_packs_and_configs_reach_the_engine_in_order(fake, tmp_path: Path) -> None:
    engine = fake(Review(stacks=[dev_stack()]))
    (tmp_path / "other").mkdir()
    for name in ("a.json", "b.json"):
        (tmp_path / name).write_text("{}", encoding="utf-8")
    args = ["check", "--policy-pack", "policies", "--policy-pack", "other", "--policy-pack-config", "a.json",
            "--policy-pack-config", "b.json"]
    assert runner.invoke(cli.app, args).exit_code == 0
    [call] = engine.calls
    assert (call["options"].policy_pack, call["options"].policy_pack_config) == (
        (Path("policies"), Path("other")), (Path("a.json"), Path("b.json")))


@pytest.mark.parametrize("command", [["check"], ["preview"], ["analyze", "--file", "state.json"]])
def test_pack_and_config_counts_must_match(fake, tmp_path: Path, command: list[str]) -> None:
    engine = fake(Review(stacks=[dev_stack()]))
    (tmp_path / "other").mkdir()
    (tmp_path / "state.json").write_text("{}", encoding="utf-8")
    (tmp_path / "a.json").write_text("{}", encoding="utf-8")
    result = runner.invoke(cli.app, [*command, "--policy-pack", "policies", "--policy-pack", "other",
                                     "--policy-pack-config", "a.json"])
    assert (result.exit_code, result.stdout, engine.calls) == (2, "", [])
    assert result.stderr == (
        "amlkit: error: the number of --policy-pack-config flags (1) must match the number of --policy-pack flags "
        "(2): the first config goes with the first pack, and so on; give one config per pack, or none (then each "
        "pack runs with its defaults, and amlkit's own pack with the project's policy-config/<stack>.json)\n")


WARNING = "policy-config/dev.json: aml-cluster-vm-priority.waivers[0]: resource 'gpu*' matches no resource of stack dev"
STRICT = [  # (flags, exit code, last stderr line)
    ([], 0, f"amlkit: warning: stack dev: {WARNING}"),
    (["--strict"], 2, "amlkit: error: 1 warning(s), errors under --strict"),
]


@pytest.mark.parametrize(("flags", "code", "last"), STRICT, ids=["warning", "strict"])
@pytest.mark.parametrize("fmt", ["table", "json", "sarif", "markdown"])
def test_a_waiver_that_matches_nothing_is_a_warning_in_every_format_and_an_error_under_strict(
        fake, fmt: str, flags: list[str], code: int, last: str) -> None:
    stack = dataclasses.replace(dev_stack(), warnings=[WARNING])
    fake(Review(stacks=[stack]))
    result = runner.invoke(cli.app, ["check", "-f", fmt, *flags])
    assert (result.exit_code, result.stderr.splitlines()[-1]) == (code, last)
    assert "resource 'gpu*' matches no resource of stack dev" in result.stdout


def test_several_format_output_pairs_write_every_report_of_one_review(fake, tmp_path: Path) -> None:
    engine = fake(Review(stacks=[prod_stack(), dev_stack()]))
    result = runner.invoke(cli.app, ["check", "-f", "sarif", "-o", "a.sarif", "-f", "markdown", "-o", "b.md",
                                     "-o", "c.json", "-f", "json"])
    assert result.exit_code == 1
    assert len(engine.calls) == 1
    assert result.stdout == ("Summary: 2 stacks, 1 mandatory, 1 advisory, 1 waived, 1 unknown\n"
                             "Wrote the sarif report to a.sarif\nWrote the markdown report to b.md\n"
                             "Wrote the json report to c.json\n")
    for fmt, name in (("sarif", "a.sarif"), ("markdown", "b.md"), ("json", "c.json")):
        assert (tmp_path / name).read_text(encoding="utf-8") == runner.invoke(cli.app, ["check", "-f", fmt]).stdout


@pytest.mark.parametrize(("args", "counts"), [
    pytest.param(["-f", "sarif", "-f", "json", "-o", "a.sarif"], "2 --format and 1 --output", id="one-output"),
    pytest.param(["-f", "sarif", "-f", "json"], "2 --format and 0 --output", id="two-on-stdout"),
    pytest.param(["-o", "a", "-o", "b"], "0 --format and 2 --output", id="outputs-only"),
])
def test_formats_and_outputs_come_in_pairs(fake, args: list[str], counts: str) -> None:
    engine = fake(Review(stacks=[dev_stack()]))
    result = runner.invoke(cli.app, ["check", *args])
    assert (result.exit_code, result.stderr) == (
        2, f"amlkit: error: give one --output per --format, paired in order (got {counts})\n")
    assert engine.calls == []


def test_a_subdirectory_of_the_project_reviews_the_project(fake, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    engine = fake(Review(stacks=[dev_stack()]))
    (tmp_path / "Pulumi.yaml").write_text("name: p\nruntime: python\n", encoding="utf-8")
    (tmp_path / "stacks" / "team").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "stacks" / "team")
    assert runner.invoke(cli.app, ["check"]).exit_code == 0
    assert engine.calls[0]["project_dir"] == tmp_path.resolve()
