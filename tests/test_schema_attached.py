"""The `amlkit:attached` schema: each rule with a named failing case and its exact message; stack files exit 2."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from amlkit.errors import ConfigError
from amlkit.schema import Secret, validate_environment
from amlkit.stackfile import load_stack_file
from tests.test_schema import FILE, IDENTITY, SUB, happy

AKS = f"{SUB}/rg-aks/providers/Microsoft.ContainerService/managedClusters/aks-ml"
ARC = f"{SUB}/rg-arc/providers/Microsoft.Kubernetes/connectedClusters/arc-ml"
VM = f"{SUB}/rg-vm/providers/Microsoft.Compute/virtualMachines/dsvm"
POOL = f"{SUB}/rg-syn/providers/Microsoft.Synapse/workspaces/syn/bigDataPools/pool1"
K8S = {"name": "k8s", "type": "kubernetes", "resource_id": AKS}
VM_ENTRY = {"name": "dsvm", "type": "virtualmachine", "resource_id": VM,
            "ssh_settings": {"admin_username": "azureuser", "ssh_private_key": Secret(None)}}
SPARK = {"name": "spark", "type": "synapsespark", "resource_id": POOL}
AT = f"{FILE}: amlkit:attached[0]"
K8S_IDS = ("an ARM id like /subscriptions/<guid>/resourceGroups/<rg>/providers/Microsoft.ContainerService/"
           "managedClusters/<name> or /subscriptions/<guid>/resourceGroups/<rg>/providers/Microsoft.Kubernetes/"
           "connectedClusters/<name>")


def with_attached(*entries: dict[str, Any]) -> dict[str, Any]:
    raw = happy()
    raw["attached"] = [copy.deepcopy(entry) for entry in entries]
    return raw


def entry(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    result = {**copy.deepcopy(base), **changes}
    return {key: value for key, value in result.items() if value is not None}


VALID = [
    ("kubernetes-aks", K8S),
    ("kubernetes-arc-any-casing-of-type", entry(K8S, type="Kubernetes", resource_id=ARC)),
    ("kubernetes-full", entry(K8S, namespace="team-a", default_instance_type="gpu", instance_types=[
        {"name": "gpu", "node_selector": {"pool": "gpu"}, "resources": {"limits": {"nvidia.com/gpu": "1"}}}],
        identity={"type": "user_assigned", "user_assigned_identities": [{"resource_id": IDENTITY}]})),
    ("virtualmachine-key", VM_ENTRY),
    ("virtualmachine-password-port", entry(VM_ENTRY, ssh_settings={"admin_username": "ml", "ssh_port": 2222,
                                                                   "admin_password": Secret(None)})),
    ("synapsespark", entry(SPARK, identity={"type": "system_assigned"}, description="pool", tags={"a": "b"})),
]


@pytest.mark.parametrize("item", [c[1] for c in VALID], ids=[c[0] for c in VALID])
def test_schema_attached_accepts(item: dict[str, Any]) -> None:
    spec = validate_environment(with_attached(item), FILE)
    assert spec.attached[0].name == item["name"] and spec.attached[0].type == item["type"].lower()


FAILING = [
    ("unknown-type", entry(K8S, type="aks"),
     f"{AT}.type: got 'aks'; allowed: kubernetes | virtualmachine | synapsespark"),
    ("missing-resource-id", entry(K8S, resource_id=None), f"{AT}.resource_id: required key is missing"),
    ("not-an-arm-id", entry(K8S, resource_id="aks-ml"), f"{AT}.resource_id: got 'aks-ml'; allowed: the ARM id of "
     "the resource to attach; its type depends on `type` (see the cross-field rules)"),
    ("kubernetes-given-a-vm-id", entry(K8S, resource_id=VM),
     f"{AT}.resource_id: got '{VM[:77]}...'; allowed: for type kubernetes: {K8S_IDS}"),
    ("vm-given-an-aks-id", entry(VM_ENTRY, resource_id=AKS),
     f"{AT}.resource_id: got '{AKS[:77]}...'; allowed: for type virtualmachine: an ARM id like /subscriptions/"
     "<guid>/resourceGroups/<rg>/providers/Microsoft.Compute/virtualMachines/<name>"),
    ("spark-given-a-workspace-id", entry(SPARK, resource_id=f"{SUB}/rg/providers/Microsoft.Synapse/workspaces/syn"),
     f"{AT}.resource_id: got '{SUB}/rg/provide...'; allowed: for type synapsespark: "
     "an ARM id like /subscriptions/<guid>/resourceGroups/<rg>/providers/Microsoft.Synapse/workspaces/<name>/"
     "bigDataPools/<name>"),
    ("bad-namespace", entry(K8S, namespace="Team_A"), f"{AT}.namespace: got 'Team_A'; allowed: a Kubernetes "
     "namespace name: 1-63 lowercase letters, digits and '-', starting and ending with a letter or digit"),
    ("namespace-on-a-vm", entry(VM_ENTRY, namespace="a"), f"{AT}.namespace: only read when type is kubernetes"),
    ("ssh-settings-on-kubernetes", entry(K8S, ssh_settings=VM_ENTRY["ssh_settings"]),
     f"{AT}.ssh_settings: only read when type is virtualmachine"),
    ("vm-without-ssh-settings", entry(VM_ENTRY, ssh_settings=None), f"{AT}.ssh_settings: required when type is "
     "virtualmachine ({admin_username, and admin_password or ssh_private_key as a Pulumi secret})"),
    ("vm-without-credential", entry(VM_ENTRY, ssh_settings={"admin_username": "ml"}),
     f"{AT}.ssh_settings.ssh_private_key: required: admin_password or ssh_private_key, as a Pulumi secret: pulumi "
     "config set --secret --path 'amlkit:attached[<index>].ssh_settings.ssh_private_key' < <key file>"),
    ("vm-plain-password", entry(VM_ENTRY, ssh_settings={"admin_username": "ml", "admin_password": "hunter2"}),
     f"{AT}.ssh_settings.admin_password: a plain-text credential is not allowed in stack config; store it as a "
     "Pulumi secret: pulumi config set --secret --path 'amlkit:attached[0].ssh_settings.admin_password' <value>"),
    ("vm-with-identity", entry(VM_ENTRY, identity={"type": "system_assigned"}),
     f"{AT}.identity: not read when type is virtualmachine (az ml attaches a VM without an identity)"),
    ("identity-none", entry(SPARK, identity={"type": "none"}),
     f"{AT}.identity.type: got 'none'; allowed: system_assigned | user_assigned"),
    ("default-type-not-listed", entry(K8S, default_instance_type="big", instance_types=[{"name": "small"}]),
     f"{AT}.default_instance_type: got 'big'; allowed: one of instance_types[].name: small"),
    ("instance-type-twice", entry(K8S, instance_types=[{"name": "a"}, {"name": "a"}]),
     f"{AT}.instance_types[1].name: got 'a'; allowed: an instance type name not used before in this list"),
    ("instance-type-number", entry(K8S, instance_types=[{"name": "a", "resources": {"requests": {"cpu": 2}}}]),
     f"{AT}.instance_types[0].resources.requests: got a mapping; allowed: a mapping of text keys to text values "
     "(quote numbers: cpu: \"2\")"),
    ("unknown-key", entry(K8S, compute_type="Kubernetes"), f"{AT}.compute_type: unknown key 'compute_type'; "
     "allowed keys: name, "
     "type, resource_id, namespace, default_instance_type, instance_types, identity, ssh_settings, "
     "local_auth_enabled, description, tags"),
]


@pytest.mark.parametrize(("item", "expected"), [c[1:] for c in FAILING], ids=[c[0] for c in FAILING])
def test_schema_attached_rejects(item: dict[str, Any], expected: str) -> None:
    with pytest.raises(ConfigError) as caught:
        validate_environment(with_attached(item), FILE)
    assert str(caught.value) == expected
    assert "hunter2" not in str(caught.value)


def test_attached_names_are_unique_across_every_compute_list() -> None:
    with pytest.raises(ConfigError) as caught:
        validate_environment(with_attached(entry(K8S, name="CPU-cluster")), FILE)
    assert str(caught.value) == (f"{AT}.name: got 'CPU-cluster'; allowed: a compute name not used elsewhere in the "
                                 "workspace (clusters[0] has it)")


def test_a_stack_file_with_a_bad_attached_entry_names_the_file_and_key(tmp_path: Path) -> None:
    stack = tmp_path / "Pulumi.dev.yaml"
    stack.write_text(f"""config:
  azure-native:location: westeurope
  amlkit:resourceGroup: {{name: rg-ml-dev}}
  amlkit:workspace: {{name: mlw-dev}}
  amlkit:attached:
    - name: k8s
      type: kubernetes
      resource_id: {VM}
""")
    with pytest.raises(ConfigError) as caught:
        load_stack_file(stack)
    assert (caught.value.file, caught.value.key_path, caught.value.exit_code) == (
        str(stack), "amlkit:attached[0].resource_id", 2)
