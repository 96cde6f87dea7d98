"""The `amlkit` command line: offline preview and policy review of Pulumi stacks, and the pack's rules.

Exit codes (the same for every command and format; a stack that fails is reported per stack, the
others are still reviewed and every report is still written):
  0  no mandatory violation (advisory, waived and unknown findings do not fail)
  1  mandatory policy violations, or a plan (--state / --base) the engine would refuse: a protected
     resource replaced or deleted
  2  bad usage, or a stack has a config error (stack file, policy pack config or a component argument)
     and no program or pack failed
  3  a program or the policy pack failed, or amlkit itself did: never a clean-looking report

Flags mirror the Pulumi CLI (`--stack`, `--policy-pack`, `--policy-pack-config`, both repeatable and paired
in order as `pulumi preview` pairs them; `analyze --file` as `pulumi policy analyze --file`). The review engine is
imported lazily inside the commands, so `amlkit --help` stays fast.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Annotated, NoReturn

import typer
from rich.text import Text

from amlkit import __version__, fix_cmd, merge_cmd, sizes_cmd
from amlkit.cli_options import (
    AuditStates,
    Base,
    Formats,
    Jobs,
    NoColor,
    Output,
    Outputs,
    PolicyPack,
    PolicyPackConfig,
    PolicyPackConfigs,
    PolicyPacks,
    ProjectDir,
    ReportFormat,
    RulesFormat,
    StackFiles,
    Stacks,
    States,
    Strict,
    Timeout,
    Verbose,
)
from amlkit.cli_output import pack_source, relative, show, write
from amlkit.commands import register, stacks_from_files
from amlkit.errors import UsageError
from amlkit.guard import guarded
from amlkit.prestart import prestart
from amlkit.review.model import Review
from amlkit.review.options import ReviewOptions
from amlkit.review.shard import Shard
from amlkit.rules_cmd import rules
from amlkit.server_cmd import server_app, server_start, server_status, server_stop

__all__ = [
    "AuditStates", "Base", "Formats", "Jobs", "NoColor", "Output", "Outputs", "PolicyPack", "PolicyPackConfig",
    "PolicyPackConfigs", "PolicyPacks", "ProjectDir", "ReportFormat", "RulesFormat", "StackFiles", "Stacks", "States",
    "Strict", "Timeout", "Verbose", "analyze", "app", "check", "exit_code", "main", "preview", "render_report", "rules",
    "server_app", "server_start", "server_status", "server_stop",
]

app = typer.Typer(
    name="amlkit",
    help="Offline preview and policy review of Azure Machine Learning stacks built on Pulumi.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)




register(app)
app.command(name="sizes")(sizes_cmd.sizes)
# this very module, also when it runs as __main__ (`python -m amlkit.cli`): its ReportFormat is the options'
app.command(name="merge")(merge_cmd.command(Formats, Outputs, NoColor, sys.modules[__name__]))
app.command(name="fix")(fix_cmd.command(StackFiles, ProjectDir, Stacks, PolicyPackConfig, Jobs, Timeout, Verbose,
                                        sys.modules[__name__]))
app.add_typer(server_app, name="server")
def main() -> None:
    """Console-script entry point. SIGTERM (CI cancel, `timeout`) unwinds like Ctrl-C, so the engine
    stops the program and pack processes it started instead of leaving them running."""
    signal.signal(signal.SIGTERM, _terminate)
    prestart(sys.argv[1:])  # the fork server, unless amlkit.launch started it already
    try:
        app()
    finally:
        if "amlkit.review.proc.warm" in sys.modules:
            sys.modules["amlkit.review.proc.warm"].stop()  # the fork server ends with the command


def _terminate(signum: int, frame: object) -> NoReturn:
    raise SystemExit(128 + signum)


@app.callback(invoke_without_command=True)
def _root(
    version: Annotated[bool, typer.Option("--version", help="Show the amlkit version and exit.")] = False,
) -> None:
    if version:
        typer.echo(f"amlkit {__version__}")
        raise typer.Exit(0)


@app.command()
def preview(
    stack_files: StackFiles = None,
    project_dir: ProjectDir = Path("."),
    stack: Stacks = None,
    policy_pack: PolicyPacks = None,
    policy_pack_config: PolicyPackConfigs = None,
    format: Formats = None,
    output: Outputs = None,
    jobs: Jobs = None,
    timeout: Timeout = 120.0,
    verbose: Verbose = False,
    state: States = None,
    base: Base = None,
    no_color: NoColor = False,
    strict: Strict = False,
) -> None:
    """Show what each stack would create (grouped under its parent, with the settings people review),
    or with --state / --base what it would create, update, replace and delete; then the policy review."""
    if no_color:
        os.environ["NO_COLOR"] = "1"
    options = _options(policy_pack, policy_pack_config, jobs, timeout, verbose, states=state, base=base)
    _review_and_report(stack_files, project_dir, stack, options, _Report(_pairs(format, output), with_plan=True,
                                                                         strict=strict))


@app.command()
def check(
    stack_files: StackFiles = None,
    project_dir: ProjectDir = Path("."),
    stack: Stacks = None,
    policy_pack: PolicyPacks = None,
    policy_pack_config: PolicyPackConfigs = None,
    format: Formats = None,
    output: Outputs = None,
    jobs: Jobs = None,
    timeout: Timeout = 120.0,
    verbose: Verbose = False,
    state: AuditStates = None,
    strict: Strict = False,
    shard: Annotated[str | None, typer.Option("--shard", metavar="K/N", help="Review only shard K of N of the "
                                              "stacks (a CI matrix); `amlkit merge` combines the shards' JSON "
                                              "reports into the unsharded run's reports.")] = None,
) -> None:
    """Run only the policy review of each stack; with --state, audit deployed states instead (no program)."""
    options = _options(policy_pack, policy_pack_config, jobs, timeout, verbose)
    if shard is not None:
        with guarded(verbose):
            sharded = merge_cmd.shard_option(shard, stack_files, state, strict)
        return _review_and_report(None, project_dir, stack, options, _Report(_pairs(format, output), strict=strict,
                                                                             shard=sharded))
    if state:
        if stack_files or stack:
            raise _usage("--state audits the given state files (each names its stack): it takes no stack files "
                         "and no --stack")
        return _audit_and_report(state, project_dir, options, _Report(_pairs(format, output)))
    _review_and_report(stack_files, project_dir, stack, options, _Report(_pairs(format, output), strict=strict))


@app.command()
def analyze(
    file: Annotated[list[Path], typer.Option(
        "--file", metavar="FILE", exists=True, dir_okay=False,
        help="A `pulumi stack export` (deployment v3) to audit (repeatable, one file per stack).")],
    project_dir: ProjectDir = Path("."),
    policy_pack: PolicyPacks = None,
    policy_pack_config: PolicyPackConfigs = None,
    format: Formats = None,
    output: Outputs = None,
    jobs: Jobs = None,
    timeout: Timeout = 120.0,
    verbose: Verbose = False,
) -> None:
    """Audit deployed states without running the program, as `pulumi policy analyze --file` does (the same
    as `amlkit check --state FILE`)."""
    _audit_and_report(file, project_dir, _options(policy_pack, policy_pack_config, jobs, timeout, verbose),
                      _Report(_pairs(format, output)))


app.command()(rules)


@dataclass(frozen=True)
class _Report:
    """How a command reports: each (format, file) pair (file None: stdout), the plan before the policies
    (`preview`), and whether warnings fail the command (`--strict`)."""

    outputs: tuple[tuple[ReportFormat, Path | None], ...]
    with_plan: bool = False
    strict: bool = False
    shard: Shard | None = None  # `check --shard K/N`: review its share; the JSON report carries the shard


def _pairs(formats: list[ReportFormat] | None, outputs: list[Path] | None) -> tuple[tuple[ReportFormat, Path | None],
                                                                                    ...]:
    """The reports one review writes: `-f`/`-o` paired in order (one `-f` alone prints it; one `-o` alone gets
    the table); several of either must come in pairs, as a second report on stdout would mix with the first."""
    formats, outputs = formats or [], outputs or []
    if len(formats) <= 1 and len(outputs) <= 1:
        return ((formats[0] if formats else ReportFormat.table, outputs[0] if outputs else None),)
    if len(formats) != len(outputs):
        raise _usage(f"give one --output per --format, paired in order (got {len(formats)} --format and "
                     f"{len(outputs)} --output)")
    return tuple(zip(formats, outputs, strict=True))


def _options(policy_packs: list[Path] | None, configs: list[Path] | None, jobs: int | None, timeout: float,
             verbose: bool, states: list[Path] | None = None, base: str | None = None) -> ReviewOptions:
    """The flags every review command shares, as the engine takes them."""
    return ReviewOptions(policy_pack=_one_or_many(policy_packs), policy_pack_config=_one_or_many(configs),
                         jobs=jobs, timeout=timeout, verbose=verbose, states=tuple(states or ()), base=base or None)


def _audit_and_report(states: list[Path], project_dir: Path, options: ReviewOptions, report: _Report) -> None:
    """`check --state` and `analyze --file`: the packs over each deployed state, then the same reports."""
    with guarded(options.verbose):
        _check_pairing(options)
        project_dir = _project_root(project_dir)
        review = importlib.import_module("amlkit.review.state_audit").audit(states, project_dir, options)
        _report(review, report, project_dir, options)


def _usage(message: str) -> typer.Exit:
    typer.echo(f"amlkit: error: {message}", err=True)
    return typer.Exit(2)


def _check_pairing(options: ReviewOptions) -> None:
    """Pulumi's rule: no --policy-pack-config, or one per --policy-pack (exit 2 otherwise)."""
    from amlkit.review.pack.multi import as_list, pairing_error

    error = pairing_error(as_list(options.policy_pack), as_list(options.policy_pack_config))
    if error:
        raise UsageError(error)


