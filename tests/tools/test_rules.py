"""tools/docs/rules.py: the rules index and the rule pages (knobs, sources, examples) of docs/rules/."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from amlkit.policies import ALL_RULES
from amlkit.policies.framework import Change, Rule
from amlkit.policies.rules import (
    aml_cluster_max_nodes,
    aml_cluster_min_nodes_zero,
    aml_quota_budget,
    aml_workspace_diagnostics,
)
from tools.docs.configuration import UndocumentedError
from tools.docs.markdown import GENERATED
from tools.docs.rules import changes, knob_rows, knob_type, rule_page, rules_index


def test_a_rule_knob_row() -> None:
    assert knob_rows(aml_cluster_max_nodes.RULE) == [[
        "`maxNodes`", "integer, at least 1", "`100`",
        "Largest maxNodeCount allowed per cluster (Azure's default limit is 100 nodes).",
    ]]
    assert ("| `maxNodes` | integer, at least 1 | `100` | Largest maxNodeCount allowed per cluster (Azure's default "
            "limit is 100 nodes). |") in rule_page(aml_cluster_max_nodes.RULE).splitlines()


@pytest.mark.parametrize(
    ("spec", "text"),
    [
        pytest.param({"type": "integer", "minimum": 15, "maximum": 4320}, "integer, from 15 to 4320", id="range"),
        pytest.param({"type": "array", "items": {"type": "string", "enum": ["Dedicated", "LowPriority"]},
                      "uniqueItems": True, "minItems": 1},
                     "list of one of `Dedicated`, `LowPriority`, at least 1 item(s), no repeats", id="enum-list"),
        pytest.param({"type": "string", "pattern": r"^\d{4}$"}, r"text, matching `^\d{4}$`", id="pattern"),
        pytest.param({"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 512}},
                     "list of text, 1-512 characters", id="lengths"),
        pytest.param({"type": "object", "additionalProperties": {"type": "object", "additionalProperties": {
            "type": "integer", "minimum": 0}}}, "mapping of text to mapping of text to integer, at least 0",
            id="nested-mapping"),
        pytest.param({"type": "array", "items": {"type": "object", "required": ["series"], "properties": {
            "series": {"type": "string"}, "sizes": {"type": "array"}}}},
            "list of object with keys `series`, `sizes` (required: `series`)", id="records"),
    ],
)
def test_knob_type(spec: dict[str, Any], text: str) -> None:
    assert knob_type(spec) == text


def test_an_unknown_schema_keyword_fails_generation() -> None:
    with pytest.raises(UndocumentedError, match=r"^r\.k: JSON-schema keyword\(s\) the rule reference cannot show: "
                                                r"format$"):
        knob_type({"type": "string", "format": "date"}, "r.k")


def test_a_knob_without_default_is_unset() -> None:
    rule = Rule(name="r", description="d", severity="low", level="advisory", tags=("cost",), url="https://x",
                remediation="fix", check=lambda _r, _c: [], config={"k": {"type": "boolean", "description": "K."}})
    assert knob_rows(rule) == [["`k`", "boolean", "unset", "K."]]


def test_a_rule_page() -> None:
    rule = aml_cluster_min_nodes_zero.RULE
    page = rule_page(rule)
    assert page.startswith(f"{GENERATED}\n\n# aml-cluster-min-nodes-zero\n\n**Clusters scale to zero** · "
                           "reference `AMLK-0001` · default level **mandatory** · severity **medium** · tags cost · "
                           "resource rule · since amlkit **0.1.0**\n")
    assert f"\n- Primary source: <{rule.url}>\n" in page
    assert "\n- Checkov: [`CKV_AZURE_150`](https://www.checkov.io/5.Policy%20Index/terraform.html)\n" in page
    # the example is the EXAMPLE of the rule's test module, evaluated now
    assert ("Passes (`happy-path`), a stack of:\n\n`example` (`azure-native:machinelearningservices:Compute`) "
            "with the inputs:\n\n```json\n{\n") in page
    assert ("Fails (`min-2`), the same stack except that it:\n\n- changes `example` "
            "(`azure-native:machinelearningservices:Compute`):\n\n```json\n{\n"
            '  "properties.properties.scaleSettings.minNodeCount": 2.0\n}\n```\n\nReports:\n\n'
            "> AmlCompute cluster 'example' must have minNodeCount 0; found 2.\n") in page
    assert page.endswith(f"## Remediation\n\n{rule.remediation}\n\nAt level `remediate` the pack sets this before "
                         "the resource is analyzed (see [remediation](../review.md#remediation-level-remediate)): "
                         "minNodeCount 0: the cluster keeps its maximum and scales to zero when idle.\n")


def test_changes_lists_changed_set_and_removed_paths() -> None:
    base = {"a": {"b": 1, "c": 2}, "d": 3}
    assert changes(base, {"a": {"b": 5}, "d": 3, "e": {"f": True}}) == {
        "a.b": 5, "a.c": "(omitted)", "e.f": True}


def test_a_stack_rule_page_shows_what_the_failing_stack_adds() -> None:
    page = rule_page(aml_workspace_diagnostics.RULE)
    assert "With pack config" not in page
    assert ("Passes (`happy-path`), a stack of:\n\n| Resource | Type |\n|---|---|\n"
            "| `mlw-prod` | `azure-native:machinelearningservices:Workspace` |\n") in page
    assert ("Fails (`no-settings`), the same stack except that it:\n\n"
            "- removes `diag-prod` (`azure-native:monitor:DiagnosticSetting`)\n"
            "- removes `diag-dev` (`azure-native:monitor:DiagnosticSetting`)\n\nReports:\n\n"
            "> Workspace 'mlw-prod' must have a diagnostic setting") in page


def test_a_rule_page_names_the_examples_pack_config() -> None:
    page = rule_page(aml_quota_budget.RULE)
    assert 'With pack config `{"coreQuota": {"westeurope": {"DSv2": 51}}}`:\n\n' in page
    assert "Fails (`dedicated-breach-52-of-51`), the same stack except that it:\n\n- adds `cpu-b` " in page


def test_the_rules_index_links_every_rule_page() -> None:
    lines = rules_index().splitlines()
    for rule in ALL_RULES:
        row = f"| {rule.group} | [{rule.name}]({rule.name}.md) | {rule.ref} |"
        assert sum(line.startswith(row) for line in lines) == 1


def test_a_changed_rule_page_lists_its_changes_with_the_old_defaults() -> None:
    rule = dataclasses.replace(aml_cluster_min_nodes_zero.RULE, changed=(
        Change("0.2.0", "Now mandatory (source: X).", level="advisory"),
        Change("0.2.0", "Cap raised.", config={"maxNodes": 10}),
    ))
    assert rule_page(rule).endswith(
        "## Changes\n\nUnder a `baseline` older than a change, the rule keeps the defaults it had before it (see "
        "[upgrading](../upgrading.md)).\n\n"
        "- 0.2.0: Now mandatory (source: X). (before: level advisory)\n"
        "- 0.2.0: Cap raised. (before: `maxNodes` 10)\n")
    assert "## Changes" not in rule_page(aml_cluster_min_nodes_zero.RULE)
