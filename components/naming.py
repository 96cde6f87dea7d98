"""Azure resource names derived from a component name: stable, valid and collision-free.

Globally unique names (storage accounts, key vaults, container registries) always end with a short
hash of the Pulumi project, the stack and the component name, so two components, or the same
component in two stacks, never ask Azure for the same name. A caller-given name is checked against
Azure's rules and used as is.
"""

from __future__ import annotations

import hashlib
import re

import pulumi

from amlkit import azure_facts as facts
from amlkit.azure_facts import NameRule
from amlkit.errors import ConfigError

__all__ = [
    "HASH_LENGTH", "checked", "compute_instance_name", "container_registry_name", "key_vault_name", "prefixed_name",
    "resource_name", "short_hash", "storage_account_name",
]

HASH_LENGTH = 6


def short_hash(component_name: str, length: int = HASH_LENGTH) -> str:
    """A short, stable hex digest of project, stack and component name."""
    seed = f"{pulumi.get_project()}/{pulumi.get_stack()}/{component_name}"
    return hashlib.sha256(seed.encode()).hexdigest()[:length]


def checked(name: str, rule: NameRule, key_path: str) -> str:
    """Return name when it satisfies rule, else raise a ConfigError naming the field."""
    if not rule.fits(name):
        raise ConfigError(None, key_path, f"invalid Azure name {name!r}: allowed is {rule.allowed}", name)
    return name


def _alnum(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _hyphenated(text: str) -> str:
    return re.sub(r"-{2,}", "-", re.sub(r"[^a-z0-9-]", "-", text.lower())).strip("-")


def storage_account_name(component_name: str) -> str:
    """`st` + the component's letters and digits + hash, as long as Azure allows."""
    room = facts.STORAGE_ACCOUNT_NAME.max_length - 2 - HASH_LENGTH
    return f"st{_alnum(component_name)[:room]}{short_hash(component_name)}"


def key_vault_name(component_name: str) -> str:
    """`kv-` + the component name + `-` + hash, as long as Azure allows."""
    room = facts.KEY_VAULT_NAME.max_length - 4 - HASH_LENGTH
    stem = _hyphenated(component_name)[:room].strip("-")
    return f"kv-{stem}-{short_hash(component_name)}" if stem else f"kv-{short_hash(component_name)}"


def container_registry_name(component_name: str) -> str:
    """`cr` + the component's letters and digits + hash, as long as Azure allows."""
    room = facts.CONTAINER_REGISTRY_NAME.max_length - 2 - HASH_LENGTH
    return f"cr{_alnum(component_name)[:room]}{short_hash(component_name)}"


def prefixed_name(prefix: str, component_name: str, rule: NameRule) -> str:
    """`<prefix>-<component name>`; names longer than the rule allows keep a hash suffix so they stay
    distinct."""
    max_length = rule.max_length
    full = f"{prefix}-{_hyphenated(component_name)}".strip("-") if prefix else _hyphenated(component_name)
    if len(full) <= max_length:
        return full
    stem = full[: max_length - HASH_LENGTH - 1].strip("-")
    return f"{stem}-{short_hash(component_name)}"


def resource_name(override: str | None, default: str, rule: NameRule, key_path: str) -> str:
    """The caller's name, checked, or the derived default, checked too (a bad component name fails)."""
    return checked(override if override is not None else default, rule, key_path)


def compute_instance_name(component_name: str) -> str:
    """`ci-` + the component name + `-` + hash, as long as Azure allows: instance names are unique per region."""
    room = facts.INSTANCE_NAME.max_length - 4 - HASH_LENGTH
    stem = _hyphenated(component_name)[:room].strip("-")
    return f"ci-{stem}-{short_hash(component_name)}" if stem else f"ci-{short_hash(component_name)}"
