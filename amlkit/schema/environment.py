"""The whole `amlkit:` namespace of a stack and the one validation both loaders use."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ConfigDict, ValidationError, model_validator

from amlkit import azure_facts as facts
from amlkit.errors import ConfigError
from amlkit.schema.attached import AttachedSpec
from amlkit.schema.compute import ClusterSpec, InstanceSpec
from amlkit.schema.types import (
    DEFAULT_PROD_LIKE,
    REGIONS_CONTEXT,
    Bool,
    EnvironmentName,
    ExtraRegionName,
    Model,
    Region,
    Tags,
    credential_problem,
    fail,
    find_plaintext_credential,
    list_of,
    one_line,
    reject,
    show,
)
from amlkit.schema.workspace import ResourceGroupSpec, WorkspaceSpec

__all__ = ["EnvironmentSpec", "TOP_LEVEL_KEYS", "key_path", "merged_tags", "validate_environment"]


class EnvironmentSpec(Model):
    """The whole `amlkit:` namespace of a stack, plus `azure-native:location`.

    Keys are the stack config's own names (`resourceGroup`, `protectData`...); the loaders strip
    the `amlkit:` prefix. `protect_data` is resolved: given, or true when the environment is one
    of `prod_like_environments`.
    """

    location: Region
    """Azure region of the workspace and, by default, of every compute."""
    environment: EnvironmentName
    """Environment name: the `environment` tag of every resource; decides `protectData`."""
    resource_group: ResourceGroupSpec
    """The resource group of the environment."""
    tags: Tags = {}
    """Tags of every resource (an `environment` tag is always added)."""
    workspace: WorkspaceSpec
    """The workspace and its dependencies."""
    clusters: list_of(ClusterSpec) = []
    """AmlCompute clusters (az ml `type: amlcompute`)."""
    instances: list_of(InstanceSpec) = []
    """Compute instances (az ml `type: computeinstance`)."""
    attached: list_of(AttachedSpec) = []
    """Attached computes (az ml `type: kubernetes`, `virtualmachine` or `synapsespark`)."""
    protect_data: Bool | None = None
    """Protect workspace, storage and key vault from deletion; unset: true in prod-like environments."""
    prod_like_environments: list_of(EnvironmentName) = list(DEFAULT_PROD_LIKE)
    """Environment names whose data is protected by default."""
    extra_regions: list_of(ExtraRegionName) = []
    """Region names to accept besides Azure's public regions (amlkit/data/azure_regions.yaml): sovereign clouds
    (e.g. usgovvirginia, chinanorth3) and regions newer than amlkit's list."""

    model_config = ConfigDict(
        extra="forbid",
        arbitrary_types_allowed=True,
        use_attribute_docstrings=True,
        alias_generator=lambda name: re.sub(r"_([a-z])", lambda m: m[1].upper(), name),
        populate_by_name=False,
    )

    @classmethod
    def allowed_keys_text(cls) -> str:
        """`amlkit:environment, ..., azure-native:location`: the stack config keys amlkit reads."""
        names = [f"amlkit:{key}" for key in cls.accepted_keys() if key != "location"]
        return ", ".join([*names, "azure-native:location"])

    @model_validator(mode="after")
    def _cross_fields(self) -> EnvironmentSpec:
        """Cross-field rules:

        - Without the workspace's managed network, a cluster or instance without `network_settings.subnet`
          must say `enable_node_public_ip: true` (nodes without public IPs need a network).
        - Cluster, instance and attached compute names are unique across the three lists (case-insensitive).
        - An instance's `location` must be the stack's location.
        - `workspace.image_build_compute` names one of the stack's clusters or instances.
        - `protectData` unset: true when `environment` is one of `prodLikeEnvironments`.
        """
        self._check_networks()
        self._check_unique_names()
        builder = self.workspace.image_build_compute
        names = [compute.name for compute in [*self.clusters, *self.instances]]
        if builder is not None and builder.lower() not in {name.lower() for name in names}:
            listed = f" ({', '.join(names)})" if names else " (there are none)"
            reject(builder, "the name of one of amlkit:clusters or amlkit:instances" + listed,
                 at=("workspace", "image_build_compute"))
        for index, instance in enumerate(self.instances):
            if instance.location and instance.location != self.location:
                reject(instance.location, f"the workspace's location ({self.location}): an instance cannot "
                     "live in another region", at=("instances", index, "location"))
        if self.protect_data is None:
            self.protect_data = self.environment in self.prod_like_environments
        return self

    def _check_networks(self) -> None:
        managed = self.workspace.has_managed_network
        computes: list[tuple[str, int, ClusterSpec | InstanceSpec]] = [
            ("clusters", i, c) for i, c in enumerate(self.clusters)
        ] + [("instances", i, c) for i, c in enumerate(self.instances)]
        for group, index, compute in computes:
            has_network = managed or compute.network_settings is not None
            at = (group, index, "enable_node_public_ip")
            if facts.node_public_ip(compute.enable_node_public_ip, has_network) is not None:
                continue
            if compute.enable_node_public_ip is False:
                reject(False, "true, or false together with network_settings.subnet or a workspace "
                     "managed_network (nodes without public IPs need a network)", at=at)
            else:
                fail("required when there is no network_settings.subnet and no workspace managed_network: "
                         "allowed: true (nodes then get public IPs), or add network_settings.subnet", at=at)

    def _check_unique_names(self) -> None:
        seen: dict[str, str] = {}
        named = [("clusters", i, c.name) for i, c in enumerate(self.clusters)] + [
            ("instances", i, c.name) for i, c in enumerate(self.instances)
        ] + [("attached", i, c.name) for i, c in enumerate(self.attached)]
        for group, index, name in named:
            first = seen.setdefault(name.lower(), f"{group}[{index}]")
            if first != f"{group}[{index}]":
                reject(name, f"a compute name not used elsewhere in the workspace ({first} has it)",
                     at=(group, index, "name"))


