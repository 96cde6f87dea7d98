import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from amlkit.policies.framework import Finding
from amlkit.policies.rules.aml_compute_network_isolated import RULE
from tests.policies import preview_fixtures as preview
from tests.policies.compute_fixtures import (
    attached_props,
    cluster,
    instance,
    instance_props,
    resource,
    stack_findings,
    with_unknown,
    workspace,
)
from tests.policies.examples import Example
from tests.policies.helpers import DELETE, Public, changed, cluster_props
from tests.policies.workspace_fixtures import workspace_id

PUBLIC = Public("AMLK-0011", "aml-compute-network-isolated", level="advisory", kind="stack")

SUBNET = "properties.properties.subnet"
EXPECT = ("must have a subnet or belong to a workspace whose managed network is isolated (isolationMode "
          "AllowInternetOutbound or AllowOnlyApprovedOutbound)")
NO_SUBNET_CLUSTER = changed(cluster_props(), SUBNET, DELETE)
NO_SUBNET_INSTANCE = changed(instance_props(), SUBNET, DELETE)


def finding(subject, found, compute):
    return Finding(f"{subject} {EXPECT}; found {found}.", compute.urn)


def case_no_subnet_workspace_without_managed_network():
    ws = workspace("mlw", managedNetwork={"isolationMode": "Disabled"})
    compute = cluster(props=NO_SUBNET_CLUSTER)
    return [ws, compute], [finding("AmlCompute cluster 'cpu-cluster'",
                                   "no subnet, and workspace 'mlw' has isolationMode Disabled", compute)]


def case_no_subnet_managed_network_omitted():
    ws = workspace("mlw", managedNetwork=DELETE)
    compute = instance(props=NO_SUBNET_INSTANCE)
    return [ws, compute], [finding("Compute instance 'ci-alice'",
                                   "no subnet, and workspace 'mlw' has isolationMode Disabled", compute)]


def case_workspace_not_in_stack():
    compute = cluster(props=NO_SUBNET_CLUSTER)
    return [compute], [finding("AmlCompute cluster 'cpu-cluster'",
                               "no subnet, and its workspace 'mlw-prod' is not in this stack", compute)]


def case_other_workspace_in_stack_does_not_count():
    compute = cluster(props=NO_SUBNET_CLUSTER)
    return [workspace("other", workspaceName="mlw-other"), compute], [
        finding("AmlCompute cluster 'cpu-cluster'", "no subnet, and its workspace 'mlw-prod' is not in this stack",
                compute)]


def case_only_offenders_reported():
    ws = workspace("mlw", managedNetwork={"isolationMode": "Disabled"})
    bad = cluster("bad", props=NO_SUBNET_CLUSTER)
    return [ws, cluster("good"), instance("ci-good"), bad], [
        finding("AmlCompute cluster 'bad'", "no subnet, and workspace 'mlw' has isolationMode Disabled", bad)]


HUB_ID = workspace_id(name="hub-prod")


def hub(mode="AllowOnlyApprovedOutbound"):
    return workspace("hub", workspaceName="hub-prod", kind="Hub", managedNetwork={"isolationMode": mode})


def project():
    """A project workspace as the amlkit component declares it: no managed network of its own (its hub's)."""
    return workspace("proj", workspaceName="mlw-prod", kind="Project", hubResourceId=HUB_ID, managedNetwork=DELETE)


def case_project_follows_its_hubs_isolated_network():
    return [hub(), project(), cluster(props=NO_SUBNET_CLUSTER), instance(props=NO_SUBNET_INSTANCE)], []


def case_project_follows_its_hubs_open_network():
    compute = cluster(props=NO_SUBNET_CLUSTER)
    return [hub("Disabled"), project(), compute], [finding(
        "AmlCompute cluster 'cpu-cluster'",
        "no subnet, and workspace 'proj' is a project of hub 'hub', which has isolationMode Disabled", compute)]


def case_project_without_its_hub_is_unknown():
    compute = cluster(props=NO_SUBNET_CLUSTER)
    return [project(), compute], [Finding(
        f"AmlCompute cluster 'cpu-cluster' {EXPECT}; cannot tell: its workspace 'proj' is a project, which shares its "
        f"hub's managed network, and its hub '{HUB_ID}' is not in this stack.", compute.urn, unknown=True)]


