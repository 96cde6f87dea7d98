"""amlkit.fix.yamledit: edits change the edited keys and not one other byte, or are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from amlkit.fix.yamledit import Edit, EditRefused, apply, unified_diff

DATA = Path(__file__).parent / "data"
CLUSTERS = ("config", "amlkit:clusters")
ODD_EDITS = [
    Edit((*CLUSTERS, 0, "min_instances"), 0),
    Edit((*CLUSTERS, 0, "ssh_public_access_enabled"), False),
    Edit((*CLUSTERS, 1, "idle_time_before_scale_down"), 300),
    Edit(("config", "amlkit:tags", "cost-center"), "4711"),
    Edit(("config", "amlkit:tags", "project"), "x y"),
]
SMALL = "config:\n  amlkit:clusters:\n    - name: cpu   # the cpu one\n      min_instances: 2\n"


def test_odd_file_is_fixed_byte_for_byte_elsewhere() -> None:
    before = (DATA / "odd.yaml").read_text(encoding="utf-8")
    assert apply(before, ODD_EDITS) == (DATA / "odd.fixed.yaml").read_text(encoding="utf-8")


def test_no_edit_is_the_file_itself() -> None:
    text = (DATA / "odd.yaml").read_text(encoding="utf-8")
    assert apply(text, []) is text


def test_unified_diff_is_exact() -> None:
    after = apply(SMALL, [Edit((*CLUSTERS, 0, "min_instances"), 0), Edit((*CLUSTERS, 0, "tier"), "dedicated")])
    assert unified_diff(SMALL, after, "Pulumi.dev.yaml") == (
        "--- a/Pulumi.dev.yaml\n"
        "+++ b/Pulumi.dev.yaml\n"
        "@@ -1,4 +1,5 @@\n"
        " config:\n"
        "   amlkit:clusters:\n"
        "     - name: cpu   # the cpu one\n"
        "-      min_instances: 2\n"
        "+      tier: dedicated\n"
        "+      min_instances: 0\n"
    )
    assert unified_diff(SMALL, SMALL, "Pulumi.dev.yaml") == ""


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(SMALL.replace("\n", "\r\n"), "config:\r\n  amlkit:clusters:\r\n    - name: cpu   # the cpu one\r\n"
                     "      min_instances: 0\r\n", id="crlf-kept"),
        pytest.param("\ufeff" + SMALL, "\ufeffconfig:\n  amlkit:clusters:\n    - name: cpu   # the cpu one\n"
                     "      min_instances: 0\n", id="byte-order-mark-kept"),
        pytest.param(SMALL.rstrip("\n"), "config:\n  amlkit:clusters:\n    - name: cpu   # the cpu one\n"
                     "      min_instances: 0", id="no-final-newline-kept"),
        pytest.param(SMALL.replace("    - ", "  - ").replace("      min", "    min"),
                     "config:\n  amlkit:clusters:\n  - name: cpu   # the cpu one\n    min_instances: 0\n",
                     id="unindented-list"),
        pytest.param("config:\n    amlkit:clusters:\n        -   name: cpu   # the cpu one\n            "
                     "min_instances: 2\n", "config:\n    amlkit:clusters:\n        -   name: cpu   # the cpu one\n"
                     "            min_instances: 0\n", id="four-space-indent"),
    ],
)
def test_layouts_are_kept(before: str, after: str) -> None:
    assert apply(before, [Edit((*CLUSTERS, 0, "min_instances"), 0)]) == after


@pytest.mark.parametrize(
    ("text", "edit", "message"),
    [
        pytest.param("a:\n  b: !!int \"2\"\n", Edit(("a", "c"), 1),
                     "ruamel.yaml cannot write it back byte for byte (an unusual indentation or layout)",
                     id="explicit-tag"),
        pytest.param("a:\n  - x: 1\n  -   x: 2\n", Edit(("a", 0, "x"), 0),
                     "ruamel.yaml cannot write it back byte for byte (an unusual indentation or layout)",
                     id="mixed-indentation"),
        pytest.param("a: [1\n", Edit(("a",), 1), "it is not YAML ruamel.yaml can read: while parsing a flow sequence",
                     id="not-yaml"),
        pytest.param("a:\r\n  b: 1\n", Edit(("a", "b"), 2), "it mixes CRLF and LF line ends", id="mixed-line-ends"),
        pytest.param(SMALL, Edit((*CLUSTERS, 3, "min_instances"), 0), "config.amlkit:clusters[3] is not in the file",
                     id="no-such-entry"),
        pytest.param(SMALL, Edit(("config", "amlkit:clusters", "min_instances"), 0),
                     "config.amlkit:clusters is not a mapping", id="list-as-mapping"),
        pytest.param(SMALL, Edit(("config", "amlkit:clusters"), 0), "config.amlkit:clusters is not a single value",
                     id="block-value"),
        pytest.param("a:\n  b: >-\n    folded\n    text\n", Edit(("a", "b"), "x"),
                     "the edit would also rewrite line 3 ('folded')", id="multi-line-value"),
    ],
)
def test_edits_that_would_move_other_bytes_are_refused(text: str, edit: Edit, message: str) -> None:
    with pytest.raises(EditRefused) as refused:
        apply(text, [edit])
    assert str(refused.value) == message


def test_a_new_key_keeps_the_blank_line_and_comment_after_the_mapping() -> None:
    text = "config:\n  amlkit:tags:\n    owner: x   # who\n\n  # the workspace\n  amlkit:workspace: {}\n"
    assert apply(text, [Edit(("config", "amlkit:tags", "cost-center"), "4711")]) == (
        "config:\n  amlkit:tags:\n    owner: x   # who\n    cost-center: '4711'\n\n  # the workspace\n"
        "  amlkit:workspace: {}\n")


def test_a_missing_mapping_is_added() -> None:
    text = "config:\n  amlkit:environment: dev\n"
    assert apply(text, [Edit(("config", "amlkit:tags", "owner"), "ml")]) == (
        "config:\n  amlkit:environment: dev\n  amlkit:tags:\n    owner: ml\n")