# --- validation entry point ------------------------------------------------------------------------

TOP_LEVEL_KEYS = tuple(
    field.alias or name for name, field in EnvironmentSpec.model_fields.items() if name != "location"
)
"""The keys allowed under `amlkit:` (camelCase, as in the stack file)."""


def key_path(loc: Iterable[str | int]) -> str:
    """`("clusters", 0, "max_instances")` -> `amlkit:clusters[0].max_instances`."""
    parts = list(loc)
    if not parts:
        return "amlkit"
    head, rest = parts[0], parts[1:]
    path = "azure-native:location" if head == "location" else f"amlkit:{one_line(str(head))}"
    for part in rest:
        path += f"[{part}]" if isinstance(part, int) else f".{one_line(str(part))}"
    return path


def _describe(error: Mapping[str, Any], secret_keys: frozenset[str]) -> tuple[str, str]:
    """(key path, problem) for one pydantic error, with values of secret keys redacted."""
    loc = tuple(error["loc"]) + tuple(error.get("ctx", {}).get("at", ()))
    secret = bool(loc) and loc[0] in secret_keys
    if error["type"] == "amlkit":
        ctx = error["ctx"]
        if "got" in ctx:
            got, hint = ("a secret value", "") if secret else (ctx["got"], ctx.get("hint", ""))
            return key_path(loc), f"got {got}; allowed: {ctx['allowed']}{hint}"
        return key_path(loc), ctx["problem"]
    if error["type"] == "missing":
        return key_path(loc), "required key is missing"
    got = "a secret value" if secret else show(error.get("input"))
    return key_path(loc), f"got {got}; allowed: {error['msg']}"


def validate_environment(
    raw: Mapping[str, Any], file: str | None, secret_keys: Iterable[str] = ()
) -> EnvironmentSpec:
    """Validate the `amlkit:` namespace (keys without prefix, plus `location`) into an EnvironmentSpec.

    `secret_keys` names top-level keys whose values came from Pulumi secrets: their values never
    appear in messages. Raises ConfigError for the first problem.
    """
    for key, value in raw.items():
        found = find_plaintext_credential(value, key_path([key]))
        if found:
            raise ConfigError(file, found, credential_problem(found))
    extra = raw.get("extraRegions")
    context = {REGIONS_CONTEXT: tuple(name for name in extra if isinstance(name, str)) if isinstance(extra, list)
               else ()}
    try:
        return EnvironmentSpec.model_validate(dict(raw), context=context)
    except ValidationError as error:
        path, problem = _describe(error.errors()[0], frozenset(secret_keys))
        raise ConfigError(file, path, problem) from None


def merged_tags(*layers: Mapping[str, str] | None, environment: str) -> dict[str, str]:
    """Tags of one resource: later layers win; the `environment` tag is always the stack's environment."""
    tags: dict[str, str] = {}
    for layer in layers:
        tags.update(layer or {})
    tags["environment"] = environment
    return tags
