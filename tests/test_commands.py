"""`amlkit.commands`: init, import-az-ml and pack-path on a throwaway Typer app; stack files by project."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import typer
import yaml
from typer.testing import CliRunner, Result

from amlkit.commands import policy_pack_dir, register, stacks_from_files
from amlkit.errors import UsageError
from amlkit.stackfile import load_stack_file

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures" / "az-ml"
SCOPE = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-network"


def make_app() -> typer.Typer:
    app = typer.Typer(add_completion=False)

    @app.callback()
    def _root() -> None:
        """Test app."""

    register(app)
    return app


def run(args: list[str], input: str | None = None) -> Result:
    return CliRunner().invoke(make_app(), args, input=input)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "Pulumi.yaml").write_text("name: platform\nruntime: python\nstackConfigDir: stacks\n",
                                          encoding="utf-8")
    return tmp_path


# --- register --------------------------------------------------------------------------------------


def test_register_adds_the_three_commands() -> None:
    app = make_app()
    names = sorted(info.name for info in app.registered_commands)
    assert names == ["import-az-ml", "init", "pack-path"]


def test_register_keeps_a_command_the_app_already_has() -> None:
    app = typer.Typer()

    @app.command("pack-path")
    def own() -> None:
        typer.echo("own")

    register(app)
    assert [info.name for info in app.registered_commands] == ["pack-path", "init", "import-az-ml"]
    assert CliRunner().invoke(app, ["pack-path"]).stdout == "own\n"


# --- pack-path -------------------------------------------------------------------------------------


def test_pack_path_prints_the_policy_pack_directory() -> None:
    result = run(["pack-path"])
    assert result.exit_code == 0
    directory = Path(result.stdout.strip())
    assert directory == policy_pack_dir()
    assert (directory / "PulumiPolicy.yaml").is_file()
    assert (directory / "__main__.py").is_file()
    assert directory.name == "policies"


# --- import-az-ml ----------------------------------------------------------------------------------


def test_import_prints_entries_and_reports_notes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIXTURES)
    files = ["cluster-low-priority.yml", "cluster-ssh-password.yml", "cluster-vnet.yml", "instance-schedule.yml"]
    result = run(["import-az-ml", *files, "--vnet-scope", SCOPE])
    assert result.exit_code == 0, result.output
    assert result.stdout == (FIXTURES / "expected" / "imported.yaml").read_text(encoding="utf-8")
    lines = result.stderr.splitlines()
    assert len(lines) == 8
    assert lines[1] == ("amlkit: not imported as is: cluster-ssh-password.yml: ssh_settings.admin_password: not "
                        "copied: a password never goes into a stack file. Prefer ssh_key_value; if the nodes need "
                        "the password, store it as a Pulumi secret: pulumi config set --secret --path "
                        "'amlkit:clusters[1].ssh_settings.admin_password' <password>")
    assert "example-password" not in result.output


def test_import_writes_the_output_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIXTURES)
    target = tmp_path / "entries.yaml"
    result = run(["import-az-ml", "cluster-low-priority.yml", "--output", str(target)])
    assert result.exit_code == 0
    assert result.stdout == ""
    assert target.read_text(encoding="utf-8").splitlines()[2:5] == [
        "amlkit:clusters:", "- name: low-pri-example", "  size: STANDARD_DS3_v2"]
    assert result.stderr.splitlines()[-1] == f"Wrote 1 cluster(s), 0 instance(s) and 0 attached compute(s) to {target}"


def test_the_import_summary_counts_attached_computes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIXTURES)
    target = tmp_path / "entries.yaml"
    result = run(["import-az-ml", "cluster-low-priority.yml", "instance-schedule.yml", "attached-kubernetes.yml",
                  "--output", str(target)])
    assert result.exit_code == 0, result.output
    assert "amlkit:attached:" in target.read_text(encoding="utf-8")
    assert result.stderr.splitlines()[-1] == f"Wrote 1 cluster(s), 1 instance(s) and 1 attached compute(s) to {target}"


@pytest.mark.parametrize("to_file", [False, True], ids=["stdout", "output-file"])
def test_import_strict_fails_and_writes_nothing_when_a_key_was_not_imported(monkeypatch: pytest.MonkeyPatch,
                                                                          tmp_path: Path, to_file: bool) -> None:
    monkeypatch.chdir(FIXTURES)
    target = tmp_path / "entries.yaml"
    result = run(["import-az-ml", "instance-schedule.yml", "--strict", *(["-o", str(target)] if to_file else [])])
    assert result.exit_code == 2
    assert result.stdout == "" and not target.exists()
    assert result.stderr.splitlines()[-1] == ("amlkit: error: 2 key(s) not imported as is (--strict); nothing was "
                                              "written")
    assert ("amlkit: default written out: instance-schedule.yml: enable_node_public_ip: not set: az ml's default is "
            "true") in result.stderr


def test_import_invalid_input_exits_2_with_one_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIXTURES)
    result = run(["import-az-ml", "cluster-bad-size.yml"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == ("amlkit: error: cluster-bad-size.yml: size: got 'Standard_Foo9000'; allowed: a known "
                             "Azure VM size name, e.g. Standard_D4ds_v5\n"
                             "1 file(s) could not be imported; nothing was written\n")


def test_import_reports_every_failing_file_and_writes_nothing(monkeypatch: pytest.MonkeyPatch,
                                                              tmp_path: Path) -> None:
    monkeypatch.chdir(FIXTURES)
    target = tmp_path / "out.yaml"
    aks = tmp_path / "aks.yml"  # a compute type amlkit does not manage
    aks.write_text("name: aks\ntype: aks\n", encoding="utf-8")
    result = run(["import-az-ml", "cluster-bad-size.yml", "cluster-low-priority.yml", str(aks), "-o", str(target)])
    assert result.exit_code == 2
    assert not target.exists()
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[0].startswith("amlkit: error: cluster-bad-size.yml: size: got 'Standard_Foo9000'")
    assert lines[1].startswith(f"{aks}: type: got 'aks'; allowed: amlcompute")
    assert lines[2] == "2 file(s) could not be imported; nothing was written"


def test_import_strict_accepts_az_ml_defaults_written_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIXTURES)
    result = run(["import-az-ml", "cluster-low-priority.yml", "--strict"])
    assert result.exit_code == 0
    assert result.stderr.startswith("amlkit: default written out: cluster-low-priority.yml: enable_node_public_ip:")


def test_import_missing_file_exits_2(tmp_path: Path) -> None:
    result = run(["import-az-ml", str(tmp_path / "nope.yml")])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"amlkit: error: {tmp_path / 'nope.yml'}: cannot read the file")


# --- init ------------------------------------------------------------------------------------------


def test_init_non_interactive_writes_a_loadable_stack_file(project: Path) -> None:
    result = run(["init", "--non-interactive", "--project-dir", str(project), "--stack", "prod",
                  "--location", "northeurope", "--cluster-size", "Standard_D4ds_v5"])
    assert result.exit_code == 0, result.output
    path = project / "stacks" / "Pulumi.prod.yaml"
    assert result.stdout == f"Created {path}\nNext: amlkit check --project-dir {project} --stack prod\n"
    spec = load_stack_file(path)
    assert (spec.location, spec.environment, spec.resource_group.name, spec.workspace.name) == (
        "northeurope", "prod", "rg-ml-prod", "mlw-prod")
    assert spec.protect_data is True
    assert [(c.name, c.size, c.min_instances, c.enable_node_public_ip) for c in spec.clusters] == [
        ("cpu-cluster", "Standard_D4ds_v5", 0, False)]
    assert spec.workspace.public_network_access == "disabled"


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
@pytest.mark.slow
def test_init_output_passes_the_check_it_suggests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stack: str) -> None:
    """A new project (amlkit's program, no policy config of its own) gets the pack's defaults: no stack
    named dev, staging or prod inherits amlkit's sample configs."""
    (tmp_path / "Pulumi.yaml").write_text("name: my-ml\nruntime: python\nstackConfigDir: stacks\n", encoding="utf-8")
    (tmp_path / "__main__.py").write_text((ROOT / "__main__.py").read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    created = run(["init", "--non-interactive", "--stack", stack])
    assert created.exit_code == 0, created.output
    suggested = created.stdout.splitlines()[-1]
    assert suggested == f"Next: amlkit check --project-dir . --stack {stack}"
    from amlkit import cli

    checked = CliRunner().invoke(cli.app, suggested.removeprefix("Next: amlkit ").split())
    assert checked.exit_code == 0, checked.output
    assert "    Policy config: pack defaults\n" in checked.stdout
    assert checked.stdout.splitlines()[-1].startswith("Summary: 1 stack, 0 mandatory, ")


def test_init_interactive_reprompts_on_bad_answers(project: Path) -> None:
    answers = "\n".join(["staging", "West Europe", "westeurope", "", "", "x", "mlw-stg", "Standard_Foo", ""]) + "\n"
    result = run(["init", "--project-dir", str(project)], input=answers)
    assert result.exit_code == 0, result.output
    assert ("Error: got 'West Europe'; allowed: an Azure public region name such as westeurope, or a name listed in "
            "amlkit:extraRegions; did you mean 'westeurope'?") in result.output
    assert ("Error: got 'x'; allowed: 3-33 letters, digits, hyphens and underscores, starting with a letter or "
            "digit") in result.output
    assert "Error: got 'Standard_Foo'; allowed: a known Azure VM size name, e.g. Standard_D4ds_v5" in result.output
    spec = load_stack_file(project / "stacks" / "Pulumi.staging.yaml")
    assert (spec.location, spec.environment, spec.resource_group.name, spec.workspace.name) == (
        "westeurope", "staging", "rg-ml-staging", "mlw-stg")
    assert spec.clusters[0].size == "Standard_D4ds_v5"


@pytest.mark.parametrize(("flag", "value", "message"), [
    ("--cluster-size", "Standard_Foo", "amlkit:clusters[0].size: got 'Standard_Foo'; allowed: a known Azure VM size "
     "name, e.g. Standard_D4ds_v5"),
    ("--cluster-size", "Standard_NC6", "amlkit:clusters[0].size: got 'Standard_NC6': retired on 2023-09-06 (its "
     "successors: NCasT4_v3), so the stack would fail its own check; allowed: a size of the default approved series "
     "(`amlkit sizes --approved`), e.g. Standard_D4ds_v5"),
    ("--workspace-name", "-bad", "amlkit:workspace.name: got '-bad'; allowed: 3-33 letters, digits, hyphens and "
     "underscores, starting with a letter or digit"),
    ("--stack", "a/b", "stack: got 'a/b'; allowed: 1-100 letters, digits, '-', '_' or '.'"),
    ("--environment", "Prod", "amlkit:environment: got 'Prod'; allowed: 1-63 lowercase letters, digits, '-' or '_'"),
])
def test_init_bad_flag_exits_2(project: Path, flag: str, value: str, message: str) -> None:
    result = run(["init", "--non-interactive", "--project-dir", str(project), flag, value])
    assert result.exit_code == 2
    assert result.stderr == f"amlkit: error: {message}\n"
    assert not (project / "stacks").exists()


def test_init_never_overwrites_without_force(project: Path) -> None:
    path = project / "stacks" / "Pulumi.dev.yaml"
    path.parent.mkdir()
    path.write_text("config: {}\n", encoding="utf-8")
    result = run(["init", "--non-interactive", "--project-dir", str(project)])
    assert result.exit_code == 2
    assert result.stderr == f"amlkit: error: {path} already exists; pass --force to overwrite it\n"
    assert path.read_text(encoding="utf-8") == "config: {}\n"
    forced = run(["init", "--non-interactive", "--project-dir", str(project), "--force"])
    assert forced.exit_code == 0
    assert load_stack_file(path).environment == "dev"


def test_init_without_stack_config_dir_writes_next_to_pulumi_yaml(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: p\nruntime: python\n", encoding="utf-8")
    result = run(["init", "--non-interactive", "--project-dir", str(tmp_path), "--stack", "dev"])
    assert result.exit_code == 0
    assert (tmp_path / "Pulumi.dev.yaml").is_file()


def test_init_outside_a_project_exits_2(tmp_path: Path) -> None:
    result = run(["init", "--non-interactive", "--project-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr == (f"amlkit: error: {tmp_path}: no Pulumi.yaml (run amlkit init in a Pulumi project, or "
                             "pass --project-dir)\n")


# --- stacks_from_files -----------------------------------------------------------------------------


def test_stacks_are_grouped_by_project(tmp_path: Path) -> None:
    root, other = tmp_path / "platform", tmp_path / "platform" / "examples" / "team"
    (root / "stacks").mkdir(parents=True)
    other.mkdir(parents=True)
    (root / "Pulumi.yaml").write_text("name: a\nruntime: python\nstackConfigDir: stacks\n", encoding="utf-8")
    (other / "Pulumi.yaml").write_text("name: b\nruntime: python\n", encoding="utf-8")
    files = [root / "stacks" / "Pulumi.prod.yaml", root / "stacks" / "Pulumi.dev.yaml", other / "Pulumi.team.yaml"]
    for file in files:
        file.write_text("config: {}\n", encoding="utf-8")
    assert stacks_from_files([*files, files[0]]) == {root.resolve(): ["dev", "prod"], other.resolve(): ["team"]}


def test_a_stack_file_outside_the_stack_config_dir_is_refused(project: Path) -> None:
    stray = project / "Pulumi.dev.yaml"
    stray.write_text("config: {}\n", encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        stacks_from_files([stray])
    assert str(caught.value) == (f"{stray}: not a stack file of the project {project.resolve()} (its stack files "
                                 f"live in {(project / 'stacks').resolve()})")


def test_missing_and_misnamed_files_are_refused(project: Path) -> None:
    with pytest.raises(UsageError, match=r"Pulumi\.gone\.yaml: no such file$"):
        stacks_from_files([project / "stacks" / "Pulumi.gone.yaml"])
    (project / "stacks").mkdir()
    odd = project / "stacks" / "Pulumi.dev.yml"
    odd.write_text("config: {}\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"a stack file must be named Pulumi\.<stack>\.yaml \(Pulumi ignores any "
                                         r"other name, such as Pulumi\.<stack>\.yml\)$"):
        stacks_from_files([odd])


def test_no_project_above_the_file_is_refused(tmp_path: Path) -> None:
    lonely = tmp_path / "Pulumi.dev.yaml"
    lonely.write_text("config: {}\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"no Pulumi\.yaml in this directory or above it$"):
        stacks_from_files([lonely])


PLATFORM = Path(__file__).resolve().parent / "fixtures" / "platform_components"
PLATFORM_STACKS = ["badfile", "crash", "dev", "min2", "wrongtype"]


def test_program_project_and_policy_config_files_map_to_every_stack_of_their_project(tmp_path: Path) -> None:
    project = tmp_path / "platform"
    shutil.copytree(PLATFORM, project)
    (project / "policy-config").mkdir()
    (project / "policy-config" / "dev.json").write_text("{}", encoding="utf-8")
    (project / "lib").mkdir()
    (project / "lib" / "helpers.py").write_text("", encoding="utf-8")
    everything = {project.resolve(): PLATFORM_STACKS}
    assert stacks_from_files([project / "__main__.py"]) == everything
    assert stacks_from_files([project / "lib" / "helpers.py"]) == everything
    assert stacks_from_files([project / "Pulumi.yaml"]) == everything
    assert stacks_from_files([project / "policy-config" / "dev.json"]) == everything
    assert stacks_from_files([project / "stacks" / "Pulumi.dev.yaml", project / "__main__.py"]) == everything
    assert stacks_from_files([project / "stacks" / "Pulumi.dev.yaml"]) == {project.resolve(): ["dev"]}


def test_a_py_file_outside_any_project_is_skipped_other_files_are_refused(tmp_path: Path) -> None:
    script = tmp_path / "tool.py"
    script.write_text("", encoding="utf-8")
    assert stacks_from_files([script]) == {}
    stray = tmp_path / "settings.json"
    stray.write_text("{}", encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        stacks_from_files([stray])
    assert str(caught.value) == (f"{stray}: not a file amlkit reviews; allowed: a stack file Pulumi.<stack>.yaml, "
                                 "Pulumi.yaml, a program's .py file, a project's amlkit-lookups.yaml or "
                                 "policy-config/<stack>.json")


@pytest.mark.slow
def test_check_on_a_changed_program_file_reviews_every_stack_of_its_project(tmp_path: Path) -> None:
    from amlkit import cli

    project = tmp_path / "platform"
    shutil.copytree(PLATFORM, project, ignore=shutil.ignore_patterns("Pulumi.badfile.yaml", "Pulumi.crash.yaml",
                                                                      "Pulumi.wrongtype.yaml"))
    result = CliRunner().invoke(cli.app, ["check", str(project / "__main__.py"), "-f", "json"])
    assert result.exit_code == 1  # min2 keeps a node warm: mandatory
    assert [s["stack"] for s in json.loads(result.stdout)["stacks"]] == ["dev", "min2"]
    script = tmp_path / "tool.py"
    script.write_text("", encoding="utf-8")
    skipped = CliRunner().invoke(cli.app, ["check", str(script)])
    assert (skipped.exit_code, skipped.stderr) == (
        0, "amlkit: nothing to review: none of the files belongs to a Pulumi project with stacks\n")


# --- pre-commit hook -------------------------------------------------------------------------------

HOOKS = Path(__file__).resolve().parents[1] / ".pre-commit-hooks.yaml"


def hook(name: str = "amlkit-check") -> dict[str, object]:
    hooks = yaml.safe_load(HOOKS.read_text(encoding="utf-8"))
    assert [h["id"] for h in hooks] == ["amlkit-check", "amlkit-fix"]  # amlkit-fix: tests/test_fix_cmd.py
    return next(h for h in hooks if h["id"] == name)


def test_hook_runs_amlkit_check_on_the_files() -> None:
    entry = hook()
    assert entry["entry"] == "amlkit check"
    assert entry["language"] == "python"
    assert entry["pass_filenames"] is True
    assert entry["require_serial"] is True
    assert set(entry) == {"id", "name", "description", "entry", "language", "files", "pass_filenames",
                          "require_serial"}


@pytest.mark.parametrize(("path", "matches"), [
    ("stacks/Pulumi.dev.yaml", True),
    ("Pulumi.prod.yaml", True),
    ("infra/ml/stacks/Pulumi.team-a.eu.yaml", True),
    ("Pulumi.yaml", True),
    ("infra/ml/Pulumi.yaml", True),
    ("__main__.py", True),
    ("infra/ml/platform_config.py", True),
    ("policy-config/prod.json", True),
    ("infra/ml/policy-config/nonprod.json", True),
    ("amlkit-lookups.yaml", True),
    ("infra/ml/amlkit-lookups.yaml", True),
    ("infra/ml/my-amlkit-lookups.yaml", False),
    ("PulumiPolicy.yaml", False),
    ("infra/ml/policy-config/nested/prod.json", False),
    ("package.json", False),
    ("main.pyc", False),
    ("stacks/Pulumi.dev.yml", False),
    ("stacks/Pulumi.dev.yaml.bak", False),
    ("stacks/MyPulumi.dev.yaml", False),
    ("Pulumi.dev/settings.yaml", False),
    ("policies/config/prod.json", False),
])
def test_hook_pattern(path: str, matches: bool) -> None:
    # pre-commit applies `files` with re.search to repository-relative paths with forward slashes
    assert bool(re.search(str(hook()["files"]), path)) is matches


def test_a_changed_lookups_file_reviews_every_stack_of_its_project(tmp_path: Path) -> None:
    shutil.copytree(HOOKS.parent / "examples" / "platform-repo", tmp_path / "p")
    lookups = tmp_path / "p" / "amlkit-lookups.yaml"
    lookups.write_text("version: 1\n", encoding="utf-8")
    assert stacks_from_files([lookups]) == {lookups.parent: ["nonprod", "prod"]}
    stray = tmp_path / "amlkit-lookups.yaml"  # in no project
    stray.write_text("version: 1\n", encoding="utf-8")
    assert stacks_from_files([stray]) == {}


def test_the_repository_sample_stacks_belong_to_the_root_project() -> None:
    root = HOOKS.parent
    files = [root / "stacks" / f"Pulumi.{name}.yaml" for name in ("prod", "dev")]
    assert stacks_from_files(files) == {root: ["dev", "prod"]}


INTERRUPTED = [  # (command line, what raises Ctrl-C inside it)
    (["pack-path"], "amlkit.commands.policy_pack_dir"),
    (["import-az-ml", "instance-schedule.yml"], "amlkit.importer.import_files"),
    (["init", "--non-interactive"], "amlkit.scaffold.stack_file_path"),
    (["sizes"], "amlkit.sizes_cmd.all_sizes"),
]


@pytest.mark.parametrize(("args", "target"), INTERRUPTED, ids=[c[0][0] for c in INTERRUPTED])
def test_ctrl_c_exits_130_in_every_command(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, args: list[str],
                                           target: str) -> None:
    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.chdir(FIXTURES if args[0] == "import-az-ml" else tmp_path)
    monkeypatch.setattr(target, interrupted)
    from amlkit import cli

    result = CliRunner().invoke(cli.app, args)
    assert (result.exit_code, result.stderr.splitlines()[-1]) == (130, "amlkit: error: interrupted")
