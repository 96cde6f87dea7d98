"""amlkit.review.pack.info: amlkit's own pack described from its rules' metadata equals what the running pack
answers over the analyzer protocol (amlkit.review.engine.pack_info), config errors included."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from amlkit import packs as packinfo
from amlkit.errors import ConfigError, UsageError
from amlkit.review import engine
from amlkit.review.pack.info import pack_version
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


def test_the_defaults_of_amlkits_pack_validate_against_its_schemas(monkeypatch):
    """`rules` without a config file skips validating the defaults (no jsonschema import): they must be valid,
    and a pack whose defaults are not valid must still fail that listing's twin, the validated reconcile."""
    from amlkit.policies import all_rules
    from amlkit.policies.rule_baseline import BASELINE_POLICY, BASELINE_SCHEMA
    from amlkit.policies.waivers import edge_schema
    from amlkit.review.pack.config import PolicySchema, reconcile

    schemas = [PolicySchema(rule.name, rule.level, {**rule.config, **edge_schema()}) for rule in all_rules()]
    schemas.append(PolicySchema(BASELINE_POLICY, "advisory", BASELINE_SCHEMA))
    assert reconcile(schemas, {}, None) == reconcile(schemas, {}, None, validate=False)
    broken = [PolicySchema("p", "advisory", {"maxNodes": {"type": "integer", "default": "ten"}})]
    with pytest.raises(ConfigError, match="p.maxNodes"):
        reconcile(broken, {}, None)
    assert reconcile(broken, {}, None, validate=False)["p"].properties == {"maxNodes": "ten"}


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


def test_pack_version_comes_from_pulumipolicy_yaml(tmp_path):
    assert pack_version(PACKS / "raises", "0.0.1") == "9.9.1"
    (tmp_path / "PulumiPolicy.yaml").write_text("runtime: python\n")
    assert pack_version(tmp_path, "0.0.1") == "0.0.1"


@pytest.mark.parametrize(("text", "shown"), [
    ("name: p\nversion: 1.2.3\n", "1.2.3"), ("version: 2\n", "2"), ("version: ''\n", "0.0.1"), ("- a\n", "0.0.1"),
    ("", "0.0.1"), ("version: [\n", "0.0.1")])
def test_a_changed_pulumipolicy_yaml_is_read_again(tmp_path, text, shown):
    assert pack_version(tmp_path, "0.0.1") == "0.0.1"
    (tmp_path / "PulumiPolicy.yaml").write_text(text, encoding="utf-8")
    assert pack_version(tmp_path, "0.0.1") == shown
    assert pack_version(tmp_path, "0.0.1") == shown  # the second read is the parse remembered for this text
    (tmp_path / "PulumiPolicy.yaml").write_text("version: 7.0.0\n", encoding="utf-8")
    assert pack_version(tmp_path, "0.0.1") == "7.0.0"


def test_the_pack_version_is_amlkits_version_in_every_place_it_is_written():
    import tomllib

    from amlkit import __version__
    from amlkit.review.engine import default_pack_dir

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert pack_version(default_pack_dir(), "0.0.1") == pyproject == __version__


def test_another_packs_metadata_tags_are_read_as_amlkits():
    """The one path: another pack's GetAnalyzerInfo tags give its PolicyInfo a ref, group, release, stack key and
    equivalents exactly as amlkit's pack's tags do; its other tags stay tags."""
    (policy,) = engine.pack_info(PACKS / "tagged").policies
    assert (policy.tags, policy.ref, policy.group, policy.since, policy.stack_key, policy.remediates) == (
        ("cost", "team:ml"), "TEAM-0001", "compute", "2.0.0", "max_instances", False)
    assert [(e.tool, e.id, e.url) for e in policy.equivalents] == [
        ("Checkov", "CKV_AZURE_150", "https://www.checkov.io/5.Policy%20Index/terraform.html")]
