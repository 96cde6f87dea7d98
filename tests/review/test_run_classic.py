"""amlkit.review.run.classic: the classic provider's Check defaults (the Terraform bridge's auto-naming of `name`,
pulumi-azure's `SetAutonaming(24, "")` and its per-resource overrides; a resource group's `location` from
`azure:location`), through amlkit.review.run.check.checked as the runner's monitor applies them."""

from __future__ import annotations

from typing import Any

import pytest
from pulumi.runtime import rpc

from amlkit.review.run.check import checked
from amlkit.review.run.classic import OVERRIDES, CheckError, auto_name, suffix

U = rpc.UNKNOWN
ML = "azure:machinelearning/"


def urn(type_token: str, name: str) -> str:
    return f"urn:pulumi:dev::p::{type_token}::{name}"


def no_group(group: str) -> Any:
    return U


@pytest.mark.parametrize(("type_token", "logical", "expected"), [
    # the default (SetAutonaming(24, "")): the logical name as written plus 7 hex characters, no separator
    (ML + "workspace:Workspace", "mlw", "mlw" + suffix(urn(ML + "workspace:Workspace", "mlw"), 7)),
    (ML + "computeCluster:ComputeCluster", "Cpu-Cluster", "Cpu-Cluster"
     + suffix(urn(ML + "computeCluster:ComputeCluster", "Cpu-Cluster"), 7)),
    (ML + "computeInstance:ComputeInstance", "ci", "ci" + suffix(urn(ML + "computeInstance:ComputeInstance", "ci"), 7)),
    (ML + "inferenceCluster:InferenceCluster", "aks", "aks"
     + suffix(urn(ML + "inferenceCluster:InferenceCluster", "aks"), 7)),
    ("azure:management/lock:Lock", "lock", "lock" + suffix(urn("azure:management/lock:Lock", "lock"), 7)),
    ("azure:keyvault/keyVault:KeyVault", "kv", "kv" + suffix(urn("azure:keyvault/keyVault:KeyVault", "kv"), 7)),
    # overrides: 8 hex characters and a transform
    ("azure:core/resourceGroup:ResourceGroup", "RG-ML", "rg-ml"
     + suffix(urn("azure:core/resourceGroup:ResourceGroup", "RG-ML"), 8)),
    ("azure:storage/account:Account", "St-ML_data", "stmldatad5ae69d3"),  # lower-case letters and digits only
    ("azure:containerservice/registry:Registry", "ACR", "acr"
     + suffix(urn("azure:containerservice/registry:Registry", "ACR"), 8)),
], ids=["workspace", "compute-cluster", "compute-instance", "inference-cluster", "lock", "key-vault",
        "resource-group", "storage-account", "registry"])
def test_auto_name(type_token, logical, expected):
    assert auto_name(type_token, urn(type_token, logical)) == expected


def test_the_suffix_is_pinned():
    assert auto_name(ML + "workspace:Workspace", urn(ML + "workspace:Workspace", "mlw")) == "mlwd216023"


@pytest.mark.parametrize(("type_token", "logical", "message"), [
    (ML + "computeCluster:ComputeCluster", "cluster-for-training",  # 20 + 7 > 24
     "could not make instance of 'azure:machinelearning/computeCluster:ComputeCluster': name 'cluster-for-training' "
     "plus 7 random chars is longer than maximum length 24"),
    ("azure:storage/account:Account", "St-Platform-Artifacts",  # 'stplatformartifacts': 19 + 8 > 24
     "could not make instance of 'azure:storage/account:Account': name 'stplatformartifacts' plus 8 random chars "
     "is longer than maximum length 24"),
])
def test_a_name_too_long_for_its_maximum_fails_check(type_token, logical, message):
    with pytest.raises(CheckError) as failed:
        auto_name(type_token, urn(type_token, logical))
    assert str(failed.value) == message


def test_a_name_at_its_maximum_is_made():
    name = auto_name(ML + "workspace:Workspace", urn(ML + "workspace:Workspace", "w" * 17))
    assert len(name) == 24 and name.startswith("w" * 17)


WS = ML + "workspace:Workspace"
RG = "azure:core/resourceGroup:ResourceGroup"
ASSIGNMENT = "azure:authorization/assignment:Assignment"


@pytest.mark.parametrize(("type_token", "inputs", "olds", "provider", "expected"), [
    # an omitted name is auto-named; a given or unknown one is kept
    (WS, {"resourceGroupName": U}, None, None,
     {"name": "mlwd216023", "resourceGroupName": U, "location": U}),
    (WS, {"name": "mlw-prod", "resourceGroupName": U}, None, None,
     {"name": "mlw-prod", "resourceGroupName": U, "location": U}),
    (WS, {"name": U, "resourceGroupName": U}, None, None, {"name": U, "resourceGroupName": U, "location": U}),
    # the old inputs' name is reused (no `__defaults` list: every old value is usable; listed: only defaults)
    (WS, {"resourceGroupName": U}, {"name": "mlw1234567"}, None,
     {"name": "mlw1234567", "resourceGroupName": U, "location": U}),
    (WS, {"resourceGroupName": U}, {"name": "mlw1234567", "__defaults": ["name"]}, None,
     {"name": "mlw1234567", "resourceGroupName": U, "location": U}),
    (WS, {"resourceGroupName": U}, {"name": "given", "__defaults": []}, None,
     {"name": "mlwd216023", "resourceGroupName": U, "location": U}),
    # a role assignment's name is azurerm's own GUID: not auto-named
    (ASSIGNMENT, {"scope": "/s", "roleDefinitionName": "Reader", "principalId": "p"}, None, None,
     {"scope": "/s", "roleDefinitionName": "Reader", "principalId": "p"}),
    # a resource group's location: the old value, else the provider's `location` config (azure:location); with
    # neither, Check fails (tests/review/test_run_check.py)
    (RG, {"name": "rg"}, None, "swedencentral", {"name": "rg", "location": "swedencentral"}),
    (RG, {"name": "rg"}, {"location": "westeurope"}, "swedencentral", {"name": "rg", "location": "westeurope"}),
    (RG, {"name": "rg", "location": "eastus"}, None, "swedencentral", {"name": "rg", "location": "eastus"}),
], ids=["auto-named", "given", "unknown", "old", "old-default", "old-not-a-default", "role-assignment",
        "group-config", "group-old", "group-given"])
def test_checked_classic(type_token, inputs, olds, provider, expected):
    logical = {WS: "mlw", RG: "rg", ASSIGNMENT: "ra"}[type_token]
    assert checked(type_token, urn(type_token, logical), inputs, olds, provider, no_group) == expected


@pytest.mark.slow  # imports every overridden type's SDK module
def test_every_override_names_a_classic_resource_with_a_name_input():
    from amlkit.review.run.sdk import input_names

    missing = [token for token in OVERRIDES if "name" not in input_names(token)]
    assert missing == []
