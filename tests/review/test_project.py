"""Reading a Pulumi project and its stacks as the CLI does."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from amlkit.errors import ConfigError, UsageError
from amlkit.review.pack.info import default_pack_dir
from amlkit.review.project import SECRET_PLACEHOLDER, list_stacks, load_project, load_stack_config, project_root
from tests.review.helpers import FAULTY, RAW


def test_project_with_main_and_stack_config_dir():
    project = load_project(FAULTY)
    assert (project.name, project.main, project.stack_config_dir) == ("faulty", FAULTY / "program",
                                                                      FAULTY / "stacks")
    assert list_stacks(FAULTY) == ["config-error", "crash", "duplicate", "hang", "ok", "raise"]


def test_stack_config_as_the_cli_passes_it(tmp_path):
    (tmp_path / "Pulumi.yaml").write_text("name: demo\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text(
        "config:\n  size: 3\n  demo:flag: true\n  amlkit:environment: prod\n"
        "  demo:obj:\n    a: [1, 2]\n  demo:pw:\n    secure: AAAbase64\n"
        "  demo:nested:\n    inner:\n      secure: AAA\n")
    config = load_stack_config(load_project(tmp_path), "dev")
    assert config.values == {
        "demo:size": "3", "demo:flag": "true", "amlkit:environment": "prod", "demo:obj": json.dumps({"a": [1, 2]}),
        "demo:pw": SECRET_PLACEHOLDER, "demo:nested": json.dumps({"inner": SECRET_PLACEHOLDER}),
    }
    assert config.secret_keys == ("demo:pw", "demo:nested")
    assert config.environment() == "prod"


def test_environment_defaults_to_the_stack_name():
    assert load_stack_config(load_project(RAW), "dev").environment() == "dev"


def test_invalid_stack_file_names_file_and_key(tmp_path):
    (tmp_path / "Pulumi.yaml").write_text("name: demo\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: [1, 2]\n")
    with pytest.raises(ConfigError) as error:
        load_stack_config(load_project(tmp_path), "dev")
    assert (error.value.file, error.value.key_path) == (str(tmp_path / "Pulumi.dev.yaml"), "config")
    (tmp_path / "Pulumi.dev.yaml").write_text("config:\n  demo:x: [unclosed\n")
    with pytest.raises(ConfigError, match=r"Pulumi.dev.yaml:2:11: not valid YAML: a list in \[ \] that is not closed"):
        load_stack_config(load_project(tmp_path), "dev")


def test_unknown_stack_and_missing_project(tmp_path):
    with pytest.raises(UsageError, match="no Pulumi.yaml"):
        load_project(tmp_path)
    (tmp_path / "Pulumi.yaml").write_text("runtime: python\n")
    with pytest.raises(ConfigError, match=r"Pulumi.yaml: name: required"):
        load_project(tmp_path)
    with pytest.raises(UsageError, match="unknown stack 'nope'"):
        load_stack_config(load_project(RAW), "nope")


NAMESPACES = [
    ("amlkt", "'amlkt'; did you mean 'amlkit'?"),
    ("amlkti", "'amlkti'; did you mean 'amlkit'?"),
    ("AMLKIT", "'AMLKIT'; did you mean 'amlkit'?"),
    ("aml-kit", "'aml-kit'; did you mean 'amlkit'?"),
]


@pytest.mark.parametrize(("namespace", "quoted"), NAMESPACES, ids=[n for n, _ in NAMESPACES])
def test_a_near_miss_of_the_amlkit_namespace_is_an_error_naming_file_key_and_namespace(tmp_path, namespace, quoted):
    (tmp_path / "Pulumi.yaml").write_text("name: demo\n")
    (tmp_path / "Pulumi.dev.yaml").write_text(f"config:\n  amlkit:environment: dev\n  {namespace}:tags: {{}}\n")
    with pytest.raises(ConfigError) as error:
        load_stack_config(load_project(tmp_path), "dev")
    assert (error.value.file, error.value.key_path) == (str(tmp_path / "Pulumi.dev.yaml"), f"config.{namespace}:tags")
    assert error.value.problem == f"unknown config namespace {quoted} (only amlkit: keys configure amlkit)"


@pytest.mark.parametrize("project", ["amlkits", "platform"])
def test_other_namespaces_are_legitimate(tmp_path, project):
    """Providers, the project's own namespace (even one close to amlkit) and other packages."""
    (tmp_path / "Pulumi.yaml").write_text(f"name: {project}\n")
    keys = ["azure-native:location", "azure:location", f"{project}:tags", "amlkit-platform:x", "aws:region", "aml:x"]
    (tmp_path / "Pulumi.dev.yaml").write_text("config:\n" + "".join(f"  {key}: v\n" for key in keys))
    assert sorted(load_stack_config(load_project(tmp_path), "dev").values) == sorted(keys)


