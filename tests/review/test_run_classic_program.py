"""The classic provider's Check defaults on a platform-style program (tests/fixtures/classic_names: every `name`
left to the bridge's auto-naming, the group's `location` to `azure:location`): the exact inputs Analyze gets and
the outputs the program and AnalyzeStack get, in a first preview and against the program's own state; a name too
long for the auto-name fails the stack as the provider's Check fails the preview (amlkit.review.run.classic)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pulumi.runtime import rpc

from amlkit.review.engine import review
from amlkit.review.options import ReviewOptions
from amlkit.review.plan.state import load_state
from amlkit.review.run.classic import suffix
from tests.review.helpers import FIXTURES, normalized, run_runner
from tests.review.statefiles import deployed_records, state_resources, write_state

pytestmark = pytest.mark.slow

PROGRAM = FIXTURES / "classic_names"
U = rpc.UNKNOWN
KEYS = ("name", "location", "resourceGroupName")


def urn(type_: str, name: str) -> str:
    return f"urn:pulumi:dev::classic-names::azure:{type_}::{name}"


def named(type_: str, logical: str, prefix: str, length: int) -> str:
    return prefix + suffix(urn(type_, logical), length)


def request(stack: str = "dev", state: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    config = {"azure:location": "swedencentral", **({"classic-names:long": "true"} if stack == "long" else {})}
    found: dict[str, Any] = {"program": str(PROGRAM), "project": "classic-names", "stack": stack, "config": config,
                             "secret_keys": []}
    if state is not None:
        found["state"] = state
    return found


def shown(records: list[dict[str, Any]], side: str) -> dict[str, dict[str, Any]]:
    return {r["name"]: {k: r[side][k] for k in KEYS if k in r[side]} for r in normalized(records) if r["custom"]}


GROUP = named("core/resourceGroup:ResourceGroup", "RG-ML", "rg-ml", 8)  # lower-cased, 8 random characters
# The bridge's preview outputs are its planned state, the checked inputs: so the group's `name` is known, and its
# dependents' location is the group's read from Azure, which finds no such group yet (`defaultAzureLocation`:
# unknown, as offline)
FIRST_PREVIEW = {
    "RG-ML": {"name": GROUP, "location": "swedencentral"},  # azure:location
    "ai": {"name": named("appinsights/insights:Insights", "ai", "ai", 8), "location": U, "resourceGroupName": GROUP},
    "kv": {"name": named("keyvault/keyVault:KeyVault", "kv", "kv", 7), "location": U, "resourceGroupName": GROUP},
    "St-ML_data": {"name": named("storage/account:Account", "St-ML_data", "stmldata", 8), "location": U,
                   "resourceGroupName": GROUP},  # lower-case letters and digits only
    "ACR": {"name": named("containerservice/registry:Registry", "ACR", "acr", 8), "location": U,
            "resourceGroupName": GROUP},
    "mlw": {"name": named("machinelearning/workspace:Workspace", "mlw", "mlw", 7), "location": U,
            "resourceGroupName": GROUP},
    "cpu": {"name": named("machinelearning/computeCluster:ComputeCluster", "cpu", "cpu", 7),
            "location": "swedencentral"},
    "ci": {"name": named("machinelearning/computeInstance:ComputeInstance", "ci", "ci", 7)},
    "aks": {"name": named("machinelearning/inferenceCluster:InferenceCluster", "aks", "aks", 7),
            "location": "swedencentral"},
    "lock": {"name": named("management/lock:Lock", "lock", "lock", 7)},
}


def test_a_first_preview_auto_names_every_classic_resource():
    records = run_runner(request())["resources"]
    assert shown(records, "inputs") == FIRST_PREVIEW
    assert shown(records, "outputs") == FIRST_PREVIEW
    assert GROUP == "rg-mlaf3902dc"  # pinned once: the suffix is a function of the URN only
    assert normalized(run_runner(request())["resources"]) == normalized(records)  # every run, the same bytes


def test_a_name_too_long_for_the_auto_name_fails_the_stack():
    (stack,) = review(PROGRAM, ["long"]).stacks
    assert stack.error == (
        "stack long: the program failed: CheckError: could not make instance of "
        "'azure:machinelearning/computeCluster:ComputeCluster': name 'cluster-for-training' plus 7 random chars is "
        "longer than maximum length 24")


def test_against_a_state_a_deployed_resource_keeps_its_old_name(tmp_path: Path):
    """The bridge reuses an old default (schema.go step 3a): the CLI's own random suffix, here `9f3c2a1`."""
    project, records = deployed_records(PROGRAM, "dev")
    resources = state_resources(records, project, "dev")
    for entry in resources:
        if entry["urn"].endswith("::mlw"):
            entry["inputs"]["name"] = entry["outputs"]["name"] = "mlw9f3c2a1"
    path = write_state(tmp_path / "dev.json", resources)
    state = [r.to_dict() for r in load_state(path).resources]
    inputs = shown(run_runner(request(state=state))["resources"], "inputs")
    assert inputs["mlw"]["name"] == "mlw9f3c2a1"
    assert inputs["RG-ML"] == {"name": GROUP, "location": "swedencentral"}
    (stack,) = review(PROGRAM, ["dev"], options=ReviewOptions(states=[path])).stacks
    assert stack.plan is not None and {step.op for step in stack.plan.steps} == {"same"}


def test_the_workspace_s_omitted_settings_are_its_own_unknowns():
    """A classic workspace leaves `high_business_impact` out: an output the provider computes, unknown while it is
    created. The rule reports that workspace as unknown, by name, and would judge the others."""
    (stack,) = review(PROGRAM, ["dev"]).stacks
    unknown = {u.policy: u.message.split(" during preview: ", 1)[1] for u in stack.unknown}
    assert unknown["aml-workspace-hbi"] == ("Workspace 'mlw' must have hbiWorkspace true; cannot tell: workspace "
                                            "'mlw': HBI setting can't be known during preview.")
