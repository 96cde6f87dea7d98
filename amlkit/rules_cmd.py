"""`amlkit rules`: every policy of a pack with its effective level, severity, description and remediation."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from amlkit.cli_options import Output, PolicyPack, PolicyPackConfig, RulesFormat, Verbose
from amlkit.cli_output import pack_source, packs, show, write
from amlkit.errors import UsageError
from amlkit.guard import guarded
from amlkit.review.model import PackInfo

__all__ = ["rules"]


def rules(
    policy_pack: PolicyPack = None,
    policy_pack_config: PolicyPackConfig = None,
    format: Annotated[RulesFormat, typer.Option("--format", "-f", help="Listing format.")] = RulesFormat.table,
    output: Output = None,
    verbose: Verbose = False,
) -> None:
    """List every policy of the pack with its effective level, severity, description and remediation.

    With a policy config directory: the listing each of its `<name>.json` files gives (one per file)."""
    with guarded(verbose):
        if policy_pack_config is not None and policy_pack_config.is_dir():
            files = sorted(policy_pack_config.glob("*.json"))
            if not files:
                raise UsageError(f"{policy_pack_config}: no <stack>.json policy pack config in this directory")
            listings = [(str(file), packs().pack_info(policy_pack, file)) for file in files]
            _emit_rule_listings(listings, format, output, pack_source(policy_pack))
            return
        pack = packs().pack_info(policy_pack, policy_pack_config)
        _emit_rules(pack, format, output, pack_source(policy_pack))


def _emit_rules(pack: PackInfo, fmt: RulesFormat, output: Path | None, pack_source: str) -> None:
    from amlkit.review.report import json as report_json
    from amlkit.review.report import markdown as report_markdown
    from amlkit.review.report import table as report_table

    rendered: Text | str
    if fmt is RulesFormat.table:
        rendered = report_table.render_rules(pack, pack_source)
    elif fmt is RulesFormat.json:
        rendered = report_json.render_rules(pack)
    else:
        rendered = report_markdown.render_rules(pack)
    if output is None:
        show(rendered)
    else:
        write(output, rendered)
        typer.echo(f"{len(pack.policies)} policies; wrote the {fmt.value} listing to {output}")


def _emit_rule_listings(listings: list[tuple[str, PackInfo]], fmt: RulesFormat, output: Path | None,
                        pack_source: str) -> None:
    """`amlkit rules` over a policy config directory: one listing per file, each headed by the file."""
    from amlkit.review.report import json as report_json
    from amlkit.review.report import markdown as report_markdown
    from amlkit.review.report import table as report_table

    rendered: Text | str
    if fmt is RulesFormat.json:
        import json

        data = [{"policy_config": file, **report_json.rules_to_dict(pack)} for file, pack in listings]
        rendered = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    elif fmt is RulesFormat.markdown:
        rendered = "\n".join(f"# Policy config {file}\n\n{report_markdown.render_rules(pack)}"
                              for file, pack in listings)
    else:
        rendered = Text()
        for number, (file, pack) in enumerate(listings):
            rendered.append(("\n" if number else "") + f"Policy config: {file}\n", style="bold")
            rendered.append(report_table.render_rules(pack, pack_source))
    if output is None:
        show(rendered)
    else:
        write(output, rendered)
        typer.echo(f"{len(listings)} policy configs; wrote the {fmt.value} listing to {output}")