@pytest.mark.parametrize("reader", ["review", "init", "pre-commit"])
@pytest.mark.parametrize("file_name", ["Pulumi.yaml", "Pulumi.yml"])
def test_every_command_reads_pulumi_yaml_through_load_project(tmp_path, reader, file_name):
    from amlkit.commands import project_of
    from amlkit.scaffold import stack_config_dir

    read = {
        "review": lambda: load_project(tmp_path).stack_config_dir,
        "init": lambda: stack_config_dir(tmp_path),
        "pre-commit": lambda: project_of(tmp_path / "stacks" / "Pulumi.dev.yaml"),
    }[reader]
    (tmp_path / file_name).write_text("name: p\nruntime: python\nstackConfigDir: [stacks]\n")
    with pytest.raises(ConfigError) as caught:
        read()
    assert str(caught.value) == (f"{tmp_path / file_name}: stackConfigDir: got a list; allowed: a directory path "
                                 "relative to Pulumi.yaml")
    (tmp_path / file_name).write_text("runtime: python\nstackConfigDir: stacks\n")
    with pytest.raises(ConfigError) as caught:
        read()
    assert str(caught.value) == f"{tmp_path / file_name}: name: required: the project name (a non-empty string)"


def test_a_stack_file_named_yml_is_listed_as_ignored_not_as_a_stack(tmp_path):
    from amlkit.review.project import ignored_stack_files

    (tmp_path / "Pulumi.yaml").write_text("name: p\nruntime: python\n", encoding="utf-8")
    for name in ("Pulumi.dev.yaml", "Pulumi.prod.yml", "Pulumi.qa.YAML", "Pulumi.notes.txt"):
        (tmp_path / name).write_text("config: {}\n", encoding="utf-8")
    project = load_project(tmp_path)
    assert list_stacks(tmp_path) == ["dev"]
    assert [p.name for p in ignored_stack_files(project)] == ["Pulumi.prod.yml", "Pulumi.qa.YAML"]


def test_the_review_warns_about_an_ignored_stack_file(tmp_path, capsys):
    from amlkit.review import engine

    shutil.copytree(FAULTY, tmp_path / "p")
    (tmp_path / "p" / "stacks" / "Pulumi.staging.yml").write_text("config: {}\n", encoding="utf-8")
    with pytest.raises(UsageError):  # stopped before any work: only the warning matters here
        engine.review(tmp_path / "p", ["nosuch"])
    assert capsys.readouterr().err == ("amlkit: warning: stacks/Pulumi.staging.yml is ignored: a stack file must be "
                                       "named Pulumi.<stack>.yaml (Pulumi ignores this one too)\n")


@pytest.mark.parametrize(("runtime", "name"), [
    pytest.param("nodejs", "nodejs", id="nodejs"),
    pytest.param("yaml", "yaml", id="yaml"),
    pytest.param("{name: go, options: {binary: app}}", "go", id="mapping"),
])
def test_a_runtime_other_than_python_is_a_usage_error_naming_it_and_the_pack(tmp_path, runtime, name):
    (tmp_path / "Pulumi.yaml").write_text(f"name: p\nruntime: {runtime}\n", encoding="utf-8")
    with pytest.raises(UsageError) as raised:
        load_project(tmp_path)
    assert str(raised.value) == (f"{tmp_path.resolve() / 'Pulumi.yaml'}: runtime {name!r}: amlkit reviews Python "
                                 "programs offline only; review this program with the Pulumi CLI: pulumi preview "
                                 f"--policy-pack {default_pack_dir()}")


