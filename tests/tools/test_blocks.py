"""tools/docs/blocks.py: the markers of a generated block inside a written page."""

from __future__ import annotations

import pytest

from amlkit.errors import UsageError
from tools.docs.blocks import replace_blocks


def test_bad_block_markers_are_refused() -> None:
    page = "# C\n<!-- BEGIN GENERATED: component-reference -->\n"
    with pytest.raises(UsageError) as caught:
        replace_blocks(page, {"component-reference": "x"}, "docs/components.md")
    assert str(caught.value) == (
        "docs/components.md: needs exactly one '<!-- BEGIN GENERATED: component-reference ... -->' line followed "
        "by one '<!-- END GENERATED: component-reference -->' line (found 1 and 0)")
