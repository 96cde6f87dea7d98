"""The `amlkit` command line's shared option types and report formats (one definition for every command), and
typer's value coercion made lazy (`lazy_coercion`)."""

from __future__ import annotations

import dataclasses
import re
import typing
from enum import Enum, StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

__all__ = [
    "AuditStates", "Base", "Formats", "Jobs", "NoColor", "Output", "Outputs", "PolicyPack", "PolicyPackConfig",
    "PolicyPackConfigs", "PolicyPacks", "ProjectDir", "ReportFormat", "RulesFormat", "StackFiles", "Stacks", "States",
    "Strict", "Timeout", "Verbose", "lazy_coercion",
]


def lazy_coercion() -> bool:
    """Typer (0.29) coerces every parameter of the command it runs, its default included, through a pydantic
    TypeAdapter it builds on first use: importing pydantic and building one adapter costs `amlkit rules` and
    `amlkit sizes` about 0.1 s of their start-up, for a `--format` default that is already an enum member.
    This builds each adapter when a value needs it instead: typer's own `RuntimeParam.coerce` still handles a
    missing value, and a parameter without a custom parser gets what typer's adapter returns for a plain value
    (`_as_typer_returns`: an enum member itself, as typer's choice adapter returns it, `coerce_cli_choice`; a
    `str`, `list[str]`, `Path` or number in range) without an adapter. Any other value goes through the adapter
    typer builds, so results and error messages are typer's. Applied once, only when typer's private names are
    there; else typer runs as it ships. Whether it is applied."""
    global _param_types
    try:
        from typer import _coercion, core
    except ImportError:  # pragma: no cover - another typer: as it ships
        return False
    try:
        from typer import _param_types
    except ImportError:  # pragma: no cover - another typer: paths go through its adapter
        _param_types = None
    parameter: Any = getattr(core, "_TyperParameter", None)
    base: Any = getattr(_coercion, "RuntimeParam", None)
    if parameter is None or base is None or not hasattr(_coercion, "build_runtime_param") or not hasattr(
            parameter, "get_runtime_param"):
        return False  # pragma: no cover - another typer: as it ships
    if getattr(parameter, "_amlkit_lazy", False):
        return True

    @dataclasses.dataclass(frozen=True)
    class Lazy(base):  # type: ignore[misc]
        descriptor: Any = None
        built: list[Any] = dataclasses.field(default_factory=list)

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            plain = _NEEDS_TYPER if self.parameter_info.parser else _as_typer_returns(
                self.annotation, self.parameter_info, value, param, ctx)
            if plain is not _NEEDS_TYPER:
                return plain
            if not self.built:
                self.built.append(_coercion.build_runtime_param(self.descriptor))
            return self.built[0]._coerce_value(value, param=param, ctx=ctx)

    def get_runtime_param(self: Any) -> Any:
        if self._runtime_param is None:
            found = self.type_descriptor
            self._runtime_param = Lazy(parameter_info=found.parameter_info, annotation=found.annotation,
                                       descriptor=found)
        return self._runtime_param

    parameter.get_runtime_param = get_runtime_param
    parameter._amlkit_lazy = True
    return True


_NEEDS_TYPER = object()
# command-line text whose number is plain: digits, and for a float a decimal point and digits (anything else, such
# as ` 12`, `1e3` or `inf`, goes through typer's adapter)
_DECIMAL = {int: re.compile(r"[0-9]{1,15}"), float: re.compile(r"[0-9]{1,15}(\.[0-9]{1,15})?")}


def _choice(kind: Any, info: Any, values: list[Any], ctx: Any) -> list[Any]:
    """Each value as typer's choice adapter returns it (`coerce_cli_choice`, what the adapter calls), or
    `_NEEDS_TYPER` where that refuses it (typer's adapter then words the error)."""
    coerce = getattr(_param_types, "coerce_cli_choice", None)
    found: list[Any] = []
    for value in values:
        if any(value is member for member in kind):
            found.append(value)
            continue
        try:
            found.append(_NEEDS_TYPER if coerce is None else coerce(
                value, choices=list(kind), case_sensitive=info.case_sensitive, ctx=ctx))
        except ValueError:
            found.append(_NEEDS_TYPER)
    return found
_param_types: Any = None  # typer's path checks (typer._param_types), when lazy_coercion found them


def _as_typer_returns(kind: Any, info: Any, value: Any, param: Any, ctx: Any) -> Any:
    """What typer's adapter returns for `value` where that is plain, else `_NEEDS_TYPER`: an enum member itself, an
    enum's name or value (one, or a list of them) through typer's own choice coercion; a
    bool or str of exactly that type itself; a Path, or a non-empty str as its Path, through typer's own path checks
    (what its path adapter calls, without pydantic for a Path); an int or float of exactly
    its type within its range (not clamped) itself, and so is plain decimal text of one (`--timeout 600`); a list or
    tuple of strings for `list[str]` as a list. A review's `-s dev`, `-C DIR` and `--timeout` then build no adapter
    (its start-up would import pydantic for them)."""
    if isinstance(kind, type) and issubclass(kind, Enum):
        return _choice(kind, info, [value], ctx)[0]
    if typing.get_origin(kind) is list and len(typing.get_args(kind)) == 1 and isinstance(
            typing.get_args(kind)[0], type) and issubclass(typing.get_args(kind)[0], Enum) and isinstance(
            value, (list, tuple)):  # `-f json -f sarif`
        found = _choice(typing.get_args(kind)[0], info, list(value), ctx)
        return _NEEDS_TYPER if _NEEDS_TYPER in found else found
    if kind is Path:  # typer's path adapter runs typer's own path checks (exists, dir_okay...) on a Path
        check = getattr(_param_types, "coerce_cli_path", None)
        if check is None or info.path_type not in (None, Path) or not (
                isinstance(value, Path) or type(value) is str and value):
            return _NEEDS_TYPER
        return check(value if isinstance(value, Path) else Path(value), info, path_type=Path, param=param, ctx=ctx)
    if kind in (bool, str):
        return value if type(value) is kind else _NEEDS_TYPER
    if kind in (int, float):
        if type(value) is str and _DECIMAL[kind].fullmatch(value):  # `--timeout 600`, as typer's adapter reads it
            value = kind(value)
        plain = (type(value) is kind and not getattr(info, "clamp", False)
                 and (info.min is None or value >= info.min) and (info.max is None or value <= info.max))
        return value if plain else _NEEDS_TYPER
    if typing.get_origin(kind) is list and typing.get_args(kind) == (str,) and isinstance(value, (list, tuple)):
        return list(value) if all(type(item) is str for item in value) else _NEEDS_TYPER
    return _NEEDS_TYPER


