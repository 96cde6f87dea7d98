"""The cross-field checks of the workspace component's arguments, one named check per rule.

`validate` runs them in order; the first that fails raises a ConfigError naming the field and what is allowed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from amlkit import azure_facts as facts
from amlkit.components import naming
from amlkit.components.workspace_args import BUILDER_ALLOWED, ISOLATION_MODES
from amlkit.errors import ConfigError
from amlkit.schema.types import PRIVATE_ENDPOINT_KEY, PRIVATE_ENDPOINT_KEY_ALLOWED

__all__ = ["CHECKS", "CHILD_NAMES", "has_managed_network", "isolation_mode", "validate"]

Args = Mapping[str, Any]

# Arguments naming a created child, and Azure's naming rule for each: checked before anything registers.
CHILD_NAMES = {
    "storage_account_name": facts.STORAGE_ACCOUNT_NAME,
    "key_vault_name": facts.KEY_VAULT_NAME,
    "log_analytics_workspace_name": facts.LOG_ANALYTICS_NAME,
    "application_insights_name": facts.APP_INSIGHTS_NAME,
    "container_registry_name": facts.CONTAINER_REGISTRY_NAME,
}


def isolation_mode(args: Args) -> str:
    """ARM's isolation mode (default `AllowOnlyApprovedOutbound`)."""
    network = args.get("managed_network") or {"isolation_mode": "allow_only_approved_outbound"}
    return ISOLATION_MODES[network["isolation_mode"]]


def has_managed_network(args: Args) -> bool:
    """Whether computes of this workspace sit in its managed network (a project's network is its hub's)."""
    return args.get("kind") != "project" and isolation_mode(args) != "Disabled"


def _is_project(args: Args) -> bool:
    return args.get("kind") == "project"


def _identity(args: Args) -> Mapping[str, Any]:
    identity: Mapping[str, Any] = args.get("identity") or {"type": "system_assigned"}
    return identity


def required(args: Args) -> None:
    for key in ("resource_group_name", "location"):
        if not args.get(key):
            raise ConfigError(None, key, "is required")


def hub_id_for_projects_only(args: Args) -> None:
    if _is_project(args) and not args.get("hub_id"):
        raise ConfigError(None, "hub_id", "is required when kind is project")
    if not _is_project(args) and args.get("hub_id"):
        raise ConfigError(None, "hub_id", "is only allowed when kind is project", args.get("hub_id"))


def registry_not_empty(args: Args) -> None:
    registry = args.get("container_registry")
    if isinstance(registry, str) and not registry:
        raise ConfigError(None, "container_registry", "an empty id: give an ARM id, True or False")


def identity_present(args: Args) -> None:
    if _identity(args)["type"] == "none":
        raise ConfigError(None, "identity.type", "must be system_assigned or user_assigned (a workspace needs "
                                                 "an identity)", "none")


def user_identities_match_type(args: Args) -> None:
    identity = _identity(args)
    ids = identity.get("user_assigned_identities")
    if identity["type"] == "user_assigned" and not ids:
        raise ConfigError(None, "identity.user_assigned_identities", "is required when type is user_assigned")
    if identity["type"] != "user_assigned" and ids:
        raise ConfigError(None, "identity.type", "must be user_assigned to use user_assigned_identities",
                          identity["type"])


def primary_identity_listed(args: Args) -> None:
    ids = _identity(args).get("user_assigned_identities")
    primary = args.get("primary_user_assigned_identity")
    if primary and not ids:
        raise ConfigError(None, "primary_user_assigned_identity", "needs identity.user_assigned_identities")
    listed = [entry["resource_id"] for entry in ids or []]
    known = isinstance(primary, str) and all(isinstance(i, str) for i in listed)
    if primary and known and primary.lower() not in {i.lower() for i in listed}:
        raise ConfigError(
            None, "primary_user_assigned_identity", "must be one of identity.user_assigned_identities", primary
        )


def no_locks_in_managed_network(args: Args) -> None:
    if args.get("locks") and has_managed_network(args):
        raise ConfigError(None, "locks", "must be false when the workspace has a managed network: "
                          "how-to-managed-network.md (Limitations) asks for no scope locks on the Azure Machine "
                          "Learning resources and resource group; set managed_network.isolation_mode: disabled to "
                          "lock them", True)


def child_names_valid(args: Args) -> None:
    for key, rule in CHILD_NAMES.items():
        if key in args:
            naming.checked(args[key], rule, key)


def image_builder_valid(args: Args) -> None:
    builder = args.get("image_build_compute")
    if builder is not None and not (facts.COMPUTE_NAME.fits(builder) or facts.INSTANCE_NAME.fits(builder)):
        raise ConfigError(None, "image_build_compute",
                          f"invalid compute name {builder!r}: allowed is {BUILDER_ALLOWED}", builder)


def private_endpoints_valid(args: Args) -> None:
    endpoints = args.get("private_endpoints") or {}
    if endpoints and _is_project(args):
        raise ConfigError(None, "private_endpoints", "is not allowed when kind is project (a project is reached "
                                                     "through its hub's private endpoint)", sorted(endpoints))
    for key, spec in endpoints.items():
        if not isinstance(key, str) or not re.fullmatch(PRIVATE_ENDPOINT_KEY, key):
            raise ConfigError(None, f"private_endpoints.{key}",
                              f"invalid key: allowed is {PRIVATE_ENDPOINT_KEY_ALLOWED}", key)
        if "name" in spec:
            naming.checked(spec["name"], facts.PRIVATE_ENDPOINT_NAME, f"private_endpoints.{key}.name")


# In the order they run: the first failing check's error is the one reported.
CHECKS: tuple[Callable[[Args], None], ...] = (
    required,
    hub_id_for_projects_only,
    registry_not_empty,
    identity_present,
    user_identities_match_type,
    primary_identity_listed,
    no_locks_in_managed_network,
    child_names_valid,
    image_builder_valid,
    private_endpoints_valid,
)


def validate(args: Args) -> None:
    """Check the cross-field rules; raise a ConfigError naming the field and the allowed values."""
    for check in CHECKS:
        check(args)