def _project_root(project_dir: Path) -> Path:
    """The project to review, found as the Pulumi CLI finds it: the nearest directory at or above `project_dir`
    with a Pulumi.yaml (so `amlkit check` works from any subdirectory of a project)."""
    from amlkit.review.project import project_root

    return project_root(project_dir)


def _one_or_many(values: list[Path] | None) -> Path | tuple[Path, ...] | None:
    """What the engine takes: None, one path, or several."""
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


def _engine() -> ModuleType:
    """The review engine, imported on first use (and replaceable in sys.modules by tests)."""
    return importlib.import_module("amlkit.review.engine")


def _review(project_dir: Path, stacks: list[str] | None, options: ReviewOptions, shard: Shard | None = None) -> Review:
    if shard is not None:
        stacks = shard.select(project_dir, stacks, merge_cmd.setup(options))
        if not stacks:  # a share with no stacks (more shards than stacks) is an empty review
            return Review()
    if options.states and not stacks:
        from amlkit.review.plan.state import load_state

        stacks = sorted({load_state(path).stack for path in options.states} - {""}) or None
    review: Review = _engine().review(project_dir, stacks or None, options=options)
    if not review.stacks:
        raise UsageError(f"{project_dir}: no stacks to review (no Pulumi.<stack>.yaml found, and no --stack given)")
    return review


