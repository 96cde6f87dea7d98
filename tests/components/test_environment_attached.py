"""Environment component, attached computes: `amlkit:attached` entries -> exact component Args and children."""

from __future__ import annotations

from typing import Any

import pytest
from pulumi.runtime import rpc

from amlkit.components import (
    KubernetesCompute,
    KubernetesComputeArgs,
    SynapseSparkCompute,
    SynapseSparkComputeArgs,
    VirtualMachineCompute,
    VirtualMachineComputeArgs,
)
from amlkit.components.args import check, label
from amlkit.components.environment import ATTACHED_COMPONENTS, attached_args
from amlkit.errors import ComponentArgError
from amlkit.schema import Secret
from tests.components.harness import SUBSCRIPTION, run
from tests.components.test_environment import COMPUTE, SUB, UAI, build, spec_of

AKS = f"{SUB}/rg-aks/providers/Microsoft.ContainerService/managedClusters/aks-ml"
VM = f"{SUB}/rg-vm/providers/Microsoft.Compute/virtualMachines/dsvm"
POOL = f"{SUB}/rg-syn/providers/Microsoft.Synapse/workspaces/syn/bigDataPools/pool1"
TAGS = {"owner": "ml-platform", "tier": "stack", "environment": "qa"}
COMMON = {"resource_group_name": "rg-ml-qa", "workspace_name": "mlw-qa", "location": "westeurope",
          "local_auth_enabled": False, "tags": TAGS}

CASES = [
    ("kubernetes-minimal", {"name": "k8s", "type": "kubernetes", "resource_id": AKS},
     {**COMMON, "resource_id": AKS, "name": "k8s"}),
    ("kubernetes-full", {
        "name": "k8s-team", "type": "kubernetes", "resource_id": AKS, "namespace": "team-a",
        "default_instance_type": "small", "description": "team A",
        "instance_types": [{"name": "small", "resources": {"requests": {"cpu": "1"}}},
                           {"name": "gpu", "node_selector": {"pool": "gpu"}, "resources": {"limits": {"gpu": "1"}}}],
        "identity": {"type": "user_assigned", "user_assigned_identities": [{"resource_id": UAI}]},
        "tags": {"team": "a"}},
     {**COMMON, "resource_id": AKS, "name": "k8s-team", "namespace": "team-a", "default_instance_type": "small",
      "description": "team A", "tags": {**TAGS, "team": "a"},
      "instance_types": [{"name": "small", "resources": {"requests": {"cpu": "1"}}},
                         {"name": "gpu", "node_selector": {"pool": "gpu"}, "resources": {"limits": {"gpu": "1"}}}],
      "identity": {"type": "user_assigned", "user_assigned_identities": [{"resource_id": UAI}]}}),
    ("synapse-system-identity", {"name": "spark", "type": "synapsespark", "resource_id": POOL,
                                 "identity": {"type": "system_assigned"}, "local_auth_enabled": True},
     {**COMMON, "resource_id": POOL, "name": "spark", "local_auth_enabled": True,
      "identity": {"type": "system_assigned"}}),
]


@pytest.mark.parametrize(("entry", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_attached_args(entry: dict[str, Any], expected: dict[str, Any]) -> None:
    spec = spec_of(attached=[entry])
    assert attached_args(spec, spec.attached[0], "rg-ml-qa", "mlw-qa") == expected


def test_virtual_machine_args_carry_the_credentials_as_secret_outputs() -> None:
    spec = spec_of(attached=[{"name": "vm", "type": "virtualmachine", "resource_id": VM,
                              "ssh_settings": {"admin_username": "ml", "ssh_private_key": Secret("KEY")}}])
    seen: dict[str, Any] = {}

    def program() -> None:
        args = dict(attached_args(spec, spec.attached[0], "rg-ml-qa", "mlw-qa"))
        seen.update(args, ssh_settings={k: v for k, v in args["ssh_settings"].items() if k != "ssh_private_key"})
        VirtualMachineCompute("vm", args)  # type: ignore[arg-type]

    child = run(program).get(COMPUTE, "vm-compute")
    assert seen == {**COMMON, "resource_id": VM, "name": "vm", "ssh_settings": {"admin_username": "ml", "ssh_port": 22}}
    assert child.inputs["properties"] == {rpc._special_sig_key: rpc._special_secret_sig, "value": {
        "computeType": "VirtualMachine", "resourceId": VM, "disableLocalAuth": True,
        "properties": {"sshPort": 22.0, "administratorAccount": {"username": "ml", "privateKeyData": "KEY"}}}}


def test_environment_declares_one_attached_component_per_entry_named_after_it() -> None:
    rec = build(spec_of(attached=[
        {"name": "k8s", "type": "kubernetes", "resource_id": AKS, "namespace": "ml"},
        {"name": "spark", "type": "synapsespark", "resource_id": POOL},
    ]))
    children = sorted((r.type, r.name) for r in rec.registrations if r.parent == "qa")
    assert ("amlkit:index:KubernetesCompute", "qa-attached-k8s") in children
    assert ("amlkit:index:SynapseSparkCompute", "qa-attached-spark") in children
    k8s = rec.get(COMPUTE, "qa-attached-k8s-compute").inputs
    assert k8s["properties"] == {"computeType": "Kubernetes", "resourceId": AKS, "disableLocalAuth": True,
                                 "properties": {"namespace": "ml"}}
    assert (k8s["computeName"], k8s["workspaceName"], k8s["location"]) == ("k8s", "mlw-qa", "westeurope")
    assert rec.outputs["attached_names"] == {"k8s": "k8s", "spark": "spark"}
    assert rec.outputs["attached_ids"]["k8s"] == (f"/subscriptions/{SUBSCRIPTION}/resourceGroups/rg-ml-qa/providers/"
                                                  "Microsoft.MachineLearningServices/workspaces/mlw-qa/computes/k8s")


@pytest.mark.parametrize("entry", [c[1] for c in CASES] + [
    {"name": "vm", "type": "virtualmachine", "resource_id": VM,
     "ssh_settings": {"admin_username": "ml", "ssh_private_key": Secret("KEY")}}], ids=[c[0] for c in CASES] + ["vm"])
def test_an_entrys_args_pass_the_components_one_checker(entry: dict[str, Any]) -> None:
    spec = spec_of(attached=[entry])
    component = ATTACHED_COMPONENTS[entry["type"]]
    args_type = {KubernetesCompute: KubernetesComputeArgs, VirtualMachineCompute: VirtualMachineComputeArgs,
                 SynapseSparkCompute: SynapseSparkComputeArgs}[component]

    def program() -> None:
        check(args_type, label(component.__name__, "x"), attached_args(spec, spec.attached[0], "rg-ml-qa", "mlw-qa"))

    run(program)


def test_a_key_the_component_does_not_take_is_the_shared_unknown_argument_error() -> None:
    spec = spec_of(attached=[{"name": "vm", "type": "virtualmachine", "resource_id": VM,
                              "ssh_settings": {"admin_username": "ml", "ssh_private_key": Secret("KEY")}}])
    caught: list[ComponentArgError] = []

    def program() -> None:
        args = {**attached_args(spec, spec.attached[0], "rg-ml-qa", "mlw-qa"), "identity": {"type": "system_assigned"}}
        try:
            VirtualMachineCompute("qa-attached-vm", args)  # type: ignore[arg-type]
        except ComponentArgError as error:
            caught.append(error)

    run(program)
    assert [str(error) for error in caught] == [
        'VirtualMachineCompute "qa-attached-vm": identity: unknown argument; did you mean description? '
        "(help(VirtualMachineComputeArgs) lists every argument)"]
