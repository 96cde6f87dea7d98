import pytest
from pulumi_policy import StackValidationArgs
from pulumi_policy.policy import PolicyResource
from pulumi_policy.proxy import UNKNOWN_NUMBER_VALUE, UnknownValueError, unknown_checking_proxy

from amlkit.errors import ConfigError
from amlkit.policies.pack import build_policies
from amlkit.policies.rules.aml_quota_budget import RULE
from amlkit.vmsizes import all_sizes
from tests.policies.compute_fixtures import (
    attached_props,
    instance_props,
    resource,
    stack_findings,
    urn,
    with_unknown,
    workspace,
)
from tests.policies.examples import Example
from tests.policies.helpers import COMPUTE_TYPE, DELETE, Public, changed, cluster_props

PUBLIC = Public("AMLK-0014", "aml-quota-budget", level="advisory", kind="stack")


def cluster(name, size="Standard_DS3_v2", max_nodes=4, region="westeurope", priority="Dedicated"):
    props = cluster_props(vmSize=size, vmPriority=priority,
                          scaleSettings={"minNodeCount": 0.0, "maxNodeCount": float(max_nodes)})
    return resource(name, changed(props, "location", region))


def instance(name, size="Standard_DS3_v2", region="westeurope"):
    return resource(name, changed(instance_props(vmSize=size), "location", region))


def found(resources, config=None):
    return [(f.urn, f.message) for f in stack_findings(RULE, resources, config)]


def at(name):
    return urn(COMPUTE_TYPE, name)


DSV2 = "Dedicated standardDSv2Family (DSv2) cores in westeurope must fit the core quota of"
T4 = "Dedicated standardNCASv3_T4Family (NCasT4_v3) cores in"

# Two regions, two families, dedicated and low-priority clusters, and instances.
STACK = [
    workspace(),
    cluster("cpu-a", max_nodes=10),  # DSv2 4 vCPUs x 10 = 40, westeurope
    cluster("cpu-b", max_nodes=2),  # DSv2 4 x 2 = 8
    instance("ci-alice"),  # DSv2 4 x 1 = 4
    cluster("gpu-t4", "Standard_NC16as_T4_v3", 2),  # T4 16 x 2 = 32, westeurope
    cluster("gpu-spot", "Standard_NC64as_T4_v3", 3, priority="LowPriority"),  # 64 x 3 = 192 low priority
    cluster("cpu-us", max_nodes=5, region="East US"),  # DSv2 4 x 5 = 20, eastus
    instance("ci-us", "Standard_NC4as_T4_v3", region="eastus"),  # T4 4 x 1, eastus
]


def test_no_config_checks_only_the_regional_compute_limit():
    assert found(STACK) == []


def test_everything_within_quota():
    config = {
        "coreQuota": {"westeurope": {"DSv2": 52, "NCasT4_v3": 32}, "eastus": {"DSv2": 20, "NCasT4_v3": 4}},
        "lowPriorityCoreQuota": {"westeurope": 192},
        "regionalComputeLimit": 7,
    }
    assert found(STACK, config) == []


def test_dedicated_breach_sums_clusters_and_instances_of_one_family_and_region():
    config = {"coreQuota": {"westeurope": {"DSv2": 51}}}
    assert found(STACK, config) == [
        (at("cpu-a"), f"{DSV2} 51; found 52: cpu-a 10 nodes x 4 vCPUs = 40, cpu-b 2 nodes x 4 vCPUs = 8, "
         "ci-alice 1 node x 4 vCPUs = 4."),
    ]


def test_low_priority_cores_do_not_count_against_the_family_quota():
    config = {"coreQuota": {"westeurope": {"standardNCASv3_T4Family": 32}}}
    assert found(STACK, config) == []


def test_low_priority_breach():
    config = {"lowPriorityCoreQuota": {"West Europe": 100.0}}
    assert found(STACK, config) == [
        (at("gpu-spot"), "Low-priority cores in westeurope must fit the low-priority core quota of 100; "
         "found 192: gpu-spot 3 nodes x 64 vCPUs = 192."),
    ]


def test_regions_are_separate_and_normalised():
    config = {"coreQuota": {"East US": {"DSv2": 19}, "westeurope": {"DSv2": 100}}}
    assert found(STACK, config) == [
        (at("cpu-us"), "Dedicated standardDSv2Family (DSv2) cores in eastus must fit the core quota of 19; "
         "found 20: cpu-us 5 nodes x 4 vCPUs = 20."),
    ]


