"""The runner child: registrations recorded in engine form, and the alias shortcut changes nothing."""

from __future__ import annotations

import json

import pulumi

from amlkit.errors import ConfigError
from amlkit.review.runner import describe
from tests.review.helpers import normalized, raw_request, run_runner

STACK_URN = "urn:pulumi:dev::raw-aml::pulumi:pulumi:Stack::raw-aml-dev"
WORKSPACE_URN = "urn:pulumi:dev::raw-aml::azure-native:machinelearningservices:Workspace::mlw"
GROUP_URN = "urn:pulumi:dev::raw-aml::azure-native:resources:ResourceGroup::rg"
CLUSTER_URN = ("urn:pulumi:dev::raw-aml::azure-native:machinelearningservices:Workspace"
               "$azure-native:machinelearningservices:Compute::a")


def by_name(records):
    return {r["name"]: r for r in records}


def test_registrations_carry_engine_urns_parents_dependencies_and_options():
    records = by_name(run_runner(raw_request(clusters=json.dumps([{"name": "a", "minNodes": 2}])))["resources"])
    assert sorted(records) == ["a", "mlw", "rg", "rg-lock"]
    cluster = records["a"]
    assert cluster["urn"] == CLUSTER_URN
    assert cluster["parent"] == WORKSPACE_URN
    assert records["mlw"]["parent"] == STACK_URN
    assert sorted(cluster["dependencies"]) == [WORKSPACE_URN, GROUP_URN]
    assert cluster["propertyDependencies"]["workspaceName"] == [WORKSPACE_URN]
    assert cluster["propertyDependencies"]["resourceGroupName"] == [GROUP_URN]
    assert cluster["inputs"]["properties"]["properties"]["scaleSettings"] == {"minNodeCount": 2.0,
                                                                              "maxNodeCount": 4.0}
    assert cluster["inputs"]["workspaceName"] == "mlw-fixture"  # the mock's name output, not the URN
    assert cluster["options"]["retainOnDelete"] is True
    assert cluster["options"]["protect"] is True  # inherited from the protected parent, as the SDK does
    assert records["mlw"]["options"]["ignoreChanges"] == ["tags"]
    assert {"type": "azure-native:machinelearningservices/v20240401:Compute", "parentUrn": ""} in \
        cluster["options"]["aliases"]
    assert WORKSPACE_URN in records["rg-lock"]["dependencies"]


def test_a_program_error_is_reported_with_its_own_line():
    request = raw_request()
    request["program"] = request["program"] + "/does-not-exist.py"
    error = run_runner(request)["error"]
    assert error["kind"] == "program"
    assert error["message"].startswith("FileNotFoundError: ")


def test_alias_shortcut_records_exactly_the_same_registrations():
    config = {"clusterCount": "20", "clusters": json.dumps([{"name": "warm", "minNodes": 1}])}
    fast = run_runner({**raw_request(**config), "alias_shortcut": True})["resources"]
    slow = run_runner({**raw_request(**config), "alias_shortcut": False})["resources"]
    assert len(fast) == 3 + 21  # group, workspace, lock and 21 clusters parented to the workspace
    assert normalized(fast) == normalized(slow)
    assert all(r["options"]["aliases"] for r in fast)  # the specs are still sent


class _ArgumentError(ConfigError):
    """A ConfigError type with fields of its own (as a component's strict args may raise)."""

    def __init__(self, component: str, key: str, value: object, allowed: list[str]) -> None:
        super().__init__(None, key, f"unknown key; allowed: {', '.join(allowed)}", value)
        self.component_name = component
        self.allowed = allowed
        self.closest = allowed[0]
        self.output = object.__new__(pulumi.Output)
        self._private = "not sent"


class _Probe(pulumi.ComponentResource):
    """A component whose argument check fails (built without registering: no Pulumi runtime here)."""

    def validate(self) -> None:
        raise _ArgumentError("probe", "min_node", 2, ["min_nodes", "max_nodes"])

    def crash(self) -> None:
        raise RuntimeError("subnet lookup failed")


def test_a_config_error_carries_every_public_field_and_the_component_being_built():
    probe = object.__new__(_Probe)
    probe._type, probe._name = "platform:index:Probe", "gpu"
    try:
        probe.validate()
    except ConfigError as error:
        described = describe(error)
    assert described["kind"] == "config"
    assert described["message"] == "min_node: unknown key; allowed: min_nodes, max_nodes"
    assert described["component"] == {"type": "platform:index:Probe", "name": "gpu"}
    assert described["fields"] == {
        "file": None, "key_path": "min_node", "problem": "unknown key; allowed: min_nodes, max_nodes", "value": 2,
        "component_name": "probe", "allowed": ["min_nodes", "max_nodes"], "closest": "min_nodes",
        "output": "<an Output, unknown before deployment>"}
    json.dumps(described)  # the parent reads it as one JSON line


def test_a_program_error_names_the_component_being_built():
    probe = object.__new__(_Probe)
    probe._type, probe._name = "platform:index:Probe", "gpu"
    try:
        probe.crash()
    except RuntimeError as error:
        described = describe(error)
    assert (described["kind"], described["message"]) == ("program", "RuntimeError: subnet lookup failed")
    assert described["component"] == {"type": "platform:index:Probe", "name": "gpu"}
