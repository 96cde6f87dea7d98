"""Issue 10, case 1: a component-based platform program that looks up its subnet and reads a stack
reference. The lookup's id follows from its arguments (so the lock on the subnet's resource group is
caught exactly as with the id written out); what cannot be known is unknown and every format lists
the unanswered lookups; a lookups file pins answers."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from amlkit.errors import ConfigError
from amlkit.review.engine import review
from amlkit.review.model import Lookup
from amlkit.review.options import ReviewOptions
from amlkit.review.report import json as report_json
from amlkit.review.report import markdown as report_markdown
from amlkit.review.report import sarif as report_sarif
from amlkit.review.report import table as report_table
from amlkit.review.run.lookups import FILE_NAME
from tests.review.helpers import FIXTURES, line_in, record_pack_calls
from tests.review.statefiles import deployed_state

PLATFORM = FIXTURES / "platform_lookups"


def line_of(text: str) -> int:
    return line_in(PLATFORM / "__main__.py", text)


SUBNET_LINE = line_of("subnet = network.get_subnet_output(")
REFERENCE_LINE = line_of('shared = pulumi.StackReference("acme/shared/prod")')
SUBNET_LOOKUP = Lookup("azure-native:network:getSubnet",
                       {"resourceGroupName": "rg-net", "subnetName": "snet", "virtualNetworkName": "vnet"},
                       "__main__.py", SUBNET_LINE)
STACK_REFERENCE = Lookup("pulumi:pulumi:StackReference", {"name": "acme/shared/prod"}, "__main__.py", REFERENCE_LINE)
VIOLATIONS = {
    ("aml-no-resource-group-lock", "mandatory", "network-lock"),
    ("aml-workspace-cmk", "advisory", "mlw-workspace"),
    ("aml-workspace-managed-network", "advisory", "mlw-workspace"),  # a customer VNet: its computes use subnets
    # no endpoint in the stack. The StackReference that may hold one is a read, and `pulumi preview` sends the pack
    # registered resources only (see the AnalyzeStack test below): a finding there too, never unknown
    ("aml-workspace-private-endpoint", "advisory", "mlw-workspace"),
    ("aml-workspace-user-assigned-identity", "advisory", "mlw-workspace"),
}
UNKNOWN_POLICIES = {"aml-cluster-same-region", "aml-quota-budget"}  # the cluster's region is a stack output
PINS = """\
version: 1
invokes:
  - function: azure-native:network:getSubnet
    args: {resourceGroupName: rg-net, virtualNetworkName: vnet, subnetName: snet}
    result: {addressPrefix: 10.0.1.0/24}
stack_references:
  - stack: acme/shared/prod
    outputs: {location: westeurope}
