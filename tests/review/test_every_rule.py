"""End to end: one real program in which every rule of the pack fires, reviewed once by the real engine.

The fixture `tests/fixtures/every_rule` declares raw azure-native resources: offenders (`*-bad`,
`mlw-open`, `aks-created`, `rg-lock`, `batch-lock`, `cpu-preview`, `aks-attached-twice`,
`aks-attached-again`) and compliant twins. Its `pack-config.json` sets the knobs some rules need to
fire (Dedicated only, required tags, quotas, the M series allowed for the isolated twins, CUDA 12.0,
isolated sizes required) and pins retirement dates to 2026-01-01.

The program is hand-written with the typed SDK (wire-form conversion, compliant twins next to offenders,
cross-rule interplay) for the rules it names below (`COVERED`); its assertions look at those rules only,
so a new rule needs no edit here. That every rule of the pack fires through the engine, new ones included,
is tests/review/test_rule_examples.py, derived from each rule's own EXAMPLE.
"""

from __future__ import annotations

import pytest

from amlkit.policies import ALL_RULES
from amlkit.review.engine import review
from amlkit.review.options import ReviewOptions
from tests.review.helpers import FIXTURES
from tests.review.statefiles import deployed_state

EVERY = FIXTURES / "every_rule"
PACK_CONFIG = EVERY / "pack-config.json"
RULES = {rule.name: rule for rule in ALL_RULES}

M, A = "mandatory", "advisory"
CLUSTER_BAD = [
    ("aml-cluster-min-nodes-zero", M),
    ("aml-cluster-max-nodes", M),
    ("aml-cluster-idle-scale-down", M),
    ("aml-compute-approved-vm-family", M),
    ("aml-compute-vm-series-retiring", A),
    ("aml-compute-isolated-size", M),
    ("aml-cluster-vm-priority", M),
    ("aml-compute-identity", M),
    ("aml-cluster-ssh-disabled", M),
    ("aml-compute-no-public-ip", A),
    ("aml-compute-local-auth-disabled", A),
    ("aml-compute-network-isolated", A),
    ("aml-cluster-same-region", A),
    ("aml-quota-budget", A),
    ("aml-required-tags", A),
]
INSTANCE_BAD = [  # Standard_NC6, retired: aml-compute-retired-vm-series' finding only (one finding per cause)
    ("aml-compute-retired-vm-series", M),
    ("aml-gpu-cuda-compatible", M),
    ("aml-compute-isolated-size", M),
    ("aml-compute-instance-identity", A),  # requireIdentity in pack-config.json
    ("aml-cluster-ssh-disabled", M),
    ("aml-compute-no-public-ip", A),
    ("aml-compute-local-auth-disabled", A),
    ("aml-compute-network-isolated", A),
    ("aml-compute-instance-idle-shutdown", A),
    ("aml-required-tags", A),
]
WORKSPACE_OPEN = [
    ("aml-workspace-public-network-disabled", A),
    ("aml-workspace-no-public-access-behind-vnet", A),
    ("aml-workspace-managed-network", A),
    ("aml-workspace-serverless-no-public-ip", A),
    ("aml-workspace-cmk", A),
    ("aml-workspace-hbi", A),
    ("aml-workspace-user-assigned-identity", A),
    ("aml-workspace-diagnostics", A),
    ("aml-required-tags", A),
]
EXPECTED = sorted(
    [(policy, "cpu-bad", level) for policy, level in CLUSTER_BAD]
    + [(policy, "ci-bad", level) for policy, level in INSTANCE_BAD]
    + [(policy, "mlw-open", level) for policy, level in WORKSPACE_OPEN]
    + [
        ("aml-no-aks-created-through-aml", "aks-created", A),
        ("aml-no-resource-group-lock", "rg-lock", M),
        ("aml-no-lock-on-batch-resources", "batch-lock", M),
        ("aml-no-preview-api-versions", "cpu-preview", A),
        ("aml-attached-compute-unique", "aks-attached-twice", M),
        ("aml-attached-compute-unique", "aks-attached-again", M),
    ]
)
COVERED = {policy for policy, _, _ in EXPECTED}
COMPLIANT = {"aks-attached", "ci-good", "ci-good-contributor", "cpu-good", "mlw-secure", "mlw-secure-diag",
             "mlw-secure-lock", "mlw-secure-pe", "rg", "rg-secure", "uai"}

