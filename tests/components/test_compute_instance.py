"""ComputeInstance component: exact compute inputs, options, schedules, assigned user, validation."""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

import pytest

from amlkit.components import ComputeInstance, ComputeInstanceArgs
from amlkit.errors import ConfigError
from tests.components.harness import Recorded, principal_of, run

COMPUTE = "azure-native:machinelearningservices:Compute"
SUBNET = "/subscriptions/0000/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/aml"
UAI = "/subscriptions/0000/resourceGroups/rg-id/providers/Microsoft.ManagedIdentity/userAssignedIdentities/uai"
USER = "33333333-3333-3333-3333-333333333333"
TENANT = "11111111-1111-1111-1111-111111111111"
# derived: a hash of project/stack/component name, since instance names are unique per region
CI_NAME = "ci-alice-" + hashlib.sha256(b"amlkit/test/alice").hexdigest()[:6]

REPLACE_PATHS = [
    "location",
    "properties.disableLocalAuth",
    "properties.properties.vmSize",
    "properties.properties.subnet",
    "properties.properties.enableNodePublicIp",
    "properties.properties.sshSettings",
    "properties.properties.personalComputeInstanceSettings",
]


def base(**extra: Any) -> ComputeInstanceArgs:
    args = {"resource_group_name": "rg-ml", "workspace_name": "mlw", "vm_size": "Standard_DS3_v2",
            "subnet_id": SUBNET, **extra}
    return args  # type: ignore[return-value]


def build(name: str = "alice", **extra: Any) -> Recorded:
    def program() -> dict[str, Any]:
        instance = ComputeInstance(name, base(**extra))
        return {"compute_id": instance.compute_id, "compute_name": instance.compute_name,
                "principal_id": instance.principal_id}

    return run(program)


def inner(rec: Recorded) -> dict[str, Any]:
    return rec.get(COMPUTE, "alice-compute").inputs["properties"]["properties"]


def test_default_instance_inputs_are_secure() -> None:
    assert build().get(COMPUTE, "alice-compute").inputs == {
        "resourceGroupName": "rg-ml",
        "workspaceName": "mlw",
        "computeName": CI_NAME,
        "tags": {},
        "identity": {"type": "SystemAssigned"},
        "properties": {
            "computeType": "ComputeInstance",
            "disableLocalAuth": True,
            "properties": {
                "vmSize": "Standard_DS3_v2",
                "idleTimeBeforeShutdown": "PT60M",
                "subnet": {"id": SUBNET},
                "enableNodePublicIp": False,
                "sshSettings": {"sshPublicAccess": "Disabled"},
                "applicationSharingPolicy": "Personal",
                # SDK defaults, sent explicitly by pulumi-azure-native
                "computeInstanceAuthorizationType": "personal",
                "enableSSO": True,
            },
        },
    }


def test_options_replace_what_azure_cannot_update_and_delete_first() -> None:
    compute = build().get(COMPUTE, "alice-compute")
    assert (compute.parent, compute.replace_on_changes, compute.delete_before_replace) == (
        "alice", REPLACE_PATHS, True)
    assert not [p for p in compute.replace_on_changes if "idleTime" in p or "schedules" in p]


def test_outputs_are_registered_exactly() -> None:
    rec = build()
    assert rec.outputs["compute_name"] == CI_NAME
    assert rec.outputs["compute_id"].endswith(f"/workspaces/mlw/computes/{CI_NAME}")
    assert rec.outputs["principal_id"] == principal_of("alice-compute")
    assert rec.component_outputs["alice"] == rec.outputs


def test_idle_shutdown_is_iso_minutes() -> None:
    assert inner(build(idle_minutes_before_shutdown=15))["idleTimeBeforeShutdown"] == "PT15M"


def test_personal_instance_for_an_assigned_user() -> None:
    rec = build(assigned_user_object_id=USER, assigned_user_tenant_id=TENANT)
    assert inner(rec)["personalComputeInstanceSettings"] == {
        "assignedUser": {"objectId": USER, "tenantId": TENANT}}