"""


def deployed(project, stacks, directory):
    """ReviewOptions against each stack's own state export: the lock links to the groups of the deployed
    resources (in a first preview the groups being created have unknown names, and the stack rules that read
    them are unknown: tests/review/test_preview_knowledge.py)."""
    return ReviewOptions(states=[deployed_state(project, stack, directory) for stack in stacks])


@pytest.fixture(scope="module")
def platform(tmp_path_factory):
    return review(PLATFORM, options=deployed(PLATFORM, ["lookup", "written"], tmp_path_factory.mktemp("state")))


def stack_of(result, name):
    return next(s for s in result.stacks if s.stack == name)


def findings(stack):
    return ({(v.policy, v.level, v.resource) for v in stack.violations}, {u.policy for u in stack.unknown})


@pytest.mark.parametrize(("stack", "lookups"), [
    ("lookup", [SUBNET_LOOKUP, STACK_REFERENCE]),
    ("written", [STACK_REFERENCE]),
])
@pytest.mark.slow
def test_a_looked_up_subnet_is_reviewed_like_its_written_out_id(platform, stack, lookups):
    result = stack_of(platform, stack)
    assert result.error is None
    assert findings(result) == (VIOLATIONS, UNKNOWN_POLICIES)
    assert result.lookups == tuple(lookups)
    assert platform.exit_code() == 1


@pytest.mark.slow
def test_the_lock_is_caught_through_the_lookups_derived_subnet_id(platform):
    compute = next(r for r in stack_of(platform, "lookup").resources if r.name == "cpu-compute")
    assert compute.inputs["properties"]["properties"]["subnet"]["id"] == (
        "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-net"
        "/providers/Microsoft.Network/virtualNetworks/vnet/subnets/snet")


@pytest.mark.slow
def test_every_format_lists_the_unanswered_lookups(platform):
    table = report_table.render(platform).plain
    levels = Counter(level for _, level, _ in VIOLATIONS)  # the counts of the pinned findings
    assert (
        "    Lookups not answered offline (what the program derived from them is unknown):\n"
        '        - azure-native:network:getSubnet(resourceGroupName="rg-net", subnetName="snet", '
        f'virtualNetworkName="vnet") (at __main__.py:{SUBNET_LINE})\n'
        f'        - pulumi:pulumi:StackReference(name="acme/shared/prod") (at __main__.py:{REFERENCE_LINE})\n'
        f"    {levels['mandatory']} mandatory, {levels['advisory']} advisory, 0 waived, "
        f"{len(UNKNOWN_POLICIES)} unknown\n"
    ) in table
    stacks = {s["stack"]: s for s in json.loads(report_json.render(platform))["stacks"]}
    assert stacks["lookup"]["lookups"] == [
        {"token": "azure-native:network:getSubnet",
         "args": {"resourceGroupName": "rg-net", "subnetName": "snet", "virtualNetworkName": "vnet"},
         "file": "__main__.py", "line": SUBNET_LINE},
        {"token": "pulumi:pulumi:StackReference", "args": {"name": "acme/shared/prod"},
         "file": "__main__.py", "line": REFERENCE_LINE},
    ]
    assert stacks["written"]["lookups"] == [{"token": "pulumi:pulumi:StackReference",
                                             "args": {"name": "acme/shared/prod"},
                                             "file": "__main__.py", "line": REFERENCE_LINE}]
    markdown = report_markdown.render(platform)
    assert markdown.count("❔ **Lookups not answered offline** (what the program derived from them is unknown):") == 2
    assert ('- `azure-native:network:getSubnet(resourceGroupName="rg-net", subnetName="snet", '
            f'virtualNetworkName="vnet") (at __main__.py:{SUBNET_LINE})`') in markdown
    notes = report_sarif.to_sarif(platform, PLATFORM)["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert [(n["level"], n["descriptor"]["id"], n["properties"]["stack"], n["properties"]["token"]) for n in notes] == [
        ("note", "amlkit-lookup-unanswered", "lookup", "azure-native:network:getSubnet"),
        ("note", "amlkit-lookup-unanswered", "lookup", "pulumi:pulumi:StackReference"),
        ("note", "amlkit-lookup-unanswered", "written", "pulumi:pulumi:StackReference"),
    ]
    assert notes[1]["message"]["text"] == ('stack lookup: lookup not answered offline, what the program derived from '
                                           'it is unknown: pulumi:pulumi:StackReference(name="acme/shared/prod") '
                                           f'(at __main__.py:{REFERENCE_LINE})')


@pytest.mark.slow
def test_sarif_locates_findings_at_the_program_line_that_declared_the_resource(platform):
    results = report_sarif.to_sarif(platform, PLATFORM)["runs"][0]["results"]
    # keyed by the policy name (ruleId is the rule's opaque reference, AMLK-0016 for the lock rule)
    located = {(r["properties"]["stack"], r["properties"]["policy"]): r["locations"][0]["physicalLocation"]
               for r in results}
    assert {r["ruleId"] for r in results if r["properties"]["policy"] == "aml-no-resource-group-lock"} == {"AMLK-0016"}
    lock = {"artifactLocation": {"uri": "__main__.py"},
            "region": {"startLine": line_of("authorization.ManagementLockAtResourceGroupLevel(")}}
    assert located[("lookup", "aml-no-resource-group-lock")] == lock
    assert located[("written", "aml-no-resource-group-lock")] == lock
    # the workspace's children are declared inside amlkit.components: the program line is the component's
    workspace = {"artifactLocation": {"uri": "__main__.py"}, "region": {"startLine": line_of('Workspace("mlw"')}}
    assert located[("lookup", "aml-workspace-cmk")] == workspace
    # stack-level findings have no resource: the stack file
    assert located[("lookup", "aml-quota-budget")] == {"artifactLocation": {"uri": "Pulumi.lookup.yaml"},
                                                       "region": {"startLine": 1}}


@pytest.fixture
def pinned(tmp_path) -> Path:
    project = tmp_path / "platform"
    shutil.copytree(PLATFORM, project)
    (project / FILE_NAME).write_text(PINS, encoding="utf-8")
    return project


@pytest.mark.slow
def test_pinned_lookups_are_answered_and_no_longer_listed(pinned, tmp_path):
    result = review(pinned, ["lookup"], options=deployed(pinned, ["lookup"], tmp_path)).stacks[0]
    assert findings(result) == (VIOLATIONS, set())
    assert result.lookups == ()


def test_a_bad_lookups_file_stops_the_review_with_exit_2(pinned):
    (pinned / FILE_NAME).write_text(PINS.replace("addressPrefix", "adressPrefix"), encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        review(pinned, ["lookup"])
    assert str(raised.value) == (
        f"{pinned / FILE_NAME}: invokes[0].result.adressPrefix: not a field of azure-native:network:getSubnet's "
        "result (did you mean 'addressPrefix'?)")
    assert raised.value.exit_code == 2


def test_lookup_args_never_carry_a_secret_value():
    from amlkit.review.pack.findings import unanswered_lookups
    from amlkit.review.secrets import REDACTED, Secrets

    args = {"vaultName": "kv", "b": ["x-hunter2"], "a": "hunter2"}
    raw = [{"token": "azure-native:keyvault:getSecret", "args": args}]
    assert unanswered_lookups(raw, Secrets(["hunter2"])) == [
        Lookup("azure-native:keyvault:getSecret", {"a": REDACTED, "b": [f"x-{REDACTED}"], "vaultName": "kv"})]


def test_a_stack_reference_is_not_sent_to_the_pack_as_in_pulumi_preview(monkeypatch, tmp_path):
    # The engine keeps a read (the SDK reads a StackReference: ReadResource with the stack's name as id) in
    # `deployment.reads`, not `news` (pulumi/pulumi pkg/resource/deploy/step_executor.go), calls Analyze from
    # registrations only and sends AnalyzeStack the resources of `news` (step_generator.go AnalyzeResources).
    # The offline review sends what the engine sends: the registrations, never the read.
    sent = record_pack_calls(monkeypatch)
    (result,) = review(PLATFORM, ["written"], options=deployed(PLATFORM, ["written"], tmp_path)).stacks
    [stack_request] = sent["AnalyzeStack"]
    sent_types = {r.type for r in stack_request.resources}
    registered = {r.type for r in result.resources}
    assert "pulumi:pulumi:StackReference" not in sent_types | registered
    assert sent_types == registered
    assert result.lookups == (STACK_REFERENCE,)
    assert findings(result) == (VIOLATIONS, UNKNOWN_POLICIES)