def test_default_core_quota_applies_to_unlisted_families_and_regions():
    config = {"coreQuota": {"westeurope": {"DSv2": 100}}, "defaultCoreQuota": 8}
    assert found(STACK, config) == [
        (at("cpu-us"), "Dedicated standardDSv2Family (DSv2) cores in eastus must fit the core quota of 8; "
         "found 20: cpu-us 5 nodes x 4 vCPUs = 20."),
        (at("gpu-t4"), f"{T4} westeurope must fit the core quota of 8; found 32: gpu-t4 2 nodes x 16 vCPUs = 32."),
    ]


def test_quota_family_keys_in_any_casing_and_display_form():
    config = {"coreQuota": {"westeurope": {"Standard NCASv3_T4 Family": 31}}}
    assert found(STACK, config) == [
        (at("gpu-t4"), f"{T4} westeurope must fit the core quota of 31; found 32: gpu-t4 2 nodes x 16 vCPUs = 32."),
    ]


def test_zero_quota_family():
    config = {"coreQuota": {"eastus": {"ncast4_v3": 0}}}
    assert found(STACK, config) == [
        (at("ci-us"), f"{T4} eastus must fit the core quota of 0; found 4: ci-us 1 node x 4 vCPUs = 4."),
    ]


LIMIT = ("Compute resources in {} must fit the regional compute limit of {} (each cluster, compute instance "
         "and managed online deployment counts once, whatever its node count); found {}.")
ONLINE_DEPLOYMENT_TYPE = "azure-native:machinelearningservices:OnlineDeployment"


def deployment(name, compute_type="Managed", region="westeurope"):
    props = {"resourceGroupName": "rg-ml-prod", "workspaceName": "mlw", "endpointName": "ep", "location": region,
             "properties": {"endpointComputeType": compute_type, "instanceType": "Standard_DS3_v2"},
             "sku": {"name": "Default", "capacity": 3.0}}
    return resource(name, props, ONLINE_DEPLOYMENT_TYPE)


def test_regional_compute_limit_counts_each_cluster_and_instance_once_not_their_nodes():
    # westeurope: cpu-a, cpu-b, ci-alice, gpu-t4, gpu-spot = 5 computes (18 nodes); eastus: cpu-us, ci-us = 2
    assert found(STACK, {"regionalComputeLimit": 5}) == []
    assert found(STACK, {"regionalComputeLimit": 4}) == [
        (at("ci-alice"), LIMIT.format("westeurope", 4, "5: ci-alice (compute instance), cpu-a (AmlCompute cluster), "
                                      "cpu-b (AmlCompute cluster), gpu-spot (AmlCompute cluster), gpu-t4 (AmlCompute "
                                      "cluster)")),
    ]


def test_default_regional_compute_limit_is_500_computes_not_nodes():
    # 300 + 200 nodes + an instance were 501 "nodes" under the old, wrong reading; they are 3 computes
    assert found([cluster("big-a", max_nodes=300), cluster("big-b", max_nodes=200), instance("ci")]) == []
    many = [cluster(f"c{index:03}", max_nodes=1) for index in range(500)]
    assert found(many) == []
    [(where, message)] = found([*many, instance("ci")])
    assert where == at("c000")
    assert message.startswith(LIMIT.format("westeurope", 500, "501: c000 (AmlCompute cluster), ")[:-1])
    assert message.endswith("c499 (AmlCompute cluster), ci (compute instance).")


@pytest.mark.parametrize(("extra", "expected"), [
    ([deployment("blue")], [(urn(ONLINE_DEPLOYMENT_TYPE, "blue"),
                             LIMIT.format("westeurope", 1, "2: blue (managed online deployment), cpu (AmlCompute "
                                          "cluster)"))]),
    ([deployment("blue", "Kubernetes")], []),
    ([deployment("blue", "managed")], [(urn(ONLINE_DEPLOYMENT_TYPE, "blue"),
                                        LIMIT.format("westeurope", 1, "2: blue (managed online deployment), cpu "
                                                     "(AmlCompute cluster)"))]),
    ([deployment("blue", region="eastus")], []),
], ids=["managed-deployment-counts", "kubernetes-deployment-does-not", "compute-type-case", "other-region"])
def test_managed_online_deployments_count_against_the_compute_limit(extra, expected):
    assert found([cluster("cpu"), *extra], {"regionalComputeLimit": 1}) == expected


