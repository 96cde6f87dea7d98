"""aml-compute-instance-identity: an instance's identity is optional; one it has needs Contributor on the workspace."""

import pytest
from pulumi_policy import StackValidationArgs
from pulumi_policy.policy import PolicyResource
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError, unknown_checking_proxy

from amlkit.policies.azure import compute_view
from amlkit.policies.pack import build_policies
from amlkit.policies.rules.aml_compute_identity import Assignments, _grants_to
from amlkit.policies.rules.aml_compute_instance_identity import RULE
from tests.policies.compute_fixtures import (
    USER_IDENTITY_ID,
    WORKSPACE_TYPE,
    instance_props,
    resource,
    urn,
    with_unknown,
    workspace,
    workspace_props,
)
from tests.policies.examples import Example
from tests.policies.helpers import COMPUTE_TYPE, DELETE, Public, changed, cluster_props

PUBLIC = Public("AMLK-0033", "aml-compute-instance-identity", level="advisory", kind="stack")

HAPPY = cluster_props()
IDLE = ("must give its managed identity Contributor on its workspace (without it, idle shutdown never stops the "
        "instance)")

ROLE_TYPE = "azure-native:authorization:RoleAssignment"
UAI_TYPE = "azure-native:managedidentity:UserAssignedIdentity"
SUB = "/subscriptions/0000"
WORKSPACE_ID = f"{SUB}/resourceGroups/rg-ml-prod/providers/Microsoft.MachineLearningServices/workspaces/mlw-prod"
CONTRIBUTOR = f"{SUB}/providers/Microsoft.Authorization/roleDefinitions/b24988ac-6180-42a0-ab88-20f7382dd24c"
OWNER = f"{SUB}/providers/Microsoft.Authorization/roleDefinitions/8e3af657-a8ff-443c-a75c-2fe8c4bcb635"
READER = f"{SUB}/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
WS = workspace()
CI_URN = urn(COMPUTE_TYPE, "ci-alice")
UAI_URN = urn(UAI_TYPE, "uai")


def identity(value, props=HAPPY):
    return changed(props, "identity", value)


def grant(name="ci-alice-contributor", role=CONTRIBUTOR, scope=WORKSPACE_ID, principal=CI_URN, scope_from=WS.urn):
    """A role assignment; `principal`/`scope_from` are the URNs its principalId/scope were built from."""
    props = {"principalId": "00000000-aaaa-0000-0000-000000000000", "principalType": "ServicePrincipal",
             "roleDefinitionId": role, "scope": scope}
    depends = {"principalId": [principal] if principal else [], "scope": [scope_from] if scope_from else []}
    return resource(name, props, ROLE_TYPE, depends)


def findings(resources):
    return [(f.urn.rsplit("::", 1)[-1], f.message, f.unknown) for f in RULE.evaluate_stack(resources)]


def decided(name, message):
    return name, message, False


def unknown(reason, name="ci-alice"):
    return name, f"Compute instance '{name}' {IDLE}; cannot tell: {reason}.", True


# --- an instance's identity needs Contributor on the workspace for idle shutdown ----------------------------

CI = resource("ci-alice", instance_props())
UAI = resource("uai", {"resourceName": "id-ml-compute", "resourceGroupName": "rg-ml-prod"}, UAI_TYPE)
UAI_INSTANCE = resource("ci-alice", identity({"type": "UserAssigned", "userAssignedIdentities": [USER_IDENTITY_ID]},
                                             instance_props()), depends={"identity": [UAI_URN]})
RG_SCOPE = f"{SUB}/resourceGroups/rg-ml-prod"


def not_granted(names):
    return decided("ci-alice", f"Compute instance 'ci-alice' {IDLE}; found role assignments {names}, none of them "
                               "Contributor or Owner on the workspace or a scope above it.")


NO_ROLE = unknown("the stack assigns its managed identity no role, so a grant made elsewhere cannot be seen")

