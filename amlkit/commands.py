"""Adoption commands for platform repos: `init`, `import-az-ml`, `pack-path`, added to a Typer app.

`register(app)` adds the commands to an existing Typer app (amlkit's CLI calls it once). It leaves a
command the app already has alone, so an app that defines its own `pack-path` keeps it.
`stacks_from_files(paths)` maps changed files (as pre-commit passes them: stack files, `Pulumi.yaml`,
program `.py` files, `amlkit-lookups.yaml`, `policy-config/*.json`) to the stacks of their Pulumi project, for
`amlkit check FILE...`.

Exit codes follow the CLI: 0 done, 2 bad usage or bad input (one message on stderr), 3 amlkit itself
failed (the policy pack is missing, or an unexpected error).
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated, Any

import typer

from amlkit.errors import ConfigError, UsageError
from amlkit.guard import guarded
from amlkit.review.project import PROJECT_FILES, find_project_file, list_stacks, load_project
from amlkit.review.run.lookups import FILE_NAME as LOOKUPS_FILE
from amlkit.stackfile import stack_name

__all__ = [
    "POLICY_CONFIG_DIR", "import_az_ml", "init", "pack_path", "policy_pack_dir", "project_of", "register",
    "stacks_from_files",
]

# --- shared ----------------------------------------------------------------------------------------


# --- pack-path -------------------------------------------------------------------------------------


def policy_pack_dir() -> Path:
    """The installed policy pack (see `amlkit.review.pack.info.default_pack_dir`)."""
    from amlkit.review.pack.info import default_pack_dir

    return default_pack_dir()


def pack_path() -> None:
    """Print the directory of amlkit's policy pack, for `pulumi preview --policy-pack "$(amlkit pack-path)"`."""
    with guarded():
        typer.echo(str(policy_pack_dir()))


# --- import-az-ml ----------------------------------------------------------------------------------


def import_az_ml(
    files: Annotated[list[Path], typer.Argument(metavar="FILE...", help="az ml compute YAML files (type "
                                                "amlcompute, computeinstance, kubernetes, virtualmachine or "
                                                "synapsespark).", dir_okay=False)],
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write the stack entries to this file "
                                                "instead of stdout.", dir_okay=False)] = None,
    vnet_scope: Annotated[str | None, typer.Option(
        "--vnet-scope", help="/subscriptions/<guid>/resourceGroups/<rg> of the VNet, to turn subnets given by "
        "name (vnet_name + subnet) into full ARM ids.")] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 2, writing nothing, when any key was not imported "
                                         "as is (az ml defaults written out are not counted).")] = False,
) -> None:
    """Convert `az ml compute` YAML files into `amlkit:clusters` / `amlkit:instances` / `amlkit:attached` stack
    entries (clusters: amlcompute; instances: computeinstance; attached computes: kubernetes, virtualmachine,
    synapsespark).

    Keys that are not imported are listed on stderr with their file, and so are az ml defaults written
    out; passwords are never copied. Every file is tried: if any fails, each failing file is listed and
    nothing is written (exit 2).
    """
    from amlkit.importer import DEFAULT, import_files

    with guarded():
        result = import_files(files, vnet_scope=vnet_scope)
        for note in result.notes:
            what = "default written out" if note.kind == DEFAULT else "not imported as is"
            typer.echo(f"amlkit: {what}: {note}", err=True)
        if strict and result.not_imported:  # refused before anything is written
            raise UsageError(f"{len(result.not_imported)} key(s) not imported as is (--strict); nothing was written")
        text = result.to_yaml()
        if output is None:
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            _write(output, text)
            typer.echo(f"Wrote {len(result.clusters)} cluster(s), {len(result.instances)} instance(s) and "
                       f"{len(result.attached)} attached compute(s) to {output}", err=True)


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"{path}: cannot write: {error.strerror or error}") from None


# --- init ------------------------------------------------------------------------------------------


def _prompt(question: str, default: str, check: Callable[[str], str]) -> str:
    """Ask until the answer passes `check` (its message is shown on a bad answer)."""

    def value_proc(value: str) -> str:
        try:
            return check(value.strip())
        except ConfigError as error:
            raise typer.BadParameter(error.problem) from None

    answer: str = typer.prompt(question, default=default, value_proc=value_proc)
    return answer


def _answer(name: str, given: str | None, question: str, default: str, interactive: bool) -> str:
    from amlkit.scaffold import CHECKS

    if given is not None:
        return CHECKS[name](given)
    if interactive:
        return _prompt(question, default, CHECKS[name])
    return CHECKS[name](default)