DS_CORES = "Dedicated standardDSv2Family (DSv2) cores in westeurope must fit the core quota of {}; found {}."


def scaled(name, capacity=None, max_instances=None, instance_type="Standard_DS3_v2"):
    props = dict(deployment(name).props)
    props["properties"] = {**props["properties"], "instanceType": instance_type}
    props["sku"] = {"name": "Default"} if capacity is None else {"name": "Default", "capacity": float(capacity)}
    if max_instances is not None:
        props["properties"]["scaleSettings"] = {"scaleType": "TargetUtilization", "maxInstances": float(max_instances)}
    return resource(name, props, ONLINE_DEPLOYMENT_TYPE)


@pytest.mark.parametrize(("stack", "quota", "expected"), [
    # ceil(1.2 x 10) = 12 instances x 4 vCPUs = 48 (the docs' example: 10 x Standard_DS3_v2 needs 48 cores)
    ([scaled("blue", 10)], 48, []),
    ([scaled("blue", 10)], 47, [DS_CORES.format(47, "48: blue ceil(1.2 x 10 instances) = 12 x 4 vCPUs = 48")]),
    # capacity omitted: Azure's 1 instance, ceil(1.2) = 2 instances x 4 = 8
    ([scaled("blue")], 7, [DS_CORES.format(7, "8: blue ceil(1.2 x 1 instance) = 2 x 4 vCPUs = 8")]),
    # target-utilization autoscaling to 5: ceil(6.0) = 6 x 4 = 24
    ([scaled("blue", 2, max_instances=5)], 23, [DS_CORES.format(23, "24: blue ceil(1.2 x 5 instances) = 6 x 4 vCPUs "
                                                                   "= 24")]),
    # shared with a cluster of the same family: 3 x 4 + ceil(3.6) x 4 = 12 + 16
    ([scaled("blue", 3), cluster("cpu", size="Standard_DS3_v2", max_nodes=3)], 27,
     [DS_CORES.format(27, "28: blue ceil(1.2 x 3 instances) = 4 x 4 vCPUs = 16, cpu 3 nodes x 4 vCPUs = 12")]),
], ids=["docs-example-fits", "docs-example-one-short", "capacity-omitted", "autoscale-max", "shared-with-a-cluster"])
def test_managed_online_deployments_reserve_ceil_1_2_x_instances_of_cores(stack, quota, expected):
    config = {"coreQuota": {"westeurope": {"DSv2": quota}}}
    assert [message for _, message in found(stack, config)] == expected


# "Skip 20% Reservation" = Yes in azure-ai-docs
# articles/machine-learning/reference-managed-online-endpoints-vm-sku-list.md: size, series, quota family, vCPUs
SKIP_RESERVE = [
    ("Standard_NC24ads_A100_v4", "NC_A100_v4", "StandardNCADSA100v4Family", 24),
    ("Standard_NC48ads_A100_v4", "NC_A100_v4", "StandardNCADSA100v4Family", 48),
    ("Standard_NC96ads_A100_v4", "NC_A100_v4", "StandardNCADSA100v4Family", 96),
    ("Standard_NC40ads_H100_v5", "NCads_H100_v5", "StandardNCadsH100v5Family", 40),
    ("Standard_NC80adis_H100_v5", "NCads_H100_v5", "StandardNCadsH100v5Family", 80),
    ("Standard_ND96amsr_A100_v4", "NDm_A100_v4", "standardNDAMSv4_A100Family", 96),
    ("Standard_ND96asr_v4", "NDasrA100_v4", "standardNDASv4_A100Family", 96),
    ("Standard_ND40rs_v2", "NDv2", "standardNDSv2Family", 40),
    ("Standard_ND96is_H100_v5", "ND-H100-v5", "standardNDSH100v5Family", 96),
    ("Standard_ND96isr_H100_v5", "ND-H100-v5", "standardNDSH100v5Family", 96),
]


