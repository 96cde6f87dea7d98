"""amlkit.policies.analyze_once: Analyze configures pulumi's runtime settings and builds a request's options and
provider once, not once per policy, for amlkit's own pack. The pack's answers are the same, byte for byte, as
pulumi-policy's own per-policy work gives: on every resource of a generated ML platform state and on requests
with a secret input, an unknown input, a finding and no provider; a config change and a changed `PULUMI_CONFIG`
take effect at once; a pack with a policy that is not amlkit's is served as pulumi-policy serves it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from pulumi.runtime.proto import analyzer_pb2

from amlkit import __version__
from amlkit.policies import ALL_RULES, analyze_once
from amlkit.policies.pack import _Effective
from amlkit.review.pack import snapshot
from amlkit.review.plan.stream import StateStream
from amlkit.review.secrets import SECRET_SIG, SECRET_SIG_KEY, UNKNOWN
from tests.benchmods import platform_state

ROOT = Path(__file__).resolve().parents[2]
COMPUTE = "azure-native:machinelearningservices:Compute"
ENVIRONMENTS = 3


def _urn(type_: str, name: str) -> str:
    return f"urn:pulumi:prod::acme-ml::{type_}::{name}"


def _cluster(name: str, **scale: Any) -> dict[str, Any]:
    return {"computeType": "AmlCompute", "properties": {"vmSize": "Standard_D4ds_v5", "scaleSettings": {
        "minNodeCount": 0, "maxNodeCount": 4, **scale}}}


def _edge_requests() -> list[analyzer_pb2.AnalyzeRequest]:
    """A cluster with a secret node count, one with an unknown size, one keeping two nodes, none with a provider."""
    secret = {SECRET_SIG_KEY: SECRET_SIG, "value": 3}
    unknown = _cluster("unknown")
    unknown["properties"]["vmSize"] = UNKNOWN
    found = [("secret", _cluster("secret", minNodeCount=secret)), ("unknown", unknown),
             ("two", _cluster("two", minNodeCount=2))]
    return [json_format.ParseDict({"type": COMPUTE, "urn": _urn(COMPUTE, name), "name": name, "properties": {
        "location": "westeurope", "workspaceName": "mlw", "resourceGroupName": "rg", "properties": props}},
        analyzer_pb2.AnalyzeRequest()) for name, props in found]


def _state_requests(tmp_path: Path) -> list[analyzer_pb2.AnalyzeRequest]:
    """The Analyze requests `amlkit check --state` sends for a generated ML platform state (with providers)."""
    state = platform_state(tmp_path / "state.json", ENVIRONMENTS)
    providers: dict[str, Any] = {}
    requests = []
    for resource in StateStream(state).resources():
        if resource.type.startswith("pulumi:providers:"):
            providers[resource.urn] = snapshot._provider(resource)
        requests.append(snapshot._request(resource, snapshot.blind(resource.inputs), providers))
    return requests


CONFIG2 = {"aml-cluster-max-nodes": ["mandatory", {"maxNodes": 2, "waivers": [
    {"resource": "env00001-cluster-c0-compute", "reason": "a bigger one", "expires": "2099-01-01"}]}]}


def _probe(tmp_path: Path, requests: list[analyzer_pb2.AnalyzeRequest]) -> dict[str, dict[str, Any]]:
    data = b"".join(len(blob).to_bytes(4, "big") + blob for blob in (r.SerializeToString() for r in requests))
    (tmp_path / "requests.bin").write_bytes(data)
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "config2.json").write_text(json.dumps(CONFIG2))
    done = subprocess.run([sys.executable, "-m", "tests.policies.analyze_probe", str(tmp_path / "requests.bin"),
                           str(tmp_path / "config.json"), str(tmp_path / "config2.json")],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    rounds = [json.loads(line) for line in done.stdout.splitlines()]
    return {r["round"]: r for r in rounds}


@pytest.mark.slow
def test_analyze_answers_as_pulumi_policys_per_policy_work_and_does_it_once(tmp_path):
    requests = _state_requests(tmp_path) + _edge_requests()
    rounds = _probe(tmp_path, requests)
    resource_policies = sum(not rule.is_stack_rule for rule in ALL_RULES)
    with_provider = sum(r.HasField("provider") for r in requests)
    assert 0 < with_provider < len(requests)  # custom resources name their provider; components, edge cases do not
    # amlkit's own pack: settings configured once for the thread, options once per request
    assert (rounds["own"]["configured"], rounds["own"]["options"]) == (1, len(requests))
    assert (rounds["own-again"]["configured"], rounds["own-again"]["options"]) == (0, len(requests))
    assert rounds["own-again"]["answers"] == rounds["own"]["answers"]
    # a changed PULUMI_CONFIG configures the settings again; the new policy config applies at once
    assert rounds["own-reconfigured"]["configured"] == 1
    assert rounds["own-reconfigured"]["answers"] != rounds["own"]["answers"]
    # pulumi-policy's own work: settings per request, options per policy and request; the same answers
    stock = rounds["pulumi-policy"]
    assert (stock["configured"], stock["options"]) == (len(requests), len(requests) * resource_policies)
    assert stock["answers"] == rounds["own-reconfigured"]["answers"]


@pytest.mark.slow
def test_the_requests_reach_every_outcome(tmp_path):
    """The compared answers are not trivially equal: findings, a waived one, [secret], an unknown."""
    rounds = _probe(tmp_path, _state_requests(tmp_path) + _edge_requests())
    answers = [analyzer_pb2.AnalyzeResponse.FromString(bytes.fromhex(a)) for a in rounds["own-reconfigured"]["answers"]]
    said = [(d.policyName, d.message.rsplit("\n", 1)[-1]) for a in answers for d in a.diagnostics]
    max_nodes = [m for p, m in said if p == "aml-cluster-max-nodes"]  # the new config: 3 x 4 clusters and 3, 1 waived
    assert len(max_nodes) == 14 and "AmlCompute cluster 'env00002-cluster-c3-compute' must have maxNodeCount at " \
        "most 2; found 4." in max_nodes and not [m for m in max_nodes if "env00001-cluster-c0-compute" in m]
    assert ("aml-cluster-min-nodes-zero", "AmlCompute cluster 'secret' must have minNodeCount 0; found [secret].") \
        in said
    assert ("aml-compute-approved-vm-family", "can't run policy 'aml-compute-approved-vm-family' from policy pack "
            f"'amlkit-guardrails@v{__version__}' during preview: string value at .properties.properties.vmSize "
            "can't be known during preview") in said
    waived = [n.reason for a in answers for n in a.not_applicable if n.policy_name == "aml-cluster-max-nodes"]
    assert len(waived) == 1 and "a bigger one" in waived[0]


def test_a_pack_with_another_policy_is_served_as_pulumi_policy_serves_it():
    from pulumi_policy import ResourceValidationPolicy, StackValidationPolicy

    from amlkit.policies import shared_stack

    ours = analyze_once.mark(ResourceValidationPolicy("ours", "d", validate=lambda args, report: None))
    our_stack = shared_stack.mark(StackValidationPolicy("stack", "d", validate=lambda args, report: None))
    theirs = ResourceValidationPolicy("theirs", "d", validate=lambda args, report: None)
    their_stack = StackValidationPolicy("their-stack", "d", validate=lambda args, report: None)

    class Servicer:
        def __init__(self, policies: list[Any]) -> None:
            self._PolicyAnalyzerServicer__policies = policies

    assert analyze_once.own_pack(Servicer([ours, our_stack]))
    assert not analyze_once.own_pack(Servicer([ours, our_stack, theirs]))
    assert not analyze_once.own_pack(Servicer([ours, their_stack]))
    assert not analyze_once.own_pack(Servicer([shared_stack.mark(ResourceValidationPolicy(
        "stack-marked", "d", validate=lambda args, report: None))]))  # a stack mark does not make a resource policy


def test_the_effective_config_is_worked_out_again_only_when_the_config_changes():
    [rule] = [r for r in ALL_RULES if r.name == "aml-cluster-max-nodes"]
    effective = _Effective(rule)
    stored = {"maxNodes": 10.0, "waivers": [{"resource": "a"}]}
    first = effective(dict(stored))  # pulumi-policy hands each policy a shallow copy of what Configure stored
    assert first == rule.effective_config(stored) and first["maxNodes"] == 10
    first["maxNodes"] = 99  # each call gets its own copy
    again = effective(dict(stored))
    assert again == rule.effective_config(stored) and again is not first
    assert effective(None) == rule.effective_config(None)
    assert effective({"maxNodes": 10.0, "waivers": [{"resource": "a"}]})["maxNodes"] == 10  # equal, not the same
    assert effective({"maxNodes": 3.0})["maxNodes"] == 3
    assert effective({"maxNodes": 3.0, "extra": 1}) == rule.effective_config({"maxNodes": 3.0, "extra": 1})
