"""Hub and project workspaces (policies/hubs.py): a project takes its managed network, public network access and
HBI from its hub (concept-hub-workspace.md). Each workspace rule judges the hub for both when the hub is in the
stack, and cannot tell without it; never "found Disabled" from the project's own inputs."""

import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, unknown_checking_proxy

from amlkit.policies.hubs import hub_of
from amlkit.policies.rules import (
    aml_compute_network_isolated,
    aml_workspace_hbi,
    aml_workspace_managed_network,
    aml_workspace_private_endpoint,
    aml_workspace_public_network_disabled,
)
from tests.policies.compute_fixtures import resource, with_unknown
from tests.policies.helpers import DELETE, changed, cluster_props
from tests.policies.workspace_fixtures import WORKSPACE_TYPE, workspace_id, workspace_props

HUB_ID = workspace_id(name="hub-prod")
LEFT_TO_THE_HUB = ("publicNetworkAccess", "managedNetwork", "hbiWorkspace")  # azure's defaults: public, none, false


def hub(**overrides):
    return resource("hub", workspace_props(**{"workspaceName": "hub-prod", "kind": "Hub", **overrides}),
                    WORKSPACE_TYPE)


def project(name="proj", depends=None, **overrides):
    props = workspace_props(workspaceName=name, kind="Project", hubResourceId=HUB_ID)
    for key in LEFT_TO_THE_HUB:
        props = changed(props, key, DELETE)
    for key, value in overrides.items():
        props = changed(props, key, value)
    return resource(name, props, WORKSPACE_TYPE, depends)


NETWORK = (aml_workspace_managed_network.RULE, "have managedNetwork.isolationMode AllowOnlyApprovedOutbound",
           "managed network")
PUBLIC = (aml_workspace_public_network_disabled.RULE, "have publicNetworkAccess Disabled", "public network access")
HBI = (aml_workspace_hbi.RULE, "have hbiWorkspace true", "HBI setting")
RULES = [NETWORK, PUBLIC, HBI]


def messages(rule, stack):
    return [(f.urn.rsplit("::", 1)[-1], f.message, f.unknown) for f in rule.evaluate_stack(stack)]


@pytest.mark.parametrize(("rule", "expectation", "setting"), RULES, ids=["network", "public", "hbi"])
def test_a_project_with_its_compliant_hub_in_the_stack_passes(rule, expectation, setting):
    assert messages(rule, [hub(), project()]) == []


@pytest.mark.parametrize(("rule", "found"), [
    (aml_workspace_managed_network.RULE, "Workspace 'hub' must have managedNetwork.isolationMode "
     "AllowOnlyApprovedOutbound; found AllowInternetOutbound."),
    (aml_workspace_public_network_disabled.RULE, "Workspace 'hub' must have publicNetworkAccess Disabled; found "
     "Enabled."),
    (aml_workspace_hbi.RULE, "Workspace 'hub' must have hbiWorkspace true; found false."),
], ids=["network", "public", "hbi"])
def test_an_offending_hub_is_reported_once_for_itself_and_its_projects(rule, found):
    offending = hub(managedNetwork={"isolationMode": "AllowInternetOutbound"}, publicNetworkAccess="Enabled",
                    hbiWorkspace=False)
    assert messages(rule, [offending, project(), project("proj-2")]) == [("hub", found, False)]


@pytest.mark.parametrize(("rule", "expectation", "setting"), RULES, ids=["network", "public", "hbi"])
def test_a_project_without_its_hub_in_the_stack_is_unknown_never_found_disabled(rule, expectation, setting):
    assert messages(rule, [project()]) == [
        ("proj", f"Workspace 'proj' must {expectation}; cannot tell: a project workspace takes its {setting} from "
                 f"its hub '{HUB_ID}', which is not in this stack.", True)]