def test_the_sizes_without_an_upgrade_reserve_are_the_sku_lists():
    assert {s.name for s in all_sizes() if s.skips_online_reserve} == {row[0] for row in SKIP_RESERVE}


@pytest.mark.parametrize(("size", "series", "quota_family", "vcpus"), SKIP_RESERVE, ids=[r[0] for r in SKIP_RESERVE])
def test_sizes_that_skip_the_upgrade_reserve_count_instances_x_vcpus(size, series, quota_family, vcpus):
    # 2 instances x vCPUs fit exactly (ceil(1.2 x 2) = 3 would need a third node's cores); one core fewer does not
    assert found([scaled("scoring", 2, instance_type=size)], {"coreQuota": {"westeurope": {series: 2 * vcpus}}}) == []
    assert [message for _, message in found([scaled("scoring", 2, instance_type=size)],
                                            {"coreQuota": {"westeurope": {series: 2 * vcpus - 1}}})] == [
        f"Dedicated {quota_family} ({series}) cores in westeurope must fit the core quota of {2 * vcpus - 1}; found "
        f"{2 * vcpus}: scoring 2 instances (no upgrade reserve for {size}) x {vcpus} vCPUs = {2 * vcpus}."]


@pytest.mark.parametrize(("stack", "quota", "expected"), [
    # the SKU list's spelling: the size is still recognised (names are case-insensitive), no reserve
    ([scaled("scoring", 1, instance_type="STANDARD_NC24ADS_A100_V4")], 23,
     ["found 24: scoring 1 instance (no upgrade reserve for Standard_NC24ads_A100_v4) x 24 vCPUs = 24."]),
    # autoscaling to 3: 3 x 24, no reserve
    ([scaled("scoring", 1, max_instances=3, instance_type="Standard_NC24ads_A100_v4")], 71,
     ["found 72: scoring 3 instances (no upgrade reserve for Standard_NC24ads_A100_v4) x 24 vCPUs = 72."]),
    # shared with a cluster of the same family: 2 x 24 + 1 x 24
    ([scaled("scoring", 2, instance_type="Standard_NC24ads_A100_v4"),
      cluster("gpu", size="Standard_NC24ads_A100_v4", max_nodes=1)], 71,
     ["found 72: scoring 2 instances (no upgrade reserve for Standard_NC24ads_A100_v4) x 24 vCPUs = 48, "
      "gpu 1 node x 24 vCPUs = 24."]),
], ids=["sku-list-casing", "autoscale-max", "shared-with-a-cluster"])
def test_sizes_that_skip_the_upgrade_reserve_in_context(stack, quota, expected):
    prefix = ("Dedicated StandardNCADSA100v4Family (NC_A100_v4) cores in westeurope must fit the core quota of "
              f"{quota}; ")
    config = {"coreQuota": {"westeurope": {"NC_A100_v4": quota}}}
    assert [message for _, message in found(stack, config)] == [prefix + text for text in expected]


def test_a_gpu_size_not_on_the_sku_lists_exemptions_keeps_the_reserve():
    # Standard_NC4as_T4_v3: "Skip 20% Reservation" is "-" in the SKU list: ceil(1.2 x 2) = 3 x 4 vCPUs
    assert [message for _, message in found([scaled("scoring", 2, instance_type="Standard_NC4as_T4_v3")],
                                            {"coreQuota": {"westeurope": {"NCasT4_v3": 11}}})] == [
        f"{T4} westeurope must fit the core quota of 11; found 12: scoring ceil(1.2 x 2 instances) = 3 x 4 vCPUs = 12."]


def test_online_deployment_cores_off_is_amlkit_0_1_0_and_a_baseline_restores_it():
    config = {"coreQuota": {"westeurope": {"DSv2": 1}}}
    assert found([scaled("blue", 10)], {**config, "onlineDeploymentCores": False}) == []
    assert [(change.version, dict(change.config)) for change in RULE.changed] == [
        ("0.2.0", {"onlineDeploymentCores": False}), ("0.3.0", {})]  # 0.3.0: constrained sizes' quota vCPUs


def test_a_deployment_with_an_unknown_instance_type_is_reported():
    assert found([scaled("blue", 1, instance_type="Standard_Bogus9")]) == [
        (urn(ONLINE_DEPLOYMENT_TYPE, "blue"), "Managed online deployment 'blue' must use a known Azure VM size so its "
         "cores can be counted against quota; found 'Standard_Bogus9', which is not a known Azure VM size name.")]


