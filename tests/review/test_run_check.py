"""amlkit.review.run.check: the inputs a provider's Check returns in a preview (auto-naming and auto-location of
pulumi-azure-native `provider.go` `applyDefaults`; the classic provider's location default)."""

from __future__ import annotations

from typing import Any

import pytest
from pulumi.runtime import rpc

from amlkit.review.run.check import autoname, checked, suffix
from amlkit.review.run.sdk import api_version

U = rpc.UNKNOWN
NATIVE = "azure-native:machinelearningservices:"
RG_URN = "urn:pulumi:dev::p::azure-native:resources:ResourceGroup::rg"
WS_URN = "urn:pulumi:dev::p::azure-native:machinelearningservices:Workspace::mlw"
RA_URN = "urn:pulumi:dev::p::azure-native:authorization:RoleAssignment::ra"
VERSIONS = {  # what constraints.txt's SDK (pulumi-azure-native 3.29.0) documents: "Uses Azure REST API version ..."
    "azure-native:resources:ResourceGroup": "2024-03-01",
    NATIVE + "Workspace": "2025-12-01",
    NATIVE + "Compute": "2025-12-01",
    "azure-native:authorization:RoleAssignment": "2022-04-01",
    "azure-native:authorization:ManagementLockAtResourceGroupLevel": "2020-05-01",
    "azure-native:resources:Deployment": "2024-03-01",
}
"""Check sets an omitted `azureApiVersion` of every azure-native type to the type's API version (applyDefaults)."""


@pytest.mark.parametrize(("type_token", "expected"), [
    ("azure-native:resources:ResourceGroup", ("resourceGroupName", "random")),  # no Microsoft. namespace
    (NATIVE + "Workspace", ("workspaceName", "random")),
    (NATIVE + "Compute", ("computeName", "copy")),  # a child: workspaces/{w}/computes/{c}
    (NATIVE + "OnlineEndpoint", ("endpointName", "random")),  # endpoints produce URIs: random
    (NATIVE + "OnlineDeployment", ("deploymentName", "copy")),
    ("azure-native:network:Subnet", ("subnetName", "copy")),
    ("azure-native:authorization:RoleAssignment", ("roleAssignmentName", "uuid")),
    ("azure-native:authorization:ManagementLockByScope", ("lockName", "random")),
    ("azure-native:authorization:ManagementLockAtResourceLevel", ("lockName", "random")),
    ("azure-native:monitor:DiagnosticSetting", ("name", "random")),
    ("azure-native:machinelearningservices/v20240401:Compute", ("computeName", "copy")),  # any spelling
    ("azure-native:web:WebApp", None),  # not in the ARM tables: not auto-named offline
    ("azure:machinelearning/computeCluster:ComputeCluster", None),  # classic: not simulated
])
def test_autoname(type_token, expected):
    assert autoname(type_token) == expected


def unknown_group(group: str) -> Any:
    return U


def group_at(group: str) -> Any:
    """rg-shared exists in Azure; rg-new is a group this program creates (Azure has none yet); others unknown."""
    return {"rg-shared": "swedencentral", "rg-new": None}.get(group, U)


