"""An existing Linux virtual machine attached to a workspace as a compute target (az ml `virtualmachine`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Required, TypedDict

import pulumi
from pulumi_azure_native import machinelearningservices as ml

from amlkit.components import attached

TYPE_TOKEN = "amlkit:index:VirtualMachineCompute"
KIND = "VirtualMachineCompute"
VM_ID = attached.arm_id_pattern("Microsoft.Compute", "virtualMachines")
VM_ID_EXAMPLE = attached.arm_id_example("Microsoft.Compute", "virtualMachines")
DEFAULT_SSH_PORT = 22


class VmSshSettingsArgs(TypedDict, total=False):
    """How Azure ML logs in to the VM (az ml `ssh_settings`). Credentials only as pulumi secrets."""

    admin_username: Required[str]
    """The VM's administrator account."""
    admin_password: pulumi.Output[str]
    """Its password: a pulumi secret Output only (a plain string is refused)."""
    ssh_private_key: pulumi.Output[str]
    """The content of its SSH private key (az ml reads it from `ssh_private_key_file`): a pulumi secret
    Output only."""
    ssh_port: int
    """SSH port of the VM. Default 22."""


class VirtualMachineComputeArgs(TypedDict, total=False):
    """Inputs of `VirtualMachineCompute` (az ml `type: virtualmachine`). Required fields first."""

    resource_group_name: Required[pulumi.Input[str]]
    """Resource group of the ML workspace."""
    workspace_name: Required[pulumi.Input[str]]
    """Name of the ML workspace the VM is attached to."""
    resource_id: Required[pulumi.Input[str]]
    """ARM id of the VM (`Microsoft.Compute/virtualMachines`)."""
    ssh_settings: Required[VmSshSettingsArgs]
    """Administrator account and its password or SSH private key (secrets)."""

    name: str
    """Compute name in the workspace (2-16 chars). Default: derived from the component name."""
    location: pulumi.Input[str]
    """Region of the compute resource. Default: the workspace's."""
    description: str
    """Free-text description."""
    local_auth_enabled: bool
    """Local (key) authentication on the compute resource. Default False."""
    tags: Mapping[str, str]
    """Tags on the compute resource (they update in place)."""


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
        super().__init__(TYPE_TOKEN, name, None, opts)
        validate(name, args)
        compute = attached.attached_compute(self, name, args, ml.VirtualMachineArgs(
            compute_type="VirtualMachine",
            resource_id=args["resource_id"],
            description=args.get("description"),
            disable_local_auth=not args.get("local_auth_enabled", False),
            properties=vm_properties(args["ssh_settings"]),
        ), None)
        self.compute_id = compute.id
        self.compute_name = compute.name
        self.register_outputs({"compute_id": self.compute_id, "compute_name": self.compute_name})


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


def validate(name: str, args: VirtualMachineComputeArgs) -> None:
    """Check every argument; raise a ConfigError naming the component, the key and what is allowed."""
    check = attached.Checker(KIND, name)
    check.keys(args, VirtualMachineComputeArgs)
    check.arm_id(args, "resource_id", VM_ID, VM_ID_EXAMPLE)
    ssh = check.keys(args["ssh_settings"], VmSshSettingsArgs, "ssh_settings.")
    for key in ("admin_password", "ssh_private_key"):
        if key in ssh and ssh[key] is not None and not isinstance(ssh[key], pulumi.Output):
            raise check.fail(f"ssh_settings.{key}", "allowed: a pulumi secret Output (pulumi.Output.secret or "
                             "a secret config value), never a plain string", show_value=False)
    if ssh.get("admin_password") is None and ssh.get("ssh_private_key") is None:
        raise check.fail("ssh_settings.admin_password", "required: admin_password or ssh_private_key (a pulumi "
                         "secret)", show_value=False)
    if "ssh_port" in ssh:
        check.integer(ssh, "ssh_port", 1, 65535, "ssh_settings.")
    check.common(name, args)
