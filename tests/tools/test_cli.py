"""tools/docs/cli.py: the command line reference (docs/cli.md)."""

from __future__ import annotations

from tools.docs.cli import cli_reference


def test_the_cli_page_lists_every_flag_of_every_command() -> None:
    import typer.main

    from amlkit import cli
    page = cli_reference()
    for name, command in typer.main.get_command(cli.app).commands.items():
        assert f"\n## `amlkit {name}`\n" in page
        for param in command.params:
            if param.param_type_name == "option":
                assert f"| `{param.opts[0]}`" in page, (name, param.opts)
    assert ("| `--format`, `-f` | Report format (default: table). Repeatable, paired in order with --output: `-f sarif "
            "-o a.sarif -f markdown -o b.md` writes both reports of one review. (repeatable) | one of `table`, `json`, "
            "`sarif`, `markdown` |") in page
    assert "| 3 | the program or the policy pack failed" in page
