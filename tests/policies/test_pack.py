"""The pack as a whole: the public rule names and levels, complete metadata, one test module per rule,
and the edge that wraps rules into pulumi-policy policies."""

import re
from pathlib import Path

import pytest
from pulumi_policy import (
    EnforcementLevel,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.policy import _NotApplicableError
from pulumi_policy.proxy import UnknownValueError

from amlkit.policies import ALL_RULES
from amlkit.policies.framework import EQUIVALENT_TOOLS, REF_PATTERN, TAGS, Finding, Rule, cannot_tell
from amlkit.policies.pack import build_policies
from amlkit.policies.rules import aml_cluster_min_nodes_zero
from tests.policies.helpers import COMPUTE_TYPE, changed, cluster_props

RULES_DIR = Path(aml_cluster_min_nodes_zero.__file__).parent
TESTS_DIR = Path(__file__).parent

# The public interface: every rule name and its default level (issue 3).
EXPECTED_LEVELS = {
    "aml-cluster-min-nodes-zero": "mandatory",
    "aml-cluster-max-nodes": "mandatory",
    "aml-cluster-idle-scale-down": "mandatory",
    "aml-compute-approved-vm-family": "mandatory",
    "aml-compute-retired-vm-series": "mandatory",
    "aml-compute-vm-series-retiring": "advisory",
    "aml-gpu-cuda-compatible": "mandatory",
    "aml-compute-isolated-size": "mandatory",
    "aml-cluster-vm-priority": "mandatory",
    "aml-compute-identity": "mandatory",
    "aml-cluster-ssh-disabled": "mandatory",
    "aml-compute-no-public-ip": "advisory",
    "aml-compute-local-auth-disabled": "advisory",
    "aml-compute-network-isolated": "advisory",
    "aml-cluster-same-region": "advisory",
    "aml-compute-instance-idle-shutdown": "advisory",
    "aml-quota-budget": "advisory",
    "aml-no-aks-created-through-aml": "advisory",
    "aml-attached-compute-unique": "mandatory",
    "aml-no-resource-group-lock": "mandatory",
    "aml-no-lock-on-batch-resources": "mandatory",
    "aml-workspace-public-network-disabled": "advisory",
    "aml-workspace-no-public-access-behind-vnet": "advisory",
    "aml-workspace-managed-network": "advisory",
    "aml-workspace-serverless-no-public-ip": "advisory",
    "aml-workspace-cmk": "advisory",
    "aml-workspace-hbi": "advisory",
    "aml-workspace-user-assigned-identity": "advisory",
    "aml-workspace-diagnostics": "advisory",
    "aml-required-tags": "advisory",
    "aml-no-preview-api-versions": "advisory",
}
# Every stable reference ever assigned, and the rule it names. Frozen: a ref is never changed, moved to
# another rule or reused; a retired rule keeps its line. A new rule takes the next number (see below).
REFS = {
    "AMLK-0001": "aml-cluster-min-nodes-zero",
    "AMLK-0002": "aml-cluster-max-nodes",
    "AMLK-0003": "aml-cluster-idle-scale-down",
    "AMLK-0004": "aml-compute-approved-vm-family",
    "AMLK-0005": "aml-compute-retired-vm-series",
    "AMLK-0006": "aml-cluster-vm-priority",
    "AMLK-0007": "aml-compute-identity",
    "AMLK-0008": "aml-cluster-ssh-disabled",
    "AMLK-0009": "aml-compute-no-public-ip",
    "AMLK-0010": "aml-compute-local-auth-disabled",
    "AMLK-0011": "aml-compute-network-isolated",
    "AMLK-0012": "aml-cluster-same-region",
    "AMLK-0013": "aml-compute-instance-idle-shutdown",
    "AMLK-0014": "aml-quota-budget",
    "AMLK-0015": "aml-no-aks-created-through-aml",
    "AMLK-0016": "aml-no-resource-group-lock",
    "AMLK-0017": "aml-no-lock-on-batch-resources",
    "AMLK-0018": "aml-workspace-public-network-disabled",
    "AMLK-0019": "aml-workspace-no-public-access-behind-vnet",
    "AMLK-0020": "aml-workspace-managed-network",
    "AMLK-0021": "aml-workspace-serverless-no-public-ip",
    "AMLK-0022": "aml-workspace-cmk",
    "AMLK-0023": "aml-workspace-hbi",
    "AMLK-0024": "aml-workspace-user-assigned-identity",
    "AMLK-0025": "aml-workspace-diagnostics",
    "AMLK-0026": "aml-required-tags",
    "AMLK-0027": "aml-no-preview-api-versions",
    "AMLK-0028": "aml-compute-vm-series-retiring",
    "AMLK-0029": "aml-gpu-cuda-compatible",
    "AMLK-0030": "aml-compute-isolated-size",
    "AMLK-0031": "aml-attached-compute-unique",
}
STACK_RULES = {
    "aml-compute-identity", "aml-compute-network-isolated", "aml-cluster-same-region", "aml-quota-budget",
    "aml-no-resource-group-lock", "aml-no-lock-on-batch-resources", "aml-workspace-diagnostics",
    "aml-attached-compute-unique",
}


def test_rule_names_and_default_levels_are_the_public_interface():
    assert {rule.name: rule.level for rule in ALL_RULES} == EXPECTED_LEVELS


def test_rule_names_are_unique():
    names = [rule.name for rule in ALL_RULES]
    assert len(names) == len(set(names))


def _next_ref() -> str:
    return f"AMLK-{max(int(ref[5:]) for ref in REFS) + 1:04d}"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.name)
