"""What `amlkit rules` lists, without starting a pack: amlkit's own pack described from its rules' metadata.

amlkit's pack is built from `amlkit.policies.ALL_RULES` (`policies/__main__.py`), so what its
GetAnalyzerInfo would answer is known without a process, a gRPC channel or pulumi-policy: each
policy's name, description, level, severity, remediation, url, tags, display name and compliance
framework come from the rule, and the levels are reconciled with the config file exactly as the
review does (`amlkit.review.pack.config.reconcile`, with each schema in the wire form the protocol
carries: every number a float). tests/review/test_pack_info.py checks that this equals what the
running pack answers, for the defaults and for config files. Any other pack is asked over the
protocol (`amlkit.review.engine.pack_info`).

This module imports neither grpc, nor pulumi-policy, nor the review engine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from amlkit.review.model import PackInfo, PolicyInfo
from amlkit.review.packdir import POLICY_PACK_FILES, default_pack_dir, installed_pack_dir

__all__ = ["POLICY_PACK_FILES", "PYTHON_PACK_VERSION", "default_pack_dir", "installed_pack_dir", "own_config",
           "own_pack_info", "pack_version", "rule_baseline"]


def pack_version(pack_dir: Path, reported: str) -> str:
    """The version to display: PulumiPolicy.yaml's `version` (Python packs report 0.0.1 themselves)."""
    path = pack_dir / "PulumiPolicy.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return reported
    version = data.get("version") if isinstance(data, dict) else None
    return str(version) if version else reported


PYTHON_PACK_VERSION = "0.0.1"  # what pulumi-policy's PolicyPack reports as its version


def own_pack_info(pack_dir: Path, config: Path | None = None) -> PackInfo:
    """amlkit's pack as GetAnalyzerInfo and Configure would describe it, from the rules' metadata (and its
    `baseline` entry, a policy of the pack that checks nothing: `amlkit.policies.rule_baseline`)."""
    from amlkit.policies import all_rules
    from amlkit.policies.framework import PACK_NAME
    from amlkit.review.pack.config import PolicyConfig

    rules = all_rules()
    levels = own_config(config)
    policies = tuple(
        PolicyInfo(
            name=rule.name, description=rule.description,
            level=levels.get(rule.name, PolicyConfig()).level or "advisory", severity=rule.severity,
            remediation=rule.remediation, url=rule.docs_url, tags=tuple(rule.tags),
            stack_policy=rule.is_stack_rule, display_name=rule.display_name,
            framework=_framework(rule.compliance), ref=rule.ref, group=rule.group, equivalents=rule.equivalents,
            since=rule.since, remediates=rule.remediates, stack_key=rule.stack_key,
        )
        for rule in rules
    )
    return PackInfo(PACK_NAME, pack_version(pack_dir, PYTHON_PACK_VERSION), policies)


def own_config(config: Path | None = None, project_dir: Path | None = None) -> dict[str, Any]:
    """amlkit's pack config (policy name -> PolicyConfig: effective level and properties, defaults included) as
    the pack runs with `config` (None: its defaults): reconciled as the engine does, then its rule baseline
    applied. `project_dir`: a config inside it that links out of it is refused (`load_config_file`)."""
    from amlkit.policies import all_rules
    from amlkit.policies.rule_baseline import BASELINE_POLICY, BASELINE_SCHEMA
    from amlkit.policies.waivers import edge_schema
    from amlkit.review.pack.config import PolicySchema, load_config_file, reconcile

    schemas = [PolicySchema(rule.name, rule.level, _wire({**rule.config, **edge_schema()})) for rule in all_rules()]
    schemas.append(PolicySchema(BASELINE_POLICY, "advisory", _wire(BASELINE_SCHEMA)))
    file_config = load_config_file(config, project_dir) if config else None
    name = str(config) if config else None
    # without a file the result is the rules' own defaults, valid by construction (tests/review/test_pack_info.py
    # validates them): `amlkit rules` then skips jsonschema (~40 ms); the review's pack validates as the engine does
    return rule_baseline(reconcile(schemas, {}, file_config, name, validate=file_config is not None), name)


def rule_baseline(config: dict[str, Any], file: str | None) -> dict[str, Any]:
    """amlkit's pack config (name -> PolicyConfig) with its rule baseline applied, as the pack applies it (so
    reports show the levels the pack runs with); a baseline naming no release of the pack is a ConfigError."""
    from amlkit.errors import ConfigError
    from amlkit.policies import all_rules
    from amlkit.policies.rule_baseline import BASELINE_POLICY, BaselineError, rebase
    from amlkit.review.pack.config import PolicyConfig

    try:
        rebased = rebase(all_rules(), {name: (entry.level, entry.properties) for name, entry in config.items()})
    except BaselineError as error:
        key, _, message = str(error).partition(": ")
        raise ConfigError(file, key, message, (config[BASELINE_POLICY].properties or {}).get("version")) from None
    return {name: PolicyConfig(level, properties) for name, (level, properties) in rebased.items()}


def _framework(compliance: Any) -> tuple[str, str, str, str] | None:
    if compliance is None:
        return None
    fields = (compliance.name, compliance.version, compliance.reference, compliance.specification)
    return fields if any(fields) else None


def _wire(value: Any) -> Any:
    """A JSON value as a protobuf Struct carries it: every number a float (as `MessageToDict` gives it back)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, dict):
        return {key: _wire(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_wire(item) for item in value]
    return value
