"""The Azure subscription and tenant a stack's offline run uses, and where each came from.

The program builds ARM ids (`/subscriptions/<id>/...`), role definition ids and key vault tenants from
them, so a plan against a deployed state compares equal only when the run uses the stack's own ids. In
order: the stack file (`azure-native:subscriptionId` / `azure-native:tenantId`, else the classic
provider's `azure:subscriptionId` / `azure:tenantId`), then the lookups file's `stacks.<stack>` entry
(amlkit.review.run.lookups), else placeholders (amlkit.review.arm.SUBSCRIPTION / TENANT).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from amlkit.errors import ConfigError
from amlkit.review import arm
from amlkit.review.project import StackConfig
from amlkit.review.run.lookups import FILE_NAME, GUID, Lookups

__all__ = ["AzureId", "AzureIds", "PLACEHOLDERS", "STACK_KEYS", "azure_ids"]

STACK_KEYS = {  # the id -> the stack config keys that set it, first wins
    "subscriptionId": ("azure-native:subscriptionId", "azure:subscriptionId"),
    "tenantId": ("azure-native:tenantId", "azure:tenantId"),
}
PLACEHOLDERS = {"subscriptionId": arm.SUBSCRIPTION, "tenantId": arm.TENANT}


@dataclass(frozen=True)
class AzureId:
    value: str
    source: str  # "<stack file> (<key>)", "<lookups file> (stacks.<stack>.<key>)" or "placeholder"

    @property
    def placeholder(self) -> bool:
        return self.source == "placeholder"


@dataclass(frozen=True)
class AzureIds:
    subscription: AzureId
    tenant: AzureId

    def to_request(self) -> dict[str, str]:
        """What the runner sets before the program runs (amlkit.review.run.runner)."""
        return {"subscriptionId": self.subscription.value, "tenantId": self.tenant.value}

    def to_json(self) -> dict[str, Any]:
        return {"subscriptionId": {"value": self.subscription.value, "from": self.subscription.source},
                "tenantId": {"value": self.tenant.value, "from": self.tenant.source}}

    def describe(self, stack: str) -> str:
        """One line for a plan: each id and where it came from (how to set a placeholder)."""
        parts = []
        for key, found in (("subscriptionId", self.subscription), ("tenantId", self.tenant)):
            word = key.removesuffix("Id")
            if found.placeholder:
                parts.append(f"{word} {found.value} (a placeholder: set {STACK_KEYS[key][0]} in the stack file or "
                             f"stacks.{stack}.{key} in {FILE_NAME})")
            else:
                parts.append(f"{word} {found.value} (from {found.source})")
        return "; ".join(parts)


def azure_ids(config: StackConfig, stack_file: str, lookups: Lookups | None) -> AzureIds:
    """The stack's subscription and tenant (see the module doc). A stack file value that is not a GUID is a
    ConfigError naming the file and key; a secret one is not readable offline and is skipped."""
    found = {}
    for key, config_keys in STACK_KEYS.items():
        found[key] = _from_stack(config, stack_file, config_keys) or _from_lookups(config.stack, key, lookups) or \
            AzureId(PLACEHOLDERS[key], "placeholder")
    return AzureIds(found["subscriptionId"], found["tenantId"])


def _from_stack(config: StackConfig, stack_file: str, keys: tuple[str, ...]) -> AzureId | None:
    for key in keys:
        value = config.values.get(key)
        if value is None or key in config.secret_keys:
            continue
        if not GUID.match(value):
            raise ConfigError(str(config.file), f"config.{key}", "must be a GUID (like "
                              "00000000-0000-0000-0000-000000000000)", value)
        return AzureId(value, f"{stack_file} ({key})")
    return None


def _from_lookups(stack: str, key: str, lookups: Lookups | None) -> AzureId | None:
    value = (lookups.stacks.get(stack) or {}).get(key) if lookups is not None else None
    return None if value is None else AzureId(value, f"{FILE_NAME} (stacks.{stack}.{key})")
