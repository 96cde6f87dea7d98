"""amlkit.review.pack.unknowns: an unknown finding names the resource, the property and where the value
comes from (issue 29, item 5)."""

from __future__ import annotations

import pytest

from amlkit.review.pack.unknowns import noun, what_is_unknown
from amlkit.review.secrets import UNKNOWN

WS = "urn:pulumi:dev::p::azure-native:machinelearningservices:Workspace::mlw"
RG = "urn:pulumi:dev::p::azure-native:resources:ResourceGroup::rg"
CI = {"urn": "urn:pulumi:dev::p::azure-native:machinelearningservices:Compute::ci-x",
      "type": "azure-native:machinelearningservices:Compute", "name": "ci-x",
      "inputs": {"workspaceName": UNKNOWN, "properties": {"computeType": "ComputeInstance"}},
      "outputs": {"id": UNKNOWN, "name": UNKNOWN, "properties": {"computeType": "ComputeInstance"}},
      "propertyDependencies": {"workspaceName": [WS]}}
WORKSPACE = {"urn": WS, "type": "azure-native:machinelearningservices:Workspace", "name": "mlw",
             "inputs": {"resourceGroupName": "[unknown]", "kind": "Hub"}, "outputs": {"id": UNKNOWN, "kind": "Hub"},
             "propertyDependencies": {}}
GROUP = {"urn": RG, "type": "azure-native:resources:ResourceGroup", "name": "rg", "inputs": {},
         "outputs": {"id": "/subscriptions/s/resourceGroups/rg"}}
DEPLOYED = {**CI, "name": "ci-y", "urn": CI["urn"] + "y", "inputs": {"workspaceName": "mlw"},
            "outputs": {"id": "/subscriptions/s/resourceGroups/rg/providers/Microsoft.MachineLearningServices/"
                              "workspaces/mlw/computes/ci-y", "kind": UNKNOWN}}
RECORDS = [CI, WORKSPACE, GROUP]
MESSAGE = ("can't run policy 'p' from policy pack 'pack@v1' during preview: string value at .{path} can't be known "
           "during preview")


@pytest.mark.parametrize(("record", "expected"), [
    (CI, "compute instance"),
    ({**CI, "inputs": {"properties": {"computeType": "AmlCompute"}}}, "compute cluster"),
    ({**CI, "inputs": {}}, "compute"),
    (WORKSPACE, "hub"),
    ({**WORKSPACE, "inputs": {}}, "workspace"),
    (GROUP, "resource group"),
    ({"type": "azure:machinelearning/computeInstance:ComputeInstance", "inputs": {}}, "compute instance"),
    ({"type": "azure-native:authorization:ManagementLockByScope"}, "management lock by scope"),
], ids=["instance", "cluster", "compute", "hub", "workspace", "group", "classic-instance", "lock"])
def test_noun(record, expected):
    assert noun(record) == expected


@pytest.mark.parametrize(("path", "record", "expected"), [
    ("workspaceName", CI, "compute instance 'ci-x': workspaceName can't be known during preview (from hub 'mlw')"),
    # a stack policy (AnalyzeStack gets outputs): every resource unknown at that path of its outputs, a path input
    # azure-native's outputs lack (resourceGroupName) being unknown when the resource's `id` is
    ("resourceGroupName", None, "hub 'mlw': resourceGroupName can't be known during preview"),
    ("kind", None, "compute 'ci-y': kind can't be known during preview"),
    ("properties.computeType", None, None),  # known everywhere: nothing to name
], ids=["resource-policy", "stack-policy", "stack-policy-output", "known"])
def test_what_is_unknown(path, record, expected):
    assert what_is_unknown(MESSAGE.format(path=path), record, [*RECORDS, DEPLOYED]) == expected


def test_a_message_without_an_unknown_path_names_nothing():
    assert what_is_unknown("Workspace 'mlw' must be private", CI, RECORDS) is None


def test_a_stack_policy_names_three_resources_and_counts_the_rest():
    records = [{**CI, "name": f"ci-{i}", "urn": f"{CI['urn']}{i}", "propertyDependencies": {}} for i in range(5)]
    assert what_is_unknown(MESSAGE.format(path="workspaceName"), None, records) == "; ".join(
        [f"compute instance 'ci-{i}': workspaceName can't be known during preview" for i in range(3)] + ["and 2 more"])
