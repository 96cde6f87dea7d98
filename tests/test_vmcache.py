"""amlkit.vmcache: the parsed VM catalogue kept beside the bytecode gives exactly what parsing gives."""

from __future__ import annotations

import datetime
import functools
import os
import pickle
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml

from amlkit import vmcache, vmload

DATA = Path(str(resources.files("amlkit").joinpath("data/vm_families.yaml")))


def _parse(text: str) -> Any:
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


@functools.cache
def _expected() -> Any:
    """The packaged data file's document, parsed once for the module (each comparison parsed it again)."""
    return _parse(DATA.read_text(encoding="utf-8"))


@pytest.fixture
def data_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the packaged data file, with bytecode writing on and no pycache prefix."""
    copy = tmp_path / "data" / "vm_families.yaml"
    copy.parent.mkdir()
    copy.write_bytes(DATA.read_bytes())
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(sys, "pycache_prefix", None)
    return copy


def _counting(calls: list[str]) -> Any:
    def parse(text: str) -> Any:
        calls.append(text)
        return _parse(text)
    return parse


def _pickles(directory: Path) -> list[Path]:
    return sorted(directory.glob("vm_families.*.pickle"))


def test_second_read_comes_from_the_cache_and_equals_the_parse(data_file: Path) -> None:
    calls: list[str] = []
    first = vmcache.cached_parse(data_file, _counting(calls), "v1")
    second = vmcache.cached_parse(data_file, _counting(calls), "v1")
    assert len(calls) == 1  # parsed once, then read from the cache
    assert first == second == _expected()
    assert isinstance(second["as_of"], datetime.date)
    [cached] = _pickles(data_file.parent / "__pycache__")
    assert cached.stat().st_mode & 0o777 == 0o644


def test_an_edited_data_file_or_another_parser_version_is_parsed_again(data_file: Path) -> None:
    calls: list[str] = []
    vmcache.cached_parse(data_file, _counting(calls), "v1")
    edited = data_file.read_text(encoding="utf-8").replace("as_of: ", "# edited\nas_of: ", 1)
    data_file.write_text(edited, encoding="utf-8")
    assert vmcache.cached_parse(data_file, _counting(calls), "v1") == _parse(edited)
    vmcache.cached_parse(data_file, _counting(calls), "v2")
    assert len(calls) == 3
    assert len(_pickles(data_file.parent / "__pycache__")) == 1  # stale copies are dropped


def test_nothing_is_written_when_python_writes_no_bytecode(data_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    calls: list[str] = []
    vmcache.cached_parse(data_file, _counting(calls), "v1")
    vmcache.cached_parse(data_file, _counting(calls), "v1")
    assert len(calls) == 2
    assert not (data_file.parent / "__pycache__").exists()


def test_the_pycache_prefix_is_followed(data_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    prefix = tmp_path / "prefix"
    monkeypatch.setattr(sys, "pycache_prefix", str(prefix))
    vmcache.cached_parse(data_file, _parse, "v1")
    directory = prefix / data_file.parent.resolve().relative_to("/")
    assert vmcache.cache_dir(data_file) == directory
    assert len(_pickles(directory)) == 1
    assert not (data_file.parent / "__pycache__").exists()


class _Boom:
    def __reduce__(self) -> Any:
        return (os.system, ("touch should-not-exist",))


@pytest.mark.parametrize("content", [
    pickle.dumps({"as_of": _Boom()}, protocol=4),  # a global other than datetime.date: refused, never called
    b"not a pickle",
    pickle.dumps(["a list"], protocol=4),
    b"",
])
def test_a_damaged_or_hostile_cache_is_parsed_again(data_file: Path, content: bytes, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    vmcache.cached_parse(data_file, _parse, "v1")
    [cached] = _pickles(data_file.parent / "__pycache__")
    cached.write_bytes(content)
    calls: list[str] = []
    assert vmcache.cached_parse(data_file, _counting(calls), "v1") == _expected()
    assert len(calls) == 1
    assert not (tmp_path / "should-not-exist").exists()
    assert pickle.loads(cached.read_bytes()) == _expected()  # rewritten


def test_an_unwritable_cache_directory_still_parses(data_file: Path) -> None:
    (data_file.parent / "__pycache__").write_text("a file where the directory would be")
    assert vmcache.cached_parse(data_file, _parse, "v1") == _expected()


def test_the_packaged_catalogue_reads_the_same_document() -> None:
    assert vmload._raw() == _expected()
