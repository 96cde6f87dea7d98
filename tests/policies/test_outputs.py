"""amlkit.policies.outputs: stack rules read AnalyzeStack's outputs; azure-native path inputs come from the `id`."""

import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError, unknown_checking_proxy

from amlkit.policies import outputs
from amlkit.policies.framework import StackResource
from amlkit.policies.links import Stack
from amlkit.policies.outputs import path_inputs, stack_props
from amlkit.policies.rules.aml_no_resource_group_lock import RULE as GROUP_LOCK
from tests.policies.helpers import cluster_props

U = UNKNOWN_STRING_VALUE
SUB = "/subscriptions/5b2c6d40-8f9e-4a1b-9c3d-2e7f0a1b4c5d"
WS_ID = f"{SUB}/resourceGroups/rg-ml/providers/Microsoft.MachineLearningServices/workspaces/mlw"
NATIVE = "azure-native:machinelearningservices:"
LOCK_RG = "azure-native:authorization:ManagementLockAtResourceGroupLevel"


def test_the_sentinel_is_the_engines():
    assert outputs.UNKNOWN == UNKNOWN_STRING_VALUE


@pytest.mark.parametrize(("type_", "given", "expected"), [
    (f"{NATIVE}Compute", {"id": f"{WS_ID}/computes/gpu", "name": "gpu"},
     {"resourceGroupName": "rg-ml", "workspaceName": "mlw", "computeName": "gpu"}),
    (f"{NATIVE}Compute", {"id": U, "name": U},
     {"resourceGroupName": U, "workspaceName": U, "computeName": U}),
    (f"{NATIVE}Compute", {"id": U, "name": "gpu"},  # an update's preview keeps the old name, not the id
     {"resourceGroupName": U, "workspaceName": U, "computeName": "gpu"}),
    (f"{NATIVE}Compute", {}, {"resourceGroupName": U, "workspaceName": U, "computeName": U}),
    ("azure-native:machinelearningservices/v20240401:Workspace", {"id": WS_ID},
     {"resourceGroupName": "rg-ml", "workspaceName": "mlw"}),
    ("azure-native:resources:ResourceGroup", {"id": f"{SUB}/resourceGroups/rg-ml", "name": "rg-ml"},
     {"resourceGroupName": "rg-ml"}),
    (LOCK_RG, {"id": f"{SUB}/resourceGroups/rg-ml/providers/Microsoft.Authorization/locks/no-delete"},
     {"resourceGroupName": "rg-ml", "lockName": "no-delete"}),
    ("azure-native:authorization:ManagementLockAtResourceLevel",
     {"id": f"{SUB}/resourceGroups/rg-ml/providers/Microsoft.Storage/storageAccounts/st/providers/"
            "Microsoft.Authorization/locks/l"},
     {"resourceGroupName": "rg-ml", "resourceName": "st", "lockName": "l"}),
    ("azure-native:authorization:ManagementLockByScope", {"id": f"{WS_ID}/providers/Microsoft.Authorization/locks/l"},
     {"scope": WS_ID}),
    ("azure-native:authorization:ManagementLockByScope", {"id": U}, {"scope": U}),
    ("azure-native:monitor:DiagnosticSetting", {"id": f"{WS_ID}/providers/Microsoft.Insights/diagnosticSettings/d"},
     {"resourceUri": WS_ID}),
    (f"{NATIVE}OnlineDeployment", {"id": f"{WS_ID}/onlineEndpoints/ep/deployments/blue"},
     {"resourceGroupName": "rg-ml", "workspaceName": "mlw", "endpointName": "ep", "deploymentName": "blue"}),
    ("azure-native:storage:BlobContainer", {"id": U}, {}),  # no stack view reads its path inputs
    ("azure:machinelearning/computeCluster:ComputeCluster", {"id": U, "machineLearningWorkspaceId": WS_ID}, {}),
], ids=["compute-deployed", "compute-created", "compute-updated", "no-id", "explicit-version", "group", "group-lock",
        "resource-lock", "scope-lock", "scope-lock-created", "diagnostic-setting", "online-deployment", "unread-type",
        "classic-keeps-its-inputs"])