CONTRIBUTOR_CASES = [
    ("contributor-on-workspace", [WS, CI, grant()], []),
    ("owner-on-workspace", [WS, CI, grant(role=OWNER)], []),
    ("role-id-upper-case", [WS, CI, grant(role=CONTRIBUTOR.upper())], []),
    ("workspace-id-literal", [WS, CI, grant(scope_from=None)], []),
    ("workspace-id-other-case", [WS, CI, grant(scope=WORKSPACE_ID.upper(), scope_from=None)], []),
    ("resource-group-scope-inherits", [WS, CI, grant(scope=RG_SCOPE, scope_from=None)], []),
    ("subscription-scope-inherits", [WS, CI, grant(scope=SUB, scope_from=None)], []),
    ("workspace-not-in-stack-literal-id", [CI, grant(scope_from=None)], []),
    ("reader-only", [WS, CI, grant("ci-alice-reader", role=READER)], [not_granted("'ci-alice-reader'")]),
    ("reader-and-contributor", [WS, CI, grant("ci-alice-reader", role=READER), grant()], []),
    ("contributor-on-other-workspace", [WS, CI, grant(scope=WORKSPACE_ID.replace("mlw-prod", "mlw-dev"),
                                                            scope_from=None)],
     [not_granted("'ci-alice-contributor'")]),
    ("contributor-on-other-group", [WS, CI, grant(scope=f"{SUB}/resourceGroups/rg-other", scope_from=None)],
     [not_granted("'ci-alice-contributor'")]),
    ("contributor-on-storage-account", [WS, CI, grant(
        scope=f"{RG_SCOPE}/providers/Microsoft.Storage/storageAccounts/stml", scope_from=None)],
     [not_granted("'ci-alice-contributor'")]),
    ("no-role-assignment-is-unknown", [WS, CI], [NO_ROLE]),
    ("assignment-for-another-principal-is-unknown", [WS, CI, grant(principal=urn(COMPUTE_TYPE, "other"))],
     [NO_ROLE]),
    ("user-assigned-identity-granted", [WS, UAI, UAI_INSTANCE, grant(principal=UAI_URN)], []),
    ("user-assigned-identity-reader", [WS, UAI, UAI_INSTANCE, grant("uai-reader", role=READER, principal=UAI_URN)],
     [not_granted("'uai-reader'")]),
    ("user-assigned-literal-id-is-unknown", [WS, resource("ci-alice", UAI_INSTANCE.props), grant(principal=UAI_URN)],
     [NO_ROLE]),
    ("clusters-need-no-contributor", [WS, resource("cpu-cluster", HAPPY)], []),
    ("instance-without-identity-passes-by-default", [WS, resource("ci-alice", identity(DELETE, instance_props()))],
     []),
    ("malformed-identity-is-aml-compute-identitys", [WS, resource("ci-alice", identity(
        {"type": "Both"}, instance_props()))], []),
]


@pytest.mark.parametrize(("resources", "expected"), [c[1:] for c in CONTRIBUTOR_CASES],
                         ids=[c[0] for c in CONTRIBUTOR_CASES])
def test_instance_identity_needs_contributor_on_the_workspace(resources, expected):
    assert findings(resources) == expected


def test_unknown_role_is_unknown_for_that_instance_only():
    unknown_grant = grant()
    unknown_grant = resource(unknown_grant.name, with_unknown(dict(unknown_grant.props), "roleDefinitionId",
                                                              UNKNOWN_STRING_VALUE), ROLE_TYPE,
                             {"principalId": [CI_URN], "scope": [WS.urn]})
    other = resource("ci-bob", instance_props())
    assert findings([WS, other, CI, unknown_grant]) == [
        unknown("the stack assigns its managed identity no role, so a grant made elsewhere cannot be seen", "ci-bob"),
        unknown("role or scope of 'ci-alice-contributor' unknown until deployment"),
    ]


@pytest.mark.parametrize(("config", "expected"), [
    (None, []),
    ({"requireIdentity": False}, []),
    ({"requireIdentity": True}, [decided("ci-alice", "Compute instance 'ci-alice' must have a managed identity, either "
                                 "SystemAssigned or UserAssigned; found none (the identity is optional in Azure; "
                                 "requireIdentity asks for one).")]),
], ids=["default-optional", "explicitly-optional", "required"])
def test_require_identity_is_configurable(config, expected):
    stack = [WS, resource("ci-alice", identity(DELETE, instance_props()))]
    assert [(f.urn.rsplit("::", 1)[-1], f.message, f.unknown) for f in RULE.evaluate_stack(stack, config)] == expected


