import pytest

from amlkit.policies.rules.aml_managed_network_limits import RULE
from tests.policies import preview_fixtures as preview
from tests.policies.compute_fixtures import (
    DELETE,
    SUBNET_ID,
    WORKSPACE_TYPE,
    attached_props,
    cluster,
    instance,
    instance_props,
    resource,
    workspace,
    workspace_props,
)
from tests.policies.examples import Example
from tests.policies.helpers import Public, changed, cluster_props
from tests.policies.workspace_fixtures import stack_messages, workspace_id

PUBLIC = Public("AMLK-0036", "aml-managed-network-limits", level="mandatory", kind="stack")

SOURCE = "how-to-managed-network.md, Limitations"
REGION = ("Creating a compute cluster in a different region than the workspace isn't supported when using a managed "
          "virtual network")
SUBNET = "When using Managed virtual network, you can't deploy compute resources inside your custom virtual network"
ATTACHED = "Kubernetes and attached VMs aren't supported in an Azure Machine Learning managed virtual network"
UNDER = "under the managed network of workspace 'mlw-prod'"

WS = workspace("mlw-prod")
CUSTOMER_VNET_WS = workspace("mlw-prod", managedNetwork={"isolationMode": "Disabled"})
NO_NETWORK_WS = workspace("mlw-prod", managedNetwork=DELETE)
IN_MANAGED_NETWORK = cluster("cpu-cluster", changed(cluster_props(), "properties.properties.subnet", DELETE))
INSTANCE_IN_MANAGED_NETWORK = instance("ci-alice", changed(instance_props(), "properties.properties.subnet", DELETE))
HUB = resource("hub", workspace_props(workspaceName="hub", kind="Hub"), WORKSPACE_TYPE)
PROJECT = resource("project", workspace_props(workspaceName="project", kind="Project",
                                              hubResourceId=workspace_id(name="hub", group="rg-ml-prod"),
                                              managedNetwork=DELETE), WORKSPACE_TYPE)
PROJECT_CLUSTER = cluster("proj-cpu", {**cluster_props(), "workspaceName": "project"})


def subnet(name: str, kind: str = "AmlCompute cluster", under: str = UNDER) -> tuple[str, str]:
    return name, f"{kind} '{name}' must have no subnet {under}; found subnet {SUBNET_ID} (\"{SUBNET}\", {SOURCE})."


def attached(kind: str) -> tuple[str, str]:
    return "k8s", (f"{kind} compute 'k8s' must not be attached {UNDER}; found computeType {kind} (\"{ATTACHED}\", "
                   f"{SOURCE}).")


