"""What describes a policy pack without reviewing (`amlkit rules`, `amlkit fix`): any other pack over the analyzer
protocol (amlkit.review.engine, imported only then), amlkit's own pack from its rules, in this process.

An entry point may read amlkit's rules; the reviewer never does (tests/test_layers.py). `amlkit rules` describes the
own pack without starting it (no process, gRPC channel or pulumi-policy), and `amlkit fix` needs the rules' fixes
anyway. What it builds is what the running pack answers, read the same way: each policy's tags as the pack
reports them (`amlkit.policies.metadata.policy_tags`), read back by `read_tags` as the review reads any pack's,
each schema in the wire form the protocol carries (every number a float), the levels reconciled with the config
file as the review does (`amlkit.review.pack.config.reconcile`), then the rule baseline applied as the pack applies
it. tests/review/test_pack_info.py checks that this equals the running pack's answer, for the defaults and for
config files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from amlkit.errors import UsageError
from amlkit.review.model import PackInfo, PolicyInfo
from amlkit.review.pack.info import PYTHON_PACK_VERSION, pack_version
from amlkit.review.packdir import default_pack_dir

__all__ = ["default_pack_dir", "own_config", "own_pack_info", "pack_info", "rule_baseline"]


def pack_info(policy_pack: Path | None = None, config: Path | None = None) -> PackInfo:
    """The pack's policies with their levels after reconciliation with `config` (for `amlkit rules`):
    from the rules for amlkit's own pack, over the analyzer protocol for any other."""
    if config is not None and Path(config).is_dir():
        raise UsageError(f"{config}: a directory; `rules` takes one policy pack config file")
    own = default_pack_dir()
    if policy_pack is not None and Path(policy_pack).resolve() != own:
        from amlkit.review.engine import pack_info as described  # grpc and pulumi-policy: only for another pack

        return described(policy_pack, config)
    return own_pack_info(own, config)


def own_pack_info(pack_dir: Path, config: Path | None = None) -> PackInfo:
    """amlkit's pack as GetAnalyzerInfo and Configure would describe it (its `baseline` entry, a policy of the pack
    that checks nothing, left out as the review leaves it out: `amlkit.policies.rule_baseline`)."""
    from amlkit.policies import all_rules
    from amlkit.policies.framework import PACK_NAME
    from amlkit.policies.metadata import policy_tags, read_tags
    from amlkit.review.pack.config import PolicyConfig

    levels = own_config(config)
    policies = []
    for rule in all_rules():
        meta = read_tags(policy_tags(rule))
        policies.append(PolicyInfo(
            name=rule.name, description=rule.description,
            level=levels.get(rule.name, PolicyConfig()).level or "advisory", severity=rule.severity,
            remediation=rule.remediation, url=rule.docs_url, tags=meta.tags,
            stack_policy=rule.is_stack_rule, display_name=rule.display_name,
            framework=_framework(rule.compliance), ref=meta.ref, group=meta.group, equivalents=meta.equivalents,
            since=meta.since, remediates=meta.remediates, stack_key=meta.stack_key,
        ))
    return PackInfo(PACK_NAME, pack_version(pack_dir, PYTHON_PACK_VERSION), tuple(policies))


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
    """amlkit's pack config (name -> PolicyConfig) with its rule baseline applied, as the pack applies it (levels and
    config values); a baseline naming no release of the pack is a ConfigError."""
    from amlkit.policies import all_rules
    from amlkit.policies.rule_baseline import BASELINE_POLICY, BaselineError, rebase
    from amlkit.review.pack.config import PolicyConfig
    from amlkit.review.pack.levels import baseline_error

    try:
        rebased = rebase(all_rules(), {name: (entry.level, entry.properties) for name, entry in config.items()})
    except BaselineError as error:
        raise baseline_error(error, file, (config[BASELINE_POLICY].properties or {}).get("version")) from None
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
