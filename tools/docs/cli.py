"""docs/cli.md, from the typer app in `amlkit.cli`: every command and flag, the exit codes, the JSON format."""

from __future__ import annotations

import enum
import inspect
from typing import Any

import typer.main

from tools.docs.markdown import GENERATED, cell, inline, table

EXIT_CODES = (
    ("0", "no mandatory violation (advisory findings, waived findings and unknowns do not fail)"),
    ("1", "mandatory violations, or a plan the engine would refuse (`preview --state/--base`: a protected resource "
          "replaced or deleted)"),
    ("2", "bad usage, or a stack has a config error (stack file, policy config, component argument) and no "
          "program or pack failed: one message naming the file, the key path, the bad value and what is allowed; "
          "no traceback; the other stacks are still reviewed"),
    ("3", "the program or the policy pack failed (a crash, a hang past `--timeout`, a policy that raised), or amlkit "
          "could not finish (the `--output` report could not be written, e.g. disk full: the previous report is left "
          "as it was, never truncated): fail closed, the review is never reported as clean"),
)


def _choices(param: Any) -> list[str]:
    """The values of a repeatable enum option (`list[ReportFormat]`), else []."""
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    members = [arg for arg in getattr(annotation, "__args__", ())
               if isinstance(arg, type) and issubclass(arg, enum.Enum)]
    return [str(member.value) for member in members[0]] if members else []


def _flag(param: Any) -> list[str]:
    names = ", ".join(f"`{opt}`" for opt in [*param.opts, *param.secondary_opts])
    if param.param_type_name == "argument":
        names = f"`{param.metavar or param.name.upper()}`"
    default = param.default
    if isinstance(default, enum.Enum):
        allowed = ", ".join(f"`{member.value}`" for member in type(default))
        default_text = f"`{default.value}` (one of {allowed})"
    elif default is None and _choices(param):
        default_text = "one of " + ", ".join(f"`{choice}`" for choice in _choices(param))
    elif default in (None, False) or param.param_type_name == "argument":
        default_text = ""
    else:
        default_text = f"`{default}`"
    help_text = param.help or ""
    repeat = " (repeatable)" if param.multiple and param.param_type_name == "option" and "repeatable" not in help_text \
        else ""
    return [names, cell(inline(help_text + repeat)), default_text]


def cli_reference() -> str:
    """docs/cli.md: every command and flag of the typer app, the exit codes and the JSON format."""
    from amlkit import cli
    from amlkit.review.report import json as report_json

    group = typer.main.get_command(cli.app)
    lines = [GENERATED, "", "# Command line", "", inline(group.help or ""), ""]
    for name, command in group.commands.items():
        if command.hidden:
            continue
        lines += [f"## `amlkit {name}`", "", inline(" ".join((command.help or "").split())), ""]
        params = [param for param in command.params if not getattr(param, "hidden", False)]
        if params:
            lines += table(("Flag", "What", "Default"), [_flag(param) for param in params]) + [""]
    lines += ["## Exit codes", "", *table(("Code", "Meaning"), EXIT_CODES), "",
              "## JSON format", "", "`amlkit check --format json` (and `preview`), format version "
              f"{report_json.FORMAT_VERSION}; fields are only added within a version:", "", "```",
              inspect.cleandoc(report_json.__doc__.split("::", 1)[1].split("\n\n`level`", 1)[0]), "```", "",
              '`amlkit rules --format json`: `{"version", "pack": {"name", "version"}, "policies": [{"name", "ref", '
              '"group", "display_name", "level", "severity", "description", "remediation", "url", "tags", '
              '"stack_policy", "remediates", "compliance", "equivalents"}]}`; `ref`, `group`, `display_name` and '
              "`compliance` are null, `equivalents` empty and `remediates` false for a policy of another pack "
              "(`remediates`: the rule has a fix its level `remediate` sets).", "",
              "SARIF and the other formats: see [architecture](architecture.md#reports)."]
    return "\n".join(lines) + "\n"