def test_managed_online_deployment_without_location_is_reported():
    props = {"properties": {"endpointComputeType": "Managed"}}
    stack = [resource("blue", props, ONLINE_DEPLOYMENT_TYPE)]
    assert found(stack) == [
        (urn(ONLINE_DEPLOYMENT_TYPE, "blue"), "Managed online deployment 'blue' must set location so its quota "
         "region is known; found none."),
    ]


def test_cluster_with_zero_or_missing_max_nodes_still_counts_as_a_compute():
    no_max = resource("nomax", changed(cluster_props(), "properties.properties.scaleSettings.maxNodeCount", DELETE))
    stack = [cluster("zero", max_nodes=0), no_max]
    assert found(stack, {"regionalComputeLimit": 1}) == [
        (at("nomax"), "AmlCompute cluster 'nomax' must set scaleSettings.maxNodeCount so its quota can be "
         "checked; found none."),
        (at("nomax"), LIMIT.format("westeurope", 1, "2: nomax (AmlCompute cluster), zero (AmlCompute cluster)")),
    ]


def test_each_breach_is_reported_once_in_a_stable_order():
    config = {"coreQuota": {"westeurope": {"DSv2": 0, "NCasT4_v3": 0}}, "lowPriorityCoreQuota": {"westeurope": 0},
              "regionalComputeLimit": 1}
    assert [u for u, _ in found(STACK, config)] == [
        at("cpu-a"),  # DSv2 westeurope
        at("gpu-t4"),  # T4 westeurope
        at("gpu-spot"),  # low priority westeurope
        at("ci-us"),  # computes eastus (2), first by name
        at("ci-alice"),  # computes westeurope (5), first by name
    ]


def test_ties_name_the_first_contributor_by_name():
    stack = [cluster("zeta"), cluster("alpha")]
    assert found(stack, {"coreQuota": {"westeurope": {"DSv2": 8}}}) == [
        (at("alpha"), f"{DSV2} 8; found 32: alpha 4 nodes x 4 vCPUs = 16, zeta 4 nodes x 4 vCPUs = 16."),
    ]


def test_constrained_sizes_count_their_base_size_s_vcpus():
    # "For Constrained vCPU capable VM sizes, this number represents the total vCPUs of quota that the VM uses"
    # (VirtualMachineSize.numberOfCores): a 4-node Standard_E8-2s_v5 cluster takes 32 cores, not 8 (issue 30)
    stack = [cluster("mem", "Standard_E8-2s_v5", 4), cluster("hpc", "Standard_HB120-16rs_v3", 1)]
    assert found(stack, {"coreQuota": {"westeurope": {"Esv5": 31, "HBv3": 119}}}) == [
        (at("mem"), "Dedicated standardESv5Family (Esv5) cores in westeurope must fit the core quota of 31; "
         "found 32: mem 4 nodes x 8 vCPUs (constrained Standard_E8-2s_v5: 2 active) = 32."),
        (at("hpc"), "Dedicated standardHBv3Family (HBv3) cores in westeurope must fit the core quota of 119; "
         "found 120: hpc 1 node x 120 vCPUs (constrained Standard_HB120-16rs_v3: 16 active) = 120."),
    ]
    assert found(stack, {"coreQuota": {"westeurope": {"Esv5": 32, "HBv3": 120}}}) == []


def test_compute_location_wins_over_location():
    props = changed(cluster_props(vmSize="Standard_DS3_v2"), "properties.computeLocation", "northeurope")
    stack = [resource("far", props)]
    assert found(stack, {"coreQuota": {"northeurope": {"DSv2": 15}}}) == [
        (at("far"), "Dedicated standardDSv2Family (DSv2) cores in northeurope must fit the core quota of 15; "
         "found 16: far 4 nodes x 4 vCPUs = 16."),
    ]


def test_zero_node_clusters_are_not_contributors():
    stack = [cluster("idle", max_nodes=0), cluster("busy", max_nodes=1)]
    assert found(stack, {"coreQuota": {"westeurope": {"DSv2": 0}}}) == [
        (at("busy"), f"{DSV2} 0; found 4: busy 1 node x 4 vCPUs = 4."),
    ]


