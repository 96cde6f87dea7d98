"""ComputeCluster component: exact compute inputs, options, identity, role assignments, validation."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
from pulumi.runtime import rpc

from amlkit import azure_facts as facts
from amlkit.components import ComputeCluster, ComputeClusterArgs, Workspace
from amlkit.components.compute_cluster import BUILT_IN_ROLES
from amlkit.errors import ComponentArgError
from tests.components.harness import Recorded, arm_id, principal_of, run

COMPUTE = "azure-native:machinelearningservices:Compute"
ROLE = "azure-native:authorization:RoleAssignment"
COMPONENT = "amlkit:index:ComputeCluster"
SUBNET = "/subscriptions/0000/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/aml"
UAI = "/subscriptions/0000/resourceGroups/rg-id/providers/Microsoft.ManagedIdentity/userAssignedIdentities/uai"
ACR_ID = "/subscriptions/0000/resourceGroups/rg-ml/providers/Microsoft.ContainerRegistry/registries/cr"
ST_ID = "/subscriptions/0000/resourceGroups/rg-ml/providers/Microsoft.Storage/storageAccounts/st"
USER_IDENTITY = {"type": "user_assigned", "user_assigned_identities": [{"resource_id": UAI}]}
CPU_ID = arm_id("Microsoft.MachineLearningServices/workspaces", "mlw") + "/computes/cpu"

REPLACE_PATHS = list(facts.CLUSTER_REPLACE_ON_CHANGES)  # the facts themselves: tests/test_azure_facts.py


def base(**extra: Any) -> ComputeClusterArgs:
    args = {"resource_group_name": "rg-ml", "workspace_name": "mlw", "workspace_location": "westeurope",
            "size": "Standard_DS3_v2", "max_instances": 4, "network_settings": {"subnet": SUBNET}, **extra}
    return args  # type: ignore[return-value]


def build(resource: str = "cpu", **extra: Any) -> Recorded:
    def program() -> dict[str, Any]:
        cluster = ComputeCluster(resource, base(**extra))
        return {"compute_id": cluster.compute_id, "compute_name": cluster.compute_name,
                "principal_id": cluster.principal_id}

    return run(program)


def inner(rec: Recorded, name: str = "cpu-compute") -> dict[str, Any]:
    return rec.get(COMPUTE, name).inputs["properties"]["properties"]


def test_default_cluster_inputs_are_secure_and_scale_to_zero() -> None:
    assert build().get(COMPUTE, "cpu-compute").inputs == {
        "resourceGroupName": "rg-ml",
        "workspaceName": "mlw",
        "computeName": "cpu",
        "location": "westeurope",
        "tags": {},
        "identity": {"type": "SystemAssigned"},
        "properties": {
            "computeType": "AmlCompute",
            "disableLocalAuth": True,
            "properties": {
                "vmSize": "Standard_DS3_v2",
                "vmPriority": "Dedicated",
                "scaleSettings": {"minNodeCount": 0.0, "maxNodeCount": 4.0,
                                  "nodeIdleTimeBeforeScaleDown": "PT120S"},
                "subnet": {"id": SUBNET},
                "enableNodePublicIp": False,
                "remoteLoginPortPublicAccess": "Disabled",
                "osType": "Linux",  # SDK default, sent explicitly by pulumi-azure-native
            },
        },
    }


def test_compute_options_replace_what_azure_cannot_update_and_delete_first() -> None:
    compute = build().get(COMPUTE, "cpu-compute")
    assert (compute.parent, compute.replace_on_changes, compute.delete_before_replace, compute.protect) == (
        "cpu", REPLACE_PATHS, True, False)


def test_scale_settings_identity_and_tags_update_in_place() -> None:
    replace = build().get(COMPUTE, "cpu-compute").replace_on_changes
    assert not [p for p in replace if "scaleSettings" in p or p.startswith(("identity", "tags"))]


def test_scale_and_placement_settings_reach_the_compute() -> None:
    rec = build(min_instances=1, max_instances=10, idle_time_before_scale_down=900, tier="low_priority",
                location="northeurope", description="batch", tags={"team": "a"})
    compute = rec.get(COMPUTE, "cpu-compute").inputs
    assert inner(rec)["scaleSettings"] == {"minNodeCount": 1.0, "maxNodeCount": 10.0,
                                           "nodeIdleTimeBeforeScaleDown": "PT900S"}
    assert inner(rec)["vmPriority"] == "LowPriority"
    assert (compute["location"], compute["properties"]["computeLocation"], compute["properties"]["description"],
            compute["tags"]) == ("westeurope", "northeurope", "batch", {"team": "a"})


NODE_IP_CASES = [
    ({}, False),
    ({"network_settings": None, "workspace_managed_network": True}, False),
    ({"network_settings": None, "enable_node_public_ip": True}, True),
    ({"enable_node_public_ip": True}, True),
]


@pytest.mark.parametrize(("extra", "expected"), NODE_IP_CASES,
                         ids=["subnet", "managed-network", "explicit-public", "subnet-explicit-public"])
def test_node_public_ip(extra: dict[str, Any], expected: bool) -> None:
    assert inner(build(**extra))["enableNodePublicIp"] is expected


def test_managed_network_cluster_has_no_subnet() -> None:
    assert "subnet" not in inner(build(network_settings=None, workspace_managed_network=True))


IDENTITY_CASES = [
    ({}, {"type": "SystemAssigned"}, principal_of("cpu-compute")),
    ({"identity": {"type": "system_assigned"}}, {"type": "SystemAssigned"}, principal_of("cpu-compute")),
    ({"identity": USER_IDENTITY}, {"type": "UserAssigned", "userAssignedIdentities": [UAI]}, None),
    ({"identity": {"type": "none"}}, None, None),
]


@pytest.mark.parametrize(("extra", "identity", "principal"), IDENTITY_CASES,
                         ids=["default-system", "explicit-system", "user", "none"])
def test_identity_is_system_xor_user(extra: dict[str, Any], identity: Any, principal: str | None) -> None:
    rec = build(**extra)
    assert rec.get(COMPUTE, "cpu-compute").inputs.get("identity") == identity
    assert rec.outputs["principal_id"] == principal


def test_outputs_are_registered_exactly() -> None:
    rec = build()
    assert rec.outputs == {"compute_id": CPU_ID, "compute_name": "cpu", "principal_id": principal_of("cpu-compute")}
    assert rec.component_outputs["cpu"] == rec.outputs


def test_ssh_settings_turn_local_auth_on() -> None:
    rec = build(ssh_settings={"ssh_key_value": "ssh-rsa AAAA"})
    assert inner(rec)["userAccountCredentials"] == {"adminUserName": "azureuser",
                                                    "adminUserSshPublicKey": "ssh-rsa AAAA"}
    assert rec.get(COMPUTE, "cpu-compute").inputs["properties"]["disableLocalAuth"] is False


def test_admin_password_is_sent_as_a_secret() -> None:
    rec = build(ssh_settings={"admin_username": "azureuser", "admin_password": pulumi.Output.secret("S3cret!pass")})
    properties = rec.get(COMPUTE, "cpu-compute").inputs["properties"]
    # the engine sees the whole `properties` input as a secret, the password inside it
    assert rpc.is_rpc_secret(properties)
    assert rpc.unwrap_rpc_secret(properties)["properties"]["userAccountCredentials"] == {
        "adminUserName": "azureuser", "adminUserPassword": "S3cret!pass"}


ROLES = {"acr-pull": {"scope": ACR_ID, "role": "AcrPull"},
         "blob-read": {"scope": ST_ID, "role": "Storage Blob Data Reader"}}


def test_role_assignments_are_deterministic_guids_for_the_system_identity() -> None:
    rec = build(role_assignments=ROLES)
    roles = {r.name: r for r in rec.of_type(ROLE)}
    assert set(roles) == {"cpu-role-acr-pull", "cpu-role-blob-read"}
    assert roles["cpu-role-acr-pull"].inputs == {
        "principalId": principal_of("cpu-compute"),
        "principalType": "ServicePrincipal",
        "scope": ACR_ID,
        "roleDefinitionId": "/subscriptions/0000/providers/Microsoft.Authorization/roleDefinitions/"
                            "7f951dda-4ed3-4680-a7ca-43fe172d538d",
        # uuid5(NAMESPACE_URL, "amlkit/cpu/<ACR_ID>/<AcrPull's GUID>"): component, scope and role
        "roleAssignmentName": "f44444a9-ee20-54ca-b5f0-3601af7106c5",
    }
    assert roles["cpu-role-blob-read"].inputs["roleDefinitionId"].endswith("2a2b9908-6ea1-4ae2-8e65-a410df84e7d1")
    assert all(r.parent == "cpu" for r in roles.values())


def test_reordering_the_role_assignment_map_registers_the_same_children(monkeypatch: pytest.MonkeyPatch) -> None:
    warned: list[str] = []
    monkeypatch.setattr(pulumi.log, "warn", lambda message, *args, **kwargs: warned.append(message))
    forward = {(r.name, str(r.inputs)) for r in build(role_assignments=ROLES).of_type(ROLE)}
    backward = {(r.name, str(r.inputs)) for r in build(role_assignments=dict(reversed(ROLES.items()))).of_type(ROLE)}
    assert forward == backward
    assert len(forward) == 2
    assert warned == []


def test_a_role_assignment_list_still_loads_keyed_by_position_with_a_deprecation_note(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    warned: list[str] = []
    monkeypatch.setattr(pulumi.log, "warn", lambda message, *args, **kwargs: warned.append(message))
    listed = build(role_assignments=list(ROLES.values())).of_type(ROLE)
    keyed = build(role_assignments=dict(zip(("0", "1"), ROLES.values(), strict=True))).of_type(ROLE)
    assert [(r.name, r.inputs) for r in listed] == [(r.name, r.inputs) for r in keyed]
    assert [r.name for r in listed] == ["cpu-role-0", "cpu-role-1"]  # the names a list always gave
    assert warned == [
        'ComputeCluster "cpu": role_assignments as a list is deprecated: a reorder renames its children, which '
        "deletes and re-creates the assignments; give a map keyed by a stable name, e.g. {'acr-pull': {...}} "
        "(this list loads as keys '0', '1')"]


def test_role_assignment_names_are_stable_across_runs_and_distinct_across_clusters() -> None:
    spec = {"acr": {"scope": ACR_ID, "role": "AcrPull"}}
    first = build(role_assignments=spec).get(ROLE, "cpu-role-acr").inputs["roleAssignmentName"]
    again = build(role_assignments=spec).get(ROLE, "cpu-role-acr").inputs["roleAssignmentName"]
    other = build(resource="gpu", role_assignments=spec).get(ROLE, "gpu-role-acr").inputs["roleAssignmentName"]
    assert first == again != other


def test_a_role_definition_guid_is_accepted() -> None:
    guid = "3913510d-42f4-4e42-8a64-420c390055eb"
    rec = build(role_assignments={"custom": {"scope": ACR_ID, "role": guid.upper()}})
    assert rec.get(ROLE, "cpu-role-custom").inputs["roleDefinitionId"].endswith(f"/roleDefinitions/{guid}")


def test_known_role_names_map_to_guids() -> None:
    assert len(set(BUILT_IN_ROLES.values())) == len(BUILT_IN_ROLES)
    assert BUILT_IN_ROLES["AcrPull"] == "7f951dda-4ed3-4680-a7ca-43fe172d538d"


def test_two_clusters_never_collide() -> None:
    def program() -> None:
        for name in ("cpu", "gpu"):
            ComputeCluster(name, base(role_assignments={"acr": {"scope": ACR_ID, "role": "AcrPull"}}))

    rec = run(program)
    logical = [(r.type, r.name) for r in rec.registrations]
    assert len(logical) == len(set(logical)) == 6
    assert len({r.id for r in rec.registrations if r.custom}) == 4


def test_long_names_are_shortened_with_a_hash_and_overridable() -> None:
    long = build(resource="training-cluster-for-team-europe")
    name = long.outputs["compute_name"]
    assert len(name) <= 16 and name.startswith("training-")
    assert build(name="gpu-a100").outputs["compute_name"] == "gpu-a100"


C = 'ComputeCluster "cpu": '
HELP = "(help(ComputeClusterArgs) lists every argument)"
INVALID = [
    ({"min_node": 2}, C + f"min_node: unknown argument; did you mean min_instances? {HELP}"),
    ({"vm_priorty": "low_priority"}, C + f"vm_priorty: unknown argument; did you mean tier? {HELP}"),
    ({"max_nodes": 4}, C + f"max_nodes: unknown argument; did you mean max_instances? {HELP}"),
    ({"subnet_id": SUBNET}, C + f"subnet_id: unknown argument; did you mean network_settings? {HELP}"),
    ({"ssh_settings": {"admin_usernme": "x"}},
     C + "ssh_settings.admin_usernme: unknown argument; did you mean admin_username? "
         "(help(ClusterSshSettings) lists every argument)"),
    ({"max_instances": "four"}, C + "max_instances: must be a whole number, got 'four'"),
    ({"max_instances": True}, C + "max_instances: must be a whole number, got True"),
    ({"max_instances": 0}, C + "max_instances: must be a whole number >= 1, got 0"),
    ({"max_instances": None}, C + "max_instances: is required"),
    ({"min_instances": 5}, C + "min_instances: must not exceed max_instances (4), got 5"),
    ({"min_instances": -1}, C + "min_instances: must be a whole number >= 0, got -1"),
    ({"idle_time_before_scale_down": 1.5}, C + "idle_time_before_scale_down: must be a whole number, got 1.5"),
    ({"tier": "LowPriority"}, C + "tier: must be one of 'dedicated', 'low_priority', got 'LowPriority'"),
    ({"ssh_public_access_enabled": "Disabled"}, C + "ssh_public_access_enabled: must be True or False, got 'Disabled'"),
    ({"size": ""}, C + "size: is required"),
    ({"network_settings": {}}, C + "network_settings.subnet: is required"),
    ({"tags": {"team": 1}}, C + "tags: must be a mapping of a string to a string, got {'team': 1}"),
    ({"network_settings": None},
     C + "enable_node_public_ip: must be set when there is no network_settings.subnet or workspace managed network "
         "(Azure's default gives every node a public IP)"),
    ({"network_settings": None, "enable_node_public_ip": False},
     C + "enable_node_public_ip: False needs network_settings.subnet or a workspace managed network"),
    ({"identity": {"type": "user_assigned"}},
     C + "identity.user_assigned_identities: is required when type is user_assigned"),
    ({"identity": {"type": "system_assigned", "user_assigned_identities": [{"resource_id": UAI}]}},
     C + "identity.type: must be user_assigned to use user_assigned_identities, got 'system_assigned'"),
    ({"identity": USER_IDENTITY, "role_assignments": {"acr": {"scope": ACR_ID, "role": "AcrPull"}}},
     C + "role_assignments: need the system-assigned identity; grant roles to a user-assigned identity where it "
         "is defined"),
    ({"role_assignments": {"acr": {"scope": ACR_ID, "role": "Owner-ish"}}},
     C + "role_assignments.role: unknown role 'Owner-ish': use a role definition GUID or one of " +
     ", ".join(sorted(BUILT_IN_ROLES))),
    ({"role_assignments": {"acr": {"scope": "", "role": "AcrPull"}}}, C + "role_assignments.acr.scope: is required"),
    ({"role_assignments": [{"scope": "", "role": "AcrPull"}]}, C + "role_assignments.0.scope: is required"),
    ({"role_assignments": {"acr pull": {"scope": ACR_ID, "role": "AcrPull"}}},
     C + "role_assignments.acr pull: is not a usable key: allowed: 1 to 63 letters, digits, '-', '_' or '.', "
         "starting with a letter or digit, got 'acr pull'"),
    ({"role_assignments": {"acr": {"scope": ACR_ID, "rol": "AcrPull"}}},
     C + "role_assignments.acr.rol: unknown argument; did you mean role? (help(RoleAssignmentSpec) lists every "
         "argument)"),
    ({"ssh_settings": {"admin_username": "azureuser"}},
     C + "ssh_settings.ssh_key_value: is required (or a secret admin_password)"),
    ({"ssh_settings": {"ssh_key_value": "ssh-rsa AAAA"}, "local_auth_enabled": False},
     C + "local_auth_enabled: must be True or unset with ssh_settings (SSH login is local authentication), "
         "got False"),
    ({"name": "1cluster"},
     C + "name: invalid Azure name '1cluster': allowed is 2-16 letters, digits and hyphens, starting with a letter"),
    ({"workspace_name": None}, C + "workspace_name: is required without workspace (the Workspace component)"),
    ({"workspace_location": None},
     C + "location: is required without workspace or workspace_location (Azure puts a compute in its "
         "workspace's region, which the component cannot see)"),
    ({"workspace": "mlw"}, C + "workspace: must be a Workspace component, got 'mlw'"),
]


@pytest.mark.parametrize(("extra", "message"), INVALID, ids=[f"{m.split(': ')[1]}-{i}" for i, (_, m) in
                                                             enumerate(INVALID)])
def test_bad_input_is_an_error_naming_the_component_the_argument_and_the_value(
    extra: dict[str, Any], message: str,
) -> None:
    with pytest.raises(ComponentArgError) as caught:
        build(**extra)
    assert str(caught.value) == message
    assert caught.value.component == 'ComputeCluster "cpu"'


def test_an_unknown_key_carries_the_closest_allowed_key_and_every_allowed_key() -> None:
    with pytest.raises(ComponentArgError) as caught:
        build(min_node=2)
    error = caught.value
    assert (error.arg, error.closest, error.value, error.exit_code) == ("min_node", "min_instances", None, 2)
    allowed = error.allowed.split(", ")
    assert sorted(allowed) == sorted(ComputeClusterArgs.__annotations__)  # inherited workspace fields too
    assert allowed[:3] == ["size", "max_instances", "workspace"]  # required first, then the workspace's


def test_a_plain_password_is_refused_and_never_echoed() -> None:
    with pytest.raises(ComponentArgError) as caught:
        build(ssh_settings={"admin_username": "azureuser", "admin_password": "hunter2-plain"})
    assert str(caught.value) == (
        C + "ssh_settings.admin_password: must be a pulumi secret Output (pulumi.Output.secret or a secret config "
        "value), never a plain string, got a plain value")
    assert "hunter2" not in repr(vars(caught.value)) and caught.value.value is None


def test_outputs_are_accepted_wherever_the_argument_is_an_input() -> None:
    def program() -> None:
        ComputeCluster("cpu", base(resource_group_name=pulumi.Output.from_input("rg-ml"),
                                   network_settings={"subnet": pulumi.Output.from_input(SUBNET)}))

    assert inner(run(program))["subnet"] == {"id": SUBNET}


def test_the_workspace_component_gives_group_name_region_and_managed_network() -> None:
    def program() -> None:
        ws = Workspace("mlw", {"resource_group_name": "rg-ml", "location": "westeurope"})
        ComputeCluster("cpu", {"workspace": ws, "size": "Standard_DS3_v2", "max_instances": 4})

    compute = run(program).get(COMPUTE, "cpu-compute").inputs
    assert (compute["resourceGroupName"], compute["workspaceName"], compute["location"]) == (
        "rg-ml", "mlw", "westeurope")
    assert "computeLocation" not in compute["properties"]
    assert compute["properties"]["properties"]["enableNodePublicIp"] is False


def test_a_region_other_than_the_workspaces_is_the_compute_location() -> None:
    def program() -> None:
        ws = Workspace("mlw", {"resource_group_name": "rg-ml", "location": "westeurope"})
        ComputeCluster("cpu", {"workspace": ws, "size": "Standard_DS3_v2", "max_instances": 4,
                               "location": "northeurope"})

    compute = run(program).get(COMPUTE, "cpu-compute").inputs
    assert (compute["location"], compute["properties"]["computeLocation"]) == ("westeurope", "northeurope")


@pytest.mark.parametrize("preview", [False, True], ids=["up", "preview"])
def test_role_scope_may_be_another_resources_output(preview: bool) -> None:
    def program() -> None:
        ws = Workspace("mlw", {"resource_group_name": "rg-ml", "location": "westeurope", "container_registry": True})
        ComputeCluster("cpu", base(workspace_name=ws.workspace_name,
                                   role_assignments={"acr": {"scope": ws.container_registry_id, "role": "AcrPull"}}))

    rec = run(program, preview=preview)
    role = rec.get(ROLE, "cpu-role-acr").inputs
    registry = rec.get("azure-native:containerregistry:Registry", "mlw-registry").id
    assert role["scope"] == registry
    assert registry == ("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-ml/providers/"
                        "Microsoft.ContainerRegistry/registries/crmlwb09487")
    # uuid5(NAMESPACE_URL, "amlkit/cpu/<the registry's id>/<AcrPull's GUID>"): the resolved scope, up and preview
    assert role["roleAssignmentName"] == "824821e8-fd32-5401-968e-5cd9ce26202e"
    assert rec.get(COMPUTE, "cpu-compute").inputs["workspaceName"] == "mlw"


# Each argument (stack file name) and the exact ARM input of `cpu-compute` it sets.
ARM_INPUTS = [
    ({"size": "Standard_NC6s_v3"}, ("properties", "properties", "vmSize"), "Standard_NC6s_v3"),
    ({"max_instances": 7}, ("properties", "properties", "scaleSettings", "maxNodeCount"), 7.0),
    ({"min_instances": 2}, ("properties", "properties", "scaleSettings", "minNodeCount"), 2.0),
    ({"idle_time_before_scale_down": 300},
     ("properties", "properties", "scaleSettings", "nodeIdleTimeBeforeScaleDown"), "PT300S"),
    ({"tier": "low_priority"}, ("properties", "properties", "vmPriority"), "LowPriority"),
    ({"tier": "dedicated"}, ("properties", "properties", "vmPriority"), "Dedicated"),
    ({"network_settings": {"subnet": SUBNET + "2"}}, ("properties", "properties", "subnet"), {"id": SUBNET + "2"}),
    ({"ssh_public_access_enabled": True}, ("properties", "properties", "remoteLoginPortPublicAccess"), "Enabled"),
    ({"ssh_settings": {"admin_username": "ops", "ssh_key_value": "ssh-rsa K"}},
     ("properties", "properties", "userAccountCredentials"),
     {"adminUserName": "ops", "adminUserSshPublicKey": "ssh-rsa K"}),
    ({"ssh_settings": {"ssh_key_value": "ssh-rsa K"}}, ("properties", "disableLocalAuth"), False),
    ({"local_auth_enabled": True}, ("properties", "disableLocalAuth"), False),
    ({"identity": USER_IDENTITY}, ("identity",), {"type": "UserAssigned", "userAssignedIdentities": [UAI]}),
    ({"name": "gpu-a100"}, ("computeName",), "gpu-a100"),
    ({"location": "northeurope"}, ("properties", "computeLocation"), "northeurope"),
    ({"location": "westeurope"}, ("properties", "computeLocation"), None),
    ({"workspace_location": "swedencentral"}, ("location",), "swedencentral"),
    ({"workspace_location": None, "location": "swedencentral"}, ("location",), "swedencentral"),
    ({"description": "batch"}, ("properties", "description"), "batch"),
    ({"tags": {"team": "a"}}, ("tags",), {"team": "a"}),
]


@pytest.mark.parametrize(("extra", "path", "expected"), ARM_INPUTS,
                         ids=[f"{next(iter(e))}-{i}" for i, (e, _, _) in enumerate(ARM_INPUTS)])
def test_each_argument_sets_its_arm_input(extra: dict[str, Any], path: tuple[str, ...], expected: Any) -> None:
    value: Any = build(**extra).get(COMPUTE, "cpu-compute").inputs
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    assert value == expected
