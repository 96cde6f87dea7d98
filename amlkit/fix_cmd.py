"""`amlkit fix`: the CLI side of fixing findings in stack files (the work is amlkit.fix). Light: imported by the CLI
at start-up, it imports the review and ruamel.yaml only when the command runs."""

from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any

import typer

__all__ = ["command", "exit_code"]

# No `from __future__ import annotations` here: `command` builds the command's signature from the CLI's own option
# types (stack files, -C, --stack, --policy-pack-config...), which typer reads from the function's annotations.


def command(files: Any, project: Any, stacks: Any, config: Any, jobs: Any, timeout: Any, verbose: Any,
            cli: ModuleType) -> Callable[..., None]:
    """The `amlkit fix` command, with the CLI's own review options and review (`cli`: the CLI module as it runs)."""
    def fix(
        stack_files: files = None,
        project_dir: project = Path("."),
        stack: stacks = None,
        policy_pack_config: config = None,
        diff: Annotated[bool, typer.Option("--diff", help="Print the changes as a unified diff instead of "
                                           "writing them.")] = False,
        check: Annotated[bool, typer.Option("--check", help="Write nothing; exit 1 when a stack file would "
                                            "change (for pre-commit and CI).")] = False,
        jobs: jobs = None,
        timeout: timeout = 120.0,
        verbose: verbose = False,
    ) -> None:
        """Fix in the stack files the findings amlkit's pack can remediate (min nodes 0, public SSH off, node public
        IP off, local auth off, idle scale-down at the limit, required tags with a configured default value,
        instance idle shutdown), with the values the pack's remediations use, keeping comments, order and quoting.
        Waived findings are left alone; a finding on a resource a program declares is printed at its program line,
        never edited. Exit 0 done (or nothing to fix), 1 with --check when a file would change, 2 bad usage or a
        stack's config error, 3 a program or the pack failed."""
        from amlkit.guard import guarded

        options = cli._options(None, [policy_pack_config] if policy_pack_config else None, jobs, timeout, verbose)
        with guarded(verbose):
            code = run(stack_files, project_dir, stack, options, diff=diff, check=check, cli=cli)
        raise typer.Exit(code)

    return fix


def run(stack_files: list[Path] | None, project_dir: Path, stacks: list[str] | None, options: Any, *, diff: bool,
        check: bool, cli: ModuleType) -> int:
    """Review, fix and report; the exit code."""
    from amlkit.commands import stacks_from_files
    from amlkit.errors import UsageError
    from amlkit.fix.run import Outcome, fix_review, write

    if stack_files and stacks:
        raise UsageError("give stack files or --stack, not both")
    projects = (stacks_from_files(stack_files) if stack_files
                else {cli._project_root(project_dir): stacks})
    outcome, failed = Outcome(), []
    for directory, names in projects.items():
        review = cli._review(directory, names, options)
        found = fix_review(review, directory, options.policy_pack_config)
        outcome.changes += found.changes
        outcome.files += found.files
        failed += [stack for stack in review.ordered_stacks() if stack.error]
    _report(outcome, diff=diff, check=check)
    if not (check or diff):
        write(outcome)
    for stack in failed:
        typer.echo(f"amlkit: stack {stack.stack} was NOT reviewed, nothing fixed in it: "
                   f"{(stack.error or '').removeprefix(f'stack {stack.stack}: ')}", err=True)
    return exit_code(outcome, failed, check)


def exit_code(outcome: Any, failed: list[Any], check: bool) -> int:
    """3 a stack's program or pack failed, 2 a stack's config error, 1 with --check a file would change, else 0."""
    if any(stack.error_kind != "config" for stack in failed):
        return 3
    if failed:
        return 2
    return 1 if check and outcome.files else 0


def _report(outcome: Any, *, diff: bool, check: bool) -> None:
    """The diff on stdout with --diff (the change lines then on stderr), else the change lines on stdout."""
    for file in outcome.files if diff else ():
        typer.echo(file.diff, nl=False)
    for change in outcome.changes:
        typer.echo(change.text(), err=diff)
    made, printed = len(outcome.made), len(outcome.changes) - len(outcome.made)
    names = ", ".join(file.shown for file in outcome.files)
    verb = "would make" if check or diff else "made"
    summary = (f"amlkit fix: {verb} {made} change(s) in {len(outcome.files)} stack file(s) ({names})" if made
               else "amlkit fix: no stack file to change")
    if printed:
        summary += f"; {printed} change(s) printed only, not made"
    typer.echo(summary, err=diff)