# --- what cannot be counted is reported ------------------------------------------------------------------

SIZE = "properties.properties.vmSize"


def test_unknown_size_is_reported_and_still_counts_as_a_compute():
    stack = [resource("odd", changed(cluster_props(), SIZE, "Standard_DS3_v9")), cluster("ok", max_nodes=1)]
    assert found(stack, {"regionalComputeLimit": 1}) == [
        (at("odd"), "AmlCompute cluster 'odd' must use a known Azure VM size so its cores can be counted "
         "against quota; found 'Standard_DS3_v9', which is not a known Azure VM size name."),
        (at("odd"), LIMIT.format("westeurope", 1, "2: odd (AmlCompute cluster), ok (AmlCompute cluster)")),
    ]


def test_missing_size_is_reported():
    stack = [resource("nosize", changed(cluster_props(), SIZE, DELETE))]
    assert found(stack) == [
        (at("nosize"), "AmlCompute cluster 'nosize' must set vmSize so its cores can be counted against quota; "
         "found none."),
    ]


def test_missing_instance_size_is_reported():
    stack = [resource("ci", changed(instance_props(), SIZE, DELETE))]
    assert found(stack) == [
        (at("ci"), "Compute instance 'ci' must set vmSize so its cores can be counted against quota; found none."),
    ]


def test_missing_max_nodes_is_reported():
    stack = [resource("nomax", changed(cluster_props(), "properties.properties.scaleSettings.maxNodeCount", DELETE))]
    assert found(stack) == [
        (at("nomax"), "AmlCompute cluster 'nomax' must set scaleSettings.maxNodeCount so its quota can be "
         "checked; found none."),
    ]


def test_missing_location_without_the_workspace_in_the_stack_is_reported():
    stack = [resource("nowhere", changed(cluster_props(), "location", DELETE))]
    assert found(stack) == [
        (at("nowhere"), "AmlCompute cluster 'nowhere' must set location (or computeLocation), or belong to a "
         "workspace of this stack that sets one, so its quota region is known; found none."),
    ]


@pytest.mark.parametrize(("workspace_region", "expected"), [
    ("westeurope", [(at("inherits"), f"{DSV2} 3; found 8: inherits 2 nodes x 4 vCPUs = 8.")]),
    ("eastus", []),  # the eastus quota is not configured: no limit there
])
def test_a_compute_without_location_counts_in_its_workspaces_region(workspace_region, expected):
    """A compute without location is created in its workspace's region (reference-yaml-compute-aml.md)."""
    props = changed(changed(cluster_props(vmSize="Standard_DS3_v2"), "location", DELETE),
                    "properties.properties.scaleSettings.maxNodeCount", 2)
    stack = [workspace("mlw", workspaceName="mlw-prod", location=workspace_region), resource("inherits", props)]
    assert found(stack, {"coreQuota": {"westeurope": {"DSv2": 3}}}) == expected


def test_instances_are_dedicated_even_if_marked_low_priority():
    props = changed(instance_props(vmSize="Standard_DS3_v2"), "properties.properties.vmPriority", "LowPriority")
    stack = [resource("ci", props)]
    assert found(stack, {"coreQuota": {"westeurope": {"DSv2": 3}}, "lowPriorityCoreQuota": {"westeurope": 0}}) == [
        (at("ci"), f"{DSV2} 3; found 4: ci 1 node x 4 vCPUs = 4."),
    ]


def test_priority_is_case_insensitive():
    stack = [cluster("spot", priority="lowpriority")]
    assert found(stack, {"lowPriorityCoreQuota": {"westeurope": 15}}) == [
        (at("spot"), "Low-priority cores in westeurope must fit the low-priority core quota of 15; "
         "found 16: spot 4 nodes x 4 vCPUs = 16."),
    ]


def test_other_resources_and_attached_computes_are_ignored():
    stack = [workspace(), resource("k8s", attached_props()),
             resource("sa", cluster_props(), type_="azure-native:storage:StorageAccount")]
    assert found(stack, {"defaultCoreQuota": 0, "regionalComputeLimit": 1}) == []


def test_unknown_max_nodes_is_unknown_not_a_pass():
    props = with_unknown(cluster_props(), "properties.properties.scaleSettings.maxNodeCount", UNKNOWN_NUMBER_VALUE)
    with pytest.raises(UnknownValueError):
        found([resource("cpu", props)])


