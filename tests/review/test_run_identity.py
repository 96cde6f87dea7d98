"""identity: the subscription and tenant of a stack's offline run, from the stack file, the lookups file or
placeholders; a state of the program as deployed in them plans every resource `same`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from amlkit.errors import ConfigError
from amlkit.review import arm, engine
from amlkit.review.options import ReviewOptions
from amlkit.review.project import StackConfig, load_project, load_stack_config
from amlkit.review.run.identity import AzureId, azure_ids
from amlkit.review.run.lookups import Lookups, load_lookups
from tests.review.helpers import normalized, run_runner
from tests.review.statefiles import state_resources, write_state

ROOT = Path(__file__).resolve().parents[2]
PLATFORM = ROOT / "examples" / "platform-repo"
SUB, TENANT = "3f2a6c1e-0b7d-4c55-9a1e-5d2f8e7c4b10", "9c8b7a6d-5e4f-4321-8765-0fedcba98765"
OTHER = "5b5b5b5b-1111-2222-3333-444444444444"


def config(**values: str) -> StackConfig:
    return StackConfig("prod", Path("stacks/Pulumi.prod.yaml"), values)


SOURCES = [  # (stack config, lookups stacks entry, (subscription, its source), (tenant, its source))
    ({"azure-native:subscriptionId": SUB, "azure-native:tenantId": TENANT}, {"prod": {"subscriptionId": OTHER}},
     AzureId(SUB, "stacks/Pulumi.prod.yaml (azure-native:subscriptionId)"),
     AzureId(TENANT, "stacks/Pulumi.prod.yaml (azure-native:tenantId)")),
    ({"azure:subscriptionId": SUB}, {"prod": {"tenantId": TENANT}},
     AzureId(SUB, "stacks/Pulumi.prod.yaml (azure:subscriptionId)"),
     AzureId(TENANT, "amlkit-lookups.yaml (stacks.prod.tenantId)")),
    ({"azure-native:subscriptionId": SUB, "azure:subscriptionId": OTHER}, {"dev": {"tenantId": OTHER}},
     AzureId(SUB, "stacks/Pulumi.prod.yaml (azure-native:subscriptionId)"),
     AzureId(arm.TENANT, "placeholder")),
    ({}, {}, AzureId(arm.SUBSCRIPTION, "placeholder"), AzureId(arm.TENANT, "placeholder")),
]


@pytest.mark.parametrize(("values", "stacks", "subscription", "tenant"), SOURCES,
                         ids=["stack-file", "classic-and-lookups", "native-wins", "placeholders"])
def test_ids_come_from_the_stack_file_then_the_lookups_file_then_placeholders(values, stacks, subscription, tenant):
    ids = azure_ids(config(**values), "stacks/Pulumi.prod.yaml", Lookups(stacks=stacks))
    assert (ids.subscription, ids.tenant) == (subscription, tenant)


def test_the_plan_line_says_where_each_id_came_from_and_how_to_set_a_placeholder():
    ids = azure_ids(config(**{"azure-native:subscriptionId": SUB}), "stacks/Pulumi.prod.yaml", None)
    assert ids.describe("prod") == (
        f"subscription {SUB} (from stacks/Pulumi.prod.yaml (azure-native:subscriptionId)); tenant {arm.TENANT} "
        "(a placeholder: set azure-native:tenantId in the stack file or stacks.prod.tenantId in amlkit-lookups.yaml)")


def test_a_stack_file_id_that_is_not_a_guid_is_a_config_error():
    with pytest.raises(ConfigError) as error:
        azure_ids(config(**{"azure-native:tenantId": "contoso.onmicrosoft.com"}), "x", None)
    assert (error.value.file, error.value.key_path, error.value.value) == (
        "stacks/Pulumi.prod.yaml", "config.azure-native:tenantId", "contoso.onmicrosoft.com")


@pytest.mark.parametrize(("text", "key_path", "problem"), [
    ("stacks: [prod]", "stacks", "must be a mapping of stack names to {subscriptionId, tenantId}, got ['prod']"),
    ("stacks: {prod: {subscription: x}}", "stacks.prod.subscription",
     "unknown key (did you mean 'subscriptionId'?); allowed: subscriptionId, tenantId"),
    ("stacks: {prod: {tenantId: contoso}}", "stacks.prod.tenantId",
     "must be a GUID (like 00000000-0000-0000-0000-000000000000), got 'contoso'"),
], ids=["not-a-mapping", "unknown-key", "not-a-guid"])
def test_bad_stack_entries_of_the_lookups_file_are_config_errors(tmp_path, text, key_path, problem):
    (tmp_path / "amlkit-lookups.yaml").write_text(f"version: 1\n{text}\n")
    with pytest.raises(ConfigError) as error:
        load_lookups(tmp_path)
    assert (error.value.key_path, error.value.problem) == (key_path, problem)


# --- a state of the program as deployed in the stack's subscription: nothing changes --------------------------

DEPLOYED = [  # (project, stack, where its ids are set: "native" | "classic" | "lookups" | "placeholders")
    (ROOT, "dev", "native"), (ROOT, "staging", "classic"), (ROOT, "prod", "lookups"),
    (PLATFORM, "nonprod", "native"), (PLATFORM, "prod", "placeholders"),
]


def _copy_with_ids(source: Path, stack: str, where: str, tmp_path: Path) -> Path:
    project_dir = tmp_path / source.name
    shutil.copytree(source, project_dir, ignore=shutil.ignore_patterns(  # no venvs or caches (.mypy_cache ~300 MB)
        ".venv*", ".git", "tests", "docs", "bench", "*.egg-info", "__pycache__", "examples", "build", ".*cache",
        ".hypothesis"))
    project = load_project(project_dir)
    stack_file = project.stack_file(stack)
    prefix = {"native": "azure-native", "classic": "azure"}.get(where)
    if prefix:
        text = stack_file.read_text(encoding="utf-8")
        stack_file.write_text(text.replace("config:\n", f"config:\n  {prefix}:subscriptionId: {SUB}\n"
                                                       f"  {prefix}:tenantId: {TENANT}\n", 1), encoding="utf-8")
    elif where == "lookups":
        (project_dir / "amlkit-lookups.yaml").write_text(
            f"version: 1\nstacks:\n  {stack}: {{subscriptionId: {SUB}, tenantId: {TENANT}}}\n", encoding="utf-8")
    return project_dir


@pytest.mark.slow
@pytest.mark.parametrize(("source", "stack", "where"), DEPLOYED, ids=[f"{p.name}-{s}" for p, s, _ in DEPLOYED])
def test_a_state_of_the_program_as_deployed_plans_every_resource_same(source, stack, where, tmp_path, monkeypatch):
    project_dir = _copy_with_ids(source, stack, where, tmp_path)
    project = load_project(project_dir)
    config = load_stack_config(project, stack)
    ids = azure_ids(config, project.relative(project.stack_file(stack)), load_lookups(project_dir))
    request = {"program": str(project.main), "project": project.name, "stack": stack, "config": config.values,
               "secret_keys": list(config.secret_keys), "azure": ids.to_request(), "deployed": True}
    records = normalized(run_runner(request)["resources"])
    monkeypatch.setattr(arm, "SUBSCRIPTION", ids.subscription.value)  # the deployed ids in the state
    monkeypatch.setattr(arm, "TENANT", ids.tenant.value)
    state = write_state(tmp_path / f"{stack}.json", state_resources(records, project.name, stack))
    (result,) = engine.review(project_dir, [stack], options=ReviewOptions(states=[state])).stacks
    assert result.error is None
    assert {step.name: (step.op, [(c.path, c.old, c.new) for c in step.changes]) for step in result.plan.steps
            if step.op != "same"} == {}
    assert result.plan.azure == ids.describe(stack)
    assert (ids.subscription.placeholder, ids.tenant.placeholder) == ((where == "placeholders"),) * 2
