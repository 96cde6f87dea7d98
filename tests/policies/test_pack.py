"""The pack as a whole: the public rule names and levels, complete metadata, one test module per rule,
and the edge that wraps rules into pulumi-policy policies."""

import importlib
import re
from pathlib import Path

import pytest
from pulumi_policy import (
    EnforcementLevel,
    PolicyCustomTimeouts,
    PolicyResourceOptions,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.policy import _NotApplicableError
from pulumi_policy.proxy import UnknownValueError

from amlkit import __version__
from amlkit.policies import ALL_RULES, RuleModuleError, discover
from amlkit.policies.framework import (
    EQUIVALENT_TOOLS,
    GROUPS,
    REF_PATTERN,
    TAGS,
    CannotLink,
    Finding,
    Rule,
    cannot_tell,
)
from amlkit.policies.metadata import policy_tags
from amlkit.policies.pack import build_policies
from amlkit.policies.rules import aml_cluster_min_nodes_zero
from tests.policies.examples import example_of, rule_test_module, rule_test_path
from tests.policies.helpers import COMPUTE_TYPE, Public, changed, cluster_props

RULES_DIR = Path(aml_cluster_min_nodes_zero.__file__).parent
TESTS_DIR = Path(__file__).parent

# Refs of rules that were removed from the pack: a retired rule keeps its ref here, so no new rule reuses it.
RETIRED_REFS: dict[str, str] = {}


def _next_ref() -> str:
    used = [int(rule.ref[5:]) for rule in ALL_RULES if re.fullmatch(REF_PATTERN, rule.ref)]
    return f"AMLK-{max(used + [int(ref[5:]) for ref in RETIRED_REFS]) + 1:04d}"


def _public(rule: Rule) -> Public:
    return Public(rule.ref, rule.name, rule.level, "stack" if rule.is_stack_rule else "resource")


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.name)
def test_each_rule_keeps_the_public_interface_its_test_module_pins(rule):
    module = rule_test_path(rule)
    assert rule.ref, f"{rule.name} has no ref: add ref=\"{_next_ref()}\" to its RULE (refs are never reused)"
    assert re.fullmatch(REF_PATTERN, rule.ref), f"{rule.name}: ref {rule.ref!r} must look like AMLK-0001"
    pinned = getattr(rule_test_module(rule), "PUBLIC", None)
    assert pinned is not None, f"{module} must pin the rule's public interface: PUBLIC = {_public(rule)!r}"
    assert _public(rule) == pinned, (f"{rule.name} changed its public interface (pinned in {module}): refs and "
                                     f"names are frozen; a new rule takes {_next_ref()}")


def test_refs_are_unique_numbered_in_order_and_never_reused():
    refs = sorted([rule.ref for rule in ALL_RULES] + list(RETIRED_REFS))
    assert len(refs) == len(set(refs)), "two rules (or a rule and a retired one) share a ref"
    assert refs == [f"AMLK-{n:04d}" for n in range(1, len(refs) + 1)], (
        f"refs are numbered in order with no gaps; a new rule takes {_next_ref()}, a removed rule's ref goes "
        "to RETIRED_REFS")


def test_rule_names_are_unique():
    names = [rule.name for rule in ALL_RULES]
    assert len(names) == len(set(names))


def test_rules_come_in_group_then_ref_order():
    assert [rule.group for rule in ALL_RULES] == sorted((r.group for r in ALL_RULES), key=GROUPS.index)
    for group in GROUPS:
        refs = [rule.ref for rule in ALL_RULES if rule.group == group]
        assert refs == sorted(refs) and refs, group


EQUIVALENT_IDS = {
    "Azure Policy": r"/providers/Microsoft\.Authorization/policyDefinitions/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}",
    "PSRule for Azure": r"AZR-\d{6}",
    "Checkov": r"CKV2?_AZURE_\d+",
    "Azure Landing Zones": r"(Deny|Audit)-MachineLearning-[A-Za-z-]+",
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
    modules = {path.stem for path in RULES_DIR.glob("*.py") if not path.stem.startswith("_")}
    assert modules == {rule.name.replace("-", "_") for rule in ALL_RULES}


def test_build_policies_carries_metadata():
    policies = {policy.name: policy for policy in build_policies(ALL_RULES)}
    assert list(policies) == [rule.name for rule in ALL_RULES]
    for rule in ALL_RULES:
        policy = policies[rule.name]
        expected_class = StackValidationPolicy if rule.is_stack_rule else ResourceValidationPolicy
        assert isinstance(policy, expected_class)
        assert policy.enforcement_level == EnforcementLevel(rule.level)
        assert policy.remediation_steps == rule.remediation and policy.url == rule.docs_url
        assert policy.tags[:len(rule.tags)] == list(rule.tags)  # its risk tags, then its metadata (test_metadata)
        assert policy.tags == policy_tags(rule)
        assert policy.display_name == rule.display_name
        framework = policy.framework and (policy.framework.name, policy.framework.version,
                                          policy.framework.reference, policy.framework.specification)
        compliance = rule.compliance and (rule.compliance.name, rule.compliance.version,
                                          rule.compliance.reference, rule.compliance.specification)
        assert framework == compliance
        assert set(policy.config_schema.properties) == {*rule.config, "waivers", "waiverExpiryWarningDays"}


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
        'amlkit-waivers/v2 {"version":2,"waived":[{"urn":"' + urn + '","reason":"warm pool for demo",'
        '"expires":"2999-12-31","message":"AmlCompute cluster \'gpu\' must have minNodeCount 0; found 1.",'
        '"waiver":"gpu","via":"resource"}]}'
    )