# --- config ----------------------------------------------------------------------------------------------

def test_defaults():
    assert RULE.defaults() == {"coreQuota": {}, "lowPriorityCoreQuota": {}, "regionalComputeLimit": 500,
                               "onlineDeploymentCores": True, "extraRegions": []}
    assert (RULE.config["regionalComputeLimit"]["minimum"], RULE.config["regionalComputeLimit"]["maximum"]) == (
        1, 2500)


@pytest.mark.parametrize(
    ("config", "key_path", "problem"),
    [
        ({"coreQuota": {"westeurope": {"DSv9": 10}}}, "aml-quota-budget.coreQuota.westeurope.DSv9",
         "unknown VM series or quota family 'DSv9'; use a series such as DSv2 or a quota family such as "
         "standardDSv2Family"),
        ({"coreQuota": {"westeurope": {"DSv2": -1}}}, "aml-quota-budget.coreQuota.westeurope.DSv2",
         "expected a whole number, at least 0; got -1"),
        ({"coreQuota": {"westeurope": {"DSv2": 2.5}}}, "aml-quota-budget.coreQuota.westeurope.DSv2",
         "expected a whole number, at least 0; got 2.5"),
        ({"coreQuota": {"westeurope": {"DSv2": True}}}, "aml-quota-budget.coreQuota.westeurope.DSv2",
         "expected a whole number, at least 0; got True"),
        ({"coreQuota": {"westeurope": {"DSv2": 1, "standardDSv2Family": 2}}},
         "aml-quota-budget.coreQuota.westeurope.standardDSv2Family", "DSv2 is given twice in this region"),
        ({"coreQuota": {"westeurope": {"standardEIv5Family": 1, "Standard EIv5 Family": 2}}},
         "aml-quota-budget.coreQuota.westeurope.Standard EIv5 Family",
         "standardEIv5Family is given twice in this region"),
        ({"coreQuota": {"westeurope": {"standardEIv9Family": 1}}},
         "aml-quota-budget.coreQuota.westeurope.standardEIv9Family",
         "unknown VM series or quota family 'standardEIv9Family'; use a series such as DSv2 or a quota family such as "
         "standardDSv2Family"),
        ({"coreQuota": {"westeurope": 10}}, "aml-quota-budget.coreQuota.westeurope",
         "expected a map of VM series or quota family -> cores"),
        ({"coreQuota": {"westeurope": {}, "West Europe": {}}}, "aml-quota-budget.coreQuota.West Europe",
         "the same region as 'westeurope'"),
        ({"coreQuota": ["westeurope"]}, "aml-quota-budget.coreQuota",
         "expected a map keyed by region (e.g. westeurope)"),
        ({"lowPriorityCoreQuota": {"westeurope": "lots"}}, "aml-quota-budget.lowPriorityCoreQuota.westeurope",
         "expected a whole number, at least 0; got 'lots'"),
        ({"lowPriorityCoreQuota": {" ": 3}}, "aml-quota-budget.lowPriorityCoreQuota", "' ' is not a region name"),
        ({"defaultCoreQuota": "ten"}, "aml-quota-budget.defaultCoreQuota",
         "expected a whole number, at least 0; got 'ten'"),
        ({"regionalComputeLimit": 0}, "aml-quota-budget.regionalComputeLimit",
         "expected a whole number, at least 1 and at most 2500; got 0"),
        ({"regionalComputeLimit": 2501}, "aml-quota-budget.regionalComputeLimit",
         "expected a whole number, at least 1 and at most 2500; got 2501"),
        ({"regionalNodeLimit": 100}, "aml-quota-budget.regionalNodeLimit",
         "renamed to regionalComputeLimit: Azure's regional limit counts compute resources (clusters, compute "
         "instances, managed online deployments), not nodes"),
    ],
)
def test_bad_config_fails_closed(config, key_path, problem):
    with pytest.raises(ConfigError) as caught:
        found(STACK, config)
    assert (caught.value.key_path, caught.value.problem) == (key_path, problem)


# --- through the pack edge, with config in wire form (numbers arrive as floats) -------------------------