@pytest.mark.parametrize(("rule", "expectation", "setting"), RULES, ids=["network", "public", "hbi"])
def test_a_project_whose_hub_id_is_unknown_and_not_from_a_stack_hub_is_unknown(rule, expectation, setting):
    props = with_unknown(project().props, "hubResourceId", UNKNOWN_STRING_VALUE)
    stack = [hub(workspaceName="other"), resource("proj", props, WORKSPACE_TYPE)]
    assert messages(rule, stack)[-1] == (
        "proj", f"Workspace 'proj' must {expectation}; cannot tell: a project workspace takes its {setting} from "
                f"its hub (hubResourceId unknown until deployment), which is not in this stack.", True)


def test_hub_found_by_property_dependency_while_its_id_is_unknown():
    the_hub = hub()
    props = with_unknown(project().props, "hubResourceId", UNKNOWN_STRING_VALUE)
    proj = resource("proj", props, WORKSPACE_TYPE, {"hubResourceId": [the_hub.urn]})
    assert hub_of(proj, [the_hub, proj]) is the_hub


@pytest.mark.parametrize(("hub_id", "found"), [
    (HUB_ID, True),
    (HUB_ID.upper().replace("/SUBSCRIPTIONS/", "/subscriptions/"), True),  # ARM names ignore case
    (workspace_id(group="rg-other", name="hub-prod"), False),
    (workspace_id(name="hub-other"), False),
    ("not-an-arm-id", False),
], ids=["same", "other-casing", "other-group", "other-name", "garbage"])
def test_hub_found_by_arm_id(hub_id, found):
    the_hub = hub()
    proj = project(hubResourceId=hub_id)
    assert (hub_of(proj, [the_hub, proj]) is the_hub) is found


def test_kind_compares_case_insensitively_and_default_workspaces_are_judged_on_their_own():
    lower = project(kind="project")
    default = resource("plain", workspace_props(workspaceName="plain", publicNetworkAccess="Enabled"), WORKSPACE_TYPE)
    assert messages(aml_workspace_public_network_disabled.RULE, [hub(), lower, default]) == [
        ("plain", "Workspace 'plain' must have publicNetworkAccess Disabled; found Enabled.", False)]


# --- what a real preview knows: the hub's id is unknown, the graph and its group resource name it -------------

P_RG = resource("rg", {"resourceGroupName": "rg-ml-prod", "location": "westeurope"},
                "azure-native:resources:ResourceGroup")
P_HUB = resource("hub", unknown_checking_proxy(workspace_props(workspaceName="hub-prod", kind="Hub",
                                                               resourceGroupName=UNKNOWN_STRING_VALUE)),
                 WORKSPACE_TYPE, {"resourceGroupName": [P_RG.urn]})


@pytest.mark.parametrize(("hub_id", "built_from", "found"), [
    (UNKNOWN_STRING_VALUE, [P_HUB.urn], True),
    (HUB_ID, [], True),
    (workspace_id("rg-other", "hub-prod"), [], False),
    (UNKNOWN_STRING_VALUE, [], False),
], ids=["unknown-id-built-from-the-hub", "literal-id-meets-the-group-resource-name", "literal-id-of-another-group",
        "unknown-id-built-from-nothing-here"])
def test_hub_of_on_what_preview_knows(hub_id, built_from, found):
    props = workspace_props(workspaceName="proj", kind="Project", hubResourceId=hub_id)
    proj = resource("proj", unknown_checking_proxy(props), WORKSPACE_TYPE, {"hubResourceId": built_from})
    assert hub_of(proj, [P_RG, P_HUB, proj]) is (P_HUB if found else None)


# --- a workspace whose kind preview cannot know: only its own verdict is unknown ------------------------------

def unsure_kind(name, **overrides):
    """A created workspace that leaves `kind` out: an unknown output in a first preview."""
    props = workspace_props(workspaceName=name, kind=UNKNOWN_STRING_VALUE, **overrides)
    return resource(name, unknown_checking_proxy(props), WORKSPACE_TYPE)


OFFENDING = {"publicNetworkAccess": "Enabled", "hbiWorkspace": False,
             "managedNetwork": {"isolationMode": "AllowInternetOutbound"}}


