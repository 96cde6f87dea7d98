"""SynapseSparkCompute component: exact child inputs, identity, strict validation."""

from __future__ import annotations

from typing import Any

import pytest

from amlkit.components import SynapseSparkCompute, SynapseSparkComputeArgs
from amlkit.errors import ComponentArgError
from tests.components.harness import Recorded, principal_of, run

COMPUTE = "azure-native:machinelearningservices:Compute"
SUB = "/subscriptions/00000000-0000-0000-0000-000000000000"
POOL = f"{SUB}/resourceGroups/rg-syn/providers/Microsoft.Synapse/workspaces/syn-ws/bigDataPools/pool1"
UAI = f"{SUB}/resourceGroups/rg-id/providers/Microsoft.ManagedIdentity/userAssignedIdentities/uai"


def build(component: str = "spark", **extra: Any) -> Recorded:
    def program() -> dict[str, Any]:
        args: SynapseSparkComputeArgs = {"resource_group_name": "rg-ml", "workspace_name": "mlw",  # type: ignore
                                         "resource_id": POOL, **extra}
        compute = SynapseSparkCompute(component, args)
        return {"compute_name": compute.compute_name, "principal_id": compute.principal_id}

    return run(program)


CASES = [
    ("defaults", {}, {
        "resourceGroupName": "rg-ml", "workspaceName": "mlw", "computeName": "spark", "tags": {},
        "identity": {"type": "SystemAssigned"},
        "properties": {"computeType": "SynapseSpark", "resourceId": POOL, "disableLocalAuth": True}}),
    ("user-identity-name-description", dict(name="mysparkcompute", description="pool1",
                                            identity={"type": "user_assigned",
                                                      "user_assigned_identities": [{"resource_id": UAI}]}), {
        "resourceGroupName": "rg-ml", "workspaceName": "mlw", "computeName": "mysparkcompute", "tags": {},
        "identity": {"type": "UserAssigned", "userAssignedIdentities": [UAI]},
        "properties": {"computeType": "SynapseSpark", "resourceId": POOL, "disableLocalAuth": True,
                       "description": "pool1"}}),
]


@pytest.mark.parametrize(("extra", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_synapse_spark_compute_inputs(extra: dict[str, Any], expected: dict[str, Any]) -> None:
    rec = build(**extra)
    child = rec.get(COMPUTE, "spark-compute")
    assert child.inputs == expected
    assert (child.parent, child.delete_before_replace, child.replace_on_changes) == (
        "spark", True, ["location", "identity", "properties"])


def test_system_identity_principal_is_exposed() -> None:
    assert build().outputs == {"compute_name": "spark", "principal_id": principal_of("spark-compute")}


S = 'SynapseSparkCompute "spark": '
ERRORS = [
    ("workspace-id-not-a-pool", dict(resource_id=f"{SUB}/resourceGroups/rg/providers/Microsoft.Synapse/workspaces/ws"),
     S + "resource_id: must be an ARM id like /subscriptions/<guid>/resourceGroups/<rg>/providers/Microsoft.Synapse/"
     "workspaces/<name>/bigDataPools/<name>, got "  # the id elided to 80 characters (amlkit.errors.CUT)
     "'/subscriptions/00000000-0000-0000-000...viders/Microsoft.Synapse/workspaces/ws'"),
    ("unknown-key", dict(pool_name="pool1"),
     S + "pool_name: unknown argument; did you mean name? (help(SynapseSparkComputeArgs) lists every argument)"),
    ("ids-with-system", dict(identity={"type": "system_assigned", "user_assigned_identities": [{"resource_id": UAI}]}),
     S + "identity.type: must be user_assigned to use user_assigned_identities, got 'system_assigned'"),
    ("tags-not-text", dict(tags={"n": 1}), S + "tags: must be a mapping of a string to a string, got {'n': 1}"),
]


@pytest.mark.parametrize(("extra", "message"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_synapse_spark_compute_rejects(extra: dict[str, Any], message: str) -> None:
    with pytest.raises(ComponentArgError) as raised:
        build(**extra)
    assert str(raised.value) == message
    assert raised.value.component == 'SynapseSparkCompute "spark"'
