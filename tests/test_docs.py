"""The docs: generated pages are current, the README is short and its links resolve, the generator is right."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import model_validator

from amlkit.errors import ConfigError, UsageError
from amlkit.policies import ALL_RULES
from amlkit.policies.framework import Rule
from amlkit.policies.rules import (
    aml_cluster_max_nodes,
    aml_cluster_min_nodes_zero,
    aml_quota_budget,
    aml_workspace_diagnostics,
)
from amlkit.schema import ClusterSpec, EnvironmentSpec, Model, TriggerSpec, WorkspaceSpec, validate_environment
from amlkit.stackfile import load_stack_file
from tools import gen_docs
from tools.docs.blocks import replace_blocks
from tools.docs.cli import cli_reference
from tools.docs.components import all_components, argument_rows, component_reference
from tools.docs.configuration import (
    LOADER_DEFAULTS,
    Row,
    UndocumentedError,
    allowed_of,
    config_reference,
    field_rows,
    model_rules,
    sections,
)
from tools.docs.facts import documented_facts, facts_reference
from tools.docs.markdown import GENERATED, REQUIRED, cell, inline
from tools.docs.rules import changes, knob_rows, knob_type, rule_page, rules_index

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
README_LIMIT = 20 * 1024


def rows() -> dict[str, Row]:
    return {row.key: row for row in field_rows(EnvironmentSpec)}


# --- generated pages are current, the README is short, links resolve ---------------------------------


def test_every_generated_page_is_current() -> None:
    stale = gen_docs.stale_pages(ROOT)
    assert stale == {}, "".join(stale.values()) + "\nstale generated pages: run `make docs` and commit docs/"


def test_check_command_passes_on_the_committed_pages() -> None:
    result = subprocess.run([sys.executable, "tools/gen_docs.py", "--check"], capture_output=True, text=True,
                            check=False, cwd=ROOT)
    assert (result.returncode, result.stderr, result.stdout) == (0, "", "generated pages are up to date\n")


def test_the_readme_stays_under_20_kb() -> None:
    assert README.stat().st_size <= README_LIMIT, "README.md is over 20 KB: move detail into a docs/ page"


_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _markdown_files() -> list[Path]:
    return [README, *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize("page", _markdown_files(), ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    """Each relative link of the README and the docs names a file (and, with #anchor, a heading) that exists."""
    broken = []
    for target in _LINK.findall(page.read_text(encoding="utf-8")):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists() or anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            broken.append(target)
    assert broken == []


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lowercase, punctuation dropped, spaces to dashes."""
    headings = re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def test_every_rule_url_is_its_generated_page() -> None:
    pages = gen_docs.generated_pages()
    for rule in ALL_RULES:
        assert rule.docs_url == f"https://github.com/amlkit/amlkit/blob/main/docs/rules/{rule.name}.md"
        assert f"docs/rules/{rule.name}.md" in pages
        assert f"<{rule.url}>" in pages[f"docs/rules/{rule.name}.md"]  # the Azure source stays on the page


def test_the_readme_links_the_docs() -> None:
    text = README.read_text(encoding="utf-8")
    for page in ("docs/configuration.md", "docs/rules/README.md", "docs/cli.md", "docs/components.md",
                 "docs/architecture.md",
                 "docs/waivers.md", "docs/offline-limits.md"):
        assert f"]({page})" in text, page
    assert "pip install" in text and "make preview" in text and "make test" in text


def test_benchmark_figures_live_only_in_bench_readme() -> None:
    figures = re.compile(r"\d+(\.\d+)? / \d+(\.\d+)? / \d+(\.\d+)? s")
    assert [str(p.relative_to(ROOT)) for p in _markdown_files() if figures.search(p.read_text(encoding="utf-8"))] == []


# --- configuration reference -----------------------------------------------------------------------


def test_a_field_row_and_its_table_line() -> None:
    row = rows()["amlkit:clusters[].max_instances"]
    assert row == Row("amlkit:clusters[].max_instances", "an integer from 1 to 65000", "`1`",
                      "Most nodes the cluster scales to.")
    assert ("| `amlkit:clusters[].max_instances` | an integer from 1 to 65000 | `1` | Most nodes the cluster "
            "scales to. |") in config_reference().splitlines()


@pytest.mark.parametrize(
    ("key", "allowed", "default"),
    [
        pytest.param("azure-native:location", "an Azure region name in lowercase, e.g. westeurope", "**required**",
                     id="location-required"),
        pytest.param("amlkit:environment", "1-63 lowercase letters, digits, `-` or `_`", "the stack name, lowercased",
                     id="environment-loader-default"),
        pytest.param("amlkit:clusters[].tier", "one of `dedicated`, `low_priority`", "`dedicated`", id="choice"),
        pytest.param("amlkit:instances[].idle_time_before_shutdown_minutes",
                     "whole minutes (15 minutes to 3 days) from 15 to 4320", "`60`", id="integer-range"),
        pytest.param("amlkit:clusters[].idle_time_before_scale_down", "a whole number of seconds of at least 0",
                     "`120`", id="integer-open-range"),
        pytest.param("amlkit:workspace.managed_network", "a mapping",
                     "`{isolation_mode: allow_only_approved_outbound}`", id="model-default"),
        pytest.param("amlkit:workspace.managed_network.isolation_mode",
                     "one of `disabled`, `allow_internet_outbound`, `allow_only_approved_outbound`", "**required**",
                     id="nested-required"),
        pytest.param("amlkit:instances[].schedules", "a list of at most 4 items, each a mapping", "`[]`",
                     id="capped-list"),
        pytest.param("amlkit:instances[].schedules[].trigger.schedule.week_days",
                     "a list, each one of `monday`, `tuesday`, `wednesday`, `thursday`, `friday`, `saturday`, "
                     "`sunday`", "`[]`", id="list-of-choices"),
        pytest.param("amlkit:prodLikeEnvironments", "a list, each 1-63 lowercase letters, digits, `-` or `_`",
                     "`[prod, production]`", id="list-default"),
        pytest.param("amlkit:workspace.hub_id",
                     "an ARM id like `/subscriptions/<guid>/resourceGroups/<rg>/providers/"
                     "Microsoft.MachineLearningServices/workspaces/<name>`", "unset", id="arm-id-as-code"),
        pytest.param("amlkit:instances[].schedules[].trigger.expression",
                     "a five-field cron expression `minute hour day-of-month month day-of-week`, e.g. `0 19 * * 1-5`",
                     "unset", id="quoted-examples-as-code"),
        pytest.param("amlkit:clusters[].ssh_settings.admin_password", "a Pulumi secret (a `secure:` value)", "unset",
                     id="secret"),
        pytest.param("amlkit:workspace.container_registry",
                     "true (create one), false (none) or an existing registry's ARM id like `/subscriptions/<guid>/"
                     "resourceGroups/<rg>/providers/Microsoft.ContainerRegistry/registries/<name>`", "`false`",
                     id="bool-or-id"),
    ],
)
def test_allowed_and_default_of_a_key(key: str, allowed: str, default: str) -> None:
    row = rows()[key]
    assert (row.allowed, row.default) == (allowed, default)


def test_every_schema_key_has_exactly_one_row() -> None:
    keys = [row.key for row in field_rows(EnvironmentSpec)]
    assert len(keys) == len(set(keys))
    assert {key for key in keys if key.count(".") == 0 and "[]" not in key} == {
        "azure-native:location", *(f"amlkit:{key}" for key in EnvironmentSpec.accepted_keys() if key != "location")
    }
    assert [key.rsplit(".", 1)[-1] for key in keys if key.startswith("amlkit:clusters[].")
            and key.count(".") == 1] == list(ClusterSpec.model_fields)


def test_a_choice_lists_exactly_the_values_it_accepts() -> None:
    allowed = allowed_of(ClusterSpec.model_fields["tier"])
    assert allowed is not None and allowed.values == ("dedicated", "low_priority")
    for value in allowed.values:
        spec = validate_environment(_environment(clusters=[{"name": "c1", "size": "Standard_DS3_v2", "tier": value}]),
                                    "f.yaml")
        assert spec.clusters[0].tier == value


@pytest.mark.parametrize(
    ("model", "field", "raw", "key_path"),
    [
        pytest.param(ClusterSpec, "tier", {"clusters": [{"name": "c1", "size": "Standard_DS3_v2", "tier": "spot"}]},
                     "amlkit:clusters[0].tier", id="choice"),
        pytest.param(ClusterSpec, "max_instances",
                     {"clusters": [{"name": "c1", "size": "Standard_DS3_v2", "max_instances": 0}]},
                     "amlkit:clusters[0].max_instances", id="integer"),
        pytest.param(ClusterSpec, "size", {"clusters": [{"name": "c1", "size": "Standard_Nope_v9"}]},
                     "amlkit:clusters[0].size", id="vm-size"),
        pytest.param(WorkspaceSpec, "container_registry", {"workspace": {"name": "mlw-1", "container_registry": "yes"}},
                     "amlkit:workspace.container_registry", id="registry"),
        pytest.param(WorkspaceSpec, "hub_id", {"workspace": {"name": "mlw-1", "kind": "project", "hub_id": "hub"}},
                     "amlkit:workspace.hub_id", id="arm-id"),
        pytest.param(TriggerSpec, "expression", {"instances": [{
            "name": "ci-1", "size": "Standard_DS3_v2",
            "schedules": [{"action": "stop", "trigger": {"type": "cron", "expression": "daily"}}]}]},
            "amlkit:instances[0].schedules[0].trigger.expression", id="cron"),
    ],
)
def test_documented_allowed_text_is_the_text_of_the_error(
    model: type[Model], field: str, raw: dict[str, Any], key_path: str
) -> None:
    allowed = allowed_of(model.model_fields[field])
    assert allowed is not None
    with pytest.raises(ConfigError) as caught:
        validate_environment(_environment(**raw), "f.yaml")
    assert caught.value.key_path == key_path
    assert caught.value.problem.endswith(f"; allowed: {allowed.text}")


def test_the_environment_default_is_what_the_loader_does(tmp_path: Path) -> None:
    raw = {f"amlkit:{key}": value for key, value in _environment().items() if key not in ("location", "environment")}
    path = tmp_path / "Pulumi.Staging.yaml"
    path.write_text(yaml.safe_dump({"config": {"azure-native:location": "westeurope", **raw}}), encoding="utf-8")
    assert load_stack_file(path).environment == "staging"
    assert LOADER_DEFAULTS == {"amlkit:environment": "the stack name, lowercased"}


def test_cross_field_rules_come_from_the_validator_docstrings() -> None:
    assert model_rules(TriggerSpec) == [
        "`type: cron` needs `expression` and takes no `frequency`, `interval` or `schedule`.",
        "`type: recurrence` needs `frequency` and `interval` and takes no `expression`.",
    ]
    assert model_rules(EnvironmentSpec)[0] == (
        "Without the workspace's managed network, a cluster or instance without `network_settings.subnet` must say "
        "`enable_node_public_ip: true` (nodes without public IPs need a network)."
    )
    clusters = next(s for s in sections() if s.title == "`amlkit:clusters`")
    assert clusters.rules == (
        "`amlkit:clusters[]`: `min_instances` must be at most `max_instances`.",
        "`amlkit:clusters[]`: `identity.type` cannot be `none` (omit `identity` for no identity).",
        "`amlkit:clusters[]`: `ssh_settings` needs local authentication (`local_auth_enabled` not false).",
        "`amlkit:clusters[].identity`: `user_assigned_identities` is required when `type` is `user_assigned`, and "
        "only read then.",
        "`amlkit:clusters[].ssh_settings`: `ssh_key_value` or a secret `admin_password` is required.",
    )


def test_sections_in_order() -> None:
    assert [s.title for s in sections()] == [
        "Top-level keys", "`amlkit:resourceGroup`", "`amlkit:workspace`", "`amlkit:clusters`", "`amlkit:instances`",
        "`amlkit:attached`",
    ]


class _Undocumented(Model):
    name: str = "x"


class _NoAllowed(Model):
    name: str = "x"
    """A plain str: no Allowed metadata."""


class _NoRuleBullets(Model):
    @model_validator(mode="after")
    def _check(self) -> _NoRuleBullets:
        """Checks something, but says not what."""
        return self


@pytest.mark.parametrize(
    ("call", "message"),
    [
        pytest.param(lambda: list(field_rows(_Undocumented, "amlkit:x")),
                     "amlkit:x.name: the field has no docstring in amlkit/schema/", id="no-docstring"),
        pytest.param(lambda: list(field_rows(_NoAllowed, "amlkit:x")),
                     "amlkit:x.name: its type carries no amlkit.schema.Allowed metadata", id="no-allowed"),
        pytest.param(lambda: model_rules(_NoRuleBullets),
                     "_NoRuleBullets._check: no '- ' rule bullets in its docstring", id="no-rules"),
    ],
)
def test_missing_documentation_fails_generation(call: Any, message: str) -> None:
    with pytest.raises(UndocumentedError) as caught:
        call()
    assert str(caught.value) == message


def test_markdown_text_escaping() -> None:
    assert inline("see 'a | b' and (azure-native:<module>/v<date>preview:<Name>).") == (
        "see `a | b` and (`azure-native:<module>/v<date>preview:<Name>`).")
    assert cell("a | b\nc") == "a \\| b c"


# --- rule reference --------------------------------------------------------------------------------


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
                           "resource rule\n")
    assert f"\n- Primary source: <{rule.url}>\n" in page
    assert "\n- Checkov: [`CKV_AZURE_150`](https://www.checkov.io/5.Policy%20Index/terraform.html)\n" in page
    # the example is the EXAMPLE of the rule's test module, evaluated now
    assert ("Passes (`happy-path`), a stack of:\n\n`example` (`azure-native:machinelearningservices:Compute`) "
            "with the inputs:\n\n```json\n{\n") in page
    assert ("Fails (`min-2`), the same stack except that it:\n\n- changes `example` "
            "(`azure-native:machinelearningservices:Compute`):\n\n```json\n{\n"
            '  "properties.properties.scaleSettings.minNodeCount": 2.0\n}\n```\n\nReports:\n\n'
            "> AmlCompute cluster 'example' must have minNodeCount 0; found 2.\n") in page
    assert page.endswith(f"## Remediation\n\n{rule.remediation}\n")


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


def test_the_cli_page_lists_every_flag_of_every_command() -> None:
    import typer.main

    from amlkit import cli
    page = cli_reference()
    for name, command in typer.main.get_command(cli.app).commands.items():
        assert f"\n## `amlkit {name}`\n" in page
        for param in command.params:
            if param.param_type_name == "option":
                assert f"| `{param.opts[0]}`" in page, (name, param.opts)
    assert "| `--format`, `-f` | Report format. | `table` (one of `table`, `json`, `sarif`, `markdown`) |" in page
    assert "| 3 | the program or the policy pack failed" in page


# --- component reference (a generated block of docs/components.md) -------------------------------------


def test_a_component_argument_row() -> None:
    from amlkit.components import compute_cluster

    rows = {row[0]: row for row in argument_rows(compute_cluster.ComputeClusterArgs, compute_cluster.ARGS)}
    assert rows["`tier`"] == [
        "`tier`", "`'dedicated' | 'low_priority'`", "`dedicated`",
        "VM priority: `low_priority` nodes are cheaper but can be evicted at any time.",
        "properties.properties.vmPriority (`Dedicated` | `LowPriority`)",
    ]
    assert rows["`size`"][2] == REQUIRED
    assert rows["`workspace_managed_network`"][4] == "(component behaviour)"


def test_every_component_argument_and_nested_key_has_a_row() -> None:
    from amlkit.components.args import fields, nested_types

    reference = component_reference()
    for component, args_type, _ in all_components():
        section = reference.split(f"### `{component.__name__}`\n")[1].split("\n### ")[0]
        for name in fields(args_type):
            assert f"\n| `{name}` | " in section, (component.__name__, name)
        for spec_type in nested_types(args_type):
            assert f"\n`{spec_type.__name__}`: " in section
            for name in fields(spec_type):
                assert f"\n| `{name}` | " in section, (spec_type.__name__, name)


def test_the_component_outputs_are_listed() -> None:
    outputs = ("Outputs: `compute_id` (`Output[str]`), `compute_name` (`Output[str]`), "
               "`principal_id` (`Output[str | None]`).")
    reference = component_reference()
    assert reference.count(outputs) == 4  # clusters, instances, Kubernetes, Synapse Spark
    assert reference.count("Outputs: `compute_id` (`Output[str]`), `compute_name` (`Output[str]`).") == 1  # VM


def test_an_attached_component_row_gives_its_arm_input() -> None:
    from amlkit.components import kubernetes_compute

    rows = {row[0]: row for row in argument_rows(kubernetes_compute.KubernetesComputeArgs,
                                                      kubernetes_compute.ARGS)}
    assert rows["`namespace`"] == ["`namespace`", "`str`", "`default`", "Kubernetes namespace the jobs run in.",
                                   "properties.properties.namespace"]
    assert rows["`resource_id`"][2:] == [REQUIRED, rows["`resource_id`"][3], "properties.resourceId"]
    assert [component.__name__ for component, _, _ in all_components()] == [
        "Workspace", "ComputeCluster", "ComputeInstance", "KubernetesCompute", "VirtualMachineCompute",
        "SynapseSparkCompute"]


def test_bad_block_markers_are_refused() -> None:
    page = "# C\n<!-- BEGIN GENERATED: component-reference -->\n"
    with pytest.raises(UsageError) as caught:
        replace_blocks(page, {"component-reference": "x"}, "docs/components.md")
    assert str(caught.value) == (
        "docs/components.md: needs exactly one '<!-- BEGIN GENERATED: component-reference ... -->' line followed "
        "by one '<!-- END GENERATED: component-reference -->' line (found 1 and 0)")


# --- the command ---------------------------------------------------------------------------------------


def test_check_reports_a_stale_page_with_a_diff(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "components.md").write_text("# C\n\nwritten\n\n<!-- BEGIN GENERATED: component-reference -->\n"
                                                    "old\n<!-- END GENERATED: component-reference -->\n\nafter\n")
    (tmp_path / "docs" / "azure-facts.md").write_text("<!-- BEGIN GENERATED: azure-facts -->\n"
                                                     "<!-- END GENERATED: azure-facts -->\n")
    assert gen_docs.main(["--write", "--root", str(tmp_path)]) == 0
    assert (tmp_path / "docs" / "components.md").read_text() == (
        "# C\n\nwritten\n\n<!-- BEGIN GENERATED: component-reference -->\n\n" + component_reference()
        + "\n\n<!-- END GENERATED: component-reference -->\n\nafter\n")  # only the block changes
    (tmp_path / "docs" / "cli.md").write_text("old\n", encoding="utf-8")
    (tmp_path / "docs" / "rules" / "aml-retired-rule.md").write_text("gone\n", encoding="utf-8")
    capsys.readouterr()
    assert gen_docs.main(["--check", "--root", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "\n-old\n" in out and "docs/rules/aml-retired-rule.md: a page for no current rule" in out
    assert out.endswith("2 generated page(s) stale: docs/cli.md, docs/rules/aml-retired-rule.md; run: make docs\n")
    assert gen_docs.main(["--write", "--root", str(tmp_path)]) == 0
    assert not (tmp_path / "docs" / "rules" / "aml-retired-rule.md").exists()
    assert gen_docs.main(["--check", "--root", str(tmp_path)]) == 0
    assert capsys.readouterr().out.endswith("generated pages are up to date\n")


def test_a_mode_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        gen_docs.main([])
    assert caught.value.code == 2
    assert "one of the arguments --write --check is required" in capsys.readouterr().err


def _environment(**changes: Any) -> dict[str, Any]:
    """A valid environment (keys as under `amlkit:`) with top-level keys replaced."""
    raw: dict[str, Any] = {
        "location": "westeurope",
        "environment": "test",
        "resourceGroup": {"name": "rg-ml-test"},
        "workspace": {"name": "mlw-test"},
    }
    return {**raw, **changes}


def test_the_code_cites_only_pages_that_exist() -> None:
    """Docstrings and comments cite public sources or pages of this repository, never a missing file."""
    missing = "domain" + ".md"  # a notes file that is not part of the repository
    cited: list[tuple[str, str]] = []
    for folder in ("amlkit", "components", "policies", "tests", "tools", "bench"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == Path(__file__).resolve():
                continue  # this file names made-up pages on purpose
            text = path.read_text(encoding="utf-8")
            cited += [(str(path.relative_to(ROOT)), page) for page in re.findall(r"\bdocs/[\w/.-]+\.md\b", text)]
            assert missing not in text, f"{path.relative_to(ROOT)} cites {missing}: cite the public source"
    assert cited, "the rules cite docs/azure-facts.md"
    assert [(path, page) for path, page in cited if not (ROOT / page).is_file()] == []


@pytest.mark.slow
def test_the_readme_one_minute_check_runs_as_written(tmp_path: Path) -> None:
    """The README's first commands, run as written in an empty directory, give the outcome it describes."""
    text = README.read_text(encoding="utf-8")
    block = text.split("## A one-minute check", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line.split("  #", 1)[0].strip() for line in block.splitlines()][:4]  # project, init, check
    assert commands[-1] == "amlkit check"
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    results = [subprocess.run(command, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True,
                              check=False, timeout=600) for command in commands]
    assert [r.returncode for r in results] == [0, 0, 0, 0], results[-1].stderr
    assert "Policy config: pack defaults" in results[-1].stdout
    assert "Summary: 1 stack, 0 mandatory, 2 advisory, 0 waived, 0 unknown" in results[-1].stdout
    assert "aml-workspace-cmk" in results[-1].stdout and "aml-workspace-user-assigned-identity" in results[-1].stdout


# --- the Azure facts table ----------------------------------------------------------------------------------

FACTS_SOURCE = '''
# --- Paths ---
A = "a.b"
B = "a.c"
"""Where a and b sit. https://example.com/paths"""

# --- Defaults ---
C = 1
"""C omitted. https://example.com/c"""
D = C + 1
E = 2
"""E and nothing else (D, without a docstring next to it, is derived)."""
'''


def test_documented_facts_share_a_docstring_and_take_the_section_above() -> None:
    assert documented_facts(FACTS_SOURCE) == [
        ("Paths", ["A", "B"], "Where a and b sit. https://example.com/paths"),
        ("Defaults", ["C"], "C omitted. https://example.com/c"),
        ("Defaults", ["D", "E"], "E and nothing else (D, without a docstring next to it, is derived)."),
    ]


def test_every_azure_fact_is_documented_with_a_source() -> None:
    from amlkit import azure_facts

    source = Path(azure_facts.__file__).read_text(encoding="utf-8")
    documented = {name for _, names, doc in documented_facts(source) if "https://" in doc for name in names}
    derived = {"REPLACE_ON_CHANGES", "CLUSTER_IDLE_DEFAULT_ISO"}
    assert {name for name in vars(azure_facts) if name.isupper()} - derived == documented


def test_the_facts_table_shows_value_meaning_and_source() -> None:
    row = ("| `NODE_PUBLIC_IP_DEFAULT` = `true` | `enableNodePublicIp` omitted: nodes get public IPs (SDK and Azure "
           "default). | <https://learn.microsoft.com/azure/machine-learning/how-to-secure-training-vnet"
           "#compute-cluster> |")
    assert row in facts_reference().splitlines()
