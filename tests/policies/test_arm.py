import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError, unknown_checking_proxy

from amlkit.policies.arm import (
    ArmId,
    LockTarget,
    LockView,
    is_lock,
    parse_arm_id,
    same_name,
    subnet_groups,
    workspace_groups,
)
from amlkit.policies.framework import CannotLink
from tests.policies.workspace_fixtures import (
    COMPUTE_TYPE,
    LOCK_RESOURCE_TYPE,
    LOCK_RG_TYPE,
    LOCK_SCOPE_TYPE,
    LOCK_SUB_TYPE,
    OTHER_SUB,
    RESOURCE_GROUP_TYPE,
    SUB,
    SUBNET_TYPE,
    WORKSPACE_TYPE,
    cluster_in_subnet,
    res,
    resource_lock_props,
    rg_id,
    rg_lock_props,
    scope_lock_props,
    subnet_id,
    subscription_lock_props,
    workspace_id,
    workspace_props,
)

MG = "/providers/Microsoft.Management/managementGroups/mg-corp"
EXTENSION = f"{workspace_id()}/providers/Microsoft.Insights/diagnosticSettings/diag"

PARSE_CASES = [
    ("management-group", MG, ArmId(MG, management_group="mg-corp")),
    ("subscription", f"/subscriptions/{SUB}", ArmId(f"/subscriptions/{SUB}", subscription=SUB)),
    ("subscription-trailing-slash", f"/subscriptions/{SUB}/",
     ArmId(f"/subscriptions/{SUB}/", subscription=SUB)),
    ("resource-group", rg_id("rg-a"), ArmId(rg_id("rg-a"), subscription=SUB, resource_group="rg-a")),
    ("resource-group-lowercase-keyword", f"/SUBSCRIPTIONS/{SUB}/resourcegroups/rg-a",
     ArmId(f"/SUBSCRIPTIONS/{SUB}/resourcegroups/rg-a", subscription=SUB, resource_group="rg-a")),
    ("workspace", workspace_id(), ArmId(workspace_id(), subscription=SUB, resource_group="rg-ml-prod",
                                        namespace="Microsoft.MachineLearningServices",
                                        types=("workspaces",), names=("mlw-prod",))),
    ("subnet", subnet_id(), ArmId(subnet_id(), subscription=SUB, resource_group="rg-net",
                                  namespace="Microsoft.Network", types=("virtualNetworks", "subnets"),
                                  names=("vnet", "aml"))),
    ("extension-resource", EXTENSION,
     ArmId(EXTENSION, subscription=SUB, resource_group="rg-ml-prod", namespace="Microsoft.Insights",
           types=("workspaces", "diagnosticSettings"), names=("mlw-prod", "diag"))),
    ("subscription-level-resource", f"/subscriptions/{SUB}/providers/Microsoft.Authorization/locks/l1",
     ArmId(f"/subscriptions/{SUB}/providers/Microsoft.Authorization/locks/l1", subscription=SUB,
           namespace="Microsoft.Authorization", types=("locks",), names=("l1",))),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in PARSE_CASES], ids=[c[0] for c in PARSE_CASES])
def test_parse_arm_id(text, expected):
    assert parse_arm_id(text) == expected


BAD_IDS = [
    ("empty", ""),
    ("not-a-string", 42),
    ("no-leading-slash", f"subscriptions/{SUB}"),
    ("subscription-without-id", "/subscriptions"),
    ("group-without-name", f"/subscriptions/{SUB}/resourceGroups"),
    ("double-slash", f"/subscriptions/{SUB}//resourceGroups/rg"),
    ("provider-without-resource", f"{rg_id('rg')}/providers/Microsoft.Storage"),
    ("type-without-name", f"{rg_id('rg')}/providers/Microsoft.Storage/storageAccounts"),
    ("segment-without-provider", f"{rg_id('rg')}/storageAccounts/sa"),
    ("management-group-without-name", "/providers/Microsoft.Management/managementGroups"),
    ("unknown-root", "/tenants/t1"),
]


@pytest.mark.parametrize("text", [c[1] for c in BAD_IDS], ids=[c[0] for c in BAD_IDS])
def test_parse_arm_id_rejects(text):
    assert parse_arm_id(text) is None


@pytest.mark.parametrize(("text", "kind", "name"), [
    (MG, "managementGroup", "mg-corp"),
    (f"/subscriptions/{SUB}", "subscription", SUB),
    (rg_id("rg-a"), "resourceGroup", "rg-a"),
    (subnet_id(), "resource", "aml"),
], ids=["management-group", "subscription", "resource-group", "resource"])
def test_kind_and_name(text, kind, name):
    parsed = parse_arm_id(text)
    assert (parsed.kind, parsed.name) == (kind, name)


