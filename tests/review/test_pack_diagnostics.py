"""amlkit.review.pack.diagnostics: a pack's answers read as the engine reads them (no pack process)."""

from __future__ import annotations

import pytest

from amlkit.review.pack.diagnostics import Analysis, one_version, reported_text

TEXT_CASES = [
    ("description-prefix", "Clusters scale to zero.\nCluster 'a' must ...", "Clusters scale to zero.",
     "Cluster 'a' must ..."),
    ("multi-line-report", "D.\nline 1\nline 2", "D.", "line 1\nline 2"),
    ("description-only", "D.", "D.", ""),
    ("no-prefix", "something else", "D.", "something else"),
]


@pytest.mark.parametrize(("message", "description", "expected"), [c[1:] for c in TEXT_CASES],
                         ids=[c[0] for c in TEXT_CASES])
def test_reported_text_drops_the_description(message, description, expected):
    assert reported_text(message, description) == expected


ONE_VERSION = [  # (reported, displayed, message in, message out)
    ("0.0.1", "0.2.0", "can't run policy 'p' from policy pack 'pack@v0.0.1' during preview: x",
     "can't run policy 'p' from policy pack 'pack@v0.2.0' during preview: x"),
    ("0.2.0", "0.2.0", "from policy pack 'pack@v0.2.0' during", "from policy pack 'pack@v0.2.0' during"),
    ("0.0.1", "0.2.0", "from policy pack 'other@v0.0.1' during", "from policy pack 'other@v0.0.1' during"),
]


@pytest.mark.parametrize(("reported", "displayed", "message", "expected"), ONE_VERSION,
                         ids=["python-pack", "same", "another-pack"])
def test_unknown_messages_name_the_pack_by_its_displayed_version(reported, displayed, message, expected):
    analysis = Analysis("pack", displayed, [], {}, reported_version=reported)
    assert one_version(analysis, message) == expected
