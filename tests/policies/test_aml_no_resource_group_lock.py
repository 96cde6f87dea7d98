import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, unknown_checking_proxy

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
    urn,
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
    assert verdicts([RG, other, WS_IN_RG, lock]) == [("lock-rg", UNKNOWN_PREFIX % "lock-rg" + (
        "preview cannot tell whether it locks resource group <unknown> or <unknown>, which holds workspace 'mlw'."),
        True)]


# --- what a real preview knows: unknown ids and names, property dependencies, literal ids of other stacks -----

CLASSIC_RG = "azure:core/resourceGroup:ResourceGroup"
CLASSIC_WORKSPACE = "azure:machinelearning/workspace:Workspace"
CLASSIC_CLUSTER = "azure:machinelearning/computeCluster:ComputeCluster"
CLASSIC_LOCK = "azure:management/lock:Lock"
STORAGE_TYPE = "azure-native:storage:StorageAccount"
U = UNKNOWN_STRING_VALUE
UNKNOWN_PREFIX = ("Management lock '%s' must not cover the resource group of a workspace or of a compute's subnet (a "
                  "lock there blocks cluster scaling); cannot tell: ")
PLATFORM_ID = workspace_id("rg-shared-ml", "mlw-platform")


def verdicts(resources):
    return [(f.urn.rsplit("::", 1)[-1], f.message, f.unknown) for f in RULE.evaluate_stack(resources)]


def unknown(props):
    return unknown_checking_proxy(props)


# Created in this stack, as a real preview sees them: the groups' names are inputs (known), every id and output name
# is unknown, and property dependencies say what each input was built from.
NATIVE_RG = res(RESOURCE_GROUP_TYPE, "rg", {"resourceGroupName": "rg-ml", "location": "westeurope"})
NATIVE_WS = res(WORKSPACE_TYPE, "mlw", unknown(workspace_props(resourceGroupName=U)), resourceGroupName=NATIVE_RG.urn)
NATIVE_CLUSTER = res(COMPUTE_TYPE, "gpu", unknown(cluster_in_subnet(None, workspace=U, group=U)),
                     workspaceName=NATIVE_WS.urn, resourceGroupName=NATIVE_RG.urn)
C_RG = res(CLASSIC_RG, "rg", {"name": "rg-ml", "location": "westeurope"})
C_WS = res(CLASSIC_WORKSPACE, "mlw", unknown({"name": "mlw-prod", "resourceGroupName": U}), resourceGroupName=C_RG.urn)
C_CLUSTER = res(CLASSIC_CLUSTER, "gpu", unknown({"name": "gpu", "machineLearningWorkspaceId": U}),
                machineLearningWorkspaceId=C_WS.urn)
STORAGE = res(STORAGE_TYPE, "sa", {"accountName": "samlprod", "resourceGroupName": U})


def classic_lock(name, scope, built_from=None):
    """A classic lock; `built_from`: the URN its scope was built from (a property dependency)."""
    deps = {"scope": built_from} if built_from else {}
    return res(CLASSIC_LOCK, name, unknown({"name": name, "scope": scope, "lockLevel": "CanNotDelete"}), **deps)


def literal_cluster(workspace_id_=PLATFORM_ID, **deps):
    """A classic cluster of a workspace that lives in another stack, named by its literal ARM id."""
    return res(CLASSIC_CLUSTER, "gpu", unknown({"name": "gpu", "machineLearningWorkspaceId": workspace_id_,
                                                "vmSize": "Standard_D4ds_v4"}), **deps)


NATIVE_LITERAL = res(COMPUTE_TYPE, "gpu", cluster_in_subnet(None, workspace="mlw-platform", group="rg-shared-ml"))
OF_PLATFORM = "workspace 'mlw-platform' of compute 'gpu'"

