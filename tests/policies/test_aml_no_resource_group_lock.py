import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError, unknown_checking_proxy

from amlkit.policies.rules.aml_no_resource_group_lock import RULE
from tests.policies.examples import Example
from tests.policies.helpers import Public
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
    stack_messages,
    subnet_id,
    subscription_lock_props,
    workspace_id,
    workspace_props,
)

PUBLIC = Public("AMLK-0016", "aml-no-resource-group-lock", level="mandatory", kind="stack")

MG = "/providers/Microsoft.Management/managementGroups/mg-corp"
RG_SCOPE = "a lock at resource group scope"
SUB_SCOPE = "a lock at subscription scope (inherited by every resource group)"
MG_SCOPE = "a lock at management group scope (inherited by every resource group)"

# Two workspaces in two groups, a cluster whose subnet lives in a third group (another subscription
# id in the subnet), and locks on individual resources: the happy path.
PROD = res(WORKSPACE_TYPE, "mlw-prod", workspace_props())
DEV = res(WORKSPACE_TYPE, "mlw-dev", workspace_props(resourceGroupName="rg-ml-dev", workspaceName="mlw-dev"))
CLUSTER = res(COMPUTE_TYPE, "cpu-cluster", cluster_in_subnet(subnet_id("rg-net", OTHER_SUB)))
FINE_LOCKS = [
    res(LOCK_RESOURCE_TYPE, "lock-storage", resource_lock_props("stmlprod")),
    res(LOCK_SCOPE_TYPE, "lock-workspace", scope_lock_props(workspace_id())),
    res(LOCK_RG_TYPE, "lock-other-rg", rg_lock_props("rg-shared")),
    res(LOCK_SCOPE_TYPE, "lock-other-sub", scope_lock_props(rg_id("rg-net", SUB))),
]
HAPPY = [PROD, DEV, CLUSTER, *FINE_LOCKS]


def expect(lock: str, group: str, holder: str, scope: str) -> tuple[str, str]:
    return lock, (
        f"Management lock '{lock}' must not cover resource group '{group}', which holds {holder} "
        f"(a lock there blocks cluster scaling); lock individual resources instead; found {scope}."
    )


CASES = [
    ("happy-path", [], []),
    ("rg-lock-on-workspace-group", [res(LOCK_RG_TYPE, "lock-rg", rg_lock_props("rg-ml-prod"))],
     [expect("lock-rg", "rg-ml-prod", "workspace 'mlw-prod'", RG_SCOPE)]),
    ("rg-lock-case-insensitive", [res(LOCK_RG_TYPE, "lock-rg", rg_lock_props("RG-ML-DEV"))],
     [expect("lock-rg", "rg-ml-dev", "workspace 'mlw-dev'", RG_SCOPE)]),
    ("rg-lock-on-subnet-group", [res(LOCK_RG_TYPE, "lock-net", rg_lock_props("rg-net"))],
     [expect("lock-net", "rg-net", "the subnet of compute 'cpu-cluster'", RG_SCOPE)]),
    ("scope-lock-on-workspace-group", [res(LOCK_SCOPE_TYPE, "lock-scope", scope_lock_props(rg_id("rg-ml-prod")))],
     [expect("lock-scope", "rg-ml-prod", "workspace 'mlw-prod'", RG_SCOPE)]),
    ("scope-lock-on-subnet-group-same-subscription",
     [res(LOCK_SCOPE_TYPE, "lock-scope", scope_lock_props(rg_id("rg-net", OTHER_SUB)))],
     [expect("lock-scope", "rg-net", "the subnet of compute 'cpu-cluster'", RG_SCOPE)]),
    ("subscription-level-lock-covers-every-group", [res(LOCK_SUB_TYPE, "lock-sub", subscription_lock_props())],
     [expect("lock-sub", "rg-ml-prod", "workspace 'mlw-prod'", SUB_SCOPE),
      expect("lock-sub", "rg-ml-dev", "workspace 'mlw-dev'", SUB_SCOPE),
      expect("lock-sub", "rg-net", "the subnet of compute 'cpu-cluster'", SUB_SCOPE)]),
    ("scope-subscription-lock-skips-subnet-in-other-subscription",
     [res(LOCK_SCOPE_TYPE, "lock-sub", scope_lock_props(f"/subscriptions/{SUB}"))],
     [expect("lock-sub", "rg-ml-prod", "workspace 'mlw-prod'", SUB_SCOPE),
      expect("lock-sub", "rg-ml-dev", "workspace 'mlw-dev'", SUB_SCOPE)]),
    ("management-group-lock-covers-every-group", [res(LOCK_SCOPE_TYPE, "lock-mg", scope_lock_props(MG))],
     [expect("lock-mg", "rg-ml-prod", "workspace 'mlw-prod'", MG_SCOPE),
      expect("lock-mg", "rg-ml-dev", "workspace 'mlw-dev'", MG_SCOPE),
      expect("lock-mg", "rg-net", "the subnet of compute 'cpu-cluster'", MG_SCOPE)]),
    ("scope-not-an-arm-id-fails-closed", [res(LOCK_SCOPE_TYPE, "lock-bad", scope_lock_props("rg-ml-prod"))],
     [("lock-bad", "Management lock 'lock-bad' must have an ARM resource id as scope, so that what it locks "
       "can be checked; found 'rg-ml-prod'.")]),
]


