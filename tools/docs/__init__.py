"""The makers of the generated pages of docs/, one module per page or block; `tools/gen_docs.py` writes and
checks them.

- `markdown`: the Markdown helpers every page shares (prose made safe, cells, tables, the page header).
- `configuration`: docs/configuration.md, from `amlkit.schema`.
- `rules`: docs/rules/README.md and docs/rules/<rule-name>.md, from `amlkit.policies.ALL_RULES`.
- `cli`: docs/cli.md, from the typer app in `amlkit.cli`.
- `components`: the component reference block of docs/components.md, from the components' Args.
- `facts`: the Azure facts block of docs/azure-facts.md, from `amlkit.azure_facts`.
- `blocks`: the markers of a generated block inside a written page.
"""
