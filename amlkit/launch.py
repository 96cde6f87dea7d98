"""The `amlkit` console script: hands `check` / `preview` to this user's persistent review server when one
runs and may serve them (amlkit.server), else runs the command line (amlkit.cli) as usual.

Kept import-light: when the server answers, this process imports neither typer, nor the review engine,
nor pulumi. A review run here starts its fork server (amlkit.review.proc.warm) before importing the command
line, so the server's imports (pulumi, the program's modules) overlap the CLI's (typer, rich, the engine).
"""

from __future__ import annotations

import sys

from amlkit.prestart import audits, exit_quickly, prestart, project_hint, reviews

__all__ = ["audits", "main", "prestart", "project_hint", "reviews"]


def main() -> None:
    args = sys.argv[1:]
    if args[:1] in (["check"], ["preview"]):
        from amlkit import server

        code = server.forward(args)
        if code is not None:
            sys.exit(code)
    prestart(args)
    from amlkit.cli import main as cli_main

    try:
        cli_main()
    except SystemExit as done:
        if not reviews(args):
            raise
        exit_quickly(done.code)  # a review's process ends without the interpreter's teardown


if __name__ == "__main__":  # pragma: no cover
    main()