COMPONENT = "urn:pulumi:prod::amlkit::amlkit:index:ComputeCluster::prod-cluster-gpu"


@pytest.mark.parametrize(("resource", "line"), [
    pytest.param("prod-cluster-gpu", "waived on gpu (by the waiver for its component prod-cluster-gpu): demo "
                 "(expires 2999-12-31)", id="component"),
    pytest.param("gpu-cluster", "waived on gpu (by the waiver for its stack entry gpu-cluster): demo "
                 "(expires 2999-12-31)", id="stack-entry"),
])
def test_edge_waives_by_component_and_by_stack_entry(resource, line):
    policy = build_policies([aml_cluster_min_nodes_zero.RULE])[0]
    props = {**FAILING, "computeName": "gpu-cluster"}
    opts = PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [], COMPONENT)
    config = {"waivers": [{"resource": resource, "reason": "demo", "expires": "2999-12-31"}]}
    args = ResourceValidationArgs(COMPUTE_TYPE, props, f"urn:pulumi:prod::amlkit::{COMPUTE_TYPE}::gpu", "gpu", opts,
                                  None, config, {})
    with pytest.raises(_NotApplicableError) as raised:
        policy.validate(args, lambda message, urn=None: pytest.fail(message))
    assert raised.value.reason.splitlines()[0] == line


def test_edge_counts_the_expiry_window_as_the_wire_carries_it():
    config = {"waiverExpiryWarningDays": 30.0,
              "waivers": [{"resource": "gpu", "reason": "demo", "expires": "2026-12-05"}]}
    with pytest.raises(_NotApplicableError) as raised:
        _validate(FAILING, config)
    assert raised.value.reason.splitlines()[0] == "waived on gpu: demo (expires 2026-12-05, in 11 day(s))"


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
                remediation="r", check_stack=findings if callable(findings) else lambda resources, config: findings)
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


def test_edge_reports_a_link_the_rule_cannot_tell_as_its_unknown():
    def check_stack(resources, config):
        yield Finding("a must x.", URN_A)
        raise CannotLink("compute 'gpu' names workspace <unknown>")

    assert _stack_validate(check_stack) == ([], "compute 'gpu' names workspace <unknown>")


def test_edge_without_unknown_raises_nothing():
    assert _stack_validate([Finding("a must x.", URN_A)]) == (["a must x."], None)


def test_edge_unknown_wins_over_waived_and_counts_them():
    config = {"waivers": [{"resource": "a", "reason": "known"}]}
    findings = [Finding("a must x.", URN_A), cannot_tell("b", "y", "z")]
    assert _stack_validate(findings, config) == (
        [], "b must y; cannot tell: z. | 1 waived finding(s) of this policy not listed while it cannot tell")


# --- discovery: a rule is its module -------------------------------------------------------------------

RULE_SOURCE = '''from amlkit.policies.framework import Change, Rule
RULE = Rule(name={name!r}, ref={ref!r}, group={group!r}, description="d", severity="low", level="advisory",
            tags=("cost",), url="https://example.com", remediation="r", check=lambda resource, config: [],
            since={since!r}, changed={changed})
'''


def _source(name: str, ref: str = "AMLK-0001", group: str = "compute", since: str = "0.1.0",
            changed: str = "()") -> str:
    return RULE_SOURCE.format(name=name, ref=ref, group=group, since=since, changed=changed)