@pytest.mark.parametrize(("type_token", "urn", "inputs", "olds", "provider", "expected"), [
    # auto-naming: random, copy, uuid; a given or unknown name is kept; the old inputs' name wins
    ("azure-native:resources:ResourceGroup", RG_URN, {"location": "westeurope"}, None, None,
     {"location": "westeurope", "resourceGroupName": "rg" + suffix(RG_URN, 8), "__createBeforeDelete": True}),
    (NATIVE + "Compute", "urn:pulumi:dev::p::azure-native:machinelearningservices:Compute::cpu",
     {"resourceGroupName": "rg", "workspaceName": "w", "location": "westeurope"}, None, None,
     {"resourceGroupName": "rg", "workspaceName": "w", "location": "westeurope", "computeName": "cpu"}),
    ("azure-native:authorization:RoleAssignment", RA_URN, {"scope": "/s"}, None, None,
     {"scope": "/s", "roleAssignmentName": "0af367b5-5e62-a65f-7891-e9c568b0fd8c", "__createBeforeDelete": True}),
    (NATIVE + "Workspace", WS_URN, {"workspaceName": "mlw-prod", "resourceGroupName": "rg", "location": "x"},
     None, None, {"workspaceName": "mlw-prod", "resourceGroupName": "rg", "location": "x"}),
    (NATIVE + "Workspace", WS_URN, {"workspaceName": U, "resourceGroupName": "rg", "location": "x"}, None, None,
     {"workspaceName": U, "resourceGroupName": "rg", "location": "x"}),
    (NATIVE + "Workspace", WS_URN, {"resourceGroupName": "rg", "location": "x"},
     {"workspaceName": "mlw1a2b3c4d", "__createBeforeDelete": True, "location": "y"}, None,
     {"resourceGroupName": "rg", "location": "x", "workspaceName": "mlw1a2b3c4d", "__createBeforeDelete": True}),
    # auto-location: (1) the old inputs, (2) the provider's config, (3) unknown with an unknown group, (4) the group's
    (NATIVE + "Workspace", WS_URN, {"workspaceName": "w", "resourceGroupName": "rg"}, {"location": "eastus"},
     "northeurope", {"workspaceName": "w", "resourceGroupName": "rg", "location": "eastus"}),
    (NATIVE + "Workspace", WS_URN, {"workspaceName": "w", "resourceGroupName": U}, None, "northeurope",
     {"workspaceName": "w", "resourceGroupName": U, "location": "northeurope"}),
    (NATIVE + "Workspace", WS_URN, {"workspaceName": "w", "resourceGroupName": U}, None, None,
     {"workspaceName": "w", "resourceGroupName": U, "location": U}),
    (NATIVE + "Workspace", WS_URN, {"workspaceName": "w", "resourceGroupName": "rg-shared"}, None, None,
     {"workspaceName": "w", "resourceGroupName": "rg-shared", "location": "swedencentral"}),
    (NATIVE + "Workspace", WS_URN, {"workspaceName": "w", "resourceGroupName": "rg-other"}, None, None,
     {"workspaceName": "w", "resourceGroupName": "rg-other", "location": U}),
    # a group this preview creates: the ARM GET finds none and `location` stays out (not required for a workspace)
    (NATIVE + "Workspace", WS_URN, {"workspaceName": "w", "resourceGroupName": "rg-new"}, None, None,
     {"workspaceName": "w", "resourceGroupName": "rg-new"}),
    (NATIVE + "Workspace", WS_URN, {"workspaceName": "w", "resourceGroupName": "rg", "location": U}, None, "x",
     {"workspaceName": "w", "resourceGroupName": "rg", "location": U}),  # an unknown location is a value
    # no location in the type's body, or AutoLocationDisabled: none added
    ("azure-native:authorization:ManagementLockAtResourceGroupLevel",
     "urn:pulumi:dev::p::azure-native:authorization:ManagementLockAtResourceGroupLevel::lock",
     {"resourceGroupName": "rg", "lockName": "l", "level": "CanNotDelete"}, None, "x",
     {"resourceGroupName": "rg", "lockName": "l", "level": "CanNotDelete"}),
    ("azure-native:resources:Deployment", "urn:pulumi:dev::p::azure-native:resources:Deployment::d",
     {"resourceGroupName": "rg", "deploymentName": "d"}, None, "x", {"resourceGroupName": "rg", "deploymentName": "d"}),
    # classic: the group's location (no provider config step), nothing without a resourceGroupName input
    ("azure:machinelearning/workspace:Workspace", "urn:pulumi:dev::p::azure:machinelearning/workspace:Workspace::w",
     {"name": "w", "resourceGroupName": U}, None, "ignored", {"name": "w", "resourceGroupName": U, "location": U}),
    ("azure:machinelearning/workspace:Workspace", "urn:pulumi:dev::p::azure:machinelearning/workspace:Workspace::w",
     {"name": "w", "resourceGroupName": "rg-shared"}, None, None,
     {"name": "w", "resourceGroupName": "rg-shared", "location": "swedencentral"}),
    ("azure:machinelearning/computeCluster:ComputeCluster",
     "urn:pulumi:dev::p::azure:machinelearning/computeCluster:ComputeCluster::c", {"name": "c"}, None, "x",
     {"name": "c"}),
    # classic: a group Azure does not have yet gives unknown (the bridge's refresh finds no state), not none
    ("azure:machinelearning/workspace:Workspace", "urn:pulumi:dev::p::azure:machinelearning/workspace:Workspace::w",
     {"name": "w", "resourceGroupName": "rg-new"}, None, None,
     {"name": "w", "resourceGroupName": "rg-new", "location": U}),
], ids=["random-name", "copy-name", "uuid-name", "given-name", "unknown-name", "old-name", "old-location",
        "provider-location", "unknown-group", "group-location", "group-unknown-offline", "group-created-here",
        "unknown-location",
        "no-location-in-body", "auto-location-disabled", "classic-unknown-group", "classic-group", "classic-no-group",
        "classic-group-created-here"])