def _review_and_report(stack_files: list[Path] | None, project_dir: Path, stacks: list[str] | None,
                       options: ReviewOptions, report: _Report) -> None:
    """`preview` (with_plan) and `check`: review the stack files or the project's stacks, then report."""
    with guarded(options.verbose):
        _check_pairing(options)
        if stack_files:
            if options.states or options.base is not None:
                raise UsageError("--state and --base take --project-dir and --stack, not stack files")
            review = _review_files(stack_files, stacks, options)
        else:
            project_dir = _project_root(project_dir)
            review = _review(project_dir, stacks, options, report.shard)
        _report(review, report, project_dir, options)


def _review_files(stack_files: list[Path], stacks: list[str] | None, options: ReviewOptions) -> Review:
    """Review the given stack files, grouped by the Pulumi project each belongs to."""
    if stacks:
        raise UsageError("give stack files or --stack, not both")
    reviews = [_review(project, names, options) for project, names in stacks_from_files(stack_files).items()]
    if not reviews:
        typer.echo("amlkit: nothing to review: none of the files belongs to a Pulumi project with stacks", err=True)
        raise typer.Exit(0)
    return Review(stacks=tuple(stack for review in reviews for stack in review.stacks))


def exit_code(review: Review) -> int:
    """The review's exit code; a stack without a pack result and without an error also fails (closed)."""
    if any(s.pack is None and not s.error for s in review.stacks):
        return 3
    return review.exit_code()