@pytest.mark.parametrize(("extra", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_no_resource_group_lock(extra, expected):
    assert stack_messages(RULE, [*HAPPY, *extra]) == expected


def test_locks_without_workspaces_or_subnets_are_fine():
    locks = [res(LOCK_SUB_TYPE, "lock-sub", subscription_lock_props()),
             res(LOCK_RG_TYPE, "lock-rg", rg_lock_props("rg-ml-prod"))]
    assert stack_messages(RULE, locks) == []


def test_cluster_without_subnet_adds_no_group():
    cluster = res(COMPUTE_TYPE, "cpu-cluster", cluster_in_subnet(None))
    lock = res(LOCK_RG_TYPE, "lock-rg", rg_lock_props("rg-net"))
    assert stack_messages(RULE, [PROD, cluster, lock]) == []


RG = res(RESOURCE_GROUP_TYPE, "rg-main", {"location": "westeurope"})
WS_IN_RG = res(WORKSPACE_TYPE, "mlw", unknown_checking_proxy(workspace_props(resourceGroupName=UNKNOWN_STRING_VALUE)),
               resourceGroupName=RG.urn)


def test_lock_built_from_the_workspace_group_resource_counts_while_unknown():
    lock = res(LOCK_RG_TYPE, "lock-rg", unknown_checking_proxy(rg_lock_props(UNKNOWN_STRING_VALUE)),
               resourceGroupName=RG.urn)
    assert stack_messages(RULE, [RG, WS_IN_RG, lock]) == [expect("lock-rg", "rg-main", "workspace 'mlw'", RG_SCOPE)]


def test_lock_from_another_group_resource_is_unknown_not_a_pass():
    other = res(RESOURCE_GROUP_TYPE, "rg-other", {})
    lock = res(LOCK_RG_TYPE, "lock-rg", unknown_checking_proxy(rg_lock_props(UNKNOWN_STRING_VALUE)),
               resourceGroupName=other.urn)
    with pytest.raises(UnknownValueError):
        RULE.evaluate_stack([RG, other, WS_IN_RG, lock])


def test_subnet_group_through_a_stack_subnet_resource():
    subnet = res(SUBNET_TYPE, "snet", {"resourceGroupName": "rg-net", "subnetName": "aml"})
    cluster = res(COMPUTE_TYPE, "gpu", unknown_checking_proxy(cluster_in_subnet(UNKNOWN_STRING_VALUE)),
                  properties=subnet.urn)
    lock = res(LOCK_RG_TYPE, "lock-net", rg_lock_props("RG-NET"))
    assert stack_messages(RULE, [subnet, cluster, lock]) == [
        expect("lock-net", "rg-net", "the subnet of compute 'gpu'", RG_SCOPE)
    ]


def test_is_a_mandatory_stack_rule():
    assert RULE.is_stack_rule
    assert (RULE.name, RULE.level) == ("aml-no-resource-group-lock", "mandatory")


EXAMPLE = Example.of_stacks(CASES, fails="rg-lock-on-workspace-group", passes="happy-path", base=HAPPY)