def _package(tmp_path, monkeypatch, name: str, modules: dict[str, str]):
    root = tmp_path / name
    root.mkdir()
    (root / "__init__.py").write_text("")
    for module, source in modules.items():
        (root / f"{module}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    return importlib.import_module(name)


def test_discover_orders_rules_by_group_then_ref_and_skips_private_modules(tmp_path, monkeypatch):
    package = _package(tmp_path, monkeypatch, "rules_ok", {
        "demo_b": _source("demo-b", ref="AMLK-0001", group="workspace"),
        "demo_a": _source("demo-a", ref="AMLK-0003"),
        "demo_c": _source("demo-c", ref="AMLK-0002"),
        "_shared": "HELPER = 1\n",
    })
    assert [rule.name for rule in discover(package)] == ["demo-c", "demo-a", "demo-b"]


VERSION_RE = re.escape(__version__)


@pytest.mark.parametrize(("module", "source", "message"), [
    ("demo_x", "X = 1\n", r"demo_x\.py: a rule module must define RULE = Rule\(\.\.\.\) \(found no RULE\)$"),
    ("demo_x", _source("demo-y"),
     r"demo_x\.py: RULE is named 'demo-y'; a rule module is named after its rule \(demo_y\.py\)$"),
    ("demo_x", _source("demo-x", group="network"),
     r"demo_x\.py: RULE\.group is 'network'; allowed: compute, locks, workspace, general$"),
    ("demo_x", _source("demo-x", since=""),
     r"demo_x\.py: RULE\.since is ''; it must name the amlkit release the rule arrives in, from 0\.1\.0 to "
     + VERSION_RE + "$"),
    ("demo_x", _source("demo-x", since="9.0.0"),
     r"demo_x\.py: RULE\.since is '9\.0\.0'; it must name the amlkit release the rule arrives in, from 0\.1\.0 "
     r"to " + VERSION_RE + "$"),
    ("demo_x", _source("demo-x", changed='(Change("0.9.0", "w", level="mandatory"),)'),
     r"demo_x\.py: RULE\.changed has release '0\.9\.0'; allowed: a release from 0\.1\.0 to " + VERSION_RE + "$"),
    ("demo_x", _source("demo-x", changed='(Change("0.1.0", "w", level="mandatory"),)'),
     r"demo_x\.py: RULE\.changed must list releases after RULE\.since \(0\.1\.0\), oldest first; found "
     r"\['0\.1\.0'\]$"),
], ids=["no-rule", "misnamed", "unknown-group", "no-since", "since-unreleased", "changed-unreleased",
        "changed-not-after-since"])
def test_discover_refuses_a_malformed_rule_module(tmp_path, monkeypatch, module, source, message):
    package = _package(tmp_path, monkeypatch, f"rules_{tmp_path.name}", {module: source})
    with pytest.raises(RuleModuleError, match=message):
        discover(package)


# --- each rule's example: declared in its test module, shown in its docs page, run by the engine test ---------

@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.name)
def test_each_rule_declares_an_example_that_fails_and_passes(rule):
    example = example_of(rule)
    assert example is not None, (f"{rule_test_path(rule)} must declare EXAMPLE = Example.of_cases(CASES, fails=..., "
                                 "passes=...) (or of_stacks / of_builders): tests/policies/examples.py")
    assert example.messages(rule, example.fails), f"{rule.name}: EXAMPLE.fails ({example.fails_case}) must fail"
    assert example.messages(rule, example.passes) == [], f"{rule.name}: EXAMPLE.passes must pass"
    names = [resource.name for stack in (example.fails, example.passes) for resource in stack]
    assert all(resource.parent_urn is None for resource in (*example.fails, *example.passes))
    assert names and all(names), rule.name


def test_analyze_stack_runs_with_the_cyclic_collector_paused_and_resumes_it():
    """Only AnalyzeStack pauses it; overlapping calls resume it when the last one ends, also on an error."""
    import gc

    from amlkit.policies import pack as pack_module

    seen = []

    def analyze_stack(self, request, context):
        seen.append(gc.isenabled())
        if request == "nested":
            serve(self, "inner", context)
            seen.append(gc.isenabled())
        if request == "fails":
            raise RuntimeError("policy raised")
        return "answer"

    analyze_stack.__name__ = "AnalyzeStack"
    serve = pack_module._in_scope(analyze_stack)
    analyze = pack_module._in_scope(lambda self, request, context: gc.isenabled())
    assert gc.isenabled()
    assert serve(None, "nested", None) == "answer" and seen == [False, False, False] and gc.isenabled()
    with pytest.raises(RuntimeError):
        serve(None, "fails", None)
    assert gc.isenabled() and analyze(None, "request", None) is True


def test_every_workspace_rule_names_its_stack_key_in_the_remediation():
    """A finding on a stack-file workspace is fixed in the stack file: the remediation says which key there, next
    to the Azure property (as the cluster rules do: `min_node_count (stack: min_instances)`)."""
    missing = [rule.name for rule in ALL_RULES
               if rule.group == "workspace" and rule.stack_key and f"stack: {rule.stack_key}" not in rule.remediation]
    assert missing == []