def test_through_the_pack_edge_decided_findings_are_reported_before_the_unknown():
    policy = build_policies([RULE])[0]

    def policy_resource(name, props):
        return PolicyResource(COMPUTE_TYPE, unknown_checking_proxy(props), urn(COMPUTE_TYPE, name), name, None,
                              None, None, [], {})

    stack = [policy_resource("ci-bob", identity(DELETE, instance_props())),
             policy_resource("ci-alice", instance_props())]
    reported = []
    with pytest.raises(UnknownValueError) as caught:
        policy.validate(StackValidationArgs(stack, {"requireIdentity": True}),
                        lambda message, urn=None: reported.append((urn, message)))
    assert reported == [(urn(COMPUTE_TYPE, "ci-bob"), "Compute instance 'ci-bob' must have a managed identity, either "
                         "SystemAssigned or UserAssigned; found none (the identity is optional in Azure; "
                         "requireIdentity asks for one).")]
    assert caught.value.message == NO_ROLE[1]


def test_is_an_advisory_stack_rule():
    assert (RULE.is_stack_rule, RULE.level) == (True, "advisory")


# The example: the instance's Contributor grant, found by the property dependencies of its principalId (the
# instance) and scope (the workspace).
EXAMPLE = Example.of_stacks(CONTRIBUTOR_CASES, fails="reader-only", passes="contributor-on-workspace")


# --- what a real preview knows: the instance's workspace and group ids are unknown, the graph names them --------

P_RG = resource("rg", {"resourceGroupName": "rg-ml-prod", "location": "westeurope"},
                "azure-native:resources:ResourceGroup")
P_WS = resource("mlw", unknown_checking_proxy(workspace_props(resourceGroupName=UNKNOWN_STRING_VALUE)),
                WORKSPACE_TYPE, depends={"resourceGroupName": [P_RG.urn]})
P_CI = resource("ci-alice", unknown_checking_proxy({**instance_props(), "workspaceName": UNKNOWN_STRING_VALUE,
                                                    "resourceGroupName": UNKNOWN_STRING_VALUE}),
                depends={"workspaceName": [P_WS.urn], "resourceGroupName": [P_RG.urn]})


def preview_grant(scope, scope_from):
    props = {"principalId": UNKNOWN_STRING_VALUE, "principalType": "ServicePrincipal", "roleDefinitionId": CONTRIBUTOR,
             "scope": scope}
    return resource("grant", unknown_checking_proxy(props), ROLE_TYPE,
                    {"principalId": [CI_URN], "scope": [scope_from] if scope_from else []})


PREVIEW_CASES = [
    ("scope-built-from-the-workspace-id", UNKNOWN_STRING_VALUE, P_WS.urn, []),
    ("scope-built-from-the-group-id", UNKNOWN_STRING_VALUE, P_RG.urn, []),
    ("literal-group-id-meets-the-group-resource-name", RG_SCOPE, None, []),
    ("literal-workspace-id-meets-the-workspace-and-group-names", WORKSPACE_ID, None, []),
    ("literal-other-group", f"{SUB}/resourceGroups/rg-other", None, [not_granted("'grant'")]),
    ("scope-unknown-and-built-from-nothing-here", UNKNOWN_STRING_VALUE, None,
     [unknown("role or scope of 'grant' unknown until deployment")]),
]


@pytest.mark.parametrize(("scope", "scope_from", "expected"), [c[1:] for c in PREVIEW_CASES],
                         ids=[c[0] for c in PREVIEW_CASES])
def test_preview_knowledge(scope, scope_from, expected):
    assert findings([P_RG, P_WS, P_CI, preview_grant(scope, scope_from)]) == expected



# --- the role assignments are indexed once per stack (#32): the verdicts of a mixed stack are pinned -----------

UAI2_URN, UAI3_URN = urn(UAI_TYPE, "uai-2"), urn(UAI_TYPE, "uai-3")
USER_ASSIGNED = {"type": "UserAssigned", "userAssignedIdentities": [USER_IDENTITY_ID]}