def test_checked(type_token, urn, inputs, olds, provider, expected):
    if type_token.startswith("azure-native:"):
        expected = {**expected, "azureApiVersion": VERSIONS[type_token]}
    assert checked(type_token, urn, inputs, olds, provider, group_at) == expected


@pytest.mark.parametrize(("type_token", "expected"), [
    *VERSIONS.items(),
    ("azure-native:machinelearningservices/v20240401preview:Workspace", "2024-04-01-preview"),  # an explicit version
    ("azure-native:machinelearningservices/v20240401:Compute", "2024-04-01"),
    ("azure-native:storage:Blob", None),  # no API version in the provider's metadata (provider.go's own example)
    ("azure-native:nosuchmodule:Thing", None),
    ("azure:machinelearning/workspace:Workspace", None),  # classic: no such input
])
def test_api_version(type_token, expected):
    assert api_version(type_token) == expected


def test_a_given_api_version_is_kept_and_an_old_one_is_not_reused():
    given = {"workspaceName": "w", "location": "x", "azureApiVersion": "2024-04-01"}
    kept = checked(NATIVE + "Workspace", WS_URN, given, None, None, group_at)
    assert kept["azureApiVersion"] == "2024-04-01"
    # Check fills the type's current version whatever the old inputs held: a provider upgrade is an update
    upgraded = checked(NATIVE + "Workspace", WS_URN, {"workspaceName": "w", "location": "x"},
                       {"azureApiVersion": "2023-04-01"}, None, group_at)
    assert upgraded["azureApiVersion"] == "2025-12-01"


def test_the_suffix_derives_from_the_urn_only():
    assert suffix(RG_URN, 8) == suffix(RG_URN, 8) != suffix(WS_URN, 8)
    assert len(suffix(RG_URN, 8)) == 8 and int(suffix(RG_URN, 8), 16) >= 0
    assert checked("azure-native:resources:ResourceGroup", RG_URN, {}, None, "x", unknown_group) == checked(
        "azure-native:resources:ResourceGroup", RG_URN, {}, None, "x", unknown_group)


HINT = "Either set it explicitly or configure it with 'pulumi config set {}:location <value>'"


@pytest.mark.parametrize(("type_token", "inputs", "olds", "message"), [
    # a resource group's own Check reads a group that does not exist yet: no location, and it requires one
    ("azure-native:resources:ResourceGroup", {}, None,
     "azure-native:resources:ResourceGroup resource 'rg' has a problem: missing required property 'location'. "
     + HINT.format("azure-native") + "."),
    ("azure-native:resources:ResourceGroup", {"resourceGroupName": "rg-shared"}, None,
     "azure-native:resources:ResourceGroup resource 'rg' has a problem: missing required property 'location'. "
     + HINT.format("azure-native") + "."),
    ("azure:core/resourceGroup:ResourceGroup", {"name": "rg-ml"}, None,
     "azure:core/resourceGroup:ResourceGroup resource 'rg' has a problem: Missing required property 'location'. "
     + HINT.format("azure")),
], ids=["native-group", "native-group-named", "classic-group"])
def test_a_required_location_no_default_gives_fails_check(type_token, inputs, olds, message):
    from amlkit.review.run.classic import CheckError

    with pytest.raises(CheckError) as failed:
        checked(type_token, f"urn:pulumi:dev::p::{type_token}::rg", inputs, olds, None, group_at)
    assert str(failed.value) == message


@pytest.mark.parametrize(("type_token", "inputs", "olds", "location"), [
    ("azure-native:resources:ResourceGroup", {}, {"location": "westeurope"}, "westeurope"),  # the old location
    ("azure-native:resources:ResourceGroup", {"location": U}, None, U),  # an unknown location is a value
    (NATIVE + "Workspace", {"workspaceName": "w", "resourceGroupName": "rg-new"}, None, None),  # not required
], ids=["old-location", "unknown-location", "workspace"])
def test_no_failure_where_a_location_is_given_or_not_required(type_token, inputs, olds, location):
    found = checked(type_token, f"urn:pulumi:dev::p::{type_token}::x", inputs, olds, None, group_at)
    assert found.get("location") == location
