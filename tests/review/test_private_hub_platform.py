"""End to end (issue 22): a component-based hub and project platform with a private endpoint, an image-build cluster
and a managed online deployment, reviewed by the real engine over the analyzer protocol with exact findings; then
the same platform under a 0.1.0 rule baseline, where the rules that arrived in 0.2.0 run as advisory and a changed
default (aml-quota-budget's onlineDeploymentCores) keeps its 0.1.0 value.

The fixture is tests/fixtures/private_hub_platform (its docstring says what each resource is for). The project takes
its managed network and public access from its hub, so the workspace rules judge the hub for both (policies/hubs.py),
and its computes are judged under the hub's managed network.
"""

from __future__ import annotations

import json

import pytest

from amlkit.review.engine import review
from amlkit.review.options import ReviewOptions
from tests.review.helpers import FIXTURES
from tests.review.statefiles import deployed_state

pytestmark = pytest.mark.slow  # two reviews of a whole project

PLATFORM = FIXTURES / "private_hub_platform"
M, A = "mandatory", "advisory"
LIMITS = "how-to-managed-network.md, Limitations"
UNDER_HUB = "under the managed network of hub 'hub-workspace' (workspace 'team-a-workspace' is its project)"
SUBNET = ("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-net/providers/Microsoft.Network/"
          "virtualNetworks/vnet-hub/subnets/snet-compute")
UAI = ("Workspace '{}' must use a user-assigned identity (identity type including UserAssigned and "
       "primaryUserAssignedIdentity set to one of identity.userAssignedIdentities); found identity type "
       "SystemAssigned.")

FINDINGS = {
    ("aml-managed-network-limits", M, "far-compute",
     f"AmlCompute cluster 'far-compute' must run in its workspace's region westeurope {UNDER_HUB}; found eastus "
     "(\"Creating a compute cluster in a different region than the workspace isn't supported when using a managed "
     f"virtual network\", {LIMITS})."),
    ("aml-managed-network-limits", M, "in-subnet-compute",
     f"AmlCompute cluster 'in-subnet-compute' must have no subnet {UNDER_HUB}; found subnet {SUBNET} (\"When using "
     f"Managed virtual network, you can't deploy compute resources inside your custom virtual network\", {LIMITS})."),
    ("aml-compute-retired-vm-series", M, "scoring-blue",
     "Managed online deployment 'scoring-blue' must not use a VM series retired for Azure ML compute; found "
     "Standard_NC24s_v3 of series NCv3, retired on 2025-09-30; successors in the default allowedOnlineSeries: "
     "NCads_H100_v5, NCasT4_v3, NVadsA10_v5."),
    # the hub's managed network is provisioned with the first compute instance, and the project has none the
    # deployment is built from (how-to-managed-network.md, "Manually provision a managed VNet"; issue 30)
    ("aml-online-deployment-network-provisioned", A, "scoring-blue",
     "Managed online deployment 'scoring-blue' must be created after its managed network is provisioned (workspace "
     "'hub-workspace' sets provisionNetworkNow: true, or the deployment is built from a compute instance in it); "
     "found neither (\"To create an online deployment, you must manually provision the managed network, or create a "
     "compute instance first which will automatically provision it.\", how-to-managed-network.md, Manually "
     "provision a managed VNet)."),
    ("aml-quota-budget", A, "scoring-blue",
     "Dedicated standardNCSv3Family (NCv3) cores in westeurope must fit the core quota of 72; found 96: scoring-blue "
     "ceil(1.2 x 3 instances) = 4 x 24 vCPUs = 96."),
    ("aml-cluster-same-region", A, "far-compute",
     "AmlCompute cluster 'far-compute' must run in its workspace's region westeurope (workspace 'team-a-workspace'); "
     "found eastus."),
    ("aml-workspace-cmk", A, "hub-workspace",
     "Workspace 'hub-workspace' must be encrypted with a customer-managed key; found no "
     "encryption.keyVaultProperties.keyIdentifier."),
    ("aml-workspace-user-assigned-identity", A, "hub-workspace", UAI.format("hub-workspace")),
    ("aml-workspace-user-assigned-identity", A, "team-a-workspace", UAI.format("team-a-workspace")),
}


@pytest.fixture(scope="module")
def reviews(tmp_path_factory):
    """The platform under its pack config, and under the same config pinned to the 0.1.0 baseline."""
    config = json.loads((PLATFORM / "pack-config.json").read_text(encoding="utf-8"))
    pinned = tmp_path_factory.mktemp("baseline") / "pack-config.json"
    pinned.write_text(json.dumps({**config, "baseline": {"version": "0.1.0"}}), encoding="utf-8")
    # against the program's own state export: the hub, its projects and computes link through deployed ids
    # (a first preview cannot tell them: tests/review/test_preview_knowledge.py)
    state = deployed_state(PLATFORM, "dev", tmp_path_factory.mktemp("state"))
    (current,) = review(PLATFORM, ["dev"], options=ReviewOptions(
        policy_pack_config=PLATFORM / "pack-config.json", states=[state])).stacks
    (baseline,) = review(PLATFORM, ["dev"], options=ReviewOptions(policy_pack_config=pinned, states=[state])).stacks
    return current, baseline


def findings(stack):
    return {(v.policy, v.level, v.resource, v.message) for v in stack.violations}


def test_the_platform_is_reviewed_end_to_end_with_exact_findings(reviews):
    current, _ = reviews
    assert (current.error, current.unknown) == (None, ())
    assert findings(current) == FINDINGS
    assert current.outcome == "mandatory"


def test_the_private_endpoint_image_build_cluster_and_deployment_are_in_the_plan_and_pass_their_rules(reviews):
    current, _ = reviews
    names = {(r.type.rsplit(":", 1)[-1], r.name) for r in current.resources}
    assert {("PrivateEndpoint", "hub-pe-corp"), ("PrivateDnsZoneGroup", "hub-pe-corp-dns"),
            ("Registry", "hub-registry"), ("Compute", "builder-compute"),
            ("OnlineDeployment", "scoring-blue")} <= names
    quiet = {"aml-workspace-private-endpoint", "aml-workspace-image-build-compute"}
    assert {v.policy for v in current.violations} & quiet == set()


def test_under_a_0_1_0_baseline_the_new_mandatory_rule_runs_as_advisory(reviews):
    current, baseline = reviews
    # the upgrade without a decision would fail CI on aml-managed-network-limits; pinned, it is advisory
    limits = {(v.resource, v.message) for v in current.violations if v.policy == "aml-managed-network-limits"}
    assert {(v.resource, v.message) for v in baseline.violations if v.policy == "aml-managed-network-limits"
            and v.level == A} == limits
    # changed defaults keep their 0.1.0 value: aml-quota-budget's onlineDeploymentCores (false: the deployment's
    # cores are not counted) and aml-compute-approved-vm-family's allowedSeries (0.1.0's list has no Ddsv5)
    unapproved = {("aml-compute-approved-vm-family", M, name, f"AmlCompute cluster '{name}' must use a VM size from "
                   "an allowed series; found Standard_D4ds_v5 of series Ddsv5 (not in allowedSeries).")
                  for name in ("builder-compute", "cpu-compute", "far-compute", "in-subnet-compute")}
    assert findings(baseline) == unapproved | {
        (p, A if p == "aml-managed-network-limits" else level, resource, message)
        for p, level, resource, message in FINDINGS if p != "aml-quota-budget"}
    assert "aml-managed-network-limits" not in {v.policy for v in baseline.violations if v.level == M}
