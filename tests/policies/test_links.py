"""amlkit.policies.links: linking on what a preview knows (graph first, then known values, else cannot tell)."""

import pytest
from pulumi_policy.proxy import unknown_checking_proxy

from amlkit.policies.links import CannotLink, Name, Stack, both, stack_of, workspace_of, workspaces_by_key
from tests.policies.preview_fixtures import PLATFORM_ID, U, cluster, group, workspace
from tests.policies.workspace_fixtures import RESOURCE_GROUP_TYPE, WORKSPACE_TYPE, res, workspace_props

PROVIDERS = ("native", "classic")


@pytest.mark.parametrize(("first", "second", "same"), [
    (Name("rg-ml"), Name("RG-ML"), True),
    (Name("rg-ml"), Name("rg-other"), False),
    (Name(None, False, frozenset({"urn:rg"})), Name(None, False, frozenset({"urn:rg"})), True),
    (Name(None, False, frozenset({"urn:rg"})), Name("rg-ml"), None),
    (Name(None, False), Name(None, False), None),
    (Name(None), Name("rg-ml"), False),
], ids=["case-insensitive", "different", "same-source-while-unknown", "unknown-vs-known", "both-unknown",
        "omitted"])
def test_name_same(first, second, same):
    assert first.same(second) is same
    assert second.same(first) is same


def test_both_is_a_three_valued_and():
    assert [both(a, b) for a, b in [(True, True), (True, None), (None, False), (False, True)]] == [
        True, None, False, False]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_workspace_of_follows_the_graph_while_ids_are_unknown(provider):
    rg = group(provider)
    ws = workspace(provider, rg)
    other = workspace(provider, rg, "mlw2")
    compute = cluster(provider, ws, rg)
    assert workspace_of(compute, workspaces_by_key([rg, other, ws, compute])) is ws


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_literal_id_of_another_stack_is_not_in_the_stack(provider):
    rg = group(provider)
    ws = workspace(provider, rg)
    assert workspace_of(cluster(provider, PLATFORM_ID), workspaces_by_key([rg, ws])) is None


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_literal_id_meets_a_stack_workspace_through_its_group_resource(provider):
    rg = group(provider, azure_name="rg-shared-ml")
    ws = workspace(provider, rg, "mlw-platform")
    compute = cluster(provider, PLATFORM_ID.replace("mlw-platform", "MLW-PLATFORM-prod"))
    assert workspace_of(compute, workspaces_by_key([rg, ws, compute])) is ws


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_unknown_workspace_built_from_nothing_here_cannot_be_told(provider):
    rg = group(provider)
    ws = workspace(provider, rg)
    with pytest.raises(CannotLink, match="^compute 'gpu' names workspace <unknown> .*, and preview cannot tell "
                                         "whether that is workspace 'mlw' of this stack$"):
        workspace_of(cluster(provider, None), workspaces_by_key([rg, ws]))


def test_a_group_without_its_name_input_is_unknown_not_a_match():
    rg = res(RESOURCE_GROUP_TYPE, "rg", {"location": "westeurope"})
    ws = res(WORKSPACE_TYPE, "w", unknown_checking_proxy(workspace_props(resourceGroupName=U)),
             resourceGroupName=rg.urn)
    stack = Stack([rg, ws])
    assert stack.workspace_ref(ws).group == Name(None, False, frozenset({rg.urn}))
    assert stack.names_workspace(PLATFORM_ID.replace("mlw-platform", "mlw-prod"), ws) is None
    assert stack.names_workspace(PLATFORM_ID, ws) is False  # another name decides whatever the group


@pytest.mark.parametrize(("subnet", "depends", "expected"), [
    (None, False, (False, "None")),
    ("/subscriptions/s/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/v/subnets/a", False,
     (True, "/subscriptions/s/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/v/subnets/a")),
    (U, True, (True, "<unknown until deployment> (built from 'snet')")),
    (U, False, (None, "<unknown until deployment>")),
], ids=["none", "literal", "unknown-from-a-stack-subnet", "unknown-from-nothing-here"])
def test_subnet(subnet, depends, expected):
    snet = res("azure:network/subnet:Subnet", "snet", {"name": "a", "resourceGroupName": "rg-net"})
    compute = cluster("classic", PLATFORM_ID, subnet=subnet)
    if depends:
        compute = res(compute.type, compute.name, compute.props, subnetResourceId=snet.urn)
    assert Stack([snet, compute]).subnet(compute) == expected


def test_stack_of_indexes_each_resource_list_once():
    rg = group("native")
    resources = [rg, workspace("native", rg)]
    assert stack_of(resources) is stack_of(resources)
    assert stack_of(list(resources)) is not stack_of(resources)


def test_a_link_looks_up_workspaces_by_name_not_every_workspace():
    rg = group("native")
    workspaces = [workspace("native", rg, f"mlw{index}") for index in range(50)]
    stack = Stack([rg, *workspaces])
    ref = stack.compute_ref(cluster("native", PLATFORM_ID.replace("mlw-platform", "mlw7-prod").replace(
        "rg-shared-ml", "rg-ml")))
    assert stack._candidates(ref) == [workspaces[7]]
    assert stack.find(ref, "compute 'gpu'") is workspaces[7]
