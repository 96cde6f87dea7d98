"""The runner child: registrations recorded in engine form, and the alias shortcut changes nothing."""

from __future__ import annotations

import json
import pathlib

import pulumi
import pytest
from pulumi.runtime import rpc

from amlkit.errors import ConfigError
from amlkit.review.run.runner import describe
from tests.review.helpers import FIXTURES, RAW, line_in, normalized, raw_request, run_runner, runner_output

STACK_URN = "urn:pulumi:dev::raw-aml::pulumi:pulumi:Stack::raw-aml-dev"
WORKSPACE_URN = "urn:pulumi:dev::raw-aml::azure-native:machinelearningservices:Workspace::mlw"
GROUP_URN = "urn:pulumi:dev::raw-aml::azure-native:resources:ResourceGroup::rg"
CLUSTER_URN = ("urn:pulumi:dev::raw-aml::azure-native:machinelearningservices:Workspace"
               "$azure-native:machinelearningservices:Compute::a")


def by_name(records):
    return {r["name"]: r for r in records}


@pytest.mark.slow
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
    # the workspace is being created: its `name` output is unknown in a preview (azure-native PreviewOutputs)
    assert cluster["inputs"]["workspaceName"] == rpc.UNKNOWN
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


@pytest.mark.slow
def test_alias_shortcut_records_exactly_the_same_registrations():
    config = {"clusterCount": "20", "clusters": json.dumps([{"name": "warm", "minNodes": 1}])}
    fast = run_runner({**raw_request(**config), "alias_shortcut": True})["resources"]
    slow = run_runner({**raw_request(**config), "alias_shortcut": False})["resources"]
    assert len(fast) == 3 + 21  # group, workspace, lock and 21 clusters parented to the workspace
    assert normalized(fast) == normalized(slow)
    assert all(r["options"]["aliases"] for r in fast)  # the specs are still sent


# --- lookups and source positions ---------------------------------------------------------------------

FORMS = FIXTURES / "lookup_forms"
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # the engine's unknown sentinel (pulumi.runtime.rpc.UNKNOWN)
SUBNET_ID = ("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-net"
             "/providers/Microsoft.Network/virtualNetworks/vnet/subnets/snet")


def run_messages(request):
    return [json.loads(line) for line in runner_output(request).splitlines()]


@pytest.fixture(scope="module")
def forms():
    request = {"program": str(FORMS), "project": "lookup-forms", "stack": "dev", "config": {}, "secret_keys": []}
    messages = run_messages(request)
    assert messages[-1] == {"done": True}
    return ({m["resource"]["name"]: m["resource"] for m in messages if "resource" in m},
            [m["lookup"] for m in messages if "lookup" in m])


TAG_CASES = [
    ("output-form", {"id": SUBNET_ID, "name": "snet", "prefix": UNKNOWN, "derived": UNKNOWN}),
    ("plain-form", {"id": SUBNET_ID, "prefix": UNKNOWN}),
    ("client-config", {"tenant": "11111111-1111-1111-1111-111111111111"}),
    ("stack-reference", {"get": UNKNOWN, "require": UNKNOWN}),
    ("stack-outputs", UNKNOWN),  # the whole `outputs` map
    ("chained", {"id": UNKNOWN}),  # a lookup whose arguments are unknown is wholly unknown
]


@pytest.mark.parametrize(("name", "tags"), TAG_CASES, ids=[c[0] for c in TAG_CASES])
def test_lookups_answer_what_their_arguments_determine_and_nothing_else(forms, name, tags):
    resources, _ = forms
    assert resources[name]["inputs"]["tags"] == tags


def test_each_unanswered_lookup_is_reported_once_per_program_line_that_called_it(forms):
    _, lookups = forms
    main = FORMS / "__main__.py"
    subnet = {"resourceGroupName": "rg-net", "subnetName": "snet", "virtualNetworkName": "vnet"}
    assert sorted(lookups, key=lambda lookup: (lookup["token"], lookup["line"])) == [
        {"token": "azure-native:network:getSubnet", "args": subnet,
         "file": "__main__.py", "line": line_in(main, "output_form = network.get_subnet_output(")},
        {"token": "azure-native:network:getSubnet", "args": subnet,
         "file": "__main__.py", "line": line_in(main, "plain_form = network.get_subnet(")},
        {"token": "azure-native:network:getVirtualNetwork",
         "args": {"resourceGroupName": "<unknown>", "virtualNetworkName": "vnet"},
         "file": "__main__.py", "line": line_in(main, "chained = network.get_virtual_network_output(")},
        {"token": "pulumi:pulumi:StackReference", "args": {"name": "acme/shared/prod"},
         "file": "__main__.py", "line": line_in(main, "shared = pulumi.StackReference(")},
    ]


