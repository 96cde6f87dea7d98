"""Generated blocks inside written pages: only the text between `<!-- BEGIN GENERATED: <name> ... -->` and
`<!-- END GENERATED: <name> -->` is the code's; everything around it is written by hand."""

from __future__ import annotations

import re
from collections.abc import Mapping

from amlkit.errors import UsageError


def _markers(name: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    begin = re.compile(rf"^<!-- BEGIN GENERATED: {re.escape(name)}(?: [^\n]*)? -->\n", re.MULTILINE)
    end = re.compile(rf"^<!-- END GENERATED: {re.escape(name)} -->$", re.MULTILINE)
    return begin, end


def _span(text: str, name: str, file: str) -> tuple[int, int]:
    """(start, end) of the text between block `name`'s markers."""
    begin, end = _markers(name)
    begins, ends = list(begin.finditer(text)), list(end.finditer(text))
    if len(begins) != 1 or len(ends) != 1 or ends[0].start() < begins[0].end():
        raise UsageError(
            f"{file}: needs exactly one '<!-- BEGIN GENERATED: {name} ... -->' line followed by one "
            f"'<!-- END GENERATED: {name} -->' line (found {len(begins)} and {len(ends)})"
        )
    return begins[0].end(), ends[0].start()


def read_block(text: str, name: str, file: str = "README.md") -> str:
    """The text between block `name`'s markers, without the blank lines around it."""
    start, end = _span(text, name, file)
    return text[start:end].strip("\n")


def replace_blocks(text: str, blocks: Mapping[str, str], file: str = "README.md") -> str:
    """`text` with each block's content replaced; everything outside the markers stays as it was."""
    for name, content in blocks.items():
        start, end = _span(text, name, file)
        text = text[:start] + "\n" + content + "\n\n" + text[end:]
    return text
