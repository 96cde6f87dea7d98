"""The providers' Check defaults on a platform-style program (tests/fixtures/check_defaults: raw azure-native that
leaves names and locations to the provider, an explicit provider, a lock on another stack's group, amlkit
components and the classic provider): the exact inputs Analyze gets and the outputs the program and AnalyzeStack
get, in a first preview and against the program's own state (amlkit.review.run.check)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pulumi.runtime import rpc

from amlkit.review.engine import review
from amlkit.review.options import ReviewOptions
from amlkit.review.plan.state import load_state
from amlkit.review.run.check import suffix
from tests.review.helpers import FIXTURES, normalized, run_runner
from tests.review.statefiles import deployed_records, state_resources, write_state

pytestmark = pytest.mark.slow

PROGRAM = FIXTURES / "check_defaults"
U = rpc.UNKNOWN
KEYS = ("resourceGroupName", "workspaceName", "computeName", "lockName", "name", "location", "__createBeforeDelete")


def urn(type_: str, name: str) -> str:
    return f"urn:pulumi:dev::check-defaults::{type_}::{name}"


RG = urn("azure-native:resources:ResourceGroup", "rg")
MLW = urn("azure-native:machinelearningservices:Workspace", "mlw")
LOCK = urn("azure-native:authorization:ManagementLockAtResourceGroupLevel", "shared-lock")
SE = urn("azure-native:machinelearningservices:Workspace", "mlw-se")


def request(state: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    found: dict[str, Any] = {"program": str(PROGRAM), "project": "check-defaults", "stack": "dev",
                             "config": {"azure-native:location": "northeurope"}, "secret_keys": []}
    if state is not None:
        found["state"] = state
    return found


def shown(records: list[dict[str, Any]], side: str) -> dict[str, dict[str, Any]]:
    """name -> the Check-related keys of each custom resource's inputs or outputs."""
    return {r["name"]: {k: r[side][k] for k in KEYS if k in r[side]} for r in normalized(records) if r["custom"]}


FIRST_PREVIEW_INPUTS = {
    "rg": {"resourceGroupName": "rg" + suffix(RG, 8), "location": "northeurope", "__createBeforeDelete": True},
    "mlw": {"resourceGroupName": U, "workspaceName": "mlw" + suffix(MLW, 8), "location": "northeurope",
            "__createBeforeDelete": True},
    "cpu": {"resourceGroupName": U, "workspaceName": U, "computeName": "cpu", "location": "northeurope"},
    "shared-lock": {"resourceGroupName": "rg-shared", "lockName": "shared-lock" + suffix(LOCK, 8),
                    "__createBeforeDelete": True},
    "sweden": {"location": "swedencentral"},
    "mlw-se": {"resourceGroupName": "rg-shared", "workspaceName": "mlw-se" + suffix(SE, 8),
               "location": "swedencentral", "__createBeforeDelete": True},
    # amlkit components set every name and location themselves: Check adds nothing
    "team-workspace": {"resourceGroupName": U, "workspaceName": "team", "location": "northeurope"},
    "gpu-compute": {"resourceGroupName": U, "workspaceName": U, "computeName": "gpu", "location": "northeurope"},
    # the classic provider reads the group's location from Azure: unknown offline
    "classic-mlw": {"resourceGroupName": "rg-shared", "name": "mlw-classic", "location": U},
}
FIRST_PREVIEW_OUTPUTS = {  # azure-native mirrors the checked body inputs; the path inputs and `name` are not outputs
    "rg": {"location": "northeurope", "name": U},
    "mlw": {"location": "northeurope", "name": U},
    "cpu": {"location": "northeurope", "name": U},
    "shared-lock": {"name": U},
    "sweden": {"location": "swedencentral"},
    "mlw-se": {"location": "swedencentral", "name": U},
    "team-workspace": {"location": "northeurope", "name": U},
    "gpu-compute": {"location": "northeurope", "name": U},
    "classic-mlw": {"resourceGroupName": "rg-shared", "name": "mlw-classic", "location": U},
}


def test_a_first_preview_gets_the_providers_defaults():
    records = run_runner(request())["resources"]
    inputs, outputs = shown(records, "inputs"), shown(records, "outputs")
    assert {name: inputs[name] for name in FIRST_PREVIEW_INPUTS} == FIRST_PREVIEW_INPUTS
    assert {name: outputs[name] for name in FIRST_PREVIEW_OUTPUTS} == FIRST_PREVIEW_OUTPUTS
    # the suffix derives from the URN: every run gives the same bytes
    assert normalized(run_runner(request())["resources"]) == normalized(records)


def deployed(tmp_path: Path, **changes: dict[str, Any]) -> Path:
    """The program's state export, the named resources' old inputs changed (as the CLI's own random names are)."""
    project, records = deployed_records(PROGRAM, "dev")
    resources = state_resources(records, project, "dev")
    for entry in resources:
        if entry["urn"].rsplit("::", 1)[-1] in changes:
            entry["inputs"].update(changes[entry["urn"].rsplit("::", 1)[-1]])
    return write_state(tmp_path / "dev.json", resources)


def test_against_a_state_a_deployed_resource_keeps_its_old_name_and_location(tmp_path):
    """Check takes an omitted auto-named input and location from the old inputs first: the CLI's suffix (random on
    every preview, here `9f3c2a1b`) and a location written before `azure-native:location` changed."""
    path = deployed(tmp_path, mlw={"workspaceName": "mlw9f3c2a1b", "location": "westeurope"})
    state = [r.to_dict() for r in load_state(path).resources]
    inputs = shown(run_runner(request(state))["resources"], "inputs")
    assert inputs["mlw"]["workspaceName"] == "mlw9f3c2a1b"
    assert inputs["mlw"]["location"] == "westeurope"
    assert inputs["rg"]["resourceGroupName"] == "rg" + suffix(RG, 8)  # its own old name, the deployed run's
    (stack,) = review(PROGRAM, ["dev"], options=ReviewOptions(states=[path])).stacks
    assert stack.plan is not None and {step.op for step in stack.plan.steps} == {"same"}


LITERAL = FIXTURES / "group_literal"


def literal_request(stack: str) -> dict[str, Any]:
    config = {"group-literal:bare": "true"} if stack == "bare" else {}
    return {"program": str(LITERAL), "project": "group-literal", "stack": stack, "config": config, "secret_keys": []}


def test_a_group_created_in_the_same_preview_gives_no_location():
    """Check's ARM GET of a group this preview creates finds none: `location` stays out (a workspace does not
    require it); a workspace linked by `group.name` has an unknown group name, so an unknown location."""
    records = run_runner(literal_request("dev"))["resources"]
    inputs = shown(records, "inputs")
    assert inputs["mlw"] == {"resourceGroupName": "rg-literal", "workspaceName": "mlw-literal"}
    assert inputs["mlw-linked"] == {"resourceGroupName": U, "workspaceName": "mlw-linked", "location": U}
    assert shown(records, "outputs")["mlw"] == {"name": U, "location": U}  # a response property, unknown


def test_a_resource_group_without_a_location_fails_the_stack_as_check_fails_the_preview():
    dev, bare = review(LITERAL, ["dev", "bare"]).stacks
    assert dev.error is None
    assert bare.error == (
        "stack bare: the program failed: CheckError: azure-native:resources:ResourceGroup resource 'rg-bare' has a "
        "problem: missing required property 'location'. Either set it explicitly or configure it with 'pulumi config "
        "set azure-native:location <value>'.")
    assert bare.error_kind == "program"
