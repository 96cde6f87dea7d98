"""Azure resource names derived from a component name: stable, valid and collision-free.

Globally unique names (storage accounts, key vaults, container registries) always end with a short
hash of the Pulumi project, the stack and the component name, so two components, or the same
component in two stacks, never ask Azure for the same name. A caller-given name is checked against
Azure's rules and used as is.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

import pulumi

from amlkit.errors import ConfigError

HASH_LENGTH = 6


@dataclass(frozen=True)
class NameRule:
    """Azure's naming rule for one resource type."""

    pattern: re.Pattern[str]
    allowed: str


STORAGE_ACCOUNT = NameRule(re.compile(r"^[a-z0-9]{3,24}$"), "3-24 lowercase letters and digits")
KEY_VAULT = NameRule(
    re.compile(r"^(?!.*--)[A-Za-z][A-Za-z0-9-]{1,22}[A-Za-z0-9]$"),
    "3-24 letters, digits and single hyphens, starting with a letter, ending with a letter or digit",
)
CONTAINER_REGISTRY = NameRule(re.compile(r"^[A-Za-z0-9]{5,50}$"), "5-50 letters and digits")
ML_WORKSPACE = NameRule(
    re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{2,32}$"),
    "3-33 letters, digits, hyphens and underscores, starting with a letter or digit",
)
LOG_ANALYTICS = NameRule(
    re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{2,61}[A-Za-z0-9]$"),
    "4-63 letters, digits and hyphens, starting and ending with a letter or digit",
)
APP_INSIGHTS = NameRule(re.compile(r"^[A-Za-z0-9()_.-]{1,255}$"), "1-255 letters, digits and ()_.-")
COMPUTE_CLUSTER = NameRule(
    re.compile(r"^[A-Za-z][A-Za-z0-9-]{1,15}$"),
    "2-16 letters, digits and hyphens, starting with a letter",
)
ATTACHED_COMPUTE = NameRule(
    re.compile(r"^[A-Za-z][A-Za-z0-9-]{1,15}$"),
    "2-16 letters, digits and hyphens, starting with a letter",
)
COMPUTE_INSTANCE = NameRule(
    re.compile(r"^[A-Za-z][A-Za-z0-9-]{1,22}[A-Za-z0-9]$"),
    "3-24 letters, digits and hyphens, starting with a letter, ending with a letter or digit",
)


def short_hash(component_name: str, length: int = HASH_LENGTH) -> str:
    """A short, stable hex digest of project, stack and component name."""
    seed = f"{pulumi.get_project()}/{pulumi.get_stack()}/{component_name}"
    return hashlib.sha256(seed.encode()).hexdigest()[:length]


def checked(name: str, rule: NameRule, key_path: str) -> str:
    """Return name when it satisfies rule, else raise a ConfigError naming the field."""
    if not isinstance(name, str) or not rule.pattern.fullmatch(name):
        raise ConfigError(None, key_path, f"invalid Azure name {name!r}: allowed is {rule.allowed}", name)
    return name


def _alnum(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _hyphenated(text: str) -> str:
    return re.sub(r"-{2,}", "-", re.sub(r"[^a-z0-9-]", "-", text.lower())).strip("-")


def storage_account_name(component_name: str) -> str:
    """`st` + the component's letters and digits + hash, at most 24 chars."""
    room = 24 - 2 - HASH_LENGTH
    return f"st{_alnum(component_name)[:room]}{short_hash(component_name)}"


def key_vault_name(component_name: str) -> str:
    """`kv-` + the component name + `-` + hash, at most 24 chars."""
    room = 24 - 4 - HASH_LENGTH
    stem = _hyphenated(component_name)[:room].strip("-")
    return f"kv-{stem}-{short_hash(component_name)}" if stem else f"kv-{short_hash(component_name)}"


def container_registry_name(component_name: str) -> str:
    """`cr` + the component's letters and digits + hash, at most 50 chars."""
    room = 50 - 2 - HASH_LENGTH
    return f"cr{_alnum(component_name)[:room]}{short_hash(component_name)}"


def prefixed_name(prefix: str, component_name: str, max_length: int) -> str:
    """`<prefix>-<component name>`; names too long keep a hash suffix so they stay distinct."""
    full = f"{prefix}-{_hyphenated(component_name)}".strip("-") if prefix else _hyphenated(component_name)
    if len(full) <= max_length:
        return full
    stem = full[: max_length - HASH_LENGTH - 1].strip("-")
    return f"{stem}-{short_hash(component_name)}"


def resource_name(override: str | None, default: str, rule: NameRule, key_path: str) -> str:
    """The caller's name, checked, or the derived default, checked too (a bad component name fails)."""
    return checked(override if override is not None else default, rule, key_path)


def compute_instance_name(component_name: str) -> str:
    """`ci-` + the component name + `-` + hash, at most 24 chars: instance names are unique per region."""
    room = 24 - 4 - HASH_LENGTH
    stem = _hyphenated(component_name)[:room].strip("-")
    return f"ci-{stem}-{short_hash(component_name)}" if stem else f"ci-{short_hash(component_name)}"
