"""A hub and its projects in one stack file (#31), reviewed through the real engine: the rules that judge a project
by its hub (policies/hubs.py) find the hub in the stack, so no project finding is "unknown"; a project entry that
sets a key its hub owns is that stack's config error at its line (tests/fixtures/hub_projects)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from amlkit.review.engine import review
from amlkit.review.report.locate import locate
from tests.review.helpers import FIXTURES

pytestmark = pytest.mark.slow

HUB = FIXTURES / "hub_projects"
PROJECTS = ("prod-project-mlw-churn-prod-workspace", "prod-project-mlw-fraud-prod-workspace")


def test_projects_are_judged_by_their_hub_in_the_same_stack() -> None:
    (stack,) = review(HUB, ["prod"]).stacks
    assert stack.error is None, stack.error
    # AnalyzeStack gets outputs: the hub sets no imageBuildCompute, which is unknown while it is created
    assert [(u.policy, u.message.split("; cannot tell: ")[1]) for u in stack.unknown] == [
        ("aml-workspace-image-build-compute", "imageBuildCompute is unknown until deployment.")]
    assert sorted((v.policy, v.resource) for v in stack.violations) == sorted([
        ("aml-workspace-cmk", "prod-workspace-workspace"),
        ("aml-workspace-private-endpoint", "prod-workspace-workspace"),
        ("aml-workspace-user-assigned-identity", "prod-workspace-workspace"),
        *(("aml-workspace-user-assigned-identity", project) for project in PROJECTS),
    ])
    parents = {r.name: r.parent for r in stack.resources}
    assert {name: parents[name].rsplit("::", 1)[1] for name in ("prod-project-mlw-fraud-prod",
                                                              "prod-project-mlw-churn-prod")} == {
        "prod-project-mlw-fraud-prod": "prod-workspace", "prod-project-mlw-churn-prod": "prod-workspace"}


def test_a_hub_owned_key_on_a_project_is_a_config_error_at_its_line(tmp_path: Path) -> None:
    project = tmp_path / "hub"
    shutil.copytree(HUB, project)
    stack_file = project / "stacks" / "Pulumi.prod.yaml"
    stack_file.write_text(stack_file.read_text().replace(
        "      description: Fraud models\n", "      managed_network:\n        isolation_mode: disabled\n"))
    (stack,) = review(project, ["prod"]).stacks
    assert stack.error == (
        "stack prod: stacks/Pulumi.prod.yaml:16:7: amlkit:workspace.projects[0].managed_network: not allowed on a "
        "project: a project takes its managed_network from its hub (set it on amlkit:workspace, the hub; "
        "concept-hub-workspace.md: projects obtain the hub's security settings and shared resources)")
    assert (stack.error_kind, stack.error_detail["line"], stack.error_detail["column"]) == ("config", 16, 7)


def test_a_project_s_findings_are_located_at_its_own_entry() -> None:
    (stack,) = review(HUB, ["prod"]).stacks
    stack_file = HUB / "stacks" / "Pulumi.prod.yaml"
    keys = stack.stack_keys()
    lines = {v.resource: locate(stack_file, v.urn, stack.resources, keys.get(v.policy, "")) for v in stack.violations
             if v.policy == "aml-workspace-user-assigned-identity"}
    # line 9: the hub's `name: mlw-hub-prod`; 15 and 17: each project's `- name:` (before: 9, the hub's line, as
    # projects were not indexed)
    assert lines == {"prod-workspace-workspace": 9, "prod-project-mlw-fraud-prod-workspace": 15,
                     "prod-project-mlw-churn-prod-workspace": 17}