def test_each_rule_has_its_frozen_ref(rule):
    module = f"policies/rules/{rule.name.replace('-', '_')}.py"
    assert rule.ref, (f"{rule.name} has no ref: add ref=\"{_next_ref()}\" to RULE in {module} and the line "
                      f"\"{_next_ref()}\": \"{rule.name}\", to REFS in tests/policies/test_pack.py")
    assert re.fullmatch(REF_PATTERN, rule.ref), f"{rule.name}: ref {rule.ref!r} must look like AMLK-0001"
    assert rule.ref in REFS, (f"{rule.name}: ref {rule.ref} is not in REFS; add the line \"{rule.ref}\": "
                              f"\"{rule.name}\", to REFS in tests/policies/test_pack.py (refs are never reused: "
                              f"the next free one is {_next_ref()})")
    assert REFS[rule.ref] == rule.name, (f"{rule.name}: ref {rule.ref} belongs to {REFS[rule.ref]}; refs are "
                                         f"frozen and never reused: take {_next_ref()}")


def test_refs_are_unique_and_the_ledger_never_reuses_one():
    refs = [rule.ref for rule in ALL_RULES]
    assert len(refs) == len(set(refs))
    assert len(set(REFS.values())) == len(REFS), "REFS gives two refs to one rule name"
    assert list(REFS) == [f"AMLK-{n:04d}" for n in range(1, len(REFS) + 1)], "REFS are numbered in order, no gaps"


EQUIVALENT_IDS = {
    "Azure Policy": r"/providers/Microsoft\.Authorization/policyDefinitions/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}",
    "PSRule for Azure": r"AZR-\d{6}",
    "Checkov": r"CKV2?_AZURE_\d+",
    "Azure Landing Zones": r"Deny-MachineLearning-[A-Za-z-]+",
}


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.name)
def test_display_name_compliance_and_equivalents_are_well_formed(rule):
    assert rule.display_name.strip() and len(rule.display_name) <= 60
    assert set(EQUIVALENT_IDS) == set(EQUIVALENT_TOOLS)
    for equivalent in rule.equivalents:
        assert re.fullmatch(EQUIVALENT_IDS[equivalent.tool], equivalent.id), equivalent
        assert equivalent.url.startswith("https://")
    if rule.compliance:
        assert rule.compliance.name == "Microsoft cloud security benchmark" and rule.compliance.version == "v1"
        assert re.fullmatch(r"[A-Z]{2}-\d+", rule.compliance.reference)
        assert rule.compliance.url.startswith("https://learn.microsoft.com/security/benchmark/azure/mcsb-")


def test_stack_rules_are_the_expected_ones():
    assert {rule.name for rule in ALL_RULES if rule.is_stack_rule} == STACK_RULES


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.name)
def test_metadata_is_complete(rule):
    assert rule.description.strip() and rule.remediation.strip()
    assert rule.severity in ("low", "medium", "high", "critical")
    assert rule.tags and set(rule.tags) <= set(TAGS)
    assert rule.url.startswith("https://")
    assert (rule.check is None) != (rule.check_stack is None)
    for key, spec in rule.config.items():
        assert "type" in spec and "description" in spec, f"{rule.name}.{key} needs a type and a description"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.name)
def test_each_rule_has_its_module_and_test_module(rule):
    module = rule.name.replace("-", "_")
    assert (RULES_DIR / f"{module}.py").is_file()
    assert (TESTS_DIR / f"test_{module}.py").is_file()


def test_every_rule_module_is_in_the_pack():
    modules = {path.stem for path in RULES_DIR.glob("aml_*.py")}
    assert modules == {rule.name.replace("-", "_") for rule in ALL_RULES}