PREVIEW_CASES = [
    ("native-rg-lock-built-from-the-workspace-group",
     [NATIVE_RG, NATIVE_WS, NATIVE_CLUSTER,
      res(LOCK_RG_TYPE, "lock", unknown(rg_lock_props(U)), resourceGroupName=NATIVE_RG.urn)],
     [(*expect("lock", "rg", "workspace 'mlw'", RG_SCOPE), False)]),
    ("native-literal-lock-name-meets-the-group-resource-name",
     [NATIVE_RG, NATIVE_WS, NATIVE_CLUSTER, res(LOCK_RG_TYPE, "lock", rg_lock_props("RG-ML"))],
     [(*expect("lock", "rg", "workspace 'mlw'", RG_SCOPE), False)]),
    ("native-lock-on-another-named-group-resource-passes",
     [NATIVE_RG, NATIVE_WS, NATIVE_CLUSTER, res(RESOURCE_GROUP_TYPE, "other", {"resourceGroupName": "rg-other"}),
      res(LOCK_RG_TYPE, "lock", unknown(rg_lock_props(U)), resourceGroupName=urn(RESOURCE_GROUP_TYPE, "other"))],
     []),
    ("native-scope-lock-built-from-the-group-id",
     [NATIVE_RG, NATIVE_WS, res(LOCK_SCOPE_TYPE, "lock", unknown(scope_lock_props(U)), scope=NATIVE_RG.urn)],
     [(*expect("lock", "rg", "workspace 'mlw'", RG_SCOPE), False)]),
    ("native-scope-lock-built-from-a-resource-id-passes",
     [NATIVE_RG, NATIVE_WS, STORAGE, res(LOCK_SCOPE_TYPE, "lock", unknown(scope_lock_props(U)), scope=STORAGE.urn)],
     []),
    ("native-scope-unknown-and-built-from-nothing-here-is-unknown",
     [NATIVE_RG, NATIVE_WS, res(LOCK_SCOPE_TYPE, "lock", unknown(scope_lock_props(U)))],
     [("lock", UNKNOWN_PREFIX % "lock" + "its scope is unknown until deployment and built from no resource of this "
       "stack.", True)]),
    ("classic-lock-on-the-group-id",
     [C_RG, C_WS, C_CLUSTER, classic_lock("lock", U, C_RG.urn)],
     [(*expect("lock", "rg", "workspace 'mlw'", RG_SCOPE), False)]),
    ("classic-lock-on-the-workspace-id-passes",
     [C_RG, C_WS, C_CLUSTER, classic_lock("lock", U, C_WS.urn)], []),
    ("classic-literal-lock-on-the-group-resource-name",
     [C_RG, C_WS, C_CLUSTER, classic_lock("lock", rg_id("rg-ml"))],
     [(*expect("lock", "rg", "workspace 'mlw'", RG_SCOPE), False)]),
    # the probe of #29: a classic cluster of a workspace in another stack (literal id), a classic lock on its group
    ("probe-classic-cluster-literal-workspace-id-classic-lock",
     [literal_cluster(), classic_lock("lock", rg_id("rg-shared-ml"))],
     [(*expect("lock", "rg-shared-ml", OF_PLATFORM, RG_SCOPE), False)]),
    ("probe-classic-lock-built-from-a-looked-up-group-is-literal-too",
     [literal_cluster(), classic_lock("lock", rg_id("RG-SHARED-ML"))],
     [(*expect("lock", "rg-shared-ml", OF_PLATFORM, RG_SCOPE), False)]),
    ("classic-literal-workspace-lock-in-another-subscription-passes",
     [literal_cluster(), classic_lock("lock", rg_id("rg-shared-ml", OTHER_SUB))], []),
    ("classic-literal-workspace-lock-on-another-group-passes",
     [literal_cluster(), classic_lock("lock", rg_id("rg-other"))], []),
    ("classic-literal-workspace-subscription-lock",
     [literal_cluster(), res(LOCK_SUB_TYPE, "lock", subscription_lock_props())],
     [(*expect("lock", "rg-shared-ml", OF_PLATFORM, SUB_SCOPE), False)]),
    ("native-literal-workspace-native-rg-lock",
     [NATIVE_LITERAL, res(LOCK_RG_TYPE, "lock", rg_lock_props("rg-shared-ml"))],
     [(*expect("lock", "rg-shared-ml", OF_PLATFORM, RG_SCOPE), False)]),
    ("native-literal-workspace-classic-lock",
     [NATIVE_LITERAL, classic_lock("lock", rg_id("rg-shared-ml"))],
     [(*expect("lock", "rg-shared-ml", OF_PLATFORM, RG_SCOPE), False)]),
    ("a-workspace-of-the-stack-is-named-once",
     [NATIVE_RG, NATIVE_WS, res(COMPUTE_TYPE, "gpu", cluster_in_subnet(None, workspace="mlw-prod", group="rg-ml")),
      res(LOCK_RG_TYPE, "lock", rg_lock_props("rg-ml"))],
     [(*expect("lock", "rg", "workspace 'mlw'", RG_SCOPE), False)]),
    ("classic-workspace-id-from-elsewhere-unknown-is-unknown",
     [literal_cluster(U), classic_lock("lock", rg_id("rg-shared-ml"))],
     [("lock", UNKNOWN_PREFIX % "lock" + "preview cannot tell whether it locks resource group rg-shared-ml or "
       "<unknown>, which holds workspace '<unknown>' of compute 'gpu'.", True)]),
    ("classic-workspace-id-from-elsewhere-subscription-lock-still-covers",
     [literal_cluster(U), res(LOCK_SUB_TYPE, "lock", subscription_lock_props())],
     [(*expect("lock", "<unknown>", "workspace '<unknown>' of compute 'gpu'", SUB_SCOPE), False)]),
]


@pytest.mark.parametrize(("resources", "expected"), [c[1:] for c in PREVIEW_CASES], ids=[c[0] for c in PREVIEW_CASES])
def test_preview_knowledge(resources, expected):
    assert verdicts(resources) == expected


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
