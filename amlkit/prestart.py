"""Whether an `amlkit` command line runs a review, and the fork server started for it before anything else
(amlkit.review.proc.warm): used by the console script (amlkit.launch) and by the command line (amlkit.cli)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["audits", "prestart", "project_hint", "reviews"]


def prestart(args: list[str]) -> None:
    """Start the fork server now when `args` run a review (before any gRPC channel exists in this process:
    see amlkit.review.proc.warm); a later call is a no-op while it runs."""
    if reviews(args):
        from amlkit.review.proc import warm

        # an audit runs no program: nothing of the project's to preload
        warm.prestart(None if audits(args) else project_hint(args), one_shot=True)


def project_hint(args: list[str]) -> Path:
    """The project a review command line names (`-C DIR`, else its first stack file's directory, else `.`)."""
    for index, arg in enumerate(args):
        if arg in ("-C", "--project-dir") and index + 1 < len(args):
            return Path(args[index + 1])
        if arg.startswith("--project-dir="):
            return Path(arg.split("=", 1)[1])
    files = [arg for arg in args if arg.endswith((".yaml", ".yml"))]
    return Path(files[0]).parent if files else Path(".")


def reviews(args: list[str]) -> bool:
    """Whether the command line runs a review (`check`, `preview`, `analyze` or `fix`, not just their help)."""
    command = next((a for a in args if not a.startswith("-")), None)
    return command in ("check", "preview", "analyze", "fix") and not {"--help", "-h"} & set(args)


def audits(args: list[str]) -> bool:
    """Whether the command line audits deployed states (`analyze`, `check --state`): no program runs."""
    command = next((a for a in args if not a.startswith("-")), None)
    return command == "analyze" or (command == "check" and any(a == "--state" or a.startswith("--state=")
                                                                for a in args))