@pytest.mark.parametrize(("rule", "expectation", "found"), [
    (aml_workspace_managed_network.RULE, "have managedNetwork.isolationMode AllowOnlyApprovedOutbound",
     "AllowInternetOutbound"),
    (aml_workspace_public_network_disabled.RULE, "have publicNetworkAccess Disabled", "Enabled"),
    (aml_workspace_hbi.RULE, "have hbiWorkspace true", "false"),
], ids=["network", "public", "hbi"])
def test_an_unknown_kind_makes_only_that_workspace_unknown(rule, expectation, found):
    known = resource("known", workspace_props(workspaceName="known", **OFFENDING), WORKSPACE_TYPE)
    assert messages(rule, [known, unsure_kind("unsure", **OFFENDING)]) == [
        ("known", f"Workspace 'known' must {expectation}; found {found}.", False),
        ("unsure", f"Workspace 'unsure' must {expectation}; cannot tell: workspace 'unsure': kind can't be known "
                   "during preview.", True),
    ]


def test_an_unknown_kind_leaves_other_rules_deciding_the_other_workspaces():
    """The private-endpoint rule: the known workspace without an endpoint is a finding, the unsure one unknown; the
    compute-network rule: a cluster without a subnet in the unsure workspace is unknown, in the known one decided."""
    known = resource("known", workspace_props(workspaceName="known", resourceGroupName="rg",
                                              managedNetwork={"isolationMode": "Disabled"}), WORKSPACE_TYPE)
    unsure = unsure_kind("unsure", resourceGroupName="rg")
    assert messages(aml_workspace_private_endpoint.RULE, [known, unsure]) == [
        ("known", "Workspace 'known' must have a private endpoint (group amlworkspace) when publicNetworkAccess is "
                  "Disabled; found no private endpoint in the stack (a managed network isolates outbound traffic "
                  "only).", False),
        ("unsure", "Workspace 'unsure' must have a private endpoint (group amlworkspace) when publicNetworkAccess is "
                   "Disabled; cannot tell: workspace 'unsure': kind can't be known during preview.", True),
    ]
    clusters = [resource(f"cpu-{w}", changed(changed(cluster_props(), "workspaceName", w), "resourceGroupName", "rg"))
                for w in ("known", "unsure")]
    clusters = [resource(c.name, changed(c.props, "properties.properties.subnet", DELETE)) for c in clusters]
    found = messages(aml_compute_network_isolated.RULE, [known, unsure, *clusters])
    assert [(name, unknown) for name, _, unknown in found] == [("cpu-known", False), ("cpu-unsure", True)]
    assert found[1][1].endswith("cannot tell: workspace 'unsure': kind can't be known during preview.")


# --- a workspace whose setting itself preview cannot know: only its own verdict is unknown -----------------------

SETTINGS = {"publicNetworkAccess": "public network access", "hbiWorkspace": "HBI setting",
            "managedNetwork": "managed network"}


@pytest.mark.parametrize(("rule", "expectation", "found", "key"), [
    (aml_workspace_managed_network.RULE, "have managedNetwork.isolationMode AllowOnlyApprovedOutbound",
     "AllowInternetOutbound", "managedNetwork"),
    (aml_workspace_public_network_disabled.RULE, "have publicNetworkAccess Disabled", "Enabled", "publicNetworkAccess"),
    (aml_workspace_hbi.RULE, "have hbiWorkspace true", "false", "hbiWorkspace"),
], ids=["network", "public", "hbi"])
def test_an_unknown_setting_makes_only_that_workspace_unknown(rule, expectation, found, key):
    """E.g. a classic workspace that leaves `high_business_impact` out: an output the provider computes."""
    known = resource("known", workspace_props(workspaceName="known", **OFFENDING), WORKSPACE_TYPE)
    unsure = resource("unsure", unknown_checking_proxy(workspace_props(
        workspaceName="unsure", **{**OFFENDING, key: UNKNOWN_STRING_VALUE})), WORKSPACE_TYPE)
    assert messages(rule, [known, unsure]) == [
        ("known", f"Workspace 'known' must {expectation}; found {found}.", False),
        ("unsure", f"Workspace 'unsure' must {expectation}; cannot tell: workspace 'unsure': {SETTINGS[key]} can't "
                   "be known during preview.", True),
    ]