MESSAGES = {
    ("aml-compute-identity", "cpu-bad"): "AmlCompute cluster 'cpu-bad' must have either a system-assigned or "
    "user-assigned identity, not both; found SystemAssigned,UserAssigned.",
    ("aml-cluster-idle-scale-down", "cpu-bad"): "AmlCompute cluster 'cpu-bad' must release idle nodes within "
    "900 seconds (nodeIdleTimeBeforeScaleDown); found PT2H (7200 seconds).",
    ("aml-compute-approved-vm-family", "cpu-bad"): "AmlCompute cluster 'cpu-bad' must use a VM size from an "
    "allowed series; found Standard_NV48s_v3 of series NVv3 (not in allowedSeries: retiring on 2026-09-30); "
    "successors in allowedSeries: NCasT4_v3; successors to add to allowedSeries first: NVadsA10_v5, "
    "NC_RTXPRO6000BSE_v6; AMD successors (no CUDA: aml-gpu-cuda-compatible refuses them once cudaVersion is set): "
    "NVads_V710_v5.",
    ("aml-compute-vm-series-retiring", "cpu-bad"): "AmlCompute cluster 'cpu-bad' must not use a VM series that "
    "retires within 365 days; found Standard_NV48s_v3 of series NVv3, which retires on 2026-09-30 (in 272 days); "
    "successors in the default allowedSeries: NVadsA10_v5, NCasT4_v3; successors to add to the default "
    "allowedSeries first: NC_RTXPRO6000BSE_v6; AMD successors (no CUDA: aml-gpu-cuda-compatible refuses them once "
    "cudaVersion is set): NVads_V710_v5.",
    ("aml-gpu-cuda-compatible", "ci-bad"): "Compute instance 'ci-bad' must use a GPU that CUDA 12.0 supports; "
    "found Standard_NC6 (NVIDIA Tesla K80, Kepler, which CUDA 12.0 dropped).",
    ("aml-compute-isolated-size", "ci-bad"): "Compute instance 'ci-bad' must use an isolated VM size; found "
    "Standard_NC6, which shares its host; isolated sizes offered: Standard_E96ias_v4, Standard_E80is_v4, "
    "Standard_E80ids_v4, Standard_E104i_v5, Standard_E104is_v5, Standard_E104id_v5, Standard_E104ids_v5, "
    "Standard_E112ias_v5, Standard_E112iads_v5, Standard_E112ibs_v5, Standard_E112ibds_v5, Standard_E192is_v6, "
    "Standard_E192ids_v6, Standard_M192is_v2, Standard_M192ims_v2, Standard_M192ids_v2, Standard_M192idms_v2, "
    "Standard_M832is_16_v3, Standard_M832ids_16_v3, Standard_M896ixds_32_v3, Standard_M1792ixds_32_v3, "
    "Standard_M896ixds_24_v3, Standard_HB120rs_v3, Standard_HB176rs_v4, Standard_HB368rs_v5, Standard_HX176rs, "
    "Standard_NC64as_T4_v3, "
    "Standard_NC96ads_A100_v4, Standard_NC80adis_H100_v5, Standard_ND96isr_H100_v5, Standard_ND96isr_H200_v5, "
    "Standard_ND96isr_MI300X_v5, Standard_NV72ads_A10_v5, Standard_EC96ias_v5, Standard_EC96iads_v5, "
    "Standard_NG32ads_V620_v1, Standard_NG32adms_V620_v1, Standard_ND128isr_NDR_GB200_v6, "
    "Standard_ND128isr_GB300_v6.",
    ("aml-cluster-same-region", "cpu-bad"): "AmlCompute cluster 'cpu-bad' must run in its workspace's region "
    "westeurope (workspace 'mlw-open'); found eastus.",
    ("aml-quota-budget", "cpu-bad"): "Low-priority cores in eastus must fit the low-priority core quota of 100; "
    "found 24000: cpu-bad 500 nodes x 48 vCPUs = 24000.",
    ("aml-required-tags", "cpu-bad"): "Resource 'cpu-bad' (machinelearningservices:Compute) must carry the tags "
    "owner, cost-center; found no value for owner, cost-center.",
    ("aml-compute-retired-vm-series", "ci-bad"): "Compute instance 'ci-bad' must not use a VM series retired for "
    "Azure ML compute; found Standard_NC6 of series NC, retired on 2023-09-06; successors in the default "
    "allowedSeries: NCasT4_v3.",
    ("aml-compute-network-isolated", "ci-bad"): "Compute instance 'ci-bad' must have a subnet or belong to a "
    "workspace whose managed network is isolated (isolationMode AllowInternetOutbound or "
    "AllowOnlyApprovedOutbound); found no subnet, and workspace 'mlw-open' has isolationMode Disabled.",
    ("aml-compute-instance-idle-shutdown", "ci-bad"): "Compute instance 'ci-bad' must shut down after 15 to 4320 "
    "idle minutes (idleTimeBeforeShutdown); found none (the instance runs and bills until stopped).",
    ("aml-no-resource-group-lock", "rg-lock"): "Management lock 'rg-lock' must not cover resource group 'rg', "
    "which holds workspace 'mlw-open' (a lock there blocks cluster scaling); lock individual resources instead; "
    "found a lock at resource group scope.",
    ("aml-no-lock-on-batch-resources", "batch-lock"): "Management lock 'batch-lock' must not lock a "
    "service-managed Azure Batch resource (Azure ML must be able to change and delete it); found "
    "'3f2a9c4e-azurebatch-cloudservicepublicip'.",
    ("aml-no-preview-api-versions", "cpu-preview"): "Resource 'cpu-preview' must use a stable API version "
    "(azure-native:machinelearningservices:Compute); found "
    "azure-native:machinelearningservices/v20240101preview:Compute.",
    ("aml-attached-compute-unique", "aks-attached-twice"): "AKS compute 'aks-attached-twice' must attach "
    "a resource no other compute of workspace 'mlw-open' attaches; found /subscriptions/"
    "00000000-0000-0000-0000-000000000000/resourceGroups/RG-NET/providers/Microsoft.ContainerService/"
    "managedClusters/AKS-Shared also attached by 'aks-attached-again'.",
    ("aml-attached-compute-unique", "aks-attached-again"): "AKS compute 'aks-attached-again' must attach "
    "a resource no other compute of workspace 'mlw-open' attaches; found /subscriptions/"
    "00000000-0000-0000-0000-000000000000/resourceGroups/rg-net/providers/Microsoft.ContainerService/"
    "managedClusters/aks-shared also attached by 'aks-attached-twice'.",
    ("aml-workspace-diagnostics", "mlw-open"): "Workspace 'mlw-open' must have a diagnostic setting "
    "(monitor:DiagnosticSetting whose resourceUri is the workspace's id).",
    ("aml-workspace-serverless-no-public-ip", "mlw-open"): "Workspace 'mlw-open' must have "
    "serverlessComputeSettings.serverlessComputeNoPublicIP true for serverless compute in its custom subnet; "
    "found none (Azure then uses false).",
    ("aml-workspace-user-assigned-identity", "mlw-open"): "Workspace 'mlw-open' must use a user-assigned "
    "identity (identity type including UserAssigned and primaryUserAssignedIdentity set to one of "
    "identity.userAssignedIdentities); found identity type SystemAssigned.",
}


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    """Against the program's own state export: the rules that link resources by id (a compute to its
    workspace, a lock to its resource group) see deployed ids, as `pulumi preview` of a deployed stack does.
    Without a state they are unknown (tests/review/test_preview_knowledge.py)."""
    state = deployed_state(EVERY, "every", tmp_path_factory.mktemp("state"))
    return review(EVERY, ["every"], options=ReviewOptions(policy_pack_config=PACK_CONFIG, states=[state]))


