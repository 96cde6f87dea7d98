"""What the attached-compute components share: strict argument checks, identity, and the compute child.

An attached compute (Kubernetes, virtual machine, Synapse Spark pool) points an Azure ML compute at a
resource that exists outside the workspace (`resource_id`). Attaching is not idempotent on ARM: Azure ML
does not support two simultaneous attachments of the same compute from one workspace (each new one
breaks the earlier ones), and re-attaching to change a setting needs the existing attachment removed
first (https://learn.microsoft.com/azure/machine-learning/how-to-attach-compute-targets#limitations).
So every change to an attachment (its properties, identity or location) replaces the compute child,
deleting (detaching) the old one before the new one attaches; only tags update in place.

Arguments use the az ml CLI v2 vocabulary (`name`, `resource_id`, `namespace`, `identity`,
`instance_types`, `ssh_settings`...). They are strict: an unknown key, or a bad value, is a
`ConfigError` naming the component, the key, the value and what is allowed.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Required, TypedDict

import pulumi
from pulumi_azure_native import machinelearningservices as ml

from amlkit.components import naming
from amlkit.errors import ConfigError

REPLACE_ON_CHANGES = ["location", "identity", "properties"]
"""Engine property paths whose change re-attaches the compute (old attachment removed first)."""

IDENTITY_TYPES = ("system_assigned", "user_assigned", "none")
_ARM_TYPES = {"system_assigned": "SystemAssigned", "user_assigned": "UserAssigned"}
_SUB = r"/subscriptions/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_RG = r"/resourceGroups/[-\w.()]{1,90}"


def arm_id_pattern(provider: str, *types: str) -> re.Pattern[str]:
    """A full-match pattern for ARM ids of one resource type, e.g. ("Microsoft.Compute", "virtualMachines")."""
    segments = "".join(rf"/{re.escape(kind)}/[^/\s]+" for kind in types)
    return re.compile(rf"{_SUB}{_RG}/providers/{re.escape(provider)}{segments}", re.IGNORECASE)


def arm_id_example(provider: str, *types: str) -> str:
    return f"/subscriptions/<guid>/resourceGroups/<rg>/providers/{provider}/" + "/".join(f"{t}/<name>" for t in types)


IDENTITY_ID = arm_id_pattern("Microsoft.ManagedIdentity", "userAssignedIdentities")


class UserAssignedIdentityArgs(TypedDict):
    """One user-assigned identity, as in az ml: `{resource_id: <identity ARM id>}`."""

    resource_id: pulumi.Input[str]
    """ARM id of the user-assigned managed identity."""


class IdentityArgs(TypedDict, total=False):
    """`identity` of an attached compute, in az ml's shape."""

    type: Required[Literal["system_assigned", "user_assigned", "none"]]
    """One system-assigned identity, user-assigned ones, or none."""
    user_assigned_identities: Sequence[UserAssignedIdentityArgs]
    """The user-assigned identities; required with (and only read for) `type: user_assigned`."""


