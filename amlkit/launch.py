"""The `amlkit` console script: hands `check` / `preview` to this user's persistent review server when one
runs and may serve them (amlkit.server), else runs the command line (amlkit.cli) as usual.

Kept import-light: when the server answers, this process imports neither typer, nor the review engine,
nor pulumi.
"""

from __future__ import annotations

import sys


def main() -> None:
    args = sys.argv[1:]
    if args[:1] in (["check"], ["preview"]):
        from amlkit import server

        code = server.forward(args)
        if code is not None:
            sys.exit(code)
    from amlkit.cli import main as cli_main

    cli_main()


if __name__ == "__main__":  # pragma: no cover
    main()
