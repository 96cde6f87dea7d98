"""amlkit.review.run.mocks.recorded_outputs: what the runner records as each resource's outputs, which the driver
sends to AnalyzeStack as the engine does (pulumi/pulumi `step_generator.go` `AnalyzeResources`: `v.Outputs`), on a
raw azure-native program and its classic-provider twin (tests/fixtures/literal_workspace)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format, struct_pb2

from amlkit.review.engine import review
from amlkit.review.project import load_project, load_stack_config
from amlkit.review.run.mocks import recorded_outputs
from amlkit.review.secrets import SECRET_SIG, SECRET_SIG_KEY, UNKNOWN
from tests.review.helpers import FIXTURES, record_pack_calls, run_runner

U = UNKNOWN
SUB = "/subscriptions/5b2c6d40-8f9e-4a1b-9c3d-2e7f0a1b4c5d"
WORKSPACE_ID = f"{SUB}/resourceGroups/rg-shared-ml/providers/Microsoft.MachineLearningServices/workspaces/mlw-platform"


def records(provider: str) -> dict[str, dict[str, Any]]:
    project = load_project(FIXTURES / "literal_workspace" / provider)
    config = load_stack_config(project, "probe")
    found = run_runner({"program": str(project.main), "project": project.name, "stack": "probe",
                        "config": config.values, "secret_keys": list(config.secret_keys)})
    return {record["name"]: record for record in found["resources"]}


@pytest.fixture(scope="module")
def native() -> dict[str, dict[str, Any]]:
    return records("native")


@pytest.fixture(scope="module")
def classic() -> dict[str, dict[str, Any]]:
    return records("classic")


def test_a_created_native_lock_has_its_preview_outputs_and_no_path_inputs(native):
    """azure-native PreviewOutputs: `level` mirrored, every other response property unknown, `id` included; the
    path inputs `resourceGroupName` and `lockName` are not outputs."""
    assert native["lock"]["inputs"] == {"lockName": "lock", "resourceGroupName": "rg-shared-ml",
                                        "level": "CanNotDelete", "azureApiVersion": "2020-05-01"}
    assert native["lock"]["outputs"] == {"azureApiVersion": "2020-05-01", "id": U, "level": "CanNotDelete", "name": U,
                                         "notes": U, "owners": U, "systemData": U, "type": U}


def test_a_created_native_compute_has_output_shaped_identity_and_mirrored_properties(native):
    outputs = native["gpu"]["outputs"]
    assert not {"workspaceName", "resourceGroupName", "computeName"} & set(outputs)
    assert (outputs["id"], outputs["name"], outputs["location"]) == (U, U, "westeurope")
    assert outputs["identity"] == {"type": "SystemAssigned", "principalId": U, "tenantId": U,
                                   "userAssignedIdentities": U}
    assert outputs["properties"]["properties"]["vmSize"] == "Standard_D4ds_v5"


def test_classic_outputs_keep_the_configured_attributes_and_the_id_is_unknown(classic):
    assert classic["lock"]["outputs"] == {"id": U, "lockLevel": "CanNotDelete", "name": "lock", "notes": U,
                                          "scope": f"{SUB}/resourceGroups/rg-shared-ml"}
    outputs = classic["gpu"]["outputs"]
    assert (outputs["id"], outputs["name"], outputs["machineLearningWorkspaceId"]) == (U, "gpu", WORKSPACE_ID)


def secret(value: Any) -> dict[str, Any]:
    return {SECRET_SIG_KEY: SECRET_SIG, "value": value}


class Response:
    def __init__(self, outputs: dict[str, Any]) -> None:
        self.object = json_format.ParseDict(outputs, struct_pb2.Struct())


@pytest.mark.parametrize(("registration", "answered", "expected"), [
    ({"type": "pulumi:providers:azure-native", "custom": True, "inputs": {"location": "westeurope"}}, {},
     {"location": "westeurope"}),
    ({"type": "amlkit:index:Workspace", "custom": False, "inputs": {"name": "w"}}, {}, {}),
    ({"type": "azure-native:machinelearningservices:Compute", "custom": True,
      "inputs": {"properties": {"properties": {"key": secret("k"), "port": 22.0}}}},
     {"properties": secret({"properties": {"key": "k", "port": 22.0}})},
     {"id": U, "properties": {"properties": {"key": secret("k"), "port": 22.0}}}),
    ({"type": "azure-native:machinelearningservices:Compute", "custom": True, "inputs": {"tags": {"a": "amlkit"}}},
     {"id": "/subscriptions/s/x", "tags": {"a": "amlkit-unknown-lookup:t"}},
     {"id": "/subscriptions/s/x", "tags": {"a": U}}),
], ids=["provider-inputs", "component-none", "nested-secret-stays-nested", "deployed-id-kept-marks-unknown"])
def test_recorded_outputs(registration, answered, expected):
    """A provider's outputs are its inputs (`providers/registry.go` `Create`); a component's none; a nested secret
    stays nested (`provider_plugin.go` `annotateSecrets`); a known id is kept, a lookup's mark is the unknown."""
    assert recorded_outputs(registration, Response(answered)) == expected


def test_analyze_gets_inputs_and_analyze_stack_gets_outputs(monkeypatch):
    calls = record_pack_calls(monkeypatch)
    review(Path(FIXTURES / "literal_workspace" / "native"), ["probe"])
    (request,) = calls["AnalyzeStack"]
    sent = {r.name: json_format.MessageToDict(r.properties) for r in request.resources}
    assert sent["lock"] == {"azureApiVersion": "2020-05-01", "id": U, "level": "CanNotDelete", "name": U, "notes": U,
                            "owners": U, "systemData": U, "type": U}
    assert "workspaceName" not in sent["gpu"] and sent["gpu"]["id"] == U
    assert {r.name: sorted(k for k, v in r.propertyDependencies.items() if v.urns) for r in request.resources} == {
        "gpu": [], "lock": []}  # keyed by input name; literal inputs are built from nothing
