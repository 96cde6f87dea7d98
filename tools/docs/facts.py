"""The Azure facts block of docs/azure-facts.md: every documented constant of `amlkit.azure_facts` with its
value, meaning and source."""

from __future__ import annotations

import ast
import inspect
import json
import re
from pathlib import Path
from typing import Any

from tools.docs.markdown import cell, inline, table


def documented_facts(source: str) -> list[tuple[str, list[str], str]]:
    """(section, constant names, docstring) of each documented fact of `azure_facts`, in source order.
    Consecutive constants before one docstring share it; the section is the `# --- <section> ---` comment
    above them."""
    lines = source.splitlines()
    facts, names = [], []
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) and t.id.isupper() for t in node.targets):
            names += [t.id for t in node.targets]  # type: ignore[union-attr]
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and names:
            above = [line for line in lines[:node.lineno] if line.startswith("# --- ")]
            section = above[-1].strip("# -") if above else ""
            facts.append((section, names, inspect.cleandoc(str(node.value.value))))
            names = []
        else:
            names = []
    return facts


def _fact_value(value: Any) -> str:
    if isinstance(value, tuple):
        return ", ".join(f"`{item}`" for item in value)
    if isinstance(value, dict):
        return ", ".join(f"`{key}`" for key in value)
    return f"`{json.dumps(value)}`" if isinstance(value, bool | str) else f"`{value:,}`" if isinstance(value, int) \
        else f"`{value}`"


def facts_reference() -> str:
    """The table of every documented fact of `amlkit.azure_facts`: name, value, meaning, source."""
    from amlkit import azure_facts

    source = Path(azure_facts.__file__).read_text(encoding="utf-8")
    lines: list[str] = []
    for section in dict.fromkeys(section for section, _, _ in documented_facts(source)):
        rows = []
        for fact_section, names, doc in documented_facts(source):
            if fact_section != section:
                continue
            urls = re.findall(r"https://\S+", doc)
            meaning = inline(re.sub(r"\s*https://\S+", "", doc))
            if not urls:
                continue  # derived from the facts above (e.g. the computeType -> paths map)
            values = "; ".join(f"`{name}` = {_fact_value(getattr(azure_facts, name))}" for name in names)
            rows.append([values, cell(meaning), " ".join(f"<{url}>" for url in urls)])
        lines += [f"### {section}", "", *table(("Fact", "Meaning", "Source"), rows), ""]
    return "\n".join(lines).rstrip("\n")