def test_cron_and_recurrence_schedules() -> None:
    rec = build(schedules=[
        {"action": "Stop", "cron": {"expression": "0 19 * * 1-5", "time_zone": "W. Europe Standard Time"}},
        {"action": "Start", "recurrence": {"frequency": "Week", "interval": 1, "hours": [7], "minutes": [30],
                                           "week_days": ["Monday", "Friday"]}, "enabled": False},
    ])
    assert inner(rec)["schedules"] == {"computeStartStop": [
        {"action": "Stop", "triggerType": "Cron", "status": "Enabled",
         "cron": {"expression": "0 19 * * 1-5", "timeZone": "W. Europe Standard Time"}},
        {"action": "Start", "triggerType": "Recurrence", "status": "Disabled",
         "recurrence": {"frequency": "Week", "interval": 1.0, "timeZone": "UTC",
                        "schedule": {"hours": [7.0], "minutes": [30.0], "weekDays": ["Monday", "Friday"]}}},
    ]}


def test_ssh_can_be_opened_explicitly_with_a_key_and_local_auth() -> None:
    rec = build(ssh_public_access="Enabled", admin_ssh_public_key="ssh-rsa AAAA", disable_local_auth=False)
    assert inner(rec)["sshSettings"] == {"sshPublicAccess": "Enabled", "adminPublicKey": "ssh-rsa AAAA"}


NODE_IP_CASES = [
    ({"subnet_id": SUBNET}, False),
    ({"subnet_id": None, "workspace_managed_network": True}, False),
    ({"subnet_id": None, "enable_node_public_ip": True}, True),
]


@pytest.mark.parametrize(("extra", "expected"), NODE_IP_CASES, ids=["subnet", "managed-network", "explicit"])
def test_node_public_ip(extra: dict[str, Any], expected: bool) -> None:
    assert inner(build(**extra))["enableNodePublicIp"] is expected


IDENTITY_CASES = [
    ({}, {"type": "SystemAssigned"}),
    ({"user_assigned_identity_ids": [UAI]}, {"type": "UserAssigned", "userAssignedIdentities": [UAI]}),
    ({"system_assigned_identity": False}, None),
]


@pytest.mark.parametrize(("extra", "identity"), IDENTITY_CASES, ids=["system", "user", "none"])
def test_identity_is_system_xor_user(extra: dict[str, Any], identity: Any) -> None:
    assert build(**extra).get(COMPUTE, "alice-compute").inputs.get("identity") == identity


def test_two_instances_never_collide() -> None:
    def program() -> None:
        for name in ("alice", "bob"):
            ComputeInstance(name, base())

    rec = run(program)
    names = [r.outputs["name"] for r in rec.of_type(COMPUTE)]
    assert len(names) == len(set(names)) == 2
    assert len({(r.type, r.name) for r in rec.registrations}) == 4


def test_name_can_be_overridden() -> None:
    assert build(compute_name="ci-alice").outputs["compute_name"] == "ci-alice"


