"""amlkit.yamlfile's two readers: libyaml (`read_fast`, the stack files of a review) and the pure-Python parser
(`read_yaml_positions`, whose errors and positions are reported). A document libyaml reads must give exactly the
value the pure-Python parser gives (types included: 1, 1.0 and True are told apart); anything libyaml or the
checks refuse is read again by the pure-Python parser, so `read_yaml`'s errors are the pure-Python parser's."""

from __future__ import annotations

import datetime
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from amlkit.errors import ConfigError
from amlkit.yamlfile import NOT_READ, read_fast, read_yaml, read_yaml_positions

ROOT = Path(__file__).resolve().parent.parent
REPO_YAML = sorted(path for pattern in ("stacks/*.yaml", "examples/**/*.yaml", "tests/fixtures/**/*.yaml",
                                        "tests/data/**/*.yaml", "Pulumi.yaml", "PulumiPlugin.yaml")
                   for path in ROOT.glob(pattern) if ".venv" not in path.parts)

pytestmark = pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML built without libyaml: one reader only")


def typed(value: Any) -> Any:
    """A value with its types spelt out, so that 1 == 1.0 == True do not compare equal."""
    if isinstance(value, dict):
        return ("dict", [(typed(key), typed(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("list", [typed(item) for item in value])
    if isinstance(value, float) and value != value:
        return ("float", "nan")
    return (type(value).__name__, value)


def outcome(path: Path) -> Any:
    """What `read_yaml` answers: the typed value, or the error's full text with its position."""
    try:
        return typed(read_yaml(path))
    except ConfigError as error:
        return ("error", str(error), error.line, error.column)


def pure(path: Path) -> Any:
    try:
        return typed(read_yaml_positions(path)[0])
    except ConfigError as error:
        return ("error", str(error), error.line, error.column)


def agree(path: Path) -> None:
    """libyaml's value, when it gives one, is the pure-Python parser's; `read_yaml` answers as the pure one."""
    text = path.read_text(encoding="utf-8")
    fast = read_fast(str(path), text)
    expected = pure(path)
    if fast is not NOT_READ:
        assert typed(fast) == expected
    assert outcome(path) == expected


@pytest.mark.parametrize("path", REPO_YAML, ids=[str(p.relative_to(ROOT)) for p in REPO_YAML])
def test_every_yaml_file_of_the_repository_reads_the_same(path):
    agree(path)


@pytest.mark.parametrize("path", sorted((ROOT / "stacks").glob("Pulumi.*.yaml")), ids=lambda p: p.name)
def test_libyaml_reads_the_sample_stacks(path):
    assert read_fast(str(path), path.read_text(encoding="utf-8")) == read_yaml_positions(path)[0]


def test_the_repository_has_yaml_files_to_compare():
    assert len(REPO_YAML) > 20


DOCUMENTS = [
    ("empty", ""),
    ("comments-only", "# nothing\n# here\n"),
    ("plain", "config:\n  amlkit:workspace:\n    name: mlw\n"),
    ("scalars", "a: 1\nb: 1.0\nc: true\nd: yes\ne: ~\nf: 0o17\ng: 0x1F\nh: 1_000\ni: .inf\nj: -.nan\nk: 017\n"
                "l: 2001-12-14t21:59:43.10-05:00\nm: 2002-12-14\nn: '1'\no: \"\\u00e9\\x41\\N\\_\"\np: 1e3\n"),
    ("block-scalars", "a: |\n  one\n   two\n\nb: >-\n  folded\n  text\n\n  kept\nc: |2+\n    indented\n\n"),
    ("multi-line-plain", "a: one\n  two\n\n  three\nb: 'quoted\n  across  \n\n  lines'\n"),
    ("anchors-and-merge", "base: &b {x: 1, y: [1, 2]}\nc:\n  <<: *b\n  y: 3\nd: *b\n"),
    ("merge-list", "a: &a {x: 1}\nb: &b {y: 2}\nc:\n  <<: [*a, *b]\n"),
    ("flow", "a: {b: [1, {c: d}], 'e f': g}\nh: [,]\n"),
    ("complex-key", "? [a, b]\n: c\n"),
    ("document-markers", "---\na: 1\n...\n"),
    ("crlf", "a: 1\r\nb:\r\n  - x\r\n"),
    ("bom", "\ufeffa: 1\n"),
    ("nel-and-separators", "a: \"x\\Ny\"\nb: x\u0085y\nc: 'p\u2028q'\n"),
    ("tab-in-value", "a: x\ty\nb: \"\\t\"\n"),
    ("tab-indent", "a:\n\tb: 1\n"),
    ("unicode", "clé: värde ✓ 🙂\n"),
    ("duplicate-key", "a: 1\nb: 2\na: 3\n"),
    ("undefined-alias", "a: *nope\n"),
    ("recursive-alias", "a: &x [*x]\n"),
    ("two-documents", "a: 1\n---\nb: 2\n"),
    ("bad-int-tag", "a: !!int x\n"),
    ("bad-date", "a: 2001-02-30\n"),
    ("unknown-tag", "a: !thing x\n"),
    ("python-tag", "a: !!python/object:os.system x\n"),
    ("binary", "a: !!binary aGVsbG8=\n"),
    ("set-and-omap", "a: !!set {x, y}\nb: !!omap [{k: 1}, {j: 2}]\n"),
    ("too-deep", "a: " + "[" * 45 + "]" * 45 + "\n"),
    ("libyaml-too-deep", "a: " + "[" * 1500 + "]" * 1500 + "\n"),
    ("control-character", "a: b\x01c\n"),
    ("unclosed-quote", "a: 'x\n"),
    ("missing-colon", "a: 1\nb\nc: 2\n"),
    ("bad-indent", "a:\n  b: 1\n c: 2\n"),
    ("colon-in-value", "a: b: c\n"),
    ("null-key", "~: a\n: b\n"),
    ("long-key", "? " + "k" * 1100 + "\n: v\n"),
    ("implicit-long-key", "k" * 1100 + ": v\n"),
]


@pytest.mark.parametrize("text", [d[1] for d in DOCUMENTS], ids=[d[0] for d in DOCUMENTS])
def test_tricky_documents_read_as_the_pure_python_parser_reads_them(tmp_path, text):
    path = tmp_path / "Pulumi.t.yaml"
    path.write_text(text, encoding="utf-8")
    agree(path)


def test_a_document_the_checks_refuse_gets_the_pure_python_parsers_error_and_position(tmp_path):
    path = tmp_path / "Pulumi.t.yaml"
    path.write_text("config:\n  a: 1\n  b: 2\n  a: 3\n", encoding="utf-8")
    assert read_fast(str(path), path.read_text()) is NOT_READ
    assert outcome(path) == ("error", f"{path}:4:3: a: duplicate key (lines 2 and 4); allowed: each key once", 4, 3)


def test_libyaml_reads_a_stack_file(tmp_path):
    path = tmp_path / "Pulumi.t.yaml"
    path.write_text("config:\n  azure-native:location: westeurope\n  amlkit:when: 2001-12-14\n", encoding="utf-8")
    assert read_fast(str(path), path.read_text()) == {
        "config": {"azure-native:location": "westeurope", "amlkit:when": datetime.date(2001, 12, 14)}}


YAMLISH = st.lists(st.sampled_from([
    *"ab1 .:-?,[]{}#&*!|>'\"%@`\\\n\t\r~0xe+_\u0085\u00e9\ufeff", "\r\n", "  ", "- ", ": ", "a: ", "\n  ", "&x ", "*x",
    "!!str ", "<<: ", "---", "...", "\\x4", "\\u00e", "\\N", "''", "0o", "e3", ".5", "2001-12-14", " #", "\u2028",
    "\x01", "\U0001f642"]), max_size=40).map("".join)


@settings(max_examples=int(os.environ.get("S33D_N", "300")), deadline=None)
@given(text=YAMLISH)
def test_any_text_reads_as_the_pure_python_parser_reads_it(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("yaml") / "Pulumi.t.yaml"
    path.write_text(text, encoding="utf-8", newline="")
    agree(path)
