"""tools/docs/markdown.py: prose and table cells made safe for Markdown."""

from __future__ import annotations

from tools.docs.markdown import cell, inline


def test_markdown_text_escaping() -> None:
    assert inline("see 'a | b' and (azure-native:<module>/v<date>preview:<Name>).") == (
        "see `a | b` and (`azure-native:<module>/v<date>preview:<Name>`).")
    assert cell("a | b\nc") == "a \\| b c"
