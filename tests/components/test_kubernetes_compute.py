"""KubernetesCompute component: exact child inputs and options, identity, strict validation."""

from __future__ import annotations

from typing import Any

import pytest

from amlkit.components import KubernetesCompute, KubernetesComputeArgs
from amlkit.errors import ComponentArgError
from tests.components.harness import Recorded, arm_id, principal_of, run

COMPUTE = "azure-native:machinelearningservices:Compute"
SUB = "/subscriptions/00000000-0000-0000-0000-000000000000"
AKS = f"{SUB}/resourceGroups/rg-aks/providers/Microsoft.ContainerService/managedClusters/aks-ml"
ARC = f"{SUB}/resourceGroups/rg-arc/providers/Microsoft.Kubernetes/connectedClusters/arc-ml"
UAI = f"{SUB}/resourceGroups/rg-id/providers/Microsoft.ManagedIdentity/userAssignedIdentities/uai"
REPLACE_PATHS = ["location", "identity", "properties"]


def base(**extra: Any) -> KubernetesComputeArgs:
    return {"resource_group_name": "rg-ml", "workspace_name": "mlw", "resource_id": AKS, **extra}  # type: ignore


def build(component: str = "k8s", **extra: Any) -> Recorded:
    def program() -> dict[str, Any]:
        compute = KubernetesCompute(component, base(**extra))
        return {"compute_id": compute.compute_id, "compute_name": compute.compute_name,
                "principal_id": compute.principal_id}

    return run(program)


def test_default_inputs_attach_in_the_default_namespace_with_a_system_identity() -> None:
    rec = build()
    child = rec.get(COMPUTE, "k8s-compute")
    assert child.inputs == {
        "resourceGroupName": "rg-ml",
        "workspaceName": "mlw",
        "computeName": "k8s",
        "tags": {},
        "identity": {"type": "SystemAssigned"},
        "properties": {
            "computeType": "Kubernetes",
            "resourceId": AKS,
            "disableLocalAuth": True,
            "properties": {"namespace": "default"},
        },
    }
    assert (child.parent, child.delete_before_replace, child.replace_on_changes) == ("k8s", True, REPLACE_PATHS)
    assert rec.outputs == {
        "compute_id": arm_id("Microsoft.MachineLearningServices/workspaces", "mlw") + "/computes/k8s",
        "compute_name": "k8s",
        "principal_id": principal_of("k8s-compute"),
    }
    assert set(rec.component_outputs["k8s"]) == {"compute_id", "compute_name", "principal_id"}


INSTANCE_TYPES = [
    {"name": "gpu", "node_selector": {"pool": "gpu"},
     "resources": {"requests": {"cpu": "4", "memory": "16Gi"}, "limits": {"nvidia.com/gpu": "1"}}},
    {"name": "small", "resources": {"requests": {"cpu": "1"}}},
]

CASES = [
    ("arc-cluster-namespace-types", dict(resource_id=ARC, namespace="team-a", instance_types=INSTANCE_TYPES,
                                         default_instance_type="small", name="k8s-team-a"),
     {"computeName": "k8s-team-a", "identity": {"type": "SystemAssigned"},
      "properties": {"computeType": "Kubernetes", "resourceId": ARC, "disableLocalAuth": True, "properties": {
          "namespace": "team-a", "defaultInstanceType": "small", "instanceTypes": {
              "gpu": {"nodeSelector": {"pool": "gpu"}, "resources": {
                  "requests": {"cpu": "4", "memory": "16Gi"}, "limits": {"nvidia.com/gpu": "1"}}},
              "small": {"resources": {"requests": {"cpu": "1"}}}}}}}),
    ("user-assigned-identity", dict(identity={"type": "user_assigned",
                                              "user_assigned_identities": [{"resource_id": UAI}]}),
     {"identity": {"type": "UserAssigned", "userAssignedIdentities": [UAI]}}),
    ("no-identity-local-auth-on", dict(identity={"type": "none"}, local_auth_enabled=True, description="shared",
                                       location="westeurope", tags={"team": "ml"}),
     {"location": "westeurope", "tags": {"team": "ml"}, "properties": {
         "computeType": "Kubernetes", "resourceId": AKS, "disableLocalAuth": False, "description": "shared",
         "properties": {"namespace": "default"}}}),
]


