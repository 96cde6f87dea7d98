"""`amlkit:attached` entries: existing Kubernetes clusters, VMs and Synapse Spark pools to attach."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BeforeValidator, model_validator

from amlkit.schema.types import (
    RG_PATH,
    SUB_PATH,
    AdminUsername,
    Allowed,
    Bool,
    ClusterName,
    Description,
    Model,
    SecretValue,
    Tags,
    choice,
    fail,
    integer,
    list_of,
    refuse_secret,
    reject,
    text,
)
from amlkit.schema.workspace import IdentitySpec

__all__ = [
    "ATTACHED_TARGETS", "AttachedSpec", "AttachedSshSettings", "InstanceTypeName", "InstanceTypeResourcesSpec",
    "InstanceTypeSpec", "Namespace", "TextMap", "attached_id_allowed", "attached_id_ok",
]

ATTACHED_TARGETS = {
    "kubernetes": (
        ("Microsoft.ContainerService", ("managedClusters",)),
        ("Microsoft.Kubernetes", ("connectedClusters",)),
    ),
    "virtualmachine": (("Microsoft.Compute", ("virtualMachines",)),),
    "synapsespark": (("Microsoft.Synapse", ("workspaces", "bigDataPools")),),
}
"""The ARM resource types each attached compute type attaches (provider, resource type segments)."""
_ANY_ARM_ID = text(rf"{SUB_PATH}{RG_PATH}/providers/[A-Za-z0-9.]+(/[^/\s]+/[^/\s]+)+",
                   "the ARM id of the resource to attach; its type depends on `type` (see the cross-field rules)")
Namespace = text(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?",
                 "a Kubernetes namespace name: 1-63 lowercase letters, digits and '-', starting and ending with a "
                 "letter or digit")
InstanceTypeName = text(r"[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?",
                        "an instance type name: 1-63 lowercase letters, digits, '-' and '.'")


def _text_map(value: Any) -> dict[str, str]:
    refuse_secret(value)
    if not isinstance(value, Mapping) or not all(
        isinstance(key, str) and isinstance(item, str) for key, item in value.items()
    ):
        reject(value, _TEXT_MAP_ALLOWED)
    return dict(value)


_TEXT_MAP_ALLOWED = "a mapping of text keys to text values (quote numbers: cpu: \"2\")"
TextMap = Annotated[dict[str, str], BeforeValidator(_text_map), Allowed(_TEXT_MAP_ALLOWED)]


def attached_id_allowed(kind: str) -> str:
    """The ARM id shapes a `type: <kind>` entry accepts, in the words of its errors."""
    examples = [f"/subscriptions/<guid>/resourceGroups/<rg>/providers/{provider}/" + "/".join(
        f"{segment}/<name>" for segment in segments) for provider, segments in ATTACHED_TARGETS[kind]]
    return "an ARM id like " + " or ".join(examples)


def attached_id_ok(kind: str, value: str) -> bool:
    return any(
        re.fullmatch(rf"{SUB_PATH}{RG_PATH}/providers/{re.escape(provider)}" + "".join(
            rf"/{re.escape(segment)}/[^/\s]+" for segment in segments), value, re.IGNORECASE)
        for provider, segments in ATTACHED_TARGETS[kind]
    )


class InstanceTypeResourcesSpec(Model):
    requests: TextMap = {}
    """Resources a job's pod asks for, e.g. `{cpu: "1", memory: 4Gi}`."""
    limits: TextMap = {}
    """Most resources a job's pod may use, e.g. `{nvidia.com/gpu: "1"}`."""


class InstanceTypeSpec(Model):
    name: InstanceTypeName
    """Name jobs select the instance type by."""
    node_selector: TextMap = {}
    """Node labels a job's pod must match."""
    resources: InstanceTypeResourcesSpec | None = None
    """Resource requests and limits of a job's pod."""


