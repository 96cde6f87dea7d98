"""amlkit.policies.shared_stack: AnalyzeStack converts each resource once for amlkit's own stack policies. The pack's
answer is the same, byte for byte, as when pulumi-policy converts every resource for every policy: on a generated ML
platform state (secrets, waivers by resource and by Azure name) and on requests with the edge cases of the
conversion (a parent or a dependency outside the request, a URN given twice, a secret a rule reads, an unknown)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from pulumi.runtime.proto import analyzer_pb2

from amlkit.policies import ALL_RULES
from amlkit.review.pack import snapshot
from amlkit.review.plan.stream import StateStream
from amlkit.review.secrets import SECRET_SIG, SECRET_SIG_KEY
from tests.benchmods import platform_state

ROOT = Path(__file__).resolve().parents[2]
STACK = "urn:pulumi:prod::acme-ml::pulumi:pulumi:Stack::acme-ml-prod"
WORKSPACE = "azure-native:machinelearningservices:Workspace"
COMPUTE = "azure-native:machinelearningservices:Compute"
REFERENCE = "pulumi:pulumi:StackReference"


def _urn(type_: str, name: str) -> str:
    return f"urn:pulumi:prod::acme-ml::{type_}::{name}"


def _secret(value: Any) -> dict[str, Any]:
    return {SECRET_SIG_KEY: SECRET_SIG, "value": value}


def _workspace(name: str, **props: Any) -> dict[str, Any]:
    return {"type": WORKSPACE, "urn": _urn(WORKSPACE, name), "name": name, "parent": STACK,
            "properties": {"name": f"mlw-{name}", "location": "westeurope", "hbiWorkspace": False,
                           "publicNetworkAccess": "Enabled",
                           "id": f"/subscriptions/0/resourceGroups/rg/providers/Microsoft.MachineLearningServices/"
                                 f"workspaces/mlw-{name}", **props}}


def _edge_cases() -> list[dict[str, Any]]:
    cluster = {"type": COMPUTE, "urn": _urn(COMPUTE, "cpu"), "name": "cpu", "parent": _urn("x:index:Gone", "gone"),
               "properties": {"location": "northeurope", "properties": {"computeType": "AmlCompute", "properties": {
                   "vmSize": "Standard_D4ds_v5", "scaleSettings": {"minNodeCount": 0, "maxNodeCount": 4}}}},
               "dependencies": [_urn(WORKSPACE, "open"), _urn("x:index:Gone", "gone")],
               "propertyDependencies": {"workspaceName": {"urns": [_urn(WORKSPACE, "open"), _urn("x:index:Gone", "g")]},
                                        "location": {"urns": [_urn("x:index:Gone", "gone")]}}}
    return [
        {"type": "pulumi:pulumi:Stack", "urn": STACK, "name": "acme-ml-prod"},
        _workspace("open", workspaceName="mlw-open"),  # a name input: a waiver can name its Azure name
        _workspace("hidden", hbiWorkspace=_secret(False)),  # a rule reads a secret: its finding says [secret]
        _workspace("closed", hbiWorkspace=True, publicNetworkAccess="Disabled"),  # endpoint unknown: a reference
        _workspace("twice"),
        _workspace("twice", hbiWorkspace=True),  # the same URN twice
        cluster,
        {"type": REFERENCE, "urn": _urn(REFERENCE, "acme/network/prod"), "name": "acme/network/prod",
         "parent": STACK, "properties": {"name": "acme/network/prod", "outputs": {"snet": "id"}}},
    ]


def _state_request(tmp_path: Path) -> analyzer_pb2.AnalyzeStackRequest:
    """The AnalyzeStack request `amlkit check --state` sends for a generated 5-environment ML platform state."""
    state = platform_state(tmp_path / "state.json", 5)
    providers: dict[str, Any] = {}
    request = analyzer_pb2.AnalyzeStackRequest()
    for resource in StateStream(state).resources():
        if resource.type.startswith("pulumi:providers:"):
            providers[resource.urn] = snapshot._provider(resource)
        analyze = snapshot._request(resource, snapshot.blind(resource.inputs), providers)
        request.resources.append(snapshot._stack_resource(resource, analyze, snapshot.blind(resource.outputs)))
    return request


WAIVERS = {"aml-workspace-hbi": ["advisory", {"waivers": [
    {"resource": "env00001-workspace-workspace", "reason": "by logical name", "expires": "2099-01-01"},
    {"resource": "env00002-workspace", "reason": "by component", "expires": "2099-01-01"},
    {"resource": "mlw-open", "reason": "by Azure name", "expires": "2099-01-01"},
    {"resource": "hidden", "reason": "by logical name", "expires": "2099-01-01"}]}],
    "aml-workspace-private-endpoint": ["mandatory", None]}

CASES = {
    "generated-state": (_state_request, WAIVERS),
    "generated-state-defaults": (_state_request, {}),
    "edge-cases": (lambda _: json_format.ParseDict({"resources": _edge_cases()}, analyzer_pb2.AnalyzeStackRequest()),
                   {"aml-workspace-hbi": ["mandatory", None]}),
    "edge-cases-waived": (lambda _: json_format.ParseDict({"resources": _edge_cases()},
                                                          analyzer_pb2.AnalyzeStackRequest()), WAIVERS),
}


def _probe(tmp_path: Path, request: analyzer_pb2.AnalyzeStackRequest, config: dict[str, Any]) -> dict[str, Any]:
    (tmp_path / "request.bin").write_bytes(request.SerializeToString())
    (tmp_path / "config.json").write_text(json.dumps(config))
    done = subprocess.run([sys.executable, "-m", "tests.policies.stack_probe", str(tmp_path / "request.bin"),
                           str(tmp_path / "config.json")], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("case", CASES)
def test_shared_stack_answers_as_pulumi_policys_per_policy_conversion(tmp_path, case):
    build, config = CASES[case]
    result = _probe(tmp_path, build(tmp_path), config)
    # every stack policy read the shared stack, then (unmarked) each converted its own, as pulumi-policy does
    assert result["shared_used"] and all(result["shared_used"]) and not any(result["per_policy_used"])
    stack_rules = sum(rule.is_stack_rule for rule in ALL_RULES)
    assert len(result["shared_used"]) == len(result["per_policy_used"]) == stack_rules + 1  # and the probe's
    assert result["shared"] == result["per_policy"]
    shared, per_policy = result["seen"]
    assert shared == per_policy and len(shared) == len(build(tmp_path).resources)
    answer = analyzer_pb2.AnalyzeResponse.FromString(bytes.fromhex(result["shared"]))
    assert any(d.urn for d in answer.diagnostics)  # findings on resources, not only an empty answer
    assert bool(answer.not_applicable) == (config == WAIVERS)  # waived findings, where waivers were given


def test_the_edge_cases_reach_every_outcome(tmp_path):
    """The edge-case request is not trivially equal: a finding, a redacted finding, an unknown, a waived finding."""
    result = _probe(tmp_path, json_format.ParseDict({"resources": _edge_cases()}, analyzer_pb2.AnalyzeStackRequest()),
                    WAIVERS)
    answer = analyzer_pb2.AnalyzeResponse.FromString(bytes.fromhex(result["shared"]))
    said = {(d.policyName, d.urn.rsplit("::", 1)[-1], d.message.split(" must ")[-1]) for d in answer.diagnostics}
    assert ("aml-cluster-same-region", "cpu", "run in its workspace's region westeurope (workspace 'open'); "
            "found northeurope.") in said  # its parent and one of its dependencies are not in the request
    assert not [urn for p, urn, _ in said if p == "aml-workspace-hbi" and urn in ("open", "hidden")]  # waived
    # once the rule read a secret ('hidden'), its later findings say [secret]; the second 'twice' passes
    assert [m for p, urn, m in said if (p, urn) == ("aml-workspace-hbi", "twice")] == [
        "have hbiWorkspace true; found [secret]."]
    assert any(p == "aml-workspace-private-endpoint" and not urn and "cannot tell" in m for p, urn, m in said)
    [waived] = [n.reason for n in answer.not_applicable if n.policy_name == "aml-workspace-hbi"]
    assert "'open'" in waived and "'hidden'" in waived and "by Azure name" in waived and "by logical name" in waived


def test_a_rule_sees_only_the_links_inside_the_request(tmp_path):
    result = _probe(tmp_path, json_format.ParseDict({"resources": _edge_cases()}, analyzer_pb2.AnalyzeStackRequest()),
                    {})
    shared, per_policy = result["seen"]
    assert shared == per_policy
    [cpu] = [r for r in shared if r[1] == "cpu"]
    assert cpu[3:5] == [None, {"workspaceName": [_urn(WORKSPACE, "open")], "location": []}]
    assert [r[3] for r in shared if r[1] == "closed"] == [STACK]
    assert [r[5]["hbiWorkspace"] for r in shared if r[1] in ("hidden", "twice")] == [False, False, True]


def test_a_pack_with_another_stack_policy_is_served_as_pulumi_policy_serves_it():
    from amlkit.policies import shared_stack

    class Servicer:
        _PolicyAnalyzerServicer__policies: list[Any] = []

        def AnalyzeStack(self, request: Any, context: Any) -> Any:  # noqa: N802 - the protocol's name
            return request, shared_stack.current()

    from pulumi_policy import StackValidationPolicy

    ours = shared_stack.mark(StackValidationPolicy("ours", "d", validate=lambda args, report: None))
    theirs = StackValidationPolicy("theirs", "d", validate=lambda args, report: None)
    serve = shared_stack.sharing(Servicer.AnalyzeStack, analyzer_pb2.AnalyzeStackRequest)
    request = analyzer_pb2.AnalyzeStackRequest(resources=[analyzer_pb2.AnalyzerResource(urn="u")])
    servicer = Servicer()
    servicer._PolicyAnalyzerServicer__policies = [ours, theirs]
    assert serve(servicer, request, None) == (request, None)
    servicer._PolicyAnalyzerServicer__policies = [ours]
    sent, shared = serve(servicer, request, None)
    assert sent == analyzer_pb2.AnalyzeStackRequest() and shared is not None and shared_stack.current() is None
