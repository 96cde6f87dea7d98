"""The sample project's pack configs under policy-config/: Pulumi's --policy-pack-config format,
one per sample stack, every entry naming a real policy with a valid level and schema-valid knobs."""

import json
from pathlib import Path

import jsonschema
import pytest

from amlkit.policies import ALL_RULES
from amlkit.policies.waivers import WAIVER_SCHEMA

ROOT = Path(__file__).resolve().parents[2]
CONFIG_DIR = ROOT / "policy-config"
RULES = {rule.name: rule for rule in ALL_RULES}
LEVELS = {"advisory", "mandatory", "remediate", "disabled"}
CONFIG_FILES = sorted(CONFIG_DIR.glob("*.json"))


def test_one_config_per_sample_stack():
    stacks = {path.name.removeprefix("Pulumi.").removesuffix(".yaml") for path in (ROOT / "stacks").glob("*.yaml")}
    assert {path.stem for path in CONFIG_FILES} == stacks == {"dev", "staging", "prod"}


@pytest.mark.parametrize("path", CONFIG_FILES, ids=lambda path: path.stem)
def test_entries_name_policies_with_valid_levels_and_knobs(path):
    config = json.loads(path.read_text())
    for name, entry in config.items():
        assert name == "all" or name in RULES, f"{path.name}: unknown policy {name}"
        if isinstance(entry, str):
            assert entry in LEVELS
            continue
        assert entry.get("enforcementLevel") in LEVELS, f"{path.name}: {name} needs an explicit level"
        knobs = {key: value for key, value in entry.items() if key != "enforcementLevel"}
        schema = {
            "type": "object",
            "properties": {**RULES[name].config, "waivers": WAIVER_SCHEMA},
            "additionalProperties": False,
        }
        jsonschema.validate(knobs, schema)


def test_prod_is_strictest():
    prod = json.loads((CONFIG_DIR / "prod.json").read_text())
    assert prod["all"] == "mandatory"
    assert prod["aml-cluster-vm-priority"]["allowedPriorities"] == ["Dedicated"]


def test_dev_allows_low_priority_only():
    dev = json.loads((CONFIG_DIR / "dev.json").read_text())
    assert dev["aml-cluster-vm-priority"]["allowedPriorities"] == ["LowPriority"]
