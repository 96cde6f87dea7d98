"""`amlkit.components.attached`: what the three attached-compute components share (workspace, region)."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest

from amlkit.components import KubernetesCompute, SynapseSparkCompute, VirtualMachineCompute, Workspace
from tests.components.harness import run

COMPUTE = "azure-native:machinelearningservices:Compute"
SUB = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups"
COMPONENTS = [
    (KubernetesCompute, {"resource_id": f"{SUB}/rg/providers/Microsoft.ContainerService/managedClusters/aks"}),
    (SynapseSparkCompute, {"resource_id": f"{SUB}/rg/providers/Microsoft.Synapse/workspaces/s/bigDataPools/p"}),
    (VirtualMachineCompute, {"resource_id": f"{SUB}/rg/providers/Microsoft.Compute/virtualMachines/vm",
                             "ssh_settings": {"admin_username": "ml"}}),
]


@pytest.mark.parametrize(("component", "args"), COMPONENTS, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize(("extra", "region"), [({}, "westeurope"), ({"location": "northeurope"}, "northeurope")],
                         ids=["workspace-region", "own-location"])
def test_the_workspace_component_gives_group_name_and_region(
    component: type, args: dict[str, Any], extra: dict[str, Any], region: str,
) -> None:
    def program() -> None:
        ws = Workspace("mlw", {"resource_group_name": "rg-ml", "location": "westeurope"})
        ssh = {**args["ssh_settings"], "ssh_private_key": pulumi.Output.secret("k")} if "ssh_settings" in args else {}
        component("att", {**args, **({"ssh_settings": ssh} if ssh else {}), "workspace": ws, **extra})

    compute = run(program).get(COMPUTE, "att-compute").inputs
    assert (compute["resourceGroupName"], compute["workspaceName"], compute["location"]) == ("rg-ml", "mlw", region)