def ci(name, depends=None, **props):
    """An instance named `name`; `depends` maps an input to the URNs it was built from."""
    return resource(name, {**instance_props(), "computeName": name, **props}, depends=depends)


def as_preview(r):
    """The resource as preview shows it: reading an unknown input raises."""
    return resource(r.name, unknown_checking_proxy(dict(r.props)), r.type, r.property_dependencies)


def of(name):
    return urn(COMPUTE_TYPE, name)


MIXED = [as_preview(r) for r in [  # instances, assignments, the workspace interleaved; unknowns; shared identities
    grant("bob-reader", role=READER, principal=of("ci-bob")),
    ci("ci-alice"),
    grant("carol-unknown-role", role=UNKNOWN_STRING_VALUE, principal=of("ci-carol")),
    ci("ci-bob"),
    grant("uai-owner", role=OWNER, principal=UAI_URN),
    WS,
    ci("ci-carol"),
    ci("ci-dave", depends={"identity": [UAI_URN]}, identity=USER_ASSIGNED),
    grant("alice-contributor"),
    grant("bob-on-another-workspace", scope=WORKSPACE_ID.replace("mlw-prod", "mlw-dev"), scope_from=None,
          principal=of("ci-bob")),
    ci("ci-erin", depends={"identity": [UAI2_URN]}, identity=USER_ASSIGNED),
    grant("uai2-reader", role=READER, principal=UAI2_URN),
    resource("uai2-uai3-reader", grant(role=READER).props, ROLE_TYPE, {"principalId": [UAI3_URN, UAI2_URN]}),
    ci("ci-frank", depends={"identity": [UAI3_URN, UAI2_URN]}, identity={**USER_ASSIGNED, "type": "UserAssigned"}),
    ci("ci-gina"),
    grant("gina-unknown-scope", scope=UNKNOWN_STRING_VALUE, scope_from=None, principal=of("ci-gina")),
    grant("gina-reader", role=READER, principal=of("ci-gina")),
    ci("ci-hank"),
    grant("ivan-contributor", principal=of("ci-ivan")),
    ci("ci-ivan", depends={"identity": [UAI_URN]}, identity={"type": "SystemAssigned,UserAssigned"}),
]]


def none_of(name, names):
    return decided(name, f"Compute instance '{name}' {IDLE}; found role assignments {names}, none of them "
                         "Contributor or Owner on the workspace or a scope above it.")


PINNED = [  # the findings of MIXED before the index, as they were (scan of every assignment per instance)
    none_of("ci-bob", "'bob-reader', 'bob-on-another-workspace'"),
    unknown("role or scope of 'carol-unknown-role' unknown until deployment", "ci-carol"),
    none_of("ci-erin", "'uai2-reader', 'uai2-uai3-reader'"),
    none_of("ci-frank", "'uai2-reader', 'uai2-uai3-reader'"),
    unknown("role or scope of 'gina-unknown-scope' unknown until deployment", "ci-gina"),
    unknown("the stack assigns its managed identity no role, so a grant made elsewhere cannot be seen", "ci-hank"),
]


PINNED_REVERSED = [  # MIXED[::-1]: the findings in stack order, each listing its assignments in stack order
    PINNED[5],
    PINNED[4],
    none_of("ci-frank", "'uai2-uai3-reader', 'uai2-reader'"),
    none_of("ci-erin", "'uai2-uai3-reader', 'uai2-reader'"),
    PINNED[1],
    none_of("ci-bob", "'bob-on-another-workspace', 'bob-reader'"),
]


@pytest.mark.parametrize(("stack", "expected"), [(MIXED, PINNED), (MIXED[::-1], PINNED_REVERSED)],
                         ids=["as-written", "reversed"])
def test_a_mixed_stack_keeps_its_exact_findings(stack, expected):
    assert findings(stack) == expected


def test_the_index_finds_what_a_scan_of_every_assignment_finds():
    index = Assignments([r for r in MIXED if r.type == ROLE_TYPE])
    for instance in (r for r in MIXED if r.type == COMPUTE_TYPE):
        compute = compute_view(instance.type, instance.props)
        scan = [a.name for a in index.listed if _grants_to(a, instance, compute)]
        assert [a.name for a in index.granted_to(instance, compute)] == scan
