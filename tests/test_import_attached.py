"""`amlkit import-az-ml` for attached computes: real az ml attach files -> `amlkit:attached` entries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from amlkit import cli
from amlkit.importer import ImportFailed, Note, import_files
from amlkit.stackfile import load_stack_file

FIXTURES = Path(__file__).parent / "fixtures" / "az-ml"
EXAMPLES = FIXTURES / "azureml-examples"
SUB = "00000000-0000-0000-0000-000000000000"
PLACEHOLDERS = {  # the azureml-examples placeholders, filled in (the user-identity file lacks one '>')
    "<SUBSCRIPTION_ID>": SUB, "<SUBSCRIPTION_ID": SUB, "<RESOURCE_GROUP>": "rg-data", "<VM_NAME>": "dsvm",
    "<SYNAPSE_WORKSPACE_NAME>": "syn-ws", "<SPARK_POOL_NAME>": "pool1", "<ATTACHED_SPARK_POOL_NAME>": "spark-pool",
    "<AML_USER_MANAGED_ID>": "id-spark",
}
POOL = f"/subscriptions/{SUB}/resourceGroups/rg-data/providers/Microsoft.Synapse/workspaces/syn-ws/bigDataPools/pool1"
UAI = f"/subscriptions/{SUB}/resourceGroups/rg-data/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-spark"
AKS = f"/subscriptions/{SUB}/resourceGroups/rg-aks/providers/Microsoft.ContainerService/managedClusters/aks-ml"
VM = f"/subscriptions/{SUB}/resourceGroups/rg-dsvm/providers/Microsoft.Compute/virtualMachines/dsvm-train"


def filled(tmp_path: Path, name: str) -> str:
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    for placeholder in sorted(PLACEHOLDERS, key=len, reverse=True):
        text = text.replace(placeholder, PLACEHOLDERS[placeholder])
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


CASES = [
    ("attached-spark.yml", {"name": "spark-pool", "type": "synapsespark", "resource_id": POOL}),
    ("attached-spark-system-identity.yml", {"name": "mysparkcompute", "type": "synapsespark", "resource_id": POOL,
                                            "identity": {"type": "system_assigned"}}),
    ("attached-spark-user-identity.yml", {"name": "mysparkcompute", "type": "synapsespark", "resource_id": POOL,
                                          "identity": {"type": "user_assigned",
                                                       "user_assigned_identities": [{"resource_id": UAI}]}}),
]


@pytest.mark.parametrize(("name", "expected"), CASES, ids=[c[0] for c in CASES])
def test_azureml_examples_synapse_files_import_as_attached_entries(
    tmp_path: Path, name: str, expected: dict[str, Any]
) -> None:
    result = import_files([filled(tmp_path, name)])
    assert (result.attached, result.clusters, result.instances, result.notes) == ([expected], [], [], [])


def test_kubernetes_attach_file_imports_with_its_namespace() -> None:
    result = import_files([FIXTURES / "attached-kubernetes.yml"])
    assert result.attached == [{"name": "k8s-compute", "type": "kubernetes", "resource_id": AKS,
                                "namespace": "azureml"}]
    assert result.notes == []


def test_vm_credentials_are_never_copied_and_the_note_gives_the_secret_command() -> None:
    file = str(FIXTURES / "vm-attach-ssh.yml")
    result = import_files([file])
    assert result.attached == [{"name": "vm-example", "type": "virtualmachine", "resource_id": VM,
                                "ssh_settings": {"admin_username": "azureuser", "ssh_port": 22}}]
    assert result.notes == [Note(file, "ssh_settings.ssh_private_key_file",
                                 "not copied: the private key never goes into a stack file; store its content as a "
                                 "Pulumi secret: pulumi config set --secret --path "
                                 "'amlkit:attached[0].ssh_settings.ssh_private_key' < ~/.ssh/id_rsa")]
    assert "id_rsa" not in result.to_yaml()


def test_vm_password_is_never_copied(tmp_path: Path) -> None:
    path = tmp_path / "vm.yml"
    path.write_text(f"name: vm1\ntype: virtualmachine\nresource_id: {VM}\nssh_settings:\n  admin_username: ml\n"
                    "  admin_password: example-password\n", encoding="utf-8")
    result = import_files([path])
    assert result.attached[0]["ssh_settings"] == {"admin_username": "ml"}
    assert result.notes == [Note(str(path), "ssh_settings.admin_password",
                                 "not copied: a password never goes into a stack file; store it as a Pulumi secret: "
                                 "pulumi config set --secret --path 'amlkit:attached[0].ssh_settings.admin_password' "
                                 "<password>")]
    assert "example-password" not in result.to_yaml() + "".join(str(n) for n in result.notes)


FAILING = [
    ("placeholders-left-in", lambda tmp: str(EXAMPLES / "attached-spark-system-identity.yml"),
     "resource_id: got '/subscriptions/<SUBSCRIPTION_ID>/resourceGroups/<RESOURCE_GROUP>/providers/Mi...'; "
     "allowed: the ARM id of the resource to attach; its type depends on `type` (see the cross-field rules)"),
    ("vm-without-ssh-settings", lambda tmp: filled(tmp, "vm-attach.yml"),
     "ssh_settings: required key is missing; allowed: ssh_settings with admin_username and admin_password or "
     "ssh_private_key_file (Azure ML logs in to the VM over SSH; amlkit stores the credential as a Pulumi secret)"),
]


@pytest.mark.parametrize(("make", "message"), [c[1:] for c in FAILING], ids=[c[0] for c in FAILING])
def test_bad_attach_files_name_the_file_and_key(tmp_path: Path, make: Any, message: str) -> None:
    path = make(tmp_path)
    with pytest.raises(ImportFailed) as caught:
        import_files([path])
    [failure] = caught.value.failures
    assert str(failure) == f"{path}: {message}"


def test_unknown_and_server_side_keys_are_notes(tmp_path: Path) -> None:
    path = tmp_path / "k.yml"
    path.write_text(f"name: k8s\ntype: kubernetes\nresource_id: {AKS}\nprovisioning_state: Succeeded\n"
                    "ssh_settings: {admin_username: x}\nfoo: 1\n", encoding="utf-8")
    result = import_files([path])
    assert result.attached == [{"name": "k8s", "type": "kubernetes", "resource_id": AKS}]
    assert [(n.key, n.message) for n in result.notes] == [
        ("provisioning_state", "a property of the existing compute, not a setting; not imported"),
        ("ssh_settings", "unknown key (not in the kubernetesCompute.schema.json schema); not imported"),
        ("foo", "unknown key (not in the kubernetesCompute.schema.json schema); not imported"),
    ]


def test_output_loads_as_a_stack_file_once_the_secret_is_set(tmp_path: Path) -> None:
    files = [str(FIXTURES / "attached-kubernetes.yml"), str(FIXTURES / "vm-attach-ssh.yml"),
             filled(tmp_path, "attached-spark-user-identity.yml")]
    entries = yaml.safe_load(import_files(files).to_yaml())
    entries["amlkit:attached"][1]["ssh_settings"]["ssh_private_key"] = {"secure": "AAABAK+ciphertext"}
    stack = {"config": {"azure-native:location": "westeurope", "amlkit:resourceGroup": {"name": "rg-ml-dev"},
                        "amlkit:workspace": {"name": "mlw-dev"}, **entries}}
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(yaml.safe_dump(stack), encoding="utf-8")
    spec = load_stack_file(path)
    assert [(a.name, a.type) for a in spec.attached] == [
        ("k8s-compute", "kubernetes"), ("vm-example", "virtualmachine"), ("mysparkcompute", "synapsespark")]


def test_cli_prints_the_attached_section_and_the_notes(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli.app, ["import-az-ml", str(FIXTURES / "vm-attach-ssh.yml")])
    assert result.exit_code == 0, result.output
    assert "amlkit:attached:\n- name: vm-example\n  type: virtualmachine\n" in result.stdout
    assert "pulumi config set --secret --path 'amlkit:attached[0].ssh_settings.ssh_private_key'" in result.output