@pytest.fixture(scope="module")
def stack(result):
    [only] = result.stacks
    return only


def covered(stack):
    return [v for v in stack.violations if v.policy in COVERED]


def test_the_whole_pack_runs_and_every_covered_rule_fires(stack):
    assert set(RULES) >= COVERED
    assert {v.policy for v in covered(stack)} == COVERED
    assert sorted(p.name for p in stack.pack.policies) == sorted(RULES)


def test_the_exact_findings(stack):
    assert sorted((v.policy, v.resource, v.level) for v in covered(stack)) == EXPECTED


def test_no_unknowns_no_error_and_mandatory_findings_fail_the_review(result, stack):
    assert stack.error is None
    assert stack.unknown == ()
    assert (stack.stack, stack.project, stack.stack_file) == ("every", "every-rule", "Pulumi.every.yaml")
    assert result.exit_code() == 1


def test_compliant_twins_fire_nothing(stack):
    flagged = {v.resource for v in covered(stack)}
    assert {r.name for r in stack.resources} == COMPLIANT | flagged
    assert COMPLIANT.isdisjoint(flagged)


@pytest.mark.parametrize(("policy", "resource"), sorted(MESSAGES), ids=lambda value: value)
def test_exact_message(stack, policy, resource):
    [violation] = [v for v in stack.violations if (v.policy, v.resource) == (policy, resource)]
    assert violation.message == MESSAGES[policy, resource]


def test_each_finding_carries_its_rules_level_and_severity(stack):
    for violation in stack.violations:
        rule = RULES[violation.policy]
        assert (violation.level, violation.severity) == (rule.level, rule.severity), violation.policy
        assert violation.pack == "amlkit-guardrails"


def test_findings_point_at_engine_urns(stack):
    by_name = {r.name: r for r in stack.resources}
    for violation in stack.violations:
        record = by_name[violation.resource]
        assert (violation.urn, violation.type) == (record.urn, record.type)
    assert by_name["cpu-bad"].urn == (
        "urn:pulumi:every::every-rule::azure-native:machinelearningservices:Compute::cpu-bad")


def test_the_preview_resource_reaches_the_pack_in_wire_form(stack):
    [record] = [r for r in stack.resources if r.name == "cpu-preview"]
    assert record.type == "azure-native:machinelearningservices/v20240101preview:Compute"
    assert record.inputs["properties"] == {
        "computeType": "AmlCompute",
        "disableLocalAuth": True,
        "properties": {
            "enableNodePublicIp": False,
            "osType": "Linux",
            "remoteLoginPortPublicAccess": "Disabled",
            "scaleSettings": {"maxNodeCount": 2.0, "minNodeCount": 0.0},
            "vmSize": "Standard_E112iads_v5",
        },
    }