lazy_coercion()


class ReportFormat(StrEnum):
    table = "table"
    json = "json"
    sarif = "sarif"
    markdown = "markdown"


class RulesFormat(StrEnum):
    table = "table"
    json = "json"
    markdown = "markdown"


ProjectDir = Annotated[Path, typer.Option("--project-dir", "-C", help="The Pulumi project directory.",
                                          exists=True, file_okay=False, dir_okay=True)]
Stacks = Annotated[list[str] | None, typer.Option(
    "--stack", "-s", metavar="NAME",
    help="Stack to review (repeatable; default: every Pulumi.<stack>.yaml of the project).")]
PolicyPack = Annotated[Path | None, typer.Option("--policy-pack", help="Policy pack directory (default: amlkit's).",
                                                 exists=True, file_okay=False, dir_okay=True)]
PolicyPacks = Annotated[list[Path] | None, typer.Option(
    "--policy-pack", metavar="DIR", exists=True, file_okay=False, dir_okay=True,
    help="Policy pack directory (repeatable: every pack runs on every stack, and each finding names its pack; "
    "default: amlkit's own pack).")]
PolicyPackConfigs = Annotated[list[Path] | None, typer.Option(
    "--policy-pack-config", metavar="FILE|DIR", exists=True, file_okay=True, dir_okay=True,
    help="Policy pack config JSON, or a directory of <stack>.json (else <environment>.json) files: one per "
    "--policy-pack, in the same order, or none (repeatable; the counts must match, as in `pulumi preview`). "
    "Without it amlkit's own pack gets the project's policy-config/<stack>.json when it exists, and every other "
    "pack its defaults.")]
AuditStates = Annotated[list[Path] | None, typer.Option(
    "--state", metavar="FILE", exists=True, dir_okay=False,
    help="Audit this `pulumi stack export` (deployment v3) instead of running the program, as `pulumi policy "
    "analyze --file` does (repeatable, one file per stack): every deployed resource through the packs, with "
    "the same configs, waivers, formats and exit codes. Not a plan: `amlkit preview --state` plans the program "
    "against a state.")]
PolicyPackConfig = Annotated[Path | None, typer.Option(
    "--policy-pack-config", help="Policy pack config JSON, or a directory of <stack>.json (else "
    "<environment>.json) files (default: the project's policy-config/<stack>.json when it exists, else the "
    "pack's defaults).",
    exists=True, file_okay=True, dir_okay=True)]
Output = Annotated[Path | None, typer.Option("--output", "-o", help="Write the report to this file; print a "
                                             "short summary instead.", dir_okay=False)]
Formats = Annotated[list[ReportFormat] | None, typer.Option(
    "--format", "-f", help="Report format (default: table). Repeatable, paired in order with --output: "
    "`-f sarif -o a.sarif -f markdown -o b.md` writes both reports of one review.")]
Outputs = Annotated[list[Path] | None, typer.Option(
    "--output", "-o", dir_okay=False, help="Write the report to this file and print a short summary instead "
    "(repeatable: one per --format, in the same order).")]
Jobs = Annotated[int | None, typer.Option("--jobs", "-j", min=1, metavar="N", help="Stacks reviewed in parallel "
                                          "(default: the CPUs this process may use).")]
Timeout = Annotated[float, typer.Option("--timeout", min=1.0, metavar="SECONDS", help="Seconds allowed per stack.")]
Verbose = Annotated[bool, typer.Option("--verbose", "-v", help="Show tracebacks of failures and the end of a "
                                        "failed pack's stderr.")]
States = Annotated[list[Path] | None, typer.Option(
    "--state", metavar="FILE", exists=True, dir_okay=False,
    help="A `pulumi stack export` of a reviewed stack (repeatable, one per stack): run the program and plan "
    "create, update, replace and delete against it. Without --stack, only the stacks of the given states are "
    "reviewed. To audit a deployed state without the program, use `amlkit check --state`.")]
Base = Annotated[str | None, typer.Option(
    "--base", metavar="REV", help="Plan against the program and stack files at this git revision "
    "(e.g. origin/main), for pull requests without deployed state.")]
NoColor = Annotated[bool, typer.Option("--no-color", help="Plain text, no colour (as NO_COLOR=1).")]
Strict = Annotated[bool, typer.Option("--strict", help="Warnings (a waiver that matches no resource) are errors: "
                                      "exit 2 after the reports are written.")]
StackFiles = Annotated[list[Path] | None, typer.Argument(
    metavar="[FILE]...", exists=True, dir_okay=False,
    help="Changed files to review, instead of --project-dir and --stack (what the pre-commit hook passes): a "
    "stack file Pulumi.<stack>.yaml reviews that stack; Pulumi.yaml, a program's .py file or a project's "
    "policy-config/<stack>.json reviews every stack of its project. A .py file in no project is skipped.")]
