"""ComputeInstance component: exact compute inputs, options, schedules, assigned user, validation."""

from __future__ import annotations

from typing import Any

import pytest

from amlkit import azure_facts as facts
from amlkit.components import ComputeInstance, ComputeInstanceArgs, Workspace
from amlkit.errors import ComponentArgError
from tests.components.harness import Recorded, arm_id, principal_of, run

COMPUTE = "azure-native:machinelearningservices:Compute"
SUBNET = "/subscriptions/0000/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/aml"
UAI = "/subscriptions/0000/resourceGroups/rg-id/providers/Microsoft.ManagedIdentity/userAssignedIdentities/uai"
USER = "33333333-3333-3333-3333-333333333333"
TENANT = "11111111-1111-1111-1111-111111111111"
# "ci-" + the component name + "-" + sha256("amlkit/test/alice")[:6] (project/stack/component): instance
# names are unique per region
CI_NAME = "ci-alice-ff2151"

REPLACE_PATHS = list(facts.INSTANCE_REPLACE_ON_CHANGES)  # the facts themselves: tests/test_azure_facts.py


def base(**extra: Any) -> ComputeInstanceArgs:
    args = {"resource_group_name": "rg-ml", "workspace_name": "mlw", "workspace_location": "westeurope",
            "size": "Standard_DS3_v2", "network_settings": {"subnet": SUBNET}, **extra}
    return args  # type: ignore[return-value]


def build(resource: str = "alice", **extra: Any) -> Recorded:
    def program() -> dict[str, Any]:
        instance = ComputeInstance(resource, base(**extra))
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
        "location": "westeurope",
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
    assert inner(build(idle_time_before_shutdown_minutes=15))["idleTimeBeforeShutdown"] == "PT15M"


def test_personal_instance_for_an_assigned_user() -> None:
    rec = build(assigned_user={"object_id": USER, "tenant_id": TENANT})
    assert inner(rec)["personalComputeInstanceSettings"] == {
        "assignedUser": {"objectId": USER, "tenantId": TENANT}}


def test_cron_and_recurrence_schedules() -> None:
    rec = build(schedules=[
        {"action": "stop", "trigger": {"type": "cron", "expression": "0 19 * * 1-5",
                                       "time_zone": "W. Europe Standard Time"}},
        {"action": "start", "trigger": {"type": "recurrence", "frequency": "week", "interval": 1,
                                        "schedule": {"hours": [7], "minutes": [30], "week_days": ["monday", "friday"]}},
         "state": "disabled"},
    ])
    assert inner(rec)["schedules"] == {"computeStartStop": [
        {"action": "Stop", "triggerType": "Cron", "status": "Enabled",
         "cron": {"expression": "0 19 * * 1-5", "timeZone": "W. Europe Standard Time"}},
        {"action": "Start", "triggerType": "Recurrence", "status": "Disabled",
         "recurrence": {"frequency": "Week", "interval": 1.0, "timeZone": "UTC",
                        "schedule": {"hours": [7.0], "minutes": [30.0], "weekDays": ["Monday", "Friday"]}}},
    ]}


def test_ssh_can_be_opened_explicitly_with_a_key_and_local_auth() -> None:
    rec = build(ssh_public_access_enabled=True, ssh_settings={"ssh_key_value": "ssh-rsa AAAA"})
    assert inner(rec)["sshSettings"] == {"sshPublicAccess": "Enabled", "adminPublicKey": "ssh-rsa AAAA"}
    assert rec.get(COMPUTE, "alice-compute").inputs["properties"]["disableLocalAuth"] is False


NODE_IP_CASES = [
    ({}, False),
    ({"network_settings": None, "workspace_managed_network": True}, False),
    ({"network_settings": None, "enable_node_public_ip": True}, True),
]


@pytest.mark.parametrize(("extra", "expected"), NODE_IP_CASES, ids=["subnet", "managed-network", "explicit"])
def test_node_public_ip(extra: dict[str, Any], expected: bool) -> None:
    assert inner(build(**extra))["enableNodePublicIp"] is expected