def test_is_resource_is_case_insensitive():
    lowered = workspace_id().replace("Microsoft.MachineLearningServices", "microsoft.machinelearningservices")
    parsed = parse_arm_id(lowered)
    assert parsed.is_resource("Microsoft.MachineLearningServices", "Workspaces")
    assert not parse_arm_id(subnet_id()).is_resource("Microsoft.Network", "virtualNetworks")


def test_same_name():
    assert same_name("RG-A", "rg-a")
    assert not same_name("rg-a", "rg-b")
    assert not same_name(None, None)


LOCK_TARGETS = [
    ("resource-group-level", res(LOCK_RG_TYPE, "l", rg_lock_props("rg-a")),
     LockTarget("resourceGroup", resource_group="rg-a")),
    ("subscription-level", res(LOCK_SUB_TYPE, "l", subscription_lock_props()), LockTarget("subscription")),
    ("resource-level", res(LOCK_RESOURCE_TYPE, "l", resource_lock_props("sa1", "rg-a")),
     LockTarget("resource", resource_group="rg-a", resource_name="sa1")),
    ("by-scope-group", res(LOCK_SCOPE_TYPE, "l", scope_lock_props(rg_id("rg-a"))),
     LockTarget("resourceGroup", subscription=SUB, resource_group="rg-a", scope=rg_id("rg-a"))),
    ("by-scope-resource", res(LOCK_SCOPE_TYPE, "l", scope_lock_props(subnet_id())),
     LockTarget("resource", subscription=SUB, resource_group="rg-net", resource_name="aml", scope=subnet_id())),
    ("by-scope-management-group", res(LOCK_SCOPE_TYPE, "l", scope_lock_props(MG)),
     LockTarget("managementGroup", scope=MG)),
    ("by-scope-not-an-id", res(LOCK_SCOPE_TYPE, "l", scope_lock_props("rg-a")), None),
    ("classic-lock-on-group", res("azure:management/lock:Lock", "l", {"scope": rg_id("rg-a"),
                                                                       "lockLevel": "CanNotDelete"}),
     LockTarget("resourceGroup", subscription=SUB, resource_group="rg-a", scope=rg_id("rg-a"))),
    ("classic-managementresource-lock", res("azure:managementresource/manangementLock:ManangementLock", "l",
                                            {"scope": subnet_id(), "lockLevel": "ReadOnly"}),
     LockTarget("resource", subscription=SUB, resource_group="rg-net", resource_name="aml", scope=subnet_id())),
    ("explicit-version-type", res("azure-native:authorization/v20200501:ManagementLockAtResourceGroupLevel",
                                  "l", rg_lock_props("rg-a")), LockTarget("resourceGroup", resource_group="rg-a")),
]


@pytest.mark.parametrize(("lock", "expected"), [c[1:] for c in LOCK_TARGETS], ids=[c[0] for c in LOCK_TARGETS])
def test_lock_target(lock, expected):
    assert is_lock(lock)
    assert LockView(lock).target() == expected


def test_lock_level_of_either_provider():
    assert LockView(res("azure:management/lock:Lock", "l", {"scope": "/x", "lockLevel": "ReadOnly"})).level \
        == "ReadOnly"
    assert LockView(res(LOCK_SCOPE_TYPE, "l", {"scope": "/x", "level": "CanNotDelete"})).level == "CanNotDelete"


def test_classic_workspace_group_and_classic_lock():
    rg = res("azure:core/resourceGroup:ResourceGroup", "rg", {"name": "rg-ml", "location": "westeurope"})
    ws = res("azure:machinelearning/workspace:Workspace", "w", {"name": "mlw", "resourceGroupName": "rg-ml"},
             resourceGroupName=rg.urn)
    (group,) = workspace_groups([rg, ws])
    assert (group.holder, group.sources) == ("workspace 'w'", (rg.urn,))
    lock = res("azure:management/lock:Lock", "l", {"scope": rg_id("rg-ml"), "lockLevel": "CanNotDelete"})
    assert _covered(lock, group) == "resourceGroup"


def test_non_locks():
    assert not is_lock(res(WORKSPACE_TYPE, "w", workspace_props()))
    assert not is_lock(res("azure-native:authorization:RoleAssignment", "ra", {}))


def test_unknown_scope_propagates():
    lock = res(LOCK_SCOPE_TYPE, "l", unknown_checking_proxy(scope_lock_props(UNKNOWN_STRING_VALUE)))
    with pytest.raises(UnknownValueError):
        LockView(lock).target()


RG = res(RESOURCE_GROUP_TYPE, "rg", {"location": "westeurope"})