class Checker:
    """Validates one component's args; every error names the component, the key and what is allowed."""

    def __init__(self, kind: str, name: str) -> None:
        self.subject = f"{kind} '{name}'"

    def fail(self, key: str, problem: str, value: Any = None, *, show_value: bool = True) -> ConfigError:
        got = f"got {_show(value)}; " if show_value else ""
        return ConfigError(None, key, f"{self.subject}: {got}{problem}", value if show_value else None)

    def keys(self, args: Any, args_type: type, prefix: str = "") -> Mapping[str, Any]:
        """`args` must be a mapping whose keys are all declared by the TypedDict `args_type`."""
        allowed = sorted(args_type.__annotations__)
        where = prefix.rstrip(".") or "args"
        if not isinstance(args, Mapping):
            raise self.fail(where, f"allowed: a mapping with keys {', '.join(allowed)}", args)
        for key in args:
            if key not in allowed:
                close = difflib.get_close_matches(str(key), allowed, n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                raise ConfigError(None, f"{prefix}{key}", f"{self.subject}: unknown argument {key!r}; {hint}"
                                  f"allowed: {', '.join(allowed)}")
        for key in required_keys(args_type):
            if args.get(key) is None or args.get(key) == "":
                raise ConfigError(None, f"{prefix}{key}", f"{self.subject}: required argument is missing")
        return args

    def arm_id(self, args: Mapping[str, Any], key: str, pattern: re.Pattern[str], example: str,
               prefix: str = "") -> None:
        """A plain-string id must have the ARM id shape; an Output (known at deployment) is taken as is."""
        value = args.get(key)
        if isinstance(value, str) and not pattern.fullmatch(value):
            raise self.fail(f"{prefix}{key}", f"allowed: an ARM id like {example}", value)

    def choice(self, args: Mapping[str, Any], key: str, allowed: Sequence[str], prefix: str = "") -> None:
        if key in args and args[key] not in allowed:
            raise self.fail(f"{prefix}{key}", f"allowed: {' | '.join(allowed)}", args[key])

    def boolean(self, args: Mapping[str, Any], key: str) -> None:
        if key in args and not isinstance(args[key], bool):
            raise self.fail(key, "allowed: true or false", args[key])

    def integer(self, args: Mapping[str, Any], key: str, low: int, high: int, prefix: str = "") -> None:
        value = args.get(key)
        if key in args and (isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high):
            raise self.fail(f"{prefix}{key}", f"allowed: a whole number from {low} to {high}", value)

    def text_map(self, value: Any, key: str) -> None:
        if not isinstance(value, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                     for k, v in value.items()):
            raise self.fail(key, "allowed: a mapping of text keys to text values", value)

    def identity(self, args: Mapping[str, Any]) -> None:
        identity = args.get("identity")
        if identity is None:
            return
        self.keys(identity, IdentityArgs, "identity.")
        self.choice(identity, "type", IDENTITY_TYPES, "identity.")
        ids = identity.get("user_assigned_identities")
        if identity["type"] == "user_assigned" and not ids:
            raise self.fail("identity.user_assigned_identities", "required when identity.type is user_assigned "
                            "(a list of {resource_id: <identity ARM id>})", show_value=False)
        if identity["type"] != "user_assigned" and ids:
            raise self.fail("identity.type", "allowed: user_assigned (user_assigned_identities are only read "
                            "with it)", identity["type"])
        for index, entry in enumerate(ids or []):
            key = f"identity.user_assigned_identities[{index}]"
            self.keys(entry, UserAssignedIdentityArgs, f"{key}.")
            self.arm_id(entry, "resource_id", IDENTITY_ID,
                        arm_id_example("Microsoft.ManagedIdentity", "userAssignedIdentities"), f"{key}.")

    def common(self, component_name: str, args: Mapping[str, Any]) -> None:
        """The arguments every attached compute takes besides its own: name, local auth, tags."""
        self.boolean(args, "local_auth_enabled")
        if "tags" in args:
            self.text_map(args["tags"], "tags")
        try:
            compute_name(component_name, args)
        except ConfigError as error:
            raise ConfigError(None, "name", f"{self.subject}: {error.problem}", error.value) from None


def required_keys(args_type: type) -> list[str]:
    """The `Required[...]` keys of a TypedDict, also when its annotations are postponed (strings)."""
    found = []
    for key, annotation in args_type.__annotations__.items():
        text = getattr(annotation, "__forward_arg__", annotation)
        if key in getattr(args_type, "__required_keys__", ()) or (isinstance(text, str) and
                                                                    text.startswith("Required[")):
            found.append(key)
    return sorted(found)


def _show(value: Any) -> str:
    if isinstance(value, pulumi.Output):
        return "an Output"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    text = repr(value)
    return text if len(text) <= 240 else text[:237] + "..."


def compute_name(component_name: str, args: Mapping[str, Any]) -> str:
    """The `name` argument, else one derived from the component name; both checked against Azure's rule."""
    return naming.resource_name(
        args.get("name"), naming.prefixed_name("", component_name, 16), naming.ATTACHED_COMPUTE, "name"
    )


def identity_args(identity: Mapping[str, Any] | None) -> ml.ManagedServiceIdentityArgs | None:
    """az ml `identity` -> ARM managed identity; unset means system-assigned (the secure default)."""
    kind = (identity or {}).get("type", "system_assigned")
    if kind == "none":
        return None
    ids = [entry["resource_id"] for entry in (identity or {}).get("user_assigned_identities") or []]
    return ml.ManagedServiceIdentityArgs(type=_ARM_TYPES[kind], user_assigned_identities=ids or None)


def attached_compute(
    owner: pulumi.ComponentResource, component_name: str, args: Mapping[str, Any], properties: Any,
    identity: ml.ManagedServiceIdentityArgs | None,
) -> ml.Compute:
    """The `<component name>-compute` child: the attachment itself, re-attached on any change but tags."""
    return ml.Compute(
        f"{component_name}-compute",
        resource_group_name=args["resource_group_name"],
        workspace_name=args["workspace_name"],
        compute_name=compute_name(component_name, args),
        location=args.get("location"),
        identity=identity,
        tags=dict(args.get("tags") or {}),
        properties=properties,
        opts=pulumi.ResourceOptions(
            parent=owner, replace_on_changes=list(REPLACE_ON_CHANGES), delete_before_replace=True
        ),
    )


def principal_id(compute: ml.Compute) -> pulumi.Output[str | None]:
    return compute.identity.apply(lambda i: i.principal_id if i else None)
