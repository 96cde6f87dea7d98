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
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from amlkit.errors import ConfigError, schema_message, show_value
from amlkit.policies.waivers import WAIVER_KEYS, WaiverError, parse_waivers
from amlkit.review.project import inside, refuse_outside_link
from amlkit.stackfile import MAX_DEPTH, MAX_FILE_BYTES, one_line, read_text

__all__ = [
    "LEVELS", "PolicyConfig", "PolicySchema", "allowed", "check_known", "closest", "load_config_file",
    "parse_config", "reconcile",
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


def load_config_file(path: Path, project_dir: Path | None = None) -> dict[str, PolicyConfig]:
    """Parse a `--policy-pack-config` file; errors name the file, the key and what is allowed. A file inside
    `project_dir` that is a symbolic link leaving it is refused (its target is never read)."""
    if project_dir is not None and inside(path, project_dir):
        refuse_outside_link(path, (project_dir,))
    text = read_text(path, MAX_FILE_BYTES)
    if not text.strip():
        return {}
    data = _parse_json(text, str(path))
    if not isinstance(data, dict):  # the document itself is never quoted: it may be any file
        raise ConfigError(str(path), "", f"the document is a JSON {_json_kind(data)}; allowed: a JSON object of "
                          "policy name -> level or object")
    return parse_config(data, str(path))


class _LongNumber:
    """A JSON integer with more digits than Python converts (sys.get_int_max_str_digits): found by key path."""

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _parse_json(text: str, file: str) -> Any:
    """JSON, with nesting deeper than MAX_DEPTH and integers over Python's digit limit as config errors naming
    the key path (never a RecursionError or ValueError out of the parser)."""
    too_deep = _too_deep(text) if text.count("{") + text.count("[") > MAX_DEPTH else None
    if too_deep is not None:
        raise ConfigError(file, _key_path(too_deep), f"nested more than {MAX_DEPTH} levels deep; allowed: at most "
                          f"{MAX_DEPTH}")
    limit = sys.get_int_max_str_digits() or None
    try:
        data = json.loads(text, parse_int=lambda s: _LongNumber(len(s)) if limit and len(s) > limit else int(s))
    except json.JSONDecodeError as error:
        raise ConfigError(file, f"line {error.lineno}", f"not valid JSON: {error.msg}") from None
    except RecursionError:  # _too_deep stopped short on malformed text
        raise ConfigError(file, "", f"nested more than {MAX_DEPTH} levels deep; allowed: at most {MAX_DEPTH}") from None
    long_number = _find_long_number(data, ())
    if long_number is not None:
        at, number = long_number
        raise ConfigError(file, _key_path(at), f"a number of {number.digits} digits; allowed: at most {limit} digits")
    return data


def _find_long_number(value: Any, at: tuple[str | int, ...]) -> tuple[tuple[str | int, ...], _LongNumber] | None:
    if isinstance(value, _LongNumber):
        return at, value
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    return next((found for key, item in items if (found := _find_long_number(item, (*at, key))) is not None), None)


def _too_deep(text: str) -> tuple[str | int, ...] | None:
    """The key path where the JSON text nests deeper than MAX_DEPTH, or None (also for text that is not JSON:
    the parser then says what is wrong)."""
    path: list[Any] = []
    kinds: list[str] = []
    last = '""'
    index = 0
    try:
        while index < len(text):
            char = text[index]
            if char == '"':
                end = index + 1
                while text[end] != '"':
                    end += 2 if text[end] == "\\" else 1
                last, index = text[index:end + 1], end + 1
                continue
            if char in "{[":
                if len(kinds) >= MAX_DEPTH:
                    return tuple(part for part in path if part is not None)
                kinds.append(char)
                path.append(None if char == "{" else 0)
            elif char in "}]":
                kinds.pop()
                path.pop()
            elif char == ":" and kinds and kinds[-1] == "{":
                path[-1] = json.loads(last)
            elif char == "," and kinds and kinds[-1] == "[":
                path[-1] += 1
            index += 1
    except (IndexError, ValueError):
        return None
    return None


def _key_path(parts: tuple[str | int, ...]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{one_line(part)}" if text else one_line(part))
    return text


def _json_kind(value: Any) -> str:
    return {list: "array", str: "string", bool: "boolean", type(None): "null"}.get(type(value), "number")


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
        raise ConfigError(file, key_path, f"{show_value(value)} is not an enforcement level; allowed: "
                          f"{', '.join(LEVELS)}", value)
    return value


def reconcile(
    policies: list[PolicySchema],
    initial: dict[str, PolicyConfig] | None,
    given: dict[str, PolicyConfig] | None,
    file: str | None = None,
    *,
    validate: bool = True,
) -> dict[str, PolicyConfig]:
    """Defaults, then the pack's initial config, then the file; validated against each schema (`validate`
    False: not validated, for a caller that knows the result is valid, e.g. amlkit's own pack's defaults)."""
    if given:
        check_known(policies, given, file)
    result = {policy.name: _defaults(policy) for policy in policies}
    for config in (initial, given):
        if config:
            result = _apply(result, config)
    if validate:
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
    import jsonschema  # ~40 ms to import: only where a config is validated

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
            raise ConfigError(file, path, f"{schema_message(error)}; allowed: {allowed(error.schema)}", error.instance)


def _takes_amlkit_waivers(policy: PolicySchema) -> bool:
    """Whether the policy's `waivers` setting is amlkit's (amlkit.policies.waivers.WAIVER_SCHEMA)."""
    items = policy.properties.get("waivers", {}).get("items", {})
    return isinstance(items, dict) and set(items.get("properties", {})) == set(WAIVER_KEYS)


def _check_waivers(policy: str, raw: Any, file: str | None) -> None:
    """The pack's own reading of the waivers (an impossible date, a blank reason, an unknown key), so a bad
    waiver is a config error naming the file and key, never a policy that raises on some resource."""
    try:
        parse_waivers(policy, raw)
    except WaiverError as error:
        raise ConfigError(file, error.key_path, error.problem, error.value) from None


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