def test_build_policies_carries_metadata():
    policies = {policy.name: policy for policy in build_policies(ALL_RULES)}
    assert set(policies) == set(EXPECTED_LEVELS)
    for rule in ALL_RULES:
        policy = policies[rule.name]
        expected_class = StackValidationPolicy if rule.is_stack_rule else ResourceValidationPolicy
        assert isinstance(policy, expected_class)
        assert policy.enforcement_level == EnforcementLevel(rule.level)
        assert policy.remediation_steps == rule.remediation and policy.url == rule.docs_url
        assert policy.tags == list(rule.tags)
        assert policy.display_name == rule.display_name
        framework = policy.framework and (policy.framework.name, policy.framework.version,
                                          policy.framework.reference, policy.framework.specification)
        compliance = rule.compliance and (rule.compliance.name, rule.compliance.version,
                                          rule.compliance.reference, rule.compliance.specification)
        assert framework == compliance
        assert set(policy.config_schema.properties) == {*rule.config, "waivers"}


def _validate(props, config):
    policy = build_policies([aml_cluster_min_nodes_zero.RULE])[0]
    name = "gpu"
    urn = f"urn:pulumi:prod::amlkit::{COMPUTE_TYPE}::{name}"
    args = ResourceValidationArgs(COMPUTE_TYPE, props, urn, name, None, None, config, {})
    reported = []
    policy.validate(args, lambda message, urn=None: reported.append(message))
    return reported


FAILING = changed(cluster_props(), "properties.properties.scaleSettings.minNodeCount", 1.0)


def test_edge_reports_violation_without_waiver():
    assert _validate(FAILING, None) == ["AmlCompute cluster 'gpu' must have minNodeCount 0; found 1."]


def test_edge_reports_waived_finding_as_not_applicable_with_reason():
    config = {"waivers": [{"resource": "gpu", "reason": "warm pool for demo", "expires": "2999-12-31"}]}
    with pytest.raises(_NotApplicableError) as raised:
        _validate(FAILING, config)
    urn = "urn:pulumi:prod::amlkit::azure-native:machinelearningservices:Compute::gpu"
    assert raised.value.reason == (
        "waived on gpu: warm pool for demo (expires 2999-12-31)\n"
        'amlkit-waivers/v1 {"version":1,"waived":[{"urn":"' + urn + '","reason":"warm pool for demo",'
        '"expires":"2999-12-31","message":"AmlCompute cluster \'gpu\' must have minNodeCount 0; found 1."}]}'
    )


def test_edge_reports_expired_waiver_as_violation():
    config = {"waivers": [{"resource": "gpu", "reason": "demo", "expires": "2000-01-01"}]}
    assert _validate(FAILING, config) == [
        "AmlCompute cluster 'gpu' must have minNodeCount 0; found 1. (waiver expired on 2000-01-01: demo)"
    ]


def test_edge_fails_closed_on_a_malformed_waiver():
    with pytest.raises(ValueError, match=r"aml-cluster-min-nodes-zero.waivers\[0\].reason: required"):
        _validate(FAILING, {"waivers": [{"resource": "gpu"}]})


# --- "cannot tell": decided findings first, then the protocol's unknown ------------------------------------

def _stack_validate(findings, config=None):
    rule = Rule(name="demo-rule", description="d", severity="low", level="advisory", tags=(), url="u",
                remediation="r", check_stack=lambda resources, config: findings)
    policy = build_policies([rule])[0]
    reported = []
    try:
        policy.validate(StackValidationArgs([], config or {}), lambda message, urn=None: reported.append(message))
    except UnknownValueError as error:
        return reported, error.message
    return reported, None


URN_A = f"urn:pulumi:prod::amlkit::{COMPUTE_TYPE}::a"


def test_edge_reports_decided_findings_then_raises_the_unknown():
    findings = [Finding("a must x.", URN_A), cannot_tell("b", "y", "z"), cannot_tell("c", "y", "w")]
    assert _stack_validate(findings) == (["a must x."], "b must y; cannot tell: z. | c must y; cannot tell: w.")


def test_edge_without_unknown_raises_nothing():
    assert _stack_validate([Finding("a must x.", URN_A)]) == (["a must x."], None)


def test_edge_unknown_wins_over_waived_and_counts_them():
    config = {"waivers": [{"resource": "a", "reason": "known"}]}
    findings = [Finding("a must x.", URN_A), cannot_tell("b", "y", "z")]
    assert _stack_validate(findings, config) == (
        [], "b must y; cannot tell: z. | 1 waived finding(s) of this policy not listed while it cannot tell")