def _covered(lock, group):
    target = group.covered_by(LockView(lock))
    return None if target is None else target.kind


def test_workspace_group_covered_by_lock_kinds():
    ws = res(WORKSPACE_TYPE, "w", workspace_props(resourceGroupName="RG-ML-PROD"))
    (group,) = workspace_groups([ws])
    assert group.holder == "workspace 'w'"
    assert group.label() == "RG-ML-PROD"
    assert _covered(res(LOCK_RG_TYPE, "l", rg_lock_props("rg-ml-prod")), group) == "resourceGroup"
    assert _covered(res(LOCK_RG_TYPE, "l", rg_lock_props("rg-other")), group) is None
    assert _covered(res(LOCK_SUB_TYPE, "l", subscription_lock_props()), group) == "subscription"
    assert _covered(res(LOCK_SCOPE_TYPE, "l", scope_lock_props(f"/subscriptions/{OTHER_SUB}")), group) \
        == "subscription"
    assert _covered(res(LOCK_SCOPE_TYPE, "l", scope_lock_props(MG)), group) == "managementGroup"
    assert _covered(res(LOCK_SCOPE_TYPE, "l", scope_lock_props(workspace_id())), group) is None
    assert _covered(res(LOCK_RESOURCE_TYPE, "l", resource_lock_props("mlw-prod")), group) is None


def test_subnet_group_knows_its_subscription():
    compute = res(COMPUTE_TYPE, "c", cluster_in_subnet(subnet_id("rg-net")))
    (group,) = subnet_groups([compute])
    assert group.holder == "the subnet of compute 'c'"
    assert group.label() == "rg-net"
    assert _covered(res(LOCK_SCOPE_TYPE, "l", scope_lock_props(rg_id("RG-NET"))), group) == "resourceGroup"
    assert _covered(res(LOCK_SCOPE_TYPE, "l", scope_lock_props(rg_id("rg-net", OTHER_SUB))), group) is None
    assert _covered(res(LOCK_SCOPE_TYPE, "l", scope_lock_props(f"/subscriptions/{OTHER_SUB}")), group) is None
    assert _covered(res(LOCK_SCOPE_TYPE, "l", scope_lock_props(f"/subscriptions/{SUB}")), group) == "subscription"


def test_compute_without_subnet_has_no_group():
    assert list(subnet_groups([res(COMPUTE_TYPE, "c", cluster_in_subnet(None))])) == []


def test_group_from_resource_group_resource_needs_no_name():
    ws = res(WORKSPACE_TYPE, "w", unknown_checking_proxy(workspace_props(resourceGroupName=UNKNOWN_STRING_VALUE)),
             resourceGroupName=RG.urn)
    lock = res(LOCK_RG_TYPE, "l", unknown_checking_proxy(rg_lock_props(UNKNOWN_STRING_VALUE)),
               resourceGroupName=RG.urn)
    (group,) = workspace_groups([RG, ws, lock])
    assert group.sources == (RG.urn,)
    assert group.label() == "rg"
    assert _covered(lock, group) == "resourceGroup"
    assert _covered(res(LOCK_SUB_TYPE, "s", subscription_lock_props()), group) == "subscription"


def test_unrelated_unknown_lock_group_propagates():
    ws = res(WORKSPACE_TYPE, "w", workspace_props())
    lock = res(LOCK_RG_TYPE, "l", unknown_checking_proxy(rg_lock_props(UNKNOWN_STRING_VALUE)))
    (group,) = workspace_groups([ws])
    with pytest.raises(CannotLink, match="^preview cannot tell whether it locks resource group <unknown> or "
                                         "rg-ml-prod, which holds workspace 'w'$"):
        group.covered_by(LockView(lock))


def test_resource_level_lock_is_never_read():
    ws = res(WORKSPACE_TYPE, "w", workspace_props())
    lock = res(LOCK_RESOURCE_TYPE, "l", unknown_checking_proxy(resource_lock_props(UNKNOWN_STRING_VALUE)))
    (group,) = workspace_groups([ws])
    assert group.covered_by(LockView(lock)) is None


def test_subnet_from_stack_subnet_resource():
    subnet = res(SUBNET_TYPE, "snet", {"resourceGroupName": "rg-net", "subnetName": "aml"},
                 resourceGroupName=RG.urn)
    compute = res(COMPUTE_TYPE, "c", unknown_checking_proxy(cluster_in_subnet(UNKNOWN_STRING_VALUE)),
                  properties=subnet.urn)
    (group,) = subnet_groups([RG, subnet, compute])
    assert group.sources == (RG.urn,)
    assert group.locate() == (None, "rg-net")