INVALID = [
    ({"idle_minutes_before_shutdown": 10}, "idle_minutes_before_shutdown: must be a whole number of minutes from 15"),
    ({"idle_minutes_before_shutdown": 4321}, "idle_minutes_before_shutdown: must be a whole number of minutes"),
    ({"assigned_user_object_id": USER}, "assigned_user_tenant_id: assigned_user_object_id and"),
    ({"ssh_public_access": "Open"}, "ssh_public_access: must be one of Enabled, Disabled"),
    ({"ssh_public_access": "Enabled", "disable_local_auth": False},
     "admin_ssh_public_key: is required when ssh_public_access is Enabled"),
    ({"admin_ssh_public_key": "ssh-rsa AAAA"}, "admin_ssh_public_key: needs ssh_public_access Enabled"),
    ({"ssh_public_access": "Enabled", "admin_ssh_public_key": "ssh-rsa AAAA"},
     "disable_local_auth: must be False to enable SSH"),
    ({"subnet_id": None}, "enable_node_public_ip: must be set when there is no subnet_id"),
    ({"user_assigned_identity_ids": [UAI], "system_assigned_identity": True}, "system_assigned_identity: "),
    ({"schedules": [{"action": "Stop", "cron": {"expression": "0 19 * * *"}}] * 5},
     "schedules: at most 4 schedules"),
    ({"schedules": [{"action": "Pause", "cron": {"expression": "0 19 * * *"}}]},
     "schedules[0].action: must be one of Start, Stop"),
    ({"schedules": [{"action": "Stop"}]}, "schedules[0]: needs exactly one of cron and recurrence"),
    ({"schedules": [{"action": "Stop", "cron": {"expression": ""}}]}, "schedules[0].cron.expression: is required"),
    ({"schedules": [{"action": "Stop", "recurrence": {"frequency": "Daily", "interval": 1}}]},
     "schedules[0].recurrence.frequency: must be one of Minute, Hour, Day, Week, Month"),
    ({"schedules": [{"action": "Stop", "recurrence": {"frequency": "Day", "interval": 0}}]},
     "schedules[0].recurrence.interval: must be a whole number >= 1"),
    ({"schedules": [{"action": "Stop", "recurrence": {"frequency": "Day", "interval": 1, "hours": [24]}}]},
     "schedules[0].recurrence.hours: must be whole numbers from 0 to 23"),
    ({"schedules": [{"action": "Stop", "recurrence": {"frequency": "Week", "interval": 1, "week_days": ["Mon"]}}]},
     "schedules[0].recurrence.week_days: must be among Monday"),
    ({"compute_name": "ci_bad"}, "compute_name: invalid Azure name 'ci_bad'"),
]


@pytest.mark.parametrize(("extra", "message"), INVALID, ids=[f"{m.split(':')[0]}-{i}" for i, (_, m) in
                                                             enumerate(INVALID)])
def test_bad_input_is_a_config_error_naming_the_field(extra: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        build(**extra)
    assert str(caught.value).startswith(message)


# --- Contributor on the workspace: Azure ML stops an idle instance with an identity only with it ------------

ROLE = "azure-native:authorization:RoleAssignment"
WORKSPACE_ID = "/subscriptions/0000/resourceGroups/rg-ml/providers/Microsoft.MachineLearningServices/workspaces/mlw"
CONTRIBUTOR_GUID = "b24988ac-6180-42a0-ab88-20f7382dd24c"


def test_workspace_id_grants_the_system_identity_contributor_on_the_workspace() -> None:
    rec = build(workspace_id=WORKSPACE_ID)
    [role] = rec.of_type(ROLE)
    assert role.name == "alice-workspace-contributor" and role.parent == "alice"
    assert role.inputs == {
        "principalId": principal_of("alice-compute"),
        "principalType": "ServicePrincipal",
        "scope": WORKSPACE_ID,
        "roleDefinitionId": f"/subscriptions/0000/providers/Microsoft.Authorization/roleDefinitions/{CONTRIBUTOR_GUID}",
        "roleAssignmentName": str(uuid.uuid5(uuid.NAMESPACE_URL, f"amlkit/alice/{WORKSPACE_ID}/{CONTRIBUTOR_GUID}")),
    }


@pytest.mark.parametrize("extra", [
    {},
    {"workspace_id": WORKSPACE_ID, "user_assigned_identity_ids": [UAI]},
    {"workspace_id": WORKSPACE_ID, "system_assigned_identity": False},
], ids=["no-workspace-id", "user-assigned-identity", "no-identity"])
def test_no_contributor_grant_without_workspace_id_or_system_identity(extra: dict[str, Any]) -> None:
    assert build(**extra).of_type(ROLE) == []
