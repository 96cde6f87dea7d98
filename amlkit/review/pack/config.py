"""Policy pack config: Pulumi's `--policy-pack-config` JSON, reconciled exactly as the engine does.

Mirrors pulumi/pulumi `pkg/resource/analyzer/config.go` (`parsePolicyPackConfig`, `extractEnforcementLevel`,
`createConfigWithDefaults`, `applyConfig`, `ReconcilePolicyPackConfig`, `validatePolicyPackConfig`):

1. every policy starts at its own enforcement level and its schema's `default` values;
2. the pack's initial config is applied, then the config file;
3. applying a config: the key `all` with a level sets every policy's level first; then each entry sets
   its level ONLY when it gives one (`if givenConfig.EnforcementLevel.IsValid()`), so an entry with
   properties but no level keeps the policy's level (a mandatory policy stays mandatory), and its
   properties are merged over the defaults;
4. the result is validated against each policy's config schema (`{"type": "object", properties,
   required}`); any error stops the run (here: ConfigError, exit 2).

Stricter than the engine: a policy name the pack does not have, or a setting a policy's schema does
not declare, is a ConfigError naming the file, the key and the closest known name, instead of being
ignored while the defaults quietly apply.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from amlkit.errors import ConfigError
from amlkit.policies.framework import WAIVER_KEYS, WaiverError, parse_waivers

__all__ = [
    "LEVELS", "PolicyConfig", "PolicySchema", "allowed", "check_known", "closest", "load_config_file",
    "parse_config", "reconcile", "unmatched_waivers",
]

LEVELS = ("advisory", "mandatory", "remediate", "disabled")


@dataclass
class PolicyConfig:
    """One entry: an enforcement level ("" when not given) and properties (None when none)."""

    level: str = ""
    properties: dict[str, Any] | None = None


@dataclass(frozen=True)
class PolicySchema:
    """What reconciliation needs of a policy (from GetAnalyzerInfo)."""

    name: str
    level: str
    properties: dict[str, Any] = field(default_factory=dict)  # JSON-schema per property
    required: tuple[str, ...] = ()


def load_config_file(path: Path) -> dict[str, PolicyConfig]:
    """Parse a `--policy-pack-config` file; errors name the file, the key and what is allowed."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(str(path), "", f"cannot read the policy pack config: {error.strerror}") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(str(path), f"line {error.lineno}", f"not valid JSON: {error.msg}") from None
    if not isinstance(data, dict):
        raise ConfigError(str(path), "", "must be a JSON object of policy name -> level or object", data)
    return parse_config(data, str(path))


def parse_config(data: dict[str, Any], file: str | None) -> dict[str, PolicyConfig]:
    result: dict[str, PolicyConfig] = {}
    for key, value in data.items():
        if isinstance(value, str):
            entry = PolicyConfig(_level(file, key, value))
        elif isinstance(value, dict):
            properties = dict(value)
            level = properties.pop("enforcementLevel", "")
            entry = PolicyConfig(_level(file, f"{key}.enforcementLevel", level) if level != "" else "",
                                 properties or None)
        else:
            raise ConfigError(file, key, f"must be an enforcement level ({', '.join(LEVELS)}) or an object",
                              value)
        if entry.level or entry.properties:
            result[key] = entry
    return result


def _level(file: str | None, key_path: str, value: Any) -> str:
    if not isinstance(value, str) or value not in LEVELS:
        raise ConfigError(file, key_path, f"{value!r} is not an enforcement level; allowed: {', '.join(LEVELS)}",
                          value)
    return value


def reconcile(
    policies: list[PolicySchema],
    initial: dict[str, PolicyConfig] | None,
    given: dict[str, PolicyConfig] | None,
    file: str | None = None,
) -> dict[str, PolicyConfig]:
    """Defaults, then the pack's initial config, then the file; validated against each schema."""
    if given:
        check_known(policies, given, file)
    result = {policy.name: _defaults(policy) for policy in policies}
    for config in (initial, given):
        if config:
            result = _apply(result, config)
    _validate(policies, result, file)
    return result


def check_known(policies: list[PolicySchema], given: dict[str, PolicyConfig], file: str | None) -> None:
    """Every key names a policy of the pack (or `all`), every setting one its schema declares."""
    by_name = {policy.name: policy for policy in policies}
    for name, entry in given.items():
        if name == "all":
            continue
        policy = by_name.get(name)
        if policy is None:
            raise ConfigError(file, name, f"unknown policy{closest(name, by_name)}; allowed: `all` or a policy "
                              "of the pack (listed by `amlkit rules`)")
        for setting in entry.properties or {}:
            if setting not in policy.properties:
                allowed_settings = ", ".join(["enforcementLevel", *sorted(policy.properties)])
                raise ConfigError(file, f"{name}.{setting}", f"unknown setting{closest(setting, policy.properties)}; "
                                  f"allowed: {allowed_settings}")


