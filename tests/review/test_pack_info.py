"""amlkit.review.pack.info: amlkit's own pack described from its rules' metadata equals what the running pack
answers over the analyzer protocol (amlkit.review.engine.pack_info), config errors included."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from amlkit.errors import ConfigError, UsageError
from amlkit.review import engine
from amlkit.review.pack import info as packinfo
from tests.review.helpers import MIN_NODES, PACKS

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = {
    "every-rule fixture": (ROOT / "tests/fixtures/every_rule/pack-config.json").read_text(encoding="utf-8"),
    "platform-repo prod": (ROOT / "examples/platform-repo/policy-config/prod.json").read_text(encoding="utf-8"),
    "all advisory": json.dumps({"all": "advisory"}),
    "all disabled, one mandatory": json.dumps({"all": "disabled", MIN_NODES: "mandatory"}),
    "level-less entry with settings": json.dumps({MIN_NODES: {"waivers": [
        {"resource": "cpu-*", "reason": "warm pool", "expires": "2999-01-01"}]}}),
    "empty file": "",
    "rule baseline 0.1.0": json.dumps({"baseline": {"version": "0.1.0"}, "all": "mandatory"}),
}
BAD_CONFIGS = {
    "unknown policy": json.dumps({"aml-cluster-min-node-zero": "mandatory"}),
    "unknown setting": json.dumps({MIN_NODES: {"waiver": []}}),
    "waiver without reason": json.dumps({MIN_NODES: {"waivers": [{"resource": "x"}]}}),
    "bad level": json.dumps({MIN_NODES: "required"}),
    "integer setting given a string": json.dumps({"aml-cluster-max-nodes": {"maxNodes": "ten"}}),
    "not json": "{",
    "baseline naming no release": json.dumps({"baseline": {"version": "0.0.9"}}),
}


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pack.json"
    path.write_text(text, encoding="utf-8")
    return path


def test_packinfo_without_config_equals_the_running_pack():
    assert asdict(packinfo.pack_info()) == asdict(engine.pack_info())


@pytest.mark.parametrize("text", CONFIGS.values(), ids=CONFIGS.keys())
def test_packinfo_with_a_config_equals_the_running_pack(tmp_path, text):
    config = _write(tmp_path, text)
    assert asdict(packinfo.pack_info(config=config)) == asdict(engine.pack_info(config=config))


@pytest.mark.parametrize("text", BAD_CONFIGS.values(), ids=BAD_CONFIGS.keys())
def test_packinfo_config_errors_equal_the_running_packs(tmp_path, text):
    config = _write(tmp_path, text)
    with pytest.raises(ConfigError) as ours:
        packinfo.pack_info(config=config)
    with pytest.raises(ConfigError) as theirs:
        engine.pack_info(config=config)
    assert (str(ours.value), vars(ours.value)) == (str(theirs.value), vars(theirs.value))


def test_packinfo_of_another_pack_asks_that_pack():
    info = packinfo.pack_info(PACKS / "raises")
    assert asdict(info) == asdict(engine.pack_info(PACKS / "raises"))
    assert info.name != "amlkit-guardrails"


def test_packinfo_refuses_a_config_directory(tmp_path):
    with pytest.raises(UsageError, match="a directory; `rules` takes one policy pack config file"):
        packinfo.pack_info(config=tmp_path)