def init(
    stack: Annotated[str | None, typer.Option("--stack", "-s", help="Stack name (default: dev).")] = None,
    location: Annotated[str | None, typer.Option("--location", help="Azure region, e.g. westeurope.")] = None,
    environment: Annotated[str | None, typer.Option("--environment", help="Environment name (default: the "
                                                    "stack name).")] = None,
    resource_group: Annotated[str | None, typer.Option("--resource-group", help="Resource group name (default: "
                                                       "rg-ml-<environment>).")] = None,
    workspace_name: Annotated[str | None, typer.Option("--workspace-name", help="Workspace name (default: "
                                                       "mlw-<environment>).")] = None,
    cluster_size: Annotated[str | None, typer.Option("--cluster-size", help="VM size of the CPU cluster "
                                                     "(default: Standard_D4ds_v5).")] = None,
    non_interactive: Annotated[bool, typer.Option("--non-interactive", help="Never prompt: use flags and "
                                                  "defaults; a bad value exits 2.")] = False,
    project_dir: Annotated[Path, typer.Option("--project-dir", "-C", help="The Pulumi project directory.",
                                              file_okay=False)] = Path("."),
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing stack file.")] = False,
) -> None:
    """Create a stack file `Pulumi.<stack>.yaml` with secure defaults, asking for each value."""
    from amlkit import scaffold

    with guarded():
        ask = not non_interactive
        name = _answer("stack", stack, "Stack name", "dev", ask)
        path = scaffold.stack_file_path(project_dir, name)
        if path.exists() and not force:
            raise UsageError(f"{path} already exists; pass --force to overwrite it")
        region = _answer("location", location, "Azure region", scaffold.DEFAULT_LOCATION, ask)
        env = _answer("environment", environment, "Environment name", scaffold.default_environment(name), ask)
        answers = scaffold.StackAnswers(
            stack=name,
            location=region,
            environment=env,
            resource_group=_answer("resource_group", resource_group, "Resource group",
                                   scaffold.default_resource_group(env), ask),
            workspace_name=_answer("workspace_name", workspace_name, "Workspace name",
                                   scaffold.default_workspace_name(env), ask),
            cluster_size=_answer("cluster_size", cluster_size, "VM size of the CPU cluster",
                                 scaffold.DEFAULT_CLUSTER_SIZE, ask),
        )
        text = scaffold.render_stack_file(answers)
        _check_loads(name, text)
        scaffold.write_stack_file(path, text, force)
        typer.echo(f"Created {path}\nNext: amlkit check --project-dir {project_dir} --stack {name}")


def _check_loads(stack: str, text: str) -> None:
    """Fail closed: the rendered file must load as a stack file before it is written."""
    from amlkit.stackfile import load_stack_file

    with tempfile.TemporaryDirectory() as directory:
        candidate = Path(directory) / f"Pulumi.{stack}.yaml"
        candidate.write_text(text, encoding="utf-8")
        load_stack_file(candidate)


# --- stack files (pre-commit) ----------------------------------------------------------------------


def project_of(stack_file: Path) -> Path:
    """The directory of the nearest Pulumi.yaml above `stack_file` whose stackConfigDir holds it."""
    path = stack_file.resolve()
    for directory in path.parents:
        if find_project_file(directory) is None:
            continue
        config_dir = load_project(directory).stack_config_dir.resolve()
        if config_dir != path.parent:
            raise UsageError(f"{stack_file}: not a stack file of the project {directory} (its stack files live "
                             f"in {config_dir})")
        return directory
    raise UsageError(f"{stack_file}: no Pulumi.yaml in this directory or above it")


POLICY_CONFIG_DIR = "policy-config"  # the project's own policy configs (see amlkit.review.engine)


def stacks_from_files(paths: Iterable[str | Path]) -> dict[Path, list[str]]:
    """Changed files -> {project directory: sorted stack names to review}, e.g. for `amlkit check FILE...`.

    A stack file `Pulumi.<stack>.yaml` maps to that stack of its project. `Pulumi.yaml`, a program's
    `.py` file, the project's `amlkit-lookups.yaml` and a `policy-config/<name>.json` of a project map to
    EVERY stack of the project. A `.py`
    file in no Pulumi project is not a program: it is left out (so is a project without stacks).
    """
    projects: dict[Path, set[str] | None] = {}  # None: every stack of the project
    for item in paths:
        path = Path(item)
        if not path.is_file():
            raise UsageError(f"{path}: no such file")
        project, stack = _target(path)
        if project is None:
            continue
        if stack is None or projects.get(project, set()) is None:
            projects[project] = None
        else:
            projects.setdefault(project, set()).add(stack)  # type: ignore[union-attr]
    result = {}
    for project, names in sorted(projects.items()):
        stacks = sorted(names) if names is not None else _all_stacks(project)
        if stacks:
            result[project] = stacks
    return result


def _target(path: Path) -> tuple[Path | None, str | None]:
    """(project, stack) a changed file stands for; stack None = every stack; project None = none."""
    if path.name in PROJECT_FILES:
        return path.resolve().parent, None
    if path.name == LOOKUPS_FILE:  # its pins answer every stack's lookups
        project = path.resolve().parent
        return (project if find_project_file(project) is not None else None), None
    if path.name.startswith("Pulumi."):
        if not path.name.endswith(".yaml"):
            raise UsageError(f"{path}: a stack file must be named Pulumi.<stack>.yaml (Pulumi ignores any other "
                             "name, such as Pulumi.<stack>.yml)")
        return project_of(path), stack_name(path)
    if path.suffix == ".py":
        return _enclosing_project(path), None
    if path.suffix == ".json" and path.resolve().parent.name == POLICY_CONFIG_DIR:
        project = path.resolve().parent.parent
        if find_project_file(project) is not None:
            return project, None
    raise UsageError(f"{path}: not a file amlkit reviews; allowed: a stack file Pulumi.<stack>.yaml, Pulumi.yaml, "
                     f"a program's .py file, a project's {LOOKUPS_FILE} or {POLICY_CONFIG_DIR}/<stack>.json")


def _enclosing_project(path: Path) -> Path | None:
    for directory in path.resolve().parents:
        if find_project_file(directory) is not None:
            return directory
    return None


def _all_stacks(project: Path) -> list[str]:
    return list_stacks(project)


# --- registration ----------------------------------------------------------------------------------

_COMMANDS: dict[str, Callable[..., Any]] = {
    "init": init,
    "import-az-ml": import_az_ml,
    "pack-path": pack_path,
}


def _command_names(app: typer.Typer) -> set[str]:
    return {
        info.name or (info.callback.__name__.replace("_", "-") if info.callback else "")
        for info in app.registered_commands
    }


def register(app: typer.Typer) -> None:
    """Add `init`, `import-az-ml` and `pack-path` to `app` (a command it already has is kept)."""
    existing = _command_names(app)
    for name, function in _COMMANDS.items():
        if name not in existing:
            app.command(name)(function)
