"""`amlkit server start|stop|status`: the persistent review server's commands (the server is amlkit.server)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from amlkit.guard import guarded

__all__ = ["server_app", "server_start", "server_status", "server_stop"]

server_app = typer.Typer(help="The opt-in persistent review server for pre-commit hooks and editors: later "
                         "`amlkit check` / `preview` commands under its directories use it (same output, same "
                         "exit code) while it runs.", no_args_is_help=True)


@server_app.command("start")
def server_start(
    directories: Annotated[list[Path] | None, typer.Argument(
        metavar="[DIR]...", exists=True, file_okay=False, help="Directories whose projects it may review "
        "(default: the current directory); a command for a path outside them runs cold.")] = None,
    idle_timeout: Annotated[float, typer.Option("--idle-timeout", min=1.0, metavar="SECONDS",
                                                help="Exit after this long without a request.")] = 900.0,
) -> None:
    """Start this user's review server (Unix socket in a 0700 directory; never TCP)."""
    from amlkit import server

    with guarded(False):
        state = server.start(directories or [Path(".")], idle_timeout)
        typer.echo(f"amlkit server: pid {state['pid']} listening on {state['socket']} for "
                   f"{', '.join(state['roots'])} (idle timeout {state['idle_timeout']:g}s)")


@server_app.command("stop")
def server_stop() -> None:
    """Stop this user's review server."""
    from amlkit import server

    with guarded(None):  # a socket directory that is not private: one line, exit 2
        state = server.stop()
    why, hung = ("", False) if state else server.absent()
    typer.echo(f"amlkit server: stopped pid {state['pid']}" if state else f"amlkit server: {why}")
    if hung:
        raise typer.Exit(1)


@server_app.command("status")
def server_status() -> None:
    """Show whether this user's review server runs, where it listens and for which directories (exit 1 if not)."""
    from amlkit import server

    with guarded(None):
        state = server.status()
    if state is None:
        typer.echo(f"amlkit server: {server.absent()[0]}")
        raise typer.Exit(1)
    typer.echo(f"amlkit server: pid {state['pid']} listening on {state['socket']} for {', '.join(state['roots'])}; "
               f"{state['served']} command(s) served; idle timeout {state['idle_timeout']:g}s")
