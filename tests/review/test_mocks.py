"""Azure-like mock outputs and engine URNs."""

from __future__ import annotations

import pytest

from amlkit.review.mocks import SUBSCRIPTION, arm_id, engine_urn, physical_name, shaped_identity

SUB = f"/subscriptions/{SUBSCRIPTION}"

ARM_CASES = [
    ("group", "azure-native:resources:ResourceGroup", "rg-ml", {}, f"{SUB}/resourceGroups/rg-ml"),
    ("workspace", "azure-native:machinelearningservices:Workspace", "mlw", {"resourceGroupName": "rg-ml"},
     f"{SUB}/resourceGroups/rg-ml/providers/Microsoft.MachineLearningServices/workspaces/mlw"),
    ("compute-versioned", "azure-native:machinelearningservices/v20240401:Compute", "cpu",
     {"resourceGroupName": "rg-ml", "workspaceName": "mlw"},
     f"{SUB}/resourceGroups/rg-ml/providers/Microsoft.MachineLearningServices/workspaces/mlw/computes/cpu"),
    ("compute-parameterized", "azure-native_machinelearningservices_v20240401:machinelearningservices:Compute",
     "cpu", {"resourceGroupName": "rg-ml", "workspaceName": "mlw"},
     f"{SUB}/resourceGroups/rg-ml/providers/Microsoft.MachineLearningServices/workspaces/mlw/computes/cpu"),
    ("unlisted-type", "azure-native:cache:Redis", "redis1", {"resourceGroupName": "rg"},
     f"{SUB}/resourceGroups/rg/providers/Microsoft.cache/rediss/redis1"),
]


@pytest.mark.parametrize(("type_", "name", "inputs", "expected"), [c[1:] for c in ARM_CASES],
                         ids=[c[0] for c in ARM_CASES])
def test_arm_ids(type_, name, inputs, expected):
    assert arm_id(type_, name, inputs) == expected


def test_physical_name_prefers_the_types_name_input():
    assert physical_name("azure-native:machinelearningservices:Compute", "logical", {"computeName": "cpu"}) == "cpu"
    assert physical_name("azure-native:machinelearningservices:Compute", "logical", {}) == "logical"


def test_user_assigned_identities_become_a_map_as_azure_returns_them():
    shaped = shaped_identity({"type": "UserAssigned", "userAssignedIdentities": ["/id/a", "/id/b"]})
    assert sorted(shaped["userAssignedIdentities"]) == ["/id/a", "/id/b"]
    assert shaped["userAssignedIdentities"]["/id/a"] == {"principalId": SUBSCRIPTION, "clientId": SUBSCRIPTION}
    assert "principalId" not in shaped


def test_system_identity_gets_a_principal():
    assert shaped_identity({"type": "SystemAssigned"})["principalId"] == SUBSCRIPTION


URN_CASES = [
    ("top-level", "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev", "t:m:A", "a", "urn:pulumi:dev::p::t:m:A::a"),
    ("child", "urn:pulumi:dev::p::t:m:A::a", "t:m:B", "b", "urn:pulumi:dev::p::t:m:A$t:m:B::b"),
    ("grandchild", "urn:pulumi:dev::p::t:m:A$t:m:B::b", "t:m:C", "c", "urn:pulumi:dev::p::t:m:A$t:m:B$t:m:C::c"),
    ("no-parent", "", "pulumi:pulumi:Stack", "p-dev", "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev"),
]


@pytest.mark.parametrize(("parent", "type_", "name", "expected"), [c[1:] for c in URN_CASES],
                         ids=[c[0] for c in URN_CASES])
def test_engine_urns_use_the_full_parent_chain_without_the_stack(parent, type_, name, expected):
    assert engine_urn("dev", "p", parent, type_, name) == expected
