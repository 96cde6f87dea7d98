"""VirtualMachineCompute component: exact child inputs, secrets only as secrets, strict validation."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
from pulumi.runtime import rpc

from amlkit.components import VirtualMachineCompute, VirtualMachineComputeArgs
from amlkit.errors import ConfigError
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


V = "VirtualMachineCompute 'vm'"
ERRORS = [
    ("plain-password", dict(ssh_settings={"admin_username": "u", "admin_password": "hunter2"}),
     "ssh_settings.admin_password", f"{V}: allowed: a pulumi secret Output (pulumi.Output.secret or a secret "
     "config value), never a plain string"),
    ("plain-key", dict(ssh_settings={"admin_username": "u", "ssh_private_key": "-----BEGIN"}),
     "ssh_settings.ssh_private_key", f"{V}: allowed: a pulumi secret Output (pulumi.Output.secret or a secret "
     "config value), never a plain string"),
    ("no-credential", dict(ssh_settings={"admin_username": "u"}), "ssh_settings.admin_password",
     f"{V}: required: admin_password or ssh_private_key (a pulumi secret)"),
    ("no-username", dict(ssh_settings={"ssh_port": 22}), "ssh_settings.admin_username",
     f"{V}: required argument is missing"),
    ("ssh-settings-unknown-key", dict(ssh_settings={"admin_username": "u", "ssh_private_key_file": "~/.ssh/id"}),
     "ssh_settings.ssh_private_key_file", f"{V}: unknown argument 'ssh_private_key_file'; did you mean "
     "'ssh_private_key'? allowed: admin_password, admin_username, ssh_port, ssh_private_key"),
    ("bad-port", dict(ssh_settings={"admin_username": "u", "admin_password": pulumi.Output.secret("p"),
                                    "ssh_port": 70000}), "ssh_settings.ssh_port",
     f"{V}: got 70000; allowed: a whole number from 1 to 65535"),
    ("aks-id-not-a-vm", dict(resource_id=f"{SUB}/resourceGroups/rg/providers/Microsoft.ContainerService/"
                                         "managedClusters/aks"), "resource_id",
     f"{V}: got '{SUB}/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/aks'; allowed: an ARM "
     "id like /subscriptions/<guid>/resourceGroups/<rg>/providers/Microsoft.Compute/virtualMachines/<name>"),
    ("identity-not-taken", dict(identity={"type": "system_assigned"}), "identity",
     f"{V}: unknown argument 'identity'; allowed: description, local_auth_enabled, location, name, "
     "resource_group_name, resource_id, ssh_settings, tags, workspace_name"),
]


@pytest.mark.parametrize(("extra", "key", "problem"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_virtual_machine_compute_rejects(extra: dict[str, Any], key: str, problem: str) -> None:
    with pytest.raises(ConfigError) as raised:
        build(**extra)
    assert (raised.value.key_path, raised.value.problem) == (key, problem)
    assert "hunter2" not in str(raised.value)
