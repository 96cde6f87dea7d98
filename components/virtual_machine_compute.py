"""An existing Linux virtual machine attached to a workspace as a compute target (az ml `virtualmachine`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Required, TypedDict

import pulumi
from pulumi_azure_native import machinelearningservices as ml

from amlkit.components import attached
from amlkit.components.args import REQUIRED, ArgInfo, document, document_nested
from amlkit.components.outputs import expose
from amlkit.errors import ConfigError

__all__ = [
    "ARGS", "DEFAULT_SSH_PORT", "KIND", "TYPE_TOKEN", "VirtualMachineCompute", "VirtualMachineComputeArgs",
    "VmSshSettingsArgs", "validate", "vm_properties",
]

TYPE_TOKEN = "amlkit:index:VirtualMachineCompute"
KIND = "VirtualMachineCompute"
DEFAULT_SSH_PORT = 22


class VmSshSettingsArgs(TypedDict, total=False):
    """How Azure ML logs in to the VM (az ml `ssh_settings`). Credentials only as pulumi secrets."""

    admin_username: Required[str]
    """The VM's administrator account."""
    admin_password: pulumi.Output[str]
    """Its password: a pulumi secret Output only (a plain string is refused). This or `ssh_private_key`."""
    ssh_private_key: pulumi.Output[str]
    """The content of its SSH private key (az ml reads it from `ssh_private_key_file`): a pulumi secret
    Output only."""
    ssh_port: int
    """SSH port of the VM (1-65535). Default 22."""


class VirtualMachineComputeArgs(attached.AttachedComputeArgs, total=False):
    """Inputs of `VirtualMachineCompute`, named as in the stack file (`amlkit:attached`, az ml
    `type: virtualmachine`).

    Give `workspace` (the Workspace component) or `resource_group_name` and `workspace_name`.
    """

    resource_id: Required[pulumi.Input[str]]
    """ARM id of the VM (`Microsoft.Compute/virtualMachines`)."""
    ssh_settings: Required[VmSshSettingsArgs]
    """Administrator account and its password or SSH private key (secrets)."""


ARGS: dict[str, ArgInfo] = {
    **attached.COMMON_ARGS,
    "ssh_settings": ArgInfo(REQUIRED, "properties.properties.sshPort, properties.properties.administratorAccount "
                                      "(username, password, privateKeyData)"),
}
document_nested(VmSshSettingsArgs)
document(VirtualMachineComputeArgs, ARGS)


class VirtualMachineCompute(pulumi.ComponentResource):
    """A virtual machine attached as an Azure ML compute; Azure ML logs in over SSH with secret credentials.

    No managed identity (az ml attaches VMs without one); local authentication off by default. Any change
    but tags re-attaches the VM (the old attachment is removed first). The VM itself is never created or
    deleted here.
    """

    compute_id: pulumi.Output[str]
    compute_name: pulumi.Output[str]

    def __init__(
        self, name: str, args: VirtualMachineComputeArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        args, compute_name = attached.checked(  # type: ignore[assignment]
            KIND, VirtualMachineComputeArgs, name, args, validate)
        super().__init__(TYPE_TOKEN, name, None, opts)
        compute = attached.attached_compute(self, name, args, compute_name, ml.VirtualMachineArgs(
            compute_type="VirtualMachine",
            **attached.target_inputs(args),
            properties=vm_properties(args["ssh_settings"]),
        ), None)
        expose(self, compute_id=compute.id, compute_name=compute.name)


def vm_properties(ssh: VmSshSettingsArgs) -> ml.VirtualMachineSchemaPropertiesArgs:
    password, key = ssh.get("admin_password"), ssh.get("ssh_private_key")
    return ml.VirtualMachineSchemaPropertiesArgs(
        ssh_port=ssh.get("ssh_port", DEFAULT_SSH_PORT),
        administrator_account=ml.VirtualMachineSshCredentialsArgs(
            username=ssh["admin_username"],
            password=pulumi.Output.secret(password) if password is not None else None,
            private_key_data=pulumi.Output.secret(key) if key is not None else None,
        ),
    )


def validate(args: Mapping[str, Any]) -> None:
    """The rules the annotations cannot say; a ConfigError names the argument and what is allowed."""
    attached.target_id("virtualmachine", args)
    ssh = args["ssh_settings"]
    if ssh.get("admin_password") is None and ssh.get("ssh_private_key") is None:
        raise ConfigError(None, "ssh_settings.ssh_private_key", "is required (or admin_password), as a pulumi "
                          "secret Output")
    port = ssh.get("ssh_port")
    if port is not None and not 1 <= port <= 65535:
        raise ConfigError(None, "ssh_settings.ssh_port", "must be a whole number from 1 to 65535", port)