IDENTITY_CASES = [
    ({}, {"type": "SystemAssigned"}),
    ({"identity": {"type": "user_assigned", "user_assigned_identities": [{"resource_id": UAI}]}},
     {"type": "UserAssigned", "userAssignedIdentities": [UAI]}),
    ({"identity": {"type": "none"}}, None),
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
    assert build(name="ci-alice").outputs["compute_name"] == "ci-alice"


CI = 'ComputeInstance "alice": '
CRON = {"type": "cron", "expression": "0 19 * * *"}
INVALID = [
    ({"vm_size": "Standard_DS3_v2"},
     CI + "vm_size: unknown argument; did you mean size? (help(ComputeInstanceArgs) lists every argument)"),
    ({"idle_time_before_shutdown_minutes": 10},
     CI + "idle_time_before_shutdown_minutes: must be a whole number of minutes from 15 to 4320, got 10"),
    ({"idle_time_before_shutdown_minutes": "60"},
     CI + "idle_time_before_shutdown_minutes: must be a whole number, got '60'"),
    ({"assigned_user": {"object_id": USER}}, CI + "assigned_user.tenant_id: is required"),
    ({"ssh_public_access_enabled": "Enabled"}, CI + "ssh_public_access_enabled: must be True or False, got 'Enabled'"),
    ({"ssh_public_access_enabled": True}, CI + "ssh_settings: is required when ssh_public_access_enabled is True"),
    ({"ssh_settings": {"ssh_key_value": "ssh-rsa AAAA"}}, CI + "ssh_settings: needs ssh_public_access_enabled True"),
    ({"ssh_public_access_enabled": True, "ssh_settings": {"ssh_key_value": "ssh-rsa AAAA"},
      "local_auth_enabled": False},
     CI + "local_auth_enabled: must be True or unset to enable SSH (SSH login is local authentication), got False"),
    ({"network_settings": None},
     CI + "enable_node_public_ip: must be set when there is no network_settings.subnet or workspace managed network "
         "(Azure's default gives every node a public IP)"),
    ({"identity": {"type": "user_assigned"}},
     CI + "identity.user_assigned_identities: is required when type is user_assigned"),
    ({"schedules": [{"action": "stop", "trigger": CRON}] * 5}, CI + "schedules: at most 4 schedules, got 5"),
    ({"schedules": [{"action": "pause", "trigger": CRON}]},
     CI + "schedules[0].action: must be one of 'start', 'stop', got 'pause'"),
    ({"schedules": [{"action": "stop"}]}, CI + "schedules[0].trigger: is required"),
    ({"schedules": [{"action": "stop", "trigger": {"type": "cron"}}]},
     CI + "schedules[0].trigger.expression: is required when type is cron"),
    ({"schedules": [{"action": "stop", "trigger": {**CRON, "interval": 1}}]},
     CI + "schedules[0].trigger.interval: is only read when type is recurrence"),
    ({"schedules": [{"action": "stop", "trigger": {"type": "recurrence", "frequency": "daily", "interval": 1}}]},
     CI + "schedules[0].trigger.frequency: must be one of 'minute', 'hour', 'day', 'week', 'month', got 'daily'"),
    ({"schedules": [{"action": "stop", "trigger": {"type": "recurrence", "frequency": "day"}}]},
     CI + "schedules[0].trigger.interval: is required when type is recurrence"),
    ({"schedules": [{"action": "stop", "trigger": {"type": "recurrence", "frequency": "day", "interval": 0}}]},
     CI + "schedules[0].trigger.interval: must be a whole number >= 1, got 0"),
    ({"schedules": [{"action": "stop", "trigger": {"type": "recurrence", "frequency": "day", "interval": 1,
                                                   "schedule": {"hours": [24]}}}]},
     CI + "schedules[0].trigger.schedule.hours: must be whole numbers from 0 to 23, got [24]"),
    ({"schedules": [{"action": "stop", "trigger": {"type": "recurrence", "frequency": "week", "interval": 1,
                                                   "schedule": {"week_days": ["mon"]}}}]},
     CI + "schedules[0].trigger.schedule.week_days: must be a list, each one of 'monday', 'tuesday', 'wednesday', "
         "'thursday', 'friday', 'saturday', 'sunday', got ['mon']"),
    ({"schedules": [{"action": "stop", "trigger": CRON, "enabled": False}]},
     CI + "schedules[0].enabled: unknown argument; did you mean state? (help(ScheduleSpec) lists every argument)"),
    ({"location": "northeurope"},
     CI + "location: must be the workspace's region (westeurope): an instance cannot run in another region, "
          "got 'northeurope'"),
    ({"name": "ci_bad"},
     CI + "name: invalid Azure name 'ci_bad': allowed is 3-24 letters, digits and hyphens, starting with a letter, "
         "ending with a letter or digit"),
]


@pytest.mark.parametrize(("extra", "message"), INVALID, ids=[f"{m.split(': ')[1]}-{i}" for i, (_, m) in
                                                             enumerate(INVALID)])
def test_bad_input_is_an_error_naming_the_component_the_argument_and_the_value(
    extra: dict[str, Any], message: str,
) -> None:
    with pytest.raises(ComponentArgError) as caught:
        build(**extra)
    assert str(caught.value) == message
    assert caught.value.component == 'ComputeInstance "alice"'


def test_the_workspace_component_gives_group_name_region_and_managed_network() -> None:
    def program() -> None:
        ws = Workspace("mlw", {"resource_group_name": "rg-ml", "location": "westeurope"})
        ComputeInstance("alice", {"workspace": ws, "size": "Standard_DS3_v2"})

    compute = run(program).get(COMPUTE, "alice-compute").inputs
    assert (compute["resourceGroupName"], compute["workspaceName"], compute["location"]) == (
        "rg-ml", "mlw", "westeurope")
    assert compute["properties"]["properties"]["enableNodePublicIp"] is False


# Each argument (stack file name) and the exact ARM input of `alice-compute` it sets.
ARM_INPUTS = [
    ({"size": "Standard_E4s_v3"}, ("properties", "properties", "vmSize"), "Standard_E4s_v3"),
    ({"idle_time_before_shutdown_minutes": 90}, ("properties", "properties", "idleTimeBeforeShutdown"), "PT90M"),
    ({"assigned_user": {"object_id": USER, "tenant_id": TENANT}},
     ("properties", "properties", "personalComputeInstanceSettings"),
     {"assignedUser": {"objectId": USER, "tenantId": TENANT}}),
    ({"network_settings": {"subnet": SUBNET + "2"}}, ("properties", "properties", "subnet"), {"id": SUBNET + "2"}),
    ({"ssh_public_access_enabled": True, "ssh_settings": {"ssh_key_value": "ssh-rsa K"}},
     ("properties", "properties", "sshSettings"), {"sshPublicAccess": "Enabled", "adminPublicKey": "ssh-rsa K"}),
    ({"local_auth_enabled": True}, ("properties", "disableLocalAuth"), False),
    ({"identity": {"type": "none"}}, ("identity",), None),
    ({"name": "ci-alice"}, ("computeName",), "ci-alice"),
    ({"location": "westeurope"}, ("location",), "westeurope"),
    ({"workspace_location": None, "location": "swedencentral"}, ("location",), "swedencentral"),
    ({"description": "notebooks"}, ("properties", "description"), "notebooks"),
]


@pytest.mark.parametrize(("extra", "path", "expected"), ARM_INPUTS,
                         ids=[f"{next(iter(e))}-{i}" for i, (e, _, _) in enumerate(ARM_INPUTS)])
def test_each_argument_sets_its_arm_input(extra: dict[str, Any], path: tuple[str, ...], expected: Any) -> None:
    value: Any = build(**extra).get(COMPUTE, "alice-compute").inputs
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    assert value == expected


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
        # uuid5(NAMESPACE_URL, "amlkit/alice/<WORKSPACE_ID>/<CONTRIBUTOR_GUID>"): component, scope and role
        "roleAssignmentName": "d1bc7939-1339-5236-93f8-246481b95dee",
    }


def test_the_workspace_component_gives_the_id_the_grant_needs() -> None:
    def program() -> None:
        ws = Workspace("mlw", {"resource_group_name": "rg-ml", "location": "westeurope"})
        ComputeInstance("alice", {"workspace": ws, "size": "Standard_DS3_v2"})

    role = run(program).get(ROLE, "alice-workspace-contributor")
    assert (role.inputs["scope"], role.inputs["principalId"]) == (
        arm_id("Microsoft.MachineLearningServices/workspaces", "mlw"), principal_of("alice-compute"))


@pytest.mark.parametrize("extra", [
    {},
    {"workspace_id": WORKSPACE_ID, "identity": {"type": "user_assigned", "user_assigned_identities": [
        {"resource_id": UAI}]}},
    {"workspace_id": WORKSPACE_ID, "identity": {"type": "none"}},
], ids=["no-workspace-id", "user-assigned-identity", "no-identity"])
def test_no_contributor_grant_without_workspace_id_or_system_identity(extra: dict[str, Any]) -> None:
    assert build(**extra).of_type(ROLE) == []
