"""amlkit.review.run.bridge: the classic provider's omitted arguments with a documented schema default are planned as
that default in a preview (the Terraform bridge's proposed state), the others stay unknown."""

from __future__ import annotations

import pulumi_azure.machinelearning as ml
import pytest
from pulumi_azure import management

from amlkit.review.run.bridge import planned_defaults
from amlkit.review.run.sdk import preview_outputs
from amlkit.review.secrets import UNKNOWN


@pytest.mark.parametrize(("cls", "expected"), [
    (ml.ComputeCluster, {"localAuthEnabled": True, "nodePublicIpEnabled": True, "sshPublicAccessEnabled": False}),
    (ml.ComputeInstance, {"localAuthEnabled": True, "nodePublicIpEnabled": True}),
    (ml.Workspace, {"kind": "Default", "publicNetworkAccessEnabled": True, "skuName": "Basic",
                    "storageAccountAccessType": "AccessKey", "v1LegacyModeEnabled": False}),
    (management.Lock, {}),
], ids=["cluster", "instance", "workspace", "lock-none-documented"])
def test_planned_defaults(cls, expected):
    assert planned_defaults(cls) == expected


def test_a_created_classic_cluster_plans_its_defaults_and_leaves_the_rest_unknown():
    outputs = preview_outputs("azure:machinelearning/computeCluster:ComputeCluster", {
        "name": "gpu", "vmSize": "Standard_D4ds_v5", "nodePublicIpEnabled": False})
    assert outputs is not None
    assert (outputs["nodePublicIpEnabled"], outputs["localAuthEnabled"], outputs["sshPublicAccessEnabled"]) == (
        False, True, False)  # given wins; omitted: the schema default
    assert (outputs["name"], outputs["subnetResourceId"], outputs["identity"]) == ("gpu", UNKNOWN, UNKNOWN)


def test_azure_native_plans_no_defaults():
    outputs = preview_outputs("azure-native:machinelearningservices:Workspace", {"workspaceName": "w"})
    assert outputs is not None and (outputs["publicNetworkAccess"], outputs["kind"]) == (UNKNOWN, UNKNOWN)