def test_each_registration_carries_the_program_line_that_declared_it(forms):
    resources, _ = forms
    main = FORMS / "__main__.py"
    assert resources["stack-reference"]["source"] == {"uri": main.as_uri(),
                                                      "line": line_in(main, 'ResourceGroup("stack-reference"')}
    raw = run_runner(raw_request(clusters=json.dumps([{"name": "a"}])))["resources"]
    sources = {r["name"]: r["source"]["line"] for r in raw}
    raw_main = RAW / "__main__.py"
    assert sources == {
        "rg": line_in(raw_main, 'resources.ResourceGroup("rg"'),
        "mlw": line_in(raw_main, "workspace = ml.Workspace("),
        "rg-lock": line_in(raw_main, "authorization.ManagementLockAtResourceGroupLevel("),
        "a": line_in(raw_main, "return ml.Compute("),  # the program's helper function, not the SDK
    }


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
    assert set(described) == {"kind", "message", "fields", "component", "source"}  # the fields, once
    assert described["kind"] == "config"
    assert described["message"] == "min_node: unknown key; allowed: min_nodes, max_nodes"
    assert described["component"] == {"type": "platform:index:Probe", "name": "gpu"}
    assert described["fields"] == {
        "file": None, "key_path": "min_node", "problem": "unknown key; allowed: min_nodes, max_nodes", "value": 2,
        "component_name": "probe", "allowed": ["min_nodes", "max_nodes"], "closest": "min_nodes",
        "output": "an Output (known only after deployment)"}
    raise_line = _Probe.validate.__code__.co_firstlineno + 1  # the innermost frame of this file: the raise
    assert described["source"] == {"file": __file__, "line": raise_line}
    json.dumps(described)  # the parent reads it as one JSON line


def test_a_program_error_names_the_component_being_built():
    probe = object.__new__(_Probe)
    probe._type, probe._name = "platform:index:Probe", "gpu"
    try:
        probe.crash()
    except RuntimeError as error:
        described = describe(error)
    here = pathlib.Path(__file__).resolve()
    shown = str(here.relative_to(pathlib.Path.cwd())) if here.is_relative_to(pathlib.Path.cwd()) else str(here)
    line = here.read_text().splitlines().index('        raise RuntimeError("subnet lookup failed")') + 1
    assert (described["kind"], described["message"]) == (
        "program", f"RuntimeError: subnet lookup failed (at {shown}:{line})")  # the innermost frame in our own file
    assert described["program_line"] == {"file": shown, "line": line,
                                         "code": 'raise RuntimeError("subnet lookup failed")'}
    assert described["component"] == {"type": "platform:index:Probe", "name": "gpu"}


# --- lookups of other providers (the classic azure provider, azuread) ----------------------------------

PROVIDERS = FIXTURES / "lookup_providers"


@pytest.fixture(scope="module")
def provider_lookups():
    from amlkit.review.run.lookups import load_lookups

    request = {"program": str(PROVIDERS), "project": "lookup-providers", "stack": "dev", "config": {},
               "secret_keys": [], "lookups": load_lookups(PROVIDERS).to_json()}
    messages = run_messages(request)
    assert messages[-1] == {"done": True}
    return ({m["resource"]["name"]: m["resource"] for m in messages if "resource" in m},
            [m["lookup"] for m in messages if "lookup" in m])


PROVIDER_CASES = [
    ("client-config", {"tenant": "33333333-3333-3333-3333-333333333333",  # pinned
                       "subscription": "00000000-0000-0000-0000-000000000000"}),
    ("pinned-user", {"object": "22222222-2222-2222-2222-222222222222", "name": UNKNOWN}),
    ("other-user", {"object": UNKNOWN}),
    ("output-user", {"object": "22222222-2222-2222-2222-222222222222"}),
]


@pytest.mark.parametrize(("name", "tags"), PROVIDER_CASES, ids=[c[0] for c in PROVIDER_CASES])
def test_plain_and_output_lookups_of_any_provider_run_offline(provider_lookups, name, tags):
    resources, _ = provider_lookups
    assert resources[name]["inputs"]["tags"] == tags


def test_unpinned_lookups_of_other_providers_are_reported(provider_lookups):
    _, lookups = provider_lookups
    assert lookups == [{"token": "azuread:index/getUser:getUser", "args": {"userPrincipalName": "someone@example.com"},
                        "file": "__main__.py",
                        "line": line_in(PROVIDERS / "__main__.py", "other_user = azuread.get_user(")}]


def test_output_only_nested_properties_are_unknown_so_programs_indexing_them_run():
    messages = run_messages({"program": str(FIXTURES / "output_only"), "project": "output-only", "stack": "dev",
                             "config": {}, "secret_keys": []})
    assert messages[-1] == {"done": True}
    resources = {m["resource"]["name"]: m["resource"] for m in messages if "resource" in m}
    assert resources["uses-record"]["inputs"]["privateDnsZoneGroupName"] == UNKNOWN
