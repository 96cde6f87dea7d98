"""The JSON report: the documented shape, sorted, waivers with reason and expiry, failures visible."""

from __future__ import annotations

import json

import pytest

from amlkit.review.model import Review
from amlkit.review.report.json import FORMAT_VERSION, indented, render, render_rules, to_dict
from tests.data.reviews import (
    COMPUTE,
    PACK,
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


def test_top_level_shape_and_summary() -> None:
    data = to_dict(full_review())
    assert list(data) == ["version", "stacks", "summary"]
    assert data["version"] == FORMAT_VERSION == 1
    assert [s["stack"] for s in data["stacks"]] == ["dev", "prod", "staging"]
    assert data["summary"] == {"mandatory": 1, "advisory": 1, "waived": 1, "unknown": 1, "failed": 1}


def test_stack_fields() -> None:
    dev, prod, staging = to_dict(full_review())["stacks"]
    assert list(prod) == ["stack", "project", "environment", "stack_file", "pack", "policy_config", "packs",
                          "audited_state", "error", "error_kind", "error_detail", "resources", "violations",
                          "unknown", "remediations", "planBase", "planAzureIds", "steps", "changeSummary", "lookups",
                          "warnings"]
    plan = (prod["planBase"], prod["planAzureIds"], prod["steps"], prod["changeSummary"])
    assert plan == (None,) * 4  # no --state / --base
    assert (prod["project"], prod["environment"], prod["stack_file"]) == ("amlkit", "prod", "stacks/Pulumi.prod.yaml")
    assert prod["pack"] == {"name": "amlkit-guardrails", "version": "0.1.0"}
    assert prod["packs"] == [{"name": "amlkit-guardrails", "version": "0.1.0",
                              "policy_config": "policy-config/prod.json"}]
    assert (prod["audited_state"], staging["packs"]) == (None, [])
    assert dev["error"] is None and dev["violations"] == [] and dev["unknown"] == []
    assert staging["error"] == "program failed: ValueError: bad subnet"
    assert (staging["error_kind"], staging["error_detail"]) == ("program", None)
    assert staging["pack"] is None
    assert (prod["policy_config"], dev["policy_config"]) == ("policy-config/prod.json", "pack defaults")


def test_a_config_error_carries_its_fields_and_exits_2() -> None:
    review = Review(stacks=[config_error_stack(), dev_stack()])
    [wrong] = [s for s in to_dict(review)["stacks"] if s["stack"] == "wrongtype"]
    assert wrong["error_kind"] == "config"
    assert wrong["error_detail"] == {
        "kind": "config", "stack": "wrongtype", "file": "stacks/Pulumi.wrongtype.yaml",
        "component": "amlkit:index:ComputeCluster::cpu-cluster", "key_path": "max_nodes", "value": "four",
        "problem": "must be a whole number >= 1"}
    assert to_dict(review)["summary"]["failed"] == 1
    assert review.exit_code() == 2
    assert Review(stacks=[config_error_stack(), prod_stack()]).exit_code() == 2  # config error beats mandatory
    assert Review(stacks=[config_error_stack(), failed_stack()]).exit_code() == 3  # a program failure beats it


def test_violations_sorted_by_level_with_waiver_fields_only_on_waived() -> None:
    prod = to_dict(Review(stacks=[prod_stack()]))["stacks"][0]
    base = {"urn": cpu_urn(), "type": COMPUTE, "resource": "cpu-cluster"}
    pack = {"pack": "amlkit-guardrails"}
    assert prod["violations"] == [
        {"policy": "aml-cluster-min-nodes-zero", **pack, "level": "mandatory", "severity": "high", **base,
         "message": "Cluster cpu-cluster must scale down to 0 nodes; found minNodeCount 2.\nIdle nodes are billed."},
        {"policy": "aml-cluster-ssh-disabled", **pack, "level": "advisory", "severity": "high", **base,
         "message": "Cluster cpu-cluster must close the SSH port explicitly; found NotSpecified."},
        {"policy": "aml-compute-no-public-ip", **pack, "level": "waived", "severity": "medium", **base,
         "message": "Cluster cpu-cluster must not give nodes a public IP.",
         "reason": "Migration to the hub network, ticket NET-42", "expires": "2026-12-31", "waiver": "cpu-cluster",
         "waiver_via": "entry"},
    ]
    assert prod["unknown"] == [{"policy": "aml-cluster-same-region", **pack, "urn": cpu_urn(), "type": COMPUTE,
                                "resource": "cpu-cluster", "message": "can't be known during preview"}]


def test_resources_sorted_by_urn_without_inputs() -> None:
    resources = to_dict(Review(stacks=[prod_stack()]))["stacks"][0]["resources"]
    assert [r["urn"] for r in resources] == sorted(r["urn"] for r in resources)
    assert all(list(r) == ["urn", "type", "name", "parent"] for r in resources)
    assert resources[0] == {"urn": "urn:pulumi:prod::amlkit::amlkit:index:Environment$amlkit:index:ComputeCluster"
                                   "$azure-native:machinelearningservices:Compute::cpu-cluster",
                            "type": COMPUTE, "name": "cpu-cluster",
                            "parent": "urn:pulumi:prod::amlkit::amlkit:index:Environment$"
                                      "amlkit:index:ComputeCluster::cpu-cluster"}


def test_render_is_the_dict_as_indented_json_and_keeps_non_ascii() -> None:
    text = render(full_review())
    assert json.loads(text) == to_dict(full_review())
    assert text.endswith("}\n") and text.startswith('{\n  "version": 1,')
    assert SECRET_VALUE not in text


def test_empty_review() -> None:
    assert to_dict(Review()) == {"version": 1, "stacks": [],
                                 "summary": {"mandatory": 0, "advisory": 0, "waived": 0, "unknown": 0, "failed": 0}}


def test_rules() -> None:
    data = json.loads(render_rules(PACK))
    assert data["version"] == 1 and data["pack"] == {"name": "amlkit-guardrails", "version": "0.1.0"}
    assert [p["name"] for p in data["policies"]] == ["aml-cluster-min-nodes-zero", "aml-cluster-ssh-disabled",
                                                     "aml-compute-no-public-ip", "aml-quota-budget"]
    assert data["policies"][1] == {
        "name": "aml-cluster-ssh-disabled", "ref": "AMLK-0008", "group": "compute",
        "display_name": "No public SSH on compute", "since": "0.2.0",
        "level": "advisory", "severity": "high",
        "description": "Cluster SSH ports are explicitly closed.",
        "remediation": "Set ssh_public_access_enabled: false.",
        "url": "https://learn.microsoft.com/azure/machine-learning/how-to-secure-training-vnet",
        "tags": ["security", "network"], "stack_policy": False, "remediates": False,
        "compliance": {"name": "Microsoft cloud security benchmark", "version": "v1", "reference": "NS-1",
                       "specification": "Establish network segmentation boundaries"},
        "equivalents": [],
    }
    assert data["policies"][3]["stack_policy"] is True
    # a policy without amlkit metadata (another pack's) says so with nulls, not missing keys
    assert {key: data["policies"][3][key] for key in ("ref", "group", "display_name", "since", "compliance",
                                                   "equivalents")} == {
        "ref": None, "group": None, "display_name": None, "since": None, "compliance": None, "equivalents": []}


def test_several_packs_each_with_its_config_and_each_finding_with_its_pack() -> None:
    stack = to_dict(Review(stacks=[two_pack_stack()]))["stacks"][0]
    assert stack["packs"] == [
        {"name": "amlkit-guardrails", "version": "0.1.0", "policy_config": "policy-config/prod.json"},
        {"name": "acme-extra", "version": "2.0.0", "policy_config": "acme.json"}]
    assert stack["pack"] == {"name": "amlkit-guardrails", "version": "0.1.0"}  # the first pack, as before
    assert [(v["policy"], v["pack"]) for v in stack["violations"] if v["level"] == "mandatory"] == [
        ("acme-tags", "acme-extra"), ("aml-cluster-min-nodes-zero", "amlkit-guardrails")]


def test_remediations_are_listed_in_the_order_made_each_property_with_before_and_after() -> None:
    stack = to_dict(Review(stacks=[remediated_stack(), dev_stack()]))["stacks"]
    cpu = {"pack": "amlkit-guardrails", "urn": cpu_urn(), "type": COMPUTE, "resource": "cpu-cluster"}
    assert stack[1]["remediations"] == [
        {"policy": "aml-cluster-min-nodes-zero", **cpu, "property": "properties.properties.scaleSettings.minNodeCount",
         "before": 2, "after": 0},
        {"policy": "aml-cluster-ssh-disabled", **cpu, "property": "properties.properties.remoteLoginPortPublicAccess",
         "before": None, "after": "Disabled"},
        {"policy": "aml-cluster-ssh-disabled", **cpu,
         "property": "properties.properties.userAccountCredentials.adminUserName", "before": "[secret]",
         "after": "azureuser"},
    ]
    assert stack[0]["remediations"] == []  # dev: none, and the key is there (an added field of version 1)
    assert json.loads(render(Review(stacks=[remediated_stack()])))["version"] == 1


INDENTED_CASES = {
    "empty object": {}, "empty array": [], "nested empties": {"a": {}, "b": [], "c": [[], {}]},
    "flat object": {"urn": "u", "parent": None, "n": 1, "f": 2.5, "t": True, "x": False},
    "text": {"ü": "é\u2028\n\"\\\t", "emoji": "\U0001f600"},
    "keys made strings": {3: 2, 2.5: None, True: False, None: 1.0},
    "tuples": (1, 2, (3,), ()),
    "floats": [float("nan"), float("inf"), -float("inf"), 1e100, -0.0, 0.1],
    "scalars": ["x", 1, None, True],
    "deep": {"a": [1, {"b": (2, [])}], "c": {"d": {"e": "f"}}, "g": [[1, 2], [3], {"h": [{}]}]},
}


@pytest.mark.parametrize("case", INDENTED_CASES)
def test_indented_writes_what_the_json_module_writes_with_an_indent(case) -> None:
    value = INDENTED_CASES[case]
    assert indented(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_the_report_is_the_json_modules_indented_text() -> None:
    for review in (full_review(), Review((remediated_stack(), two_pack_stack(), config_error_stack()))):
        assert render(review) == json.dumps(to_dict(review), indent=2, ensure_ascii=False) + "\n"


def test_indented_refuses_what_the_json_module_refuses() -> None:
    for value in ({"a": object()}, [object()], {(1, 2): 3}):
        with pytest.raises(TypeError):
            json.dumps(value, indent=2)
        with pytest.raises(TypeError):
            indented(value)
