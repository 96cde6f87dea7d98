"""amlkit.review.report.files: a report file is written all or nothing, with the mode a plain write gives."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from amlkit.errors import CouldNotFinish, UsageError
from amlkit.review.report import files
from amlkit.review.report.files import write_report

PREVIOUS = "the previous report\n"
NEW = "the new report\n" * 1000


@pytest.fixture
def umask() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_new_report_gets_the_mode_a_plain_write_gives(tmp_path, umask, mask, mode) -> None:
    os.umask(mask)
    write_report(tmp_path / "report.json", NEW)
    (tmp_path / "plain.json").write_text(NEW, encoding="utf-8")  # what 0.2.0 did, and what a cold run does
    assert (_mode(tmp_path / "report.json"), _mode(tmp_path / "plain.json")) == (mode, mode)
    assert (tmp_path / "report.json").read_text(encoding="utf-8") == NEW
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain.json", "report.json"]  # no temporary file left


def test_an_existing_report_keeps_its_mode_and_a_link_stays_a_link(tmp_path, umask) -> None:
    (tmp_path / "real.md").write_text(PREVIOUS, encoding="utf-8")
    os.chmod(tmp_path / "real.md", 0o640)
    (tmp_path / "link.md").symlink_to("real.md")
    write_report(tmp_path / "link.md", NEW)
    assert (tmp_path / "link.md").is_symlink() and (tmp_path / "real.md").read_text(encoding="utf-8") == NEW
    assert _mode(tmp_path / "real.md") == 0o640


@pytest.mark.parametrize("failing", ["write", "fsync", "replace"])
def test_a_failed_write_leaves_the_previous_report_and_exits_3(tmp_path, monkeypatch, failing) -> None:
    """Before 0.3.0 a full disk left a truncated report in place of the previous one, and exited 2."""
    report = tmp_path / "report.sarif"
    report.write_text(PREVIOUS, encoding="utf-8")

    def disk_full(*_args: object, **_kwargs: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    if failing == "write":
        monkeypatch.setattr(files, "open", lambda *a, **k: _FullFile(), raising=False)
    else:
        monkeypatch.setattr(files.os, failing, disk_full)
    with pytest.raises(CouldNotFinish) as error:
        write_report(report, NEW)
    assert str(error.value) == (f"{report}: cannot write the report: No space left on device; the previous report "
                                "is unchanged")
    assert error.value.exit_code == 3
    assert report.read_text(encoding="utf-8") == PREVIOUS
    assert [p.name for p in tmp_path.iterdir()] == ["report.sarif"]


class _FullFile:
    def __enter__(self) -> _FullFile:
        return self

    def __exit__(self, *_args: object) -> None:
        return None

    def write(self, _text: str) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_report_a_plain_write_may_not_write_is_not_replaced(tmp_path, monkeypatch) -> None:
    report = tmp_path / "report.txt"
    report.write_text(PREVIOUS, encoding="utf-8")
    os.chmod(report, 0o444)
    monkeypatch.setattr(files.os, "access", lambda *_args: False)  # as for any user but root
    with pytest.raises(CouldNotFinish, match="Permission denied; the previous report is unchanged"):
        write_report(report, NEW)
    assert report.read_text(encoding="utf-8") == PREVIOUS


def test_a_device_is_written_to_never_replaced(tmp_path) -> None:
    write_report(Path(os.devnull), NEW)
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


@pytest.mark.parametrize(("where", "problem"), [("no/such/dir/report.txt", "no directory"), (".", "it is a directory")])
def test_a_path_that_cannot_be_a_report_is_bad_usage(tmp_path, monkeypatch, where, problem) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match=f"^{where}: cannot write the report: {problem}"):
        write_report(Path(where), NEW)