@pytest.mark.parametrize(("extra", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_kubernetes_compute_inputs(extra: dict[str, Any], expected: dict[str, Any]) -> None:
    inputs = build(**extra).get(COMPUTE, "k8s-compute").inputs
    assert {key: inputs.get(key) for key in expected} == expected
    if extra.get("identity", {}).get("type") == "none":
        assert "identity" not in inputs


def test_long_component_names_give_distinct_valid_compute_names() -> None:
    first = build("kubernetes-team-alpha").get(COMPUTE, "kubernetes-team-alpha-compute").inputs["computeName"]
    second = build("kubernetes-team-bravo").get(COMPUTE, "kubernetes-team-bravo-compute").inputs["computeName"]
    assert len(first) <= 16 and len(second) <= 16 and first != second


K = 'KubernetesCompute "k8s": '
ERRORS = [
    ("unknown-key-with-hint", dict(namespce="a"),
     K + "namespce: unknown argument; did you mean namespace? (help(KubernetesComputeArgs) lists every argument)"),
    ("missing-resource-id", dict(resource_id=None), K + "resource_id: is required"),
    ("vm-id-not-a-cluster", dict(resource_id=f"{SUB}/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm"),
     K + "resource_id: must be an ARM id like /subscriptions/<guid>/resourceGroups/<rg>/providers/"
     "Microsoft.ContainerService/managedClusters/<name> or /subscriptions/<guid>/resourceGroups/<rg>/providers/"
     "Microsoft.Kubernetes/connectedClusters/<name>, got "  # the id elided to 80 characters (amlkit.errors.CUT)
     "'/subscriptions/00000000-0000-0000-000...s/Microsoft.Compute/virtualMachines/vm'"),
    ("bad-namespace", dict(namespace="Team_A"),
     K + "namespace: must be a Kubernetes namespace name: 1-63 lowercase letters, digits and '-', starting and "
     "ending with a letter or digit, got 'Team_A'"),
    ("default-type-not-declared", dict(default_instance_type="big", instance_types=INSTANCE_TYPES),
     K + "default_instance_type: must be one of instance_types[].name: gpu | small, got 'big'"),
    ("default-type-without-types", dict(default_instance_type="big"),
     K + "default_instance_type: must be one of instance_types[].name: none (no instance_types are given), "
     "got 'big'"),
    ("instance-type-unknown-key", dict(instance_types=[{"name": "a", "nodeSelector": {}}]),
     K + "instance_types[0].nodeSelector: unknown argument; did you mean node_selector? (help(InstanceTypeArgs) "
     "lists every argument)"),
    ("instance-type-numbers", dict(instance_types=[{"name": "a", "resources": {"requests": {"cpu": 1}}}]),
     K + "instance_types[0].resources.requests: must be a mapping of a string to a string, got {'cpu': 1}"),
    ("instance-type-twice", dict(instance_types=[{"name": "a"}, {"name": "a"}]),
     K + "instance_types[1].name: must be a name not used before in instance_types, got 'a'"),
    ("identity-type", dict(identity={"type": "SystemAssigned"}),
     K + "identity.type: must be one of 'system_assigned', 'user_assigned', 'none', got 'SystemAssigned'"),
    ("identity-user-without-ids", dict(identity={"type": "user_assigned"}),
     K + "identity.user_assigned_identities: is required when type is user_assigned"),
    ("identity-bad-id", dict(identity={"type": "user_assigned", "user_assigned_identities": [{"resource_id": "x"}]}),
     K + "identity.user_assigned_identities[0].resource_id: must be an ARM id like /subscriptions/<guid>/"
     "resourceGroups/<rg>/providers/Microsoft.ManagedIdentity/userAssignedIdentities/<name>, got 'x'"),
    ("local-auth-not-bool", dict(local_auth_enabled="yes"), K + "local_auth_enabled: must be True or False, got 'yes'"),
    ("bad-name", dict(name="9k"),
     K + "name: invalid Azure name '9k': allowed is 2-16 letters, digits and hyphens, starting with a letter"),
    ("no-workspace", dict(workspace_name=None),
     K + "workspace_name: is required without workspace (the Workspace component)"),
    ("workspace-not-a-component", dict(workspace="mlw"), K + "workspace: must be a Workspace component, got 'mlw'"),
]


@pytest.mark.parametrize(("extra", "message"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_kubernetes_compute_rejects(extra: dict[str, Any], message: str) -> None:
    with pytest.raises(ComponentArgError) as raised:
        build(**extra)
    assert str(raised.value) == message
    assert raised.value.component == 'KubernetesCompute "k8s"'