def closest(word: str, known: Any) -> str:
    """` (did you mean 'x'?)` for the closest known name (difflib), or nothing when none is close."""
    matches = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean {matches[0]!r}?)" if matches else ""


def _defaults(policy: PolicySchema) -> PolicyConfig:
    defaults = {k: v["default"] for k, v in policy.properties.items() if isinstance(v, dict) and "default" in v}
    return PolicyConfig(policy.level, defaults or None)


def _apply(result: dict[str, PolicyConfig], config: dict[str, PolicyConfig]) -> dict[str, PolicyConfig]:
    result = {name: PolicyConfig(entry.level, _copy(entry.properties)) for name, entry in result.items()}
    everything = config.get("all")
    if everything is not None and everything.level:
        for entry in result.values():
            entry.level = everything.level
    for name, given in config.items():
        current = result.get(name, PolicyConfig())
        level = given.level or current.level
        properties = _copy(current.properties)
        if given.properties:
            properties = {**(properties or {}), **given.properties}
        result[name] = PolicyConfig(level, properties)
    return result


def _copy(properties: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if properties is None else dict(properties)


def _validate(policies: list[PolicySchema], result: dict[str, PolicyConfig], file: str | None) -> None:
    for policy in policies:
        if _takes_amlkit_waivers(policy):
            _check_waivers(policy.name, (result[policy.name].properties or {}).get("waivers"), file)
        if not policy.properties and not policy.required:
            continue
        schema: dict[str, Any] = {"type": "object"}
        if policy.properties:
            schema["properties"] = policy.properties
        if policy.required:
            schema["required"] = list(policy.required)
        document = result[policy.name].properties or {}
        errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(document), key=lambda e: list(e.path))
        if errors:
            error = errors[0]
            path = ".".join([policy.name, *(str(p) for p in error.absolute_path)])
            raise ConfigError(file, path, f"{error.message}; allowed: {allowed(error.schema)}", error.instance)


def _takes_amlkit_waivers(policy: PolicySchema) -> bool:
    """Whether the policy's `waivers` setting is amlkit's (amlkit.policies.framework.WAIVER_SCHEMA)."""
    items = policy.properties.get("waivers", {}).get("items", {})
    return isinstance(items, dict) and set(items.get("properties", {})) == set(WAIVER_KEYS)


def _check_waivers(policy: str, raw: Any, file: str | None) -> None:
    """The pack's own reading of the waivers (an impossible date, a blank reason, an unknown key), so a bad
    waiver is a config error naming the file and key, never a policy that raises on some resource."""
    try:
        parse_waivers(policy, raw)
    except WaiverError as error:
        raise ConfigError(file, error.key_path, error.problem, error.value) from None


def unmatched_waivers(config: dict[str, PolicyConfig], resources: list[dict[str, Any]], file: str,
                      stack: str) -> list[str]:
    """A warning per waiver that matches no resource of the stack (by logical name or URN), naming the
    closest resource names: a waiver that waives nothing is almost always a typo or a stale entry."""
    names = sorted({r["name"] for r in resources})
    warnings = []
    for policy, entry in sorted(config.items()):
        try:
            waivers = parse_waivers(policy, (entry.properties or {}).get("waivers"))
        except WaiverError:  # not amlkit's waivers (another pack's setting of that name)
            continue
        for index, waiver in enumerate(waivers):
            if any(waiver.matches(r["name"], r["urn"]) for r in resources):
                continue
            bare = waiver.resource.replace("*", "").replace("?", "")
            close = difflib.get_close_matches(bare, names, n=3, cutoff=0.3)
            hint = f"; closest: {', '.join(close)}" if close else ""
            warnings.append(f"{file}: {policy}.waivers[{index}]: resource {waiver.resource!r} matches no resource of "
                            f"stack {stack}{hint}")
    return warnings


def allowed(schema: Any) -> str:
    """A short description of what a (sub)schema accepts, for error messages."""
    if not isinstance(schema, dict):
        return "see the policy's config schema"
    parts = []
    if "enum" in schema:
        parts.append("one of " + ", ".join(json.dumps(v) for v in schema["enum"]))
    if "type" in schema:
        parts.append(f"type {schema['type']}")
    for key, word in (("minimum", ">="), ("maximum", "<="), ("minLength", "length >="), ("pattern", "matching")):
        if key in schema:
            parts.append(f"{word} {schema[key]}")
    if "required" in schema:
        parts.append("required keys " + ", ".join(schema["required"]))
    if schema.get("additionalProperties") is False and "properties" in schema:
        parts.append("keys " + ", ".join(sorted(schema["properties"])))  # the wire (a protobuf Struct) keeps no order
    return "; ".join(parts) or "see the policy's config schema"