CASES = [
    ("happy-path-subnets", lambda: ([workspace("mlw", managedNetwork={"isolationMode": "Disabled"}),
                                     cluster(), instance()], [])),
    ("managed-network-approved-outbound", lambda: ([workspace("mlw"), cluster(props=NO_SUBNET_CLUSTER),
                                                    instance(props=NO_SUBNET_INSTANCE)], [])),
    ("managed-network-internet-outbound", lambda: ([workspace("mlw", managedNetwork={
        "isolationMode": "AllowInternetOutbound"}), cluster(props=NO_SUBNET_CLUSTER)], [])),
    ("managed-network-case-insensitive", lambda: ([workspace("mlw", managedNetwork={
        "isolationMode": "allowonlyapprovedoutbound"}), cluster(props=NO_SUBNET_CLUSTER)], [])),
    ("subnet-without-workspace-in-stack", lambda: ([cluster()], [])),
    ("no-subnet-workspace-disabled", case_no_subnet_workspace_without_managed_network),
    ("no-subnet-managed-network-omitted", case_no_subnet_managed_network_omitted),
    ("no-subnet-workspace-not-in-stack", case_workspace_not_in_stack),
    ("no-subnet-other-workspace", case_other_workspace_in_stack_does_not_count),
    ("empty-subnet-id", lambda: ([cluster(props=changed(cluster_props(), f"{SUBNET}.id", ""))],
                                 [finding("AmlCompute cluster 'cpu-cluster'",
                                          "no subnet, and its workspace 'mlw-prod' is not in this stack",
                                          cluster())])),
    ("only-offenders", case_only_offenders_reported),
    ("project-follows-hub-isolated", case_project_follows_its_hubs_isolated_network),
    ("project-follows-hub-open", case_project_follows_its_hubs_open_network),
    ("project-without-hub-unknown", case_project_without_its_hub_is_unknown),
    ("attached-ignored", lambda: ([resource("k8s", attached_props())], [])),
]


@pytest.mark.parametrize("build", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_compute_network_isolated(build):
    resources, expected = build()
    assert stack_findings(RULE, resources) == expected


def test_workspace_found_by_dependency_while_name_unknown():
    ws = workspace("mlw")
    props = with_unknown(NO_SUBNET_CLUSTER, "workspaceName", UNKNOWN_STRING_VALUE)
    compute = cluster(props=props, depends={"workspaceName": [ws.urn]})
    assert stack_findings(RULE, [ws, compute]) == []


def test_unknown_subnet_is_unknown_not_a_pass():
    props = with_unknown(cluster_props(), f"{SUBNET}.id", UNKNOWN_STRING_VALUE)
    compute = cluster(props=props)
    assert stack_findings(RULE, [workspace("mlw"), compute]) == [Finding(
        f"AmlCompute cluster 'cpu-cluster' {EXPECT}; cannot tell: its subnet id is unknown until deployment and built "
        "from no subnet of this stack.", compute.urn, unknown=True)]


def test_unknown_subnet_built_from_a_stack_subnet_is_a_subnet():
    subnet = resource("snet", {"resourceGroupName": "rg-net", "subnetName": "aml"}, "azure-native:network:Subnet")
    props = with_unknown(cluster_props(), f"{SUBNET}.id", UNKNOWN_STRING_VALUE)
    assert stack_findings(RULE, [subnet, cluster(props=props, depends={"properties": [subnet.urn]})]) == []


def test_unknown_isolation_mode_is_unknown_not_a_pass():
    ws = workspace("mlw")
    ws = resource("mlw", with_unknown(dict(ws.props), "managedNetwork.isolationMode", UNKNOWN_STRING_VALUE), ws.type)
    with pytest.raises(UnknownValueError):
        stack_findings(RULE, [ws, cluster(props=NO_SUBNET_CLUSTER)])


EXAMPLE = Example.of_builders(CASES, fails="no-subnet-workspace-disabled", passes="happy-path-subnets")


# --- what a real preview knows: unknown ids with graph edges, literal ids of another stack, both providers ------

PREVIEW_WORKSPACE = {"managedNetwork": {"isolationMode": "Disabled"}}
PREVIEW_CLUSTER = {}
UNKNOWN_LINK = ("compute 'gpu' names workspace <unknown> (resource group <unknown>), and preview cannot tell "
                "whether that is workspace 'mlw' of this stack.")
PREVIEW_CASES = [
    ("graph", [("gpu", f"AmlCompute cluster 'gpu' {EXPECT}; found no subnet, and workspace 'mlw' has isolationMode "
               "Disabled.", False)]),
    ("literal-id-of-another-stack", [("gpu", f"AmlCompute cluster 'gpu' {EXPECT}; found no subnet, and its workspace "
                                     "'mlw-platform' is not in this stack.", False)]),
    ("unknown-and-built-from-nothing-here",
     [("gpu", f"AmlCompute cluster 'gpu' {EXPECT}; cannot tell: " + UNKNOWN_LINK, True)]),
]


@pytest.mark.parametrize("provider", ["native", "classic"])
@pytest.mark.parametrize(("of", "expected"), PREVIEW_CASES, ids=[c[0] for c in PREVIEW_CASES])
def test_preview_knowledge(provider, of, expected):
    stack = preview.compute_stack(provider, of, PREVIEW_WORKSPACE, PREVIEW_CLUSTER)
    assert preview.verdicts(RULE, stack) == expected
