"""`amlkit.components.outputs`: every component registers exactly the outputs it exposes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pulumi
import pytest

from amlkit import components
from amlkit.components.outputs import expose, exposed
from tests.components.harness import RG_ID, principal_of, run
from tests.components.test_workspace import APPI_ID, CR_ID, KV_ID, LOG_ID, ST_ID, WS_ID

SUB = RG_ID.rsplit("/resourceGroups/", 1)[0]
PLACED = {"resource_group_name": "rg-ml", "workspace_name": "mlw"}
AKS = f"{SUB}/resourceGroups/rg-aks/providers/Microsoft.ContainerService/managedClusters/aks"
POOL = f"{SUB}/resourceGroups/rg-syn/providers/Microsoft.Synapse/workspaces/syn/bigDataPools/pool1"
VM = f"{SUB}/resourceGroups/rg-vm/providers/Microsoft.Compute/virtualMachines/dsvm"


def cluster() -> pulumi.ComponentResource:
    return components.ComputeCluster("cpu", {**PLACED, "workspace_location": "westeurope",
                                             "size": "Standard_D4ds_v5", "max_instances": 2,
                                             "workspace_managed_network": True})


def instance() -> pulumi.ComponentResource:
    return components.ComputeInstance("alice", {**PLACED, "workspace_location": "westeurope",
                                                "size": "Standard_D4ds_v5", "name": "ci-alice",
                                                "workspace_managed_network": True})


def kubernetes() -> pulumi.ComponentResource:
    return components.KubernetesCompute("k8s", {**PLACED, "resource_id": AKS})


def synapse() -> pulumi.ComponentResource:
    return components.SynapseSparkCompute("spark", {**PLACED, "resource_id": POOL})


def virtual_machine() -> pulumi.ComponentResource:
    return components.VirtualMachineCompute("vm", {**PLACED, "resource_id": VM, "ssh_settings": {
        "admin_username": "azureuser", "ssh_private_key": pulumi.Output.secret("KEY")}})


def workspace() -> pulumi.ComponentResource:
    return components.Workspace("mlw", {"resource_group_name": "rg-ml", "location": "westeurope",
                                        "container_registry": True})


def compute_id(name: str) -> str:
    return f"{WS_ID}/computes/{name}"


# (component builder, its Pulumi name, exactly what it registers)
CASES = [
    (cluster, "cpu", {"compute_id": compute_id("cpu"), "compute_name": "cpu",
                      "principal_id": principal_of("cpu-compute")}),
    (instance, "alice", {"compute_id": compute_id("ci-alice"), "compute_name": "ci-alice",
                         "principal_id": principal_of("alice-compute")}),
    (kubernetes, "k8s", {"compute_id": compute_id("k8s"), "compute_name": "k8s",
                         "principal_id": principal_of("k8s-compute")}),
    (synapse, "spark", {"compute_id": compute_id("spark"), "compute_name": "spark",
                        "principal_id": principal_of("spark-compute")}),
    (virtual_machine, "vm", {"compute_id": compute_id("vm"), "compute_name": "vm"}),
    (workspace, "mlw", {
        "workspace_id": WS_ID, "workspace_name": "mlw", "resource_group_name": "rg-ml", "location": "westeurope",
        "storage_account_id": ST_ID, "key_vault_id": KV_ID, "application_insights_id": APPI_ID,
        "log_analytics_workspace_id": LOG_ID, "container_registry_id": CR_ID,
        "principal_id": principal_of("mlw-workspace")}),
]


@pytest.mark.parametrize(("make", "name", "registered"), CASES, ids=[c[1] for c in CASES])
def test_a_component_registers_exactly_the_outputs_it_exposes(
    make: Callable[[], pulumi.ComponentResource], name: str, registered: dict[str, Any],
) -> None:
    def program() -> dict[str, Any]:
        component = make()
        return {attribute: getattr(component, attribute) for attribute in exposed(type(component))}

    rec = run(program)
    assert rec.component_outputs[name] == registered
    assert rec.outputs == registered  # the attributes: what docs/components.md lists as its Outputs


def test_the_exposed_outputs_are_the_annotated_public_attributes() -> None:
    assert exposed(components.KubernetesCompute) == ["compute_id", "compute_name", "principal_id"]
    assert exposed(components.VirtualMachineCompute) == ["compute_id", "compute_name"]


class Exposing(pulumi.ComponentResource):
    """A component that exposes one output."""

    thing_id: pulumi.Output[str]
    _hidden: str


@pytest.mark.parametrize("outputs", [{}, {"thing_id": "a", "other": "b"}, {"other": "b"}],
                         ids=["missing", "one-more", "another"])
def test_expose_refuses_what_the_class_does_not_declare(outputs: dict[str, Any]) -> None:
    def program() -> None:
        component = Exposing("amlkit:test:Exposing", "t", None)
        expose(component, **outputs)

    with pytest.raises(TypeError) as caught:
        run(program)
    assert str(caught.value) == f"Exposing exposes ['thing_id'], not {list(outputs)}"