def test_through_the_pack_edge():
    policy = build_policies([RULE])[0]
    props = unknown_checking_proxy(cluster_props(vmSize="Standard_DS3_v2"))
    compute = PolicyResource(COMPUTE_TYPE, props, at("cpu"), "cpu", None, None, None, [], {})
    config = {"coreQuota": {"westeurope": {"DSv2": 15.0}}, "lowPriorityCoreQuota": {}, "regionalComputeLimit": 500.0}
    reported = []
    policy.validate(StackValidationArgs([compute], config), lambda message, urn=None: reported.append((urn, message)))
    assert reported == [(at("cpu"), f"{DSV2} 15; found 16: cpu 4 nodes x 4 vCPUs = 16.")]


def test_a_family_without_a_published_quota_family_is_counted_by_series():
    stack = [cluster("rtx", size="Standard_NC128lds_xl_RTXPRO6000BSE_v6", max_nodes=1), cluster("cpu", max_nodes=1)]
    assert found(stack, {"coreQuota": {"westeurope": {"NC_RTXPRO6000BSE_v6": 100, "DSv2": 0}}}) == [
        (at("rtx"), "Dedicated quota family unknown (NC_RTXPRO6000BSE_v6) cores in westeurope must fit the core "
         "quota of 100; found 128: rtx 1 node x 128 vCPUs = 128."),
        (at("cpu"), f"{DSV2} 0; found 4: cpu 1 node x 4 vCPUs = 4."),
    ]


def test_a_2026_family_is_counted_by_its_sku_quota_family():  # aks-vm-sizes: the Compute SKUs' `family`
    stack = [cluster("conf", size="Standard_DC4s_v3", max_nodes=3)]
    expected = [(at("conf"), "Dedicated standardDCSv3Family (DCsv3) cores in westeurope must fit the core quota of 8; "
                 "found 12: conf 3 nodes x 4 vCPUs = 12.")]
    assert found(stack, {"coreQuota": {"westeurope": {"DCsv3": 8}}}) == expected
    assert found(stack, {"coreQuota": {"westeurope": {"standardDCSv3Family": 8}}}) == expected


# Isolated sizes Azure counts against a quota family of their own (aks-vm-sizes: the Resource SKUs' `family`):
# config keyed by the series limits the series' quota family only; the size's own family has its own key.
EV5 = "Dedicated standardEv5Family (Ev5) cores in westeurope must fit the core quota of"
EIV5 = "Dedicated standardEIv5Family (Ev5) cores in westeurope must fit the core quota of"
ISOLATED_STACK = [cluster("iso", size="Standard_E104i_v5", max_nodes=2), cluster("mem", size="Standard_E8_v5",
                                                                                   max_nodes=2)]


@pytest.mark.parametrize(
    ("limits", "expected"),
    [
        ({"Ev5": 16}, []),  # 2 x 8 = 16 on standardEv5Family; the isolated 208 cores are not Ev5's
        ({"Ev5": 100, "standardEIv5Family": 104},
         [(at("iso"), f"{EIV5} 104; found 208: iso 2 nodes x 104 vCPUs = 208.")]),
        ({"Standard EIv5 Family": 104, "standardEv5Family": 15},  # display form, any casing and spacing
         [(at("iso"), f"{EIV5} 104; found 208: iso 2 nodes x 104 vCPUs = 208."),
          (at("mem"), f"{EV5} 15; found 16: mem 2 nodes x 8 vCPUs = 16.")]),
        ({"standardeiv5family": 208}, []),
    ],
)
def test_an_isolated_size_is_counted_against_its_own_quota_family(limits, expected):
    assert found(ISOLATED_STACK, {"coreQuota": {"westeurope": limits}}) == expected


def test_default_core_quota_applies_to_an_isolated_size_s_own_family():
    assert found(ISOLATED_STACK, {"defaultCoreQuota": 200, "coreQuota": {"westeurope": {"Ev5": 16}}}) == [
        (at("iso"), f"{EIV5} 200; found 208: iso 2 nodes x 104 vCPUs = 208.")]


# The example: the dedicated DSv2 breach above, and the same stack without cpu-b (44 cores) within the quota.
EXAMPLE = Example(tuple(STACK), tuple(r for r in STACK if r.name != "cpu-b"), "dedicated-breach-52-of-51",
                  "within-quota-44-of-51", {"coreQuota": {"westeurope": {"DSv2": 51}}})