def test_path_inputs(type_, given, expected):
    assert path_inputs(type_, given) == expected


def test_an_unknown_path_input_raises_as_pulumi_policy_does_and_the_rest_reads_through():
    props = stack_props(f"{NATIVE}Compute", unknown_checking_proxy({"id": U, "name": U, "location": "westeurope"}))
    with pytest.raises(UnknownValueError) as raised:
        props.get("workspaceName")
    assert raised.value.message == "string value at .workspaceName can't be known during preview"
    assert (props["location"], "workspaceName" in props, "computeName" in props) == ("westeurope", True, True)
    with pytest.raises(UnknownValueError) as raised:
        props.get("name")
    assert raised.value.message == "string value at .name can't be known during preview"


def res(type_: str, name: str, props: dict, **depends: str) -> StackResource:
    return StackResource(type_, name, f"urn:pulumi:s::p::{type_}::{name}", stack_props(type_, unknown_checking_proxy(
        props)), None, {key: (urn,) for key, urn in depends.items()})


def test_a_compute_being_created_links_to_its_workspace_through_the_graph():
    """Outputs carry no workspaceName: the compute's id is unknown, its workspaceName dependency still links."""
    workspace = res(f"{NATIVE}Workspace", "mlw", {"id": U, "name": U, "location": "westeurope"})
    compute = res(f"{NATIVE}Compute", "gpu", {"id": U, "name": U, "properties": cluster_props()["properties"]},
                  workspaceName=workspace.urn)
    assert Stack([workspace, compute]).workspace_of(compute) is workspace


def test_a_deployed_compute_links_to_its_workspace_by_its_id():
    workspace = res(f"{NATIVE}Workspace", "mlw", {"id": WS_ID, "name": "mlw"})
    compute = res(f"{NATIVE}Compute", "gpu", {"id": f"{WS_ID}/computes/gpu", "name": "gpu"})
    assert Stack([workspace, compute]).workspace_of(compute) is workspace


# --- a rule on outputs: a lock on the group of a workspace of another stack ------------------------------------

CREATED = {"id": U, "name": U, "properties": cluster_props()["properties"], "location": "westeurope"}
PLATFORM_COMPUTE = f"{SUB}/resourceGroups/rg-shared-ml/providers/Microsoft.MachineLearningServices/workspaces/" \
                   "mlw-platform/computes/gpu"


@pytest.mark.parametrize(("compute", "lock", "expected"), [
    ({**CREATED}, {"id": U, "name": U, "level": "CanNotDelete"},
     [(True, "Management lock 'lock' must not cover the resource group of a workspace or of a compute's subnet (a "
             "lock there blocks cluster scaling); cannot tell: preview cannot tell whether it locks resource group "
             "<unknown> or <unknown>, which holds workspace '<unknown>' of compute 'gpu'.")]),
    ({**CREATED, "id": PLATFORM_COMPUTE, "name": "gpu"},
     {"id": f"{SUB}/resourceGroups/rg-shared-ml/providers/Microsoft.Authorization/locks/lock", "name": "lock",
      "level": "CanNotDelete"},
     [(False, "Management lock 'lock' must not cover resource group 'rg-shared-ml', which holds workspace "
              "'mlw-platform' of compute 'gpu' (a lock there blocks cluster scaling); lock individual resources "
              "instead; found a lock at resource group scope.")]),
    ({**CREATED, "id": PLATFORM_COMPUTE, "name": "gpu"},
     {"id": f"{SUB}/resourceGroups/rg-other/providers/Microsoft.Authorization/locks/lock", "name": "lock",
      "level": "CanNotDelete"}, []),
], ids=["both-created-unknown", "both-deployed-finding", "deployed-other-group-pass"])
def test_a_literal_workspace_lock_on_native_outputs(compute, lock, expected):
    """azure-native outputs have no resourceGroupName or workspaceName: a first preview cannot place a compute of a
    workspace named by literal names nor a lock on a literal group (unknown, never a pass); their ids can."""
    stack = [res(f"{NATIVE}Compute", "gpu", compute), res(LOCK_RG, "lock", lock)]
    assert [(f.unknown, f.message) for f in GROUP_LOCK.evaluate_stack(stack)] == expected