CASES = [
    ("cluster-in-the-managed-network", [WS, IN_MANAGED_NETWORK], []),
    ("instance-in-the-managed-network", [WS, INSTANCE_IN_MANAGED_NETWORK], []),
    ("cluster-in-a-customer-subnet", [WS, cluster()], [subnet("cpu-cluster")]),
    ("instance-in-a-customer-subnet", [WS, instance()], [subnet("ci-alice", "Compute instance")]),
    ("cluster-in-another-region", [WS, cluster("cpu-cluster", changed(
        changed(cluster_props(), "properties.properties.subnet", DELETE), "location", "eastus"))],
     [("cpu-cluster", f"AmlCompute cluster 'cpu-cluster' must run in its workspace's region westeurope {UNDER}; "
                      f"found eastus (\"{REGION}\", {SOURCE}).")]),
    ("compute-location-counts", [WS, cluster("cpu-cluster", changed(
        changed(cluster_props(), "properties.properties.subnet", DELETE), "properties.computeLocation", "eastus"))],
     [("cpu-cluster", f"AmlCompute cluster 'cpu-cluster' must run in its workspace's region westeurope {UNDER}; "
                      f"found eastus (\"{REGION}\", {SOURCE}).")]),
    # an instance in another region is aml-compute-instance-same-region's finding (with or without a managed
    # network, quoting the instance sentence): one finding per cause
    ("instance-in-another-region-is-the-instance-rules", [WS, instance("ci-alice", changed(
        changed(instance_props(), "properties.properties.subnet", DELETE), "location", "eastus"))], []),
    ("same-region-other-spelling", [WS, cluster("cpu-cluster", changed(
        changed(cluster_props(), "properties.properties.subnet", DELETE), "location", "West Europe"))], []),
    ("attached-kubernetes", [WS, resource("k8s", attached_props("Kubernetes"))], [attached("Kubernetes")]),
    ("attached-aks", [WS, resource("k8s", attached_props("AKS"))], [attached("AKS")]),
    ("attached-virtual-machine", [WS, resource("k8s", attached_props("VirtualMachine"))],
     [attached("VirtualMachine")]),
    ("attached-synapse-is-not-listed", [WS, resource("k8s", attached_props("SynapseSpark"))], []),
    ("customer-vnet-workspace-takes-subnets-and-kubernetes",
     [CUSTOMER_VNET_WS, cluster(), resource("k8s", attached_props("Kubernetes"))], []),
    ("omitted-managed-network-is-none", [NO_NETWORK_WS, cluster()], []),
    ("workspace-not-in-the-stack", [cluster()], []),
    ("project-under-a-managed-network-hub", [HUB, PROJECT, PROJECT_CLUSTER],
     [subnet("proj-cpu", under="under the managed network of hub 'hub' (workspace 'project' is its project)")]),
    ("project-whose-hub-is-elsewhere", [PROJECT, PROJECT_CLUSTER],
     [("proj-cpu", "AmlCompute cluster 'proj-cpu' must stay within what a managed network supports (its workspace's "
                   "region, no subnet, no attached Kubernetes or VM); cannot tell: its workspace 'project' is a "
                   "project, which shares its hub's managed network, and its hub '" + workspace_id(name="hub")
       + "' is not in this stack.")]),
    ("project-whose-hub-is-elsewhere-compliant-cluster",
     [PROJECT, cluster("proj-ok", {**changed(cluster_props(), "properties.properties.subnet", DELETE),
                                   "workspaceName": "project"})], []),
]

EXAMPLE = Example.of_stacks(CASES, fails="cluster-in-a-customer-subnet", passes="cluster-in-the-managed-network")


@pytest.mark.parametrize(("resources", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_managed_network_limits(resources, expected):
    assert stack_messages(RULE, resources) == expected


def test_a_project_built_from_its_hub_is_matched_by_dependency():
    project = resource("project", {**PROJECT.props, "hubResourceId": "unknown-at-preview"}, WORKSPACE_TYPE,
                       depends={"hubResourceId": [HUB.urn]})
    assert stack_messages(RULE, [HUB, project, PROJECT_CLUSTER]) == [
        subnet("proj-cpu", under="under the managed network of hub 'hub' (workspace 'project' is its project)")]


# --- what a real preview knows: unknown ids with graph edges, literal ids of another stack, both providers ------

PREVIEW_WORKSPACE = {"managedNetwork": {"isolationMode": "AllowOnlyApprovedOutbound"}}
PREVIEW_CLUSTER = {"location": "northeurope"}
UNKNOWN_LINK = ("compute 'gpu' names workspace <unknown> (resource group <unknown>), and preview cannot tell "
                "whether that is workspace 'mlw' of this stack.")
PREVIEW_CASES = [
    ("graph", [("gpu", "AmlCompute cluster 'gpu' must run in its workspace's region westeurope under the managed "
               "network of workspace 'mlw'; found northeurope (\"Creating a compute cluster in a different region than "
               "the workspace isn't supported when using a managed virtual network\", how-to-managed-network.md, "
               "Limitations).", False)]),
    ("literal-id-of-another-stack", []),
    ("unknown-and-built-from-nothing-here",
     [("gpu", "AmlCompute cluster 'gpu' must stay within what a managed network supports (its workspace's region, no "
       "subnet, no attached Kubernetes or VM); cannot tell: " + UNKNOWN_LINK, True)]),
]


@pytest.mark.parametrize("provider", ["native", "classic"])
@pytest.mark.parametrize(("of", "expected"), PREVIEW_CASES, ids=[c[0] for c in PREVIEW_CASES])
def test_preview_knowledge(provider, of, expected):
    stack = preview.compute_stack(provider, of, PREVIEW_WORKSPACE, PREVIEW_CLUSTER)
    assert preview.verdicts(RULE, stack) == expected