def render_report(review: Review, fmt: ReportFormat, project_dir: Path, pack_source: str | dict[str, str],
                  with_plan: bool) -> Text | str:
    """The report in `fmt`; the table is rich Text (coloured on a terminal only)."""
    from amlkit.review.report import (
        changes,
    )
    from amlkit.review.report import (
        json as report_json,
    )
    from amlkit.review.report import (
        markdown as report_markdown,
    )
    from amlkit.review.report import (
        sarif as report_sarif,
    )
    from amlkit.review.report import (
        table as report_table,
    )
    from amlkit.review.report.resources import render_plan

    plans = {s.stack: changes.render(s) if s.plan is not None else render_plan(s)
             for s in review.stacks if with_plan and not s.error}
    if fmt is ReportFormat.table:
        return report_table.render(review, pack_source, plans)
    if fmt is ReportFormat.json:
        return report_json.render(review)
    if fmt is ReportFormat.sarif:
        return report_sarif.render(review, project_dir, uri_root=_uri_root(project_dir))
    return report_markdown.render(review, {name: text.plain for name, text in plans.items()})


def _report(review: Review, report: _Report, project_dir: Path, options: ReviewOptions) -> NoReturn:
    from amlkit.review.pack.multi import as_list
    from amlkit.review.report.table import summary_line

    strict = report.strict
    sources = _pack_sources(review, as_list(options.policy_pack))
    written = []
    for fmt, output in report.outputs:
        rendered = (merge_cmd.shard_json(review, report.shard) if report.shard and fmt is ReportFormat.json
                    else render_report(review, fmt, project_dir, sources, report.with_plan))
        if output is None:
            show(rendered)
        else:
            write(output, rendered)
            written.append(f"Wrote the {fmt.value} report to {output}")
    if written:
        typer.echo("\n".join([summary_line(review), *written]))
    failures: dict[str, list[str]] = {}  # one line per distinct failure (a program's error hits every stack)
    for stack in sorted(review.stacks, key=lambda s: s.stack):
        if stack.error:
            failures.setdefault(stack.error.removeprefix(f"stack {stack.stack}: "), []).append(stack.stack)
    for detail, names in failures.items():
        which = f"stack {names[0]} was" if len(names) == 1 else f"stacks {', '.join(names)} were"
        typer.echo(f"amlkit: {which} NOT reviewed: {detail}", err=True)
    code = exit_code(review)
    warnings = [f"stack {s.stack}: {warning}" for s in review.stacks for warning in s.warnings]
    for warning in warnings:
        typer.echo(f"amlkit: {'error' if strict else 'warning'}: {warning}", err=True)
    if strict and warnings and code != 3:
        typer.echo(f"amlkit: error: {len(warnings)} warning(s), errors under --strict", err=True)
        code = 2
    raise typer.Exit(code)


def _pack_sources(review: Review, policy_packs: list[Path]) -> str | dict[str, str]:
    """How the pack lines name each pack's directory: one label for one pack, else one per pack name."""
    if len(policy_packs) <= 1:
        return pack_source(policy_packs[0] if policy_packs else None)
    given = {Path(os.path.abspath(path)).resolve(): str(path) for path in policy_packs}
    return {pack.name: given.get(Path(pack.directory), relative(Path(pack.directory)))
            for stack in review.stacks for pack in stack.all_packs() if pack.directory}


def _uri_root(project_dir: Path) -> Path:
    """SARIF URIs are relative to the working directory (the repository root in CI) when possible."""
    cwd = Path.cwd()
    return cwd if Path(os.path.abspath(project_dir)).is_relative_to(cwd) else project_dir


if __name__ == "__main__":  # pragma: no cover
    main()