class AttachedSshSettings(Model):
    admin_username: AdminUsername
    """Administrator account Azure ML logs in to the VM with."""
    admin_password: SecretValue | None = None
    """Its password; a Pulumi secret only."""
    ssh_private_key: SecretValue | None = None
    """Its SSH private key (the content of az ml's `ssh_private_key_file`); a Pulumi secret only."""
    ssh_port: integer(1, 65535, "a port number") = 22
    """SSH port of the VM."""

    @model_validator(mode="after")
    def _has_credential(self) -> AttachedSshSettings:
        """Cross-field rules:

        - `admin_password` or `ssh_private_key` (a Pulumi secret) is required.
        """
        if self.admin_password is None and self.ssh_private_key is None:
            fail("required: admin_password or ssh_private_key, as a Pulumi secret: pulumi config set --secret "
                     "--path 'amlkit:attached[<index>].ssh_settings.ssh_private_key' < <key file>",
                     at=("ssh_private_key",))
        return self


_ONLY_FOR = {
    "namespace": "kubernetes",
    "default_instance_type": "kubernetes",
    "instance_types": "kubernetes",
    "ssh_settings": "virtualmachine",
}


class AttachedSpec(Model):
    """One `amlkit:attached` entry: an existing resource attached as a compute (az ml attach YAML)."""

    name: ClusterName
    """Compute name, unique among the workspace's computes."""
    type: choice("kubernetes", "virtualmachine", "synapsespark")
    """What is attached: an AKS or Arc Kubernetes cluster, a virtual machine, or a Synapse Spark pool."""
    resource_id: _ANY_ARM_ID
    """ARM id of the attached resource; it is never created or deleted by the stack."""
    namespace: Namespace | None = None
    """Kubernetes namespace the jobs run in; unset: `default`."""
    default_instance_type: InstanceTypeName | None = None
    """Instance type of jobs that name none; one of `instance_types`."""
    instance_types: list_of(InstanceTypeSpec) = []
    """Kubernetes instance types (node selector, resource requests and limits)."""
    identity: IdentitySpec | None = None
    """Managed identity of a `kubernetes` or `synapsespark` compute; unset: a system-assigned identity."""
    ssh_settings: AttachedSshSettings | None = None
    """How Azure ML logs in to a `virtualmachine` (its credentials as Pulumi secrets)."""
    local_auth_enabled: Bool = False
    """Local (key) authentication on the compute."""
    description: Description | None = None
    """Free-text description."""
    tags: Tags = {}
    """Tags of the compute, over `amlkit:tags`."""

    @model_validator(mode="after")
    def _fields_match_type(self) -> AttachedSpec:
        """Cross-field rules:

        - `resource_id` must be an ARM id of the type's resource: `kubernetes` a
          `Microsoft.ContainerService/managedClusters` or `Microsoft.Kubernetes/connectedClusters` id,
          `virtualmachine` a `Microsoft.Compute/virtualMachines` id, `synapsespark` a
          `Microsoft.Synapse/workspaces/<ws>/bigDataPools/<pool>` id.
        - `namespace`, `instance_types` and `default_instance_type` are only read for `kubernetes`;
          `default_instance_type` must be one of `instance_types`; instance type names are unique.
        - `ssh_settings` is required for (and only read for) `virtualmachine`; `identity` is not read for it.
        - `identity.type` cannot be `none` (omit `identity` for a system-assigned identity).
        """
        if not attached_id_ok(self.type, self.resource_id):
            reject(self.resource_id, f"for type {self.type}: {attached_id_allowed(self.type)}", at=("resource_id",))
        for key, kind in _ONLY_FOR.items():
            if self.type != kind and getattr(self, key) not in (None, []):
                fail(f"only read when type is {kind}", at=(key,))
        names = [item.name for item in self.instance_types]
        for index, name in enumerate(names):
            if name in names[:index]:
                reject(name, "an instance type name not used before in this list", at=("instance_types", index, "name"))
        if self.default_instance_type is not None and self.default_instance_type not in names:
            reject(self.default_instance_type, "one of instance_types[].name: " + (" | ".join(names) or "(none given)"),
                 at=("default_instance_type",))
        if self.type == "virtualmachine":
            if self.ssh_settings is None:
                fail("required when type is virtualmachine ({admin_username, and admin_password or "
                         "ssh_private_key as a Pulumi secret})", at=("ssh_settings",))
            if self.identity is not None:
                fail("not read when type is virtualmachine (az ml attaches a VM without an identity)",
                         at=("identity",))
        if self.identity and self.identity.type == "none":
            reject("none", "system_assigned | user_assigned", at=("identity", "type"))
        return self
