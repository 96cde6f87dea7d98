"""What the attached-compute components share: the value checks their annotations cannot say, and the
compute child.

An attached compute (Kubernetes, virtual machine, Synapse Spark pool) points an Azure ML compute at a
resource that exists outside the workspace (`resource_id`). Attaching is not idempotent on ARM: Azure ML
does not support two simultaneous attachments of the same compute from one workspace (each new one
breaks the earlier ones), and re-attaching to change a setting needs the existing attachment removed
first (https://learn.microsoft.com/azure/machine-learning/how-to-attach-compute-targets#limitations).
So every change to an attachment (its properties, identity or location) replaces the compute child,
deleting (detaching) the old one before the new one attaches; only tags update in place.

Arguments use the az ml CLI v2 vocabulary (`name`, `resource_id`, `namespace`, `identity`,
`instance_types`, `ssh_settings`...), checked like every component's: `amlkit.components.args.check`
for keys and types, then the rules below (ARM id shape per type, names) as ConfigErrors that
`args.named` turns into a `ComponentArgError` naming the component. The ARM id shapes are the stack
schema's (`amlkit.schema.ATTACHED_TARGETS`), so a stack file and a program accept the same ids.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, get_args

import pulumi
from pulumi_azure_native import machinelearningservices as ml
from pydantic import TypeAdapter, ValidationError

from amlkit import azure_facts as facts
from amlkit import schema
from amlkit.components import naming
from amlkit.components.args import REQUIRED, ArgInfo, check, label, named
from amlkit.components.compute_cluster import ARGS as CLUSTER_ARGS
from amlkit.components.compute_cluster import validate_identity, workspace_compute
from amlkit.components.placement import REF_ARGS, WorkspaceRefArgs, with_workspace_names
from amlkit.errors import ConfigError

__all__ = [
    "AttachedComputeArgs", "COMMON_ARGS", "IDENTITY_ARG", "REPLACE_ON_CHANGES", "attached_compute", "checked",
    "compute_name", "fits", "target_id", "target_inputs", "validate_identity_ids",
]

REPLACE_ON_CHANGES = facts.ATTACHED_REPLACE_ON_CHANGES
"""Engine property paths whose change re-attaches the compute (old attachment removed first)."""


class AttachedComputeArgs(WorkspaceRefArgs, total=False):
    """What every attached compute takes besides its target (`resource_id`, declared by each component)."""

    name: str
    """Compute name in the workspace."""
    location: pulumi.Input[str]
    """Region of the compute resource."""
    description: str
    """Free-text description."""
    local_auth_enabled: bool
    """Local (key) authentication."""
    tags: Mapping[str, str]
    """Tags on the compute resource (they update in place)."""


COMMON_ARGS: dict[str, ArgInfo] = {
    "resource_id": ArgInfo(REQUIRED, "properties.resourceId"),
    **REF_ARGS,
    "name": ArgInfo("derived from the component name", "computeName", facts.COMPUTE_NAME.allowed),
    "location": ArgInfo("the workspace's region", "location"),
    "description": ArgInfo("none", "properties.description"),
    "local_auth_enabled": ArgInfo("False", "properties.disableLocalAuth (negated)"),
    "tags": ArgInfo("none", "tags"),
}
"""Default and ARM input of `resource_id` and of `AttachedComputeArgs`' fields."""
IDENTITY_ARG = {"identity": CLUSTER_ARGS["identity"]}
"""`identity` (Kubernetes, Synapse Spark): as on a cluster."""


def target_id(kind: str, args: Mapping[str, Any]) -> None:
    """A plain-string `resource_id` must be an ARM id of what a `type: <kind>` attaches (the stack
    schema's shapes); an Output (known at deployment) is taken as is."""
    value = args["resource_id"]
    if isinstance(value, str) and not schema.attached_id_ok(kind, value):
        raise ConfigError(None, "resource_id", f"must be {schema.attached_id_allowed(kind)}", value)


def fits(annotated: Any, key: str, value: Any) -> None:
    """A plain value must pass the stack schema's check of the same field (`annotated`, e.g.
    `schema.Namespace`); the error says what is allowed in the schema's words."""
    if value is None or isinstance(value, pulumi.Output):
        return
    try:
        _adapter(annotated).validate_python(value)
    except ValidationError:
        allowed = next(meta.text for meta in get_args(annotated)[1:] if isinstance(meta, schema.Allowed))
        raise ConfigError(None, key, f"must be {allowed}", value) from None


@functools.cache
def _adapter(annotated: Any) -> TypeAdapter[Any]:
    return TypeAdapter(annotated)


def validate_identity_ids(args: Mapping[str, Any]) -> None:
    """`identity` as for the other computes, and each user-assigned id of the ARM id shape."""
    validate_identity(args)
    identity = args.get("identity") or {}
    for index, entry in enumerate(identity.get("user_assigned_identities") or []):
        fits(schema.IdentityId, f"identity.user_assigned_identities[{index}].resource_id", entry["resource_id"])


def checked(kind: str, args_type: type, component_name: str, args: Mapping[str, Any],
            validate: Callable[[Mapping[str, Any]], None]) -> tuple[dict[str, Any], str]:
    """The args checked (keys and types, then `validate`, errors naming the component) with what
    `workspace` gives filled in, and the compute's Azure name (checked)."""
    component = label(kind, component_name)
    check(args_type, component, args, sourced=True)
    with named(component):
        present = with_workspace_names(args)
        name = compute_name(component_name, present)
        validate(present)
    return present, name


def target_inputs(args: Mapping[str, Any]) -> dict[str, Any]:
    """The inputs every attachment sends: its target, description and local auth (off by default)."""
    return {"resource_id": args["resource_id"], "description": args.get("description"),
            "disable_local_auth": not args.get("local_auth_enabled", False)}


def compute_name(component_name: str, args: Mapping[str, Any]) -> str:
    """The `name` argument, else one derived from the component name; both checked against Azure's rule."""
    return naming.resource_name(
        args.get("name"), naming.prefixed_name("", component_name, facts.COMPUTE_NAME), facts.COMPUTE_NAME,
        "name",
    )


def attached_compute(
    owner: pulumi.ComponentResource, component_name: str, args: Mapping[str, Any], name: str, properties: Any,
    identity: ml.ManagedServiceIdentityArgs | None,
) -> ml.Compute:
    """The `<component name>-compute` child: the attachment itself, re-attached on any change but tags."""
    return workspace_compute(owner, component_name, args, name, properties, identity=identity,
                             location=args.get("location") or args.get("workspace_location"),
                             replace_on_changes=REPLACE_ON_CHANGES)
