"""tools/sdk_report.py (what `make latest` prints) and constraints.txt, which `make install` applies."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tools import sdk_report

ROOT = Path(__file__).resolve().parents[2]
SDKS = ["pulumi", "pulumi-policy", "pulumi-azure-native", "pulumi-azure", "grpcio", "protobuf"]
TYPE_CHECKER = ["mypy", "types-PyYAML", "types-jsonschema", "types-protobuf", "types-grpcio"]
TEST_RUNNER = ["pytest-xdist"]  # make test and make test-fast run the suite under it
STACK_FILE_EDITOR = ["ruamel.yaml"]  # `amlkit fix` writes stack files with its round trip


def test_constraints_pin_every_sdk_to_one_release():
    text = (ROOT / "constraints.txt").read_text()
    pinned = sdk_report.pins(text)
    assert list(pinned) == SDKS + TYPE_CHECKER + TEST_RUNNER + STACK_FILE_EDITOR
    assert all(re.fullmatch(r"\d+(\.\d+)+", version) for version in pinned.values()), pinned


def test_make_install_applies_the_constraints_and_make_latest_does_not():
    makefile = (ROOT / "Makefile").read_text()
    assert "$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[test]'" in makefile
    assert "$(BIN)/amlkit-installed: pyproject.toml constraints.txt" in makefile
    latest = makefile.split("\nlatest:\n", 1)[1].split("\n\n", 1)[0]
    assert "constraints.txt" not in latest
    assert "--upgrade --upgrade-strategy eager -e '.[test]'" in latest


PINNED = {"pulumi": "3.272.0", "pulumi-policy": "1.21.0", "pulumi-azure": "6.40.1"}
CASES = {
    "as pinned": (
        {"pulumi": "3.272.0", "pulumi-policy": "1.21.0", "pulumi-azure": "6.40.1"}, [], None,
        ["SDKs (installed, against constraints.txt):", "  pulumi: 3.272.0", "  pulumi-policy: 1.21.0",
         "  pulumi-azure: 6.40.1", "SDK patches: 4 of 4 on",
         "start-up canary: pulumi-policy's \"cannot tell\" still reads as unknown"]),
    "newer, a patch off, canary failing": (
        {"pulumi": "3.280.0", "pulumi-policy": "1.22.0", "pulumi-azure": None},
        ["SDK patch 'alias-specs' is off (pulumi 3.280.0: ...)"], "pulumi-policy 1.22.0 no longer says ...",
        ["SDKs (installed, against constraints.txt):", "  pulumi: 3.280.0, pinned 3.272.0",
         "  pulumi-policy: 1.22.0, pinned 1.21.0", "  pulumi-azure: not installed", "SDK patches: 3 of 4 on",
         "  SDK patch 'alias-specs' is off (pulumi 3.280.0: ...)",
         "start-up canary: FAILS, every review exits 3: pulumi-policy 1.22.0 no longer says ..."]),
}


@pytest.mark.parametrize("versions, off, canary, expected", list(CASES.values()), ids=list(CASES))
def test_report_lines(versions, off, canary, expected):
    assert sdk_report.report_lines(PINNED, versions, off, 4, canary) == expected


def test_pins_skip_comments_and_blank_lines():
    assert sdk_report.pins("# a comment\n\npulumi==3.272.0  # the SDK\ngrpcio == 1.85.3\n") == {
        "pulumi": "3.272.0", "grpcio": "1.85.3"}
