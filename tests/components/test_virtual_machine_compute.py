"""VirtualMachineCompute component: exact child inputs, secrets only as secrets, strict validation."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
from pulumi.runtime import rpc

from amlkit.components import VirtualMachineCompute, VirtualMachineComputeArgs
from amlkit.errors import ComponentArgError
from tests.components.harness import Recorded, run

COMPUTE = "azure-native:machinelearningservices:Compute"
SUB = "/subscriptions/00000000-0000-0000-0000-000000000000"
VM = f"{SUB}/resourceGroups/rg-vm/providers/Microsoft.Compute/virtualMachines/dsvm"


def secret(value: Any) -> dict[str, Any]:
    return {rpc._special_sig_key: rpc._special_secret_sig, "value": value}


def base(**extra: Any) -> VirtualMachineComputeArgs:
    return {"resource_group_name": "rg-ml", "workspace_name": "mlw", "resource_id": VM, **extra}  # type: ignore


def build(component: str = "vm", **extra: Any) -> Recorded:
    def program() -> dict[str, Any]:
        args = base(**extra)
        if "ssh_settings" not in args:
            args["ssh_settings"] = {"admin_username": "azureuser",
                                    "ssh_private_key": pulumi.Output.secret("PRIVATE-KEY")}
        compute = VirtualMachineCompute(component, args)
        return {"compute_id": compute.compute_id, "compute_name": compute.compute_name}

    return run(program)


def test_default_inputs_attach_over_ssh_with_a_secret_key_and_no_identity() -> None:
    rec = build()
    child = rec.get(COMPUTE, "vm-compute")
    assert child.inputs == {
        "resourceGroupName": "rg-ml",
        "workspaceName": "mlw",
        "computeName": "vm",
        "tags": {},
        "properties": secret({  # a secret inside makes the whole `properties` input secret on the wire
            "computeType": "VirtualMachine",
            "resourceId": VM,
            "disableLocalAuth": True,
            "properties": {"sshPort": 22.0,
                           "administratorAccount": {"username": "azureuser", "privateKeyData": "PRIVATE-KEY"}},
        }),
    }
    assert (child.parent, child.delete_before_replace, child.replace_on_changes) == (
        "vm", True, ["location", "identity", "properties"])
    assert set(rec.component_outputs["vm"]) == {"compute_id", "compute_name"}


def test_password_port_and_name_reach_the_child_and_the_password_stays_secret() -> None:
    rec = build(name="dsvm-train", ssh_settings={"admin_username": "ml", "ssh_port": 2222,
                                                  "admin_password": pulumi.Output.from_input("pw")},
                tags={"team": "ml"})
    inputs = rec.get(COMPUTE, "vm-compute").inputs
    assert (inputs["computeName"], inputs["tags"]) == ("dsvm-train", {"team": "ml"})
    assert inputs["properties"] == secret({
        "computeType": "VirtualMachine", "resourceId": VM, "disableLocalAuth": True,
        "properties": {"sshPort": 2222.0, "administratorAccount": {"username": "ml", "password": "pw"}}})


V = 'VirtualMachineCompute "vm": '
PLAIN_SECRET = ("must be a pulumi secret Output (pulumi.Output.secret or a secret config value), never a plain "
                "string, got a plain value")
ERRORS = [
    ("plain-password", dict(ssh_settings={"admin_username": "u", "admin_password": "hunter2"}),
     V + "ssh_settings.admin_password: " + PLAIN_SECRET),
    ("plain-key", dict(ssh_settings={"admin_username": "u", "ssh_private_key": "-----BEGIN hunter2"}),
     V + "ssh_settings.ssh_private_key: " + PLAIN_SECRET),
    ("no-credential", dict(ssh_settings={"admin_username": "u"}),
     V + "ssh_settings.ssh_private_key: is required (or admin_password), as a pulumi secret Output"),
    ("no-username", dict(ssh_settings={"ssh_port": 22}), V + "ssh_settings.admin_username: is required"),
    ("no-ssh-settings", dict(ssh_settings=None), V + "ssh_settings: is required"),
    ("ssh-settings-unknown-key", dict(ssh_settings={"admin_username": "u", "ssh_private_key_file": "~/.ssh/id"}),
     V + "ssh_settings.ssh_private_key_file: unknown argument; did you mean ssh_private_key? "
     "(help(VmSshSettingsArgs) lists every argument)"),
    ("bad-port", dict(ssh_settings={"admin_username": "u", "admin_password": pulumi.Output.secret("p"),
                                    "ssh_port": 70000}),
     V + "ssh_settings.ssh_port: must be a whole number from 1 to 65535, got 70000"),
    ("port-not-a-number", dict(ssh_settings={"admin_username": "u", "admin_password": pulumi.Output.secret("p"),
                                             "ssh_port": "22"}),
     V + "ssh_settings.ssh_port: must be a whole number, got '22'"),
    ("aks-id-not-a-vm", dict(resource_id=f"{SUB}/resourceGroups/rg/providers/Microsoft.ContainerService/"
                                         "managedClusters/aks"),
     V + "resource_id: must be an ARM id like /subscriptions/<guid>/resourceGroups/<rg>/providers/Microsoft.Compute/"
     "virtualMachines/<name>, got "  # the id elided to 80 characters (amlkit.errors.CUT)
     "'/subscriptions/00000000-0000-0000-000...t.ContainerService/managedClusters/aks'"),
    ("identity-not-taken", dict(identity={"type": "system_assigned"}),
     V + "identity: unknown argument; did you mean description? (help(VirtualMachineComputeArgs) lists every "
     "argument)"),
    ("no-resource-group", dict(resource_group_name=None),
     V + "resource_group_name: is required without workspace (the Workspace component)"),
]


@pytest.mark.parametrize(("extra", "message"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_virtual_machine_compute_rejects(extra: dict[str, Any], message: str) -> None:
    with pytest.raises(ComponentArgError) as raised:
        build(**extra)
    assert str(raised.value) == message
    assert raised.value.component == 'VirtualMachineCompute "vm"'
    assert "hunter2" not in repr(vars(raised.value))