@pytest.mark.parametrize("runtime", ["python", "{name: python, options: {toolchain: pip}}", None])
def test_a_python_runtime_or_none_is_read(tmp_path, runtime):
    (tmp_path / "Pulumi.yaml").write_text("name: p\n" + (f"runtime: {runtime}\n" if runtime else ""), encoding="utf-8")
    assert load_project(tmp_path).name == "p"


def test_the_project_root_is_the_nearest_directory_with_pulumi_yaml(tmp_path):
    (tmp_path / "Pulumi.yaml").write_text("name: p\nruntime: python\n", encoding="utf-8")
    deep = tmp_path / "stacks" / "team"
    deep.mkdir(parents=True)
    assert project_root(deep) == tmp_path.resolve()
    assert project_root(tmp_path) == tmp_path
    outside = tmp_path.parent / f"{tmp_path.name}-none"
    outside.mkdir()
    assert project_root(outside) == outside


OUTSIDE = "https://user:ghp_canary-token@github.com\n"  # a ~/.git-credentials line: never read, never quoted


def _linked_project(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "Pulumi.yaml").write_text("name: demo\n")
    (tmp_path / "credentials").write_text(OUTSIDE)
    return tmp_path / "p"


@pytest.mark.parametrize("target", ["absolute", "relative"])
def test_a_stack_file_linking_out_of_the_project_is_refused_naming_link_and_target_only(tmp_path, target):
    project = _linked_project(tmp_path)
    link = project / "Pulumi.dev.yaml"
    link.symlink_to(tmp_path / "credentials" if target == "absolute" else Path("..") / "credentials")
    with pytest.raises(ConfigError) as error:
        load_stack_config(load_project(project), "dev")
    assert str(error.value) == (f"{link}: a symbolic link to {tmp_path / 'credentials'}, outside the project; "
                                f"allowed: a file inside the project ({project})")
    assert (error.value.exit_code, error.value.value) == (2, None)


def test_a_link_inside_the_project_or_its_stack_config_dir_is_read(tmp_path):
    project = _linked_project(tmp_path)
    (project / "Pulumi.yaml").write_text("name: demo\nstackConfigDir: ../shared\n")
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "base.yaml").write_text("config:\n  demo:x: 1\n")
    (tmp_path / "shared" / "Pulumi.dev.yaml").symlink_to("base.yaml")
    assert load_stack_config(load_project(project), "dev").values == {"demo:x": "1"}


@pytest.mark.parametrize(("text", "kind"), [(OUTSIDE, "text"), ("- a\n- b\n", "a list"), ("42\n", "a number")],
                         ids=["text", "list", "number"])
def test_a_stack_file_that_is_no_mapping_is_never_quoted(tmp_path, text, kind):
    project = _linked_project(tmp_path)
    (project / "Pulumi.dev.yaml").write_text(text)
    with pytest.raises(ConfigError) as error:
        load_stack_config(load_project(project), "dev")
    assert str(error.value) == f"{project / 'Pulumi.dev.yaml'}: the document is {kind}; allowed: a YAML mapping"
    assert error.value.value is None


def test_a_named_pipe_stack_file_is_a_config_error_not_an_unknown_stack(tmp_path):
    project = _linked_project(tmp_path)
    os.mkfifo(project / "Pulumi.dev.yaml")
    with pytest.raises(ConfigError, match=r"Pulumi.dev.yaml: not a regular file \(a named pipe\); allowed: a regular "
                                          r"file$"):
        load_stack_config(load_project(project), "dev")


def test_a_missing_main_is_a_config_error_of_pulumi_yaml(tmp_path):
    from amlkit.review.project import check_main

    (tmp_path / "Pulumi.yaml").write_text("name: demo\nmain: src/\n")
    project = load_project(tmp_path)
    with pytest.raises(ConfigError) as error:
        check_main(project)
    assert str(error.value) == (f"{tmp_path / 'Pulumi.yaml'}: main: 'src' does not exist; allowed: the program's "
                                "directory or file, relative to Pulumi.yaml")
    assert error.value.exit_code == 2
    (tmp_path / "src").mkdir()
    check_main(project)
