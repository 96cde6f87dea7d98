"""amlkit.policies.remediate through the real pack over gRPC: each remediating rule at level `remediate` answers
`Remediate` with the fixed properties (pulumi-policy's `Remediation.properties`), and `Analyze` of those
properties then reports nothing for the rule; a compliant, waived or unknown resource is not remediated."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from pulumi.runtime.proto import analyzer_pb2

from amlkit.policies import ALL_RULES
from amlkit.review.pack import wire
from amlkit.review.pack.config import PolicyConfig
from amlkit.review.pack.process import PackProcess
from amlkit.review.pack.session import handshake
from amlkit.review.secrets import SECRET_SIG, SECRET_SIG_KEY, UNKNOWN
from tests.policies.helpers import cluster_props

PACK = Path(__file__).resolve().parents[2] / "policies"
NATIVE = "azure-native:machinelearningservices:Compute"
CLASSIC = "azure:machinelearning/computeCluster:ComputeCluster"
CLASSIC_INSTANCE = "azure:machinelearning/computeInstance:ComputeInstance"
WORKSPACE_ID = ("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-ml/providers/"
                "Microsoft.MachineLearningServices/workspaces/mlw")


def instance_props(**inner: Any) -> dict[str, Any]:
    return {"resourceGroupName": "rg-ml", "workspaceName": "mlw", "computeName": "ci-a", "location": "westeurope",
            "properties": {"computeType": "ComputeInstance", "disableLocalAuth": True,
                           "properties": {"vmSize": "Standard_D4ds_v5", "enableNodePublicIp": False,
                                          "idleTimeBeforeShutdown": "PT30M", **inner}}}


def classic_cluster(**props: Any) -> dict[str, Any]:
    return {"name": "cpu", "location": "westeurope", "machineLearningWorkspaceId": WORKSPACE_ID,
            "vmSize": "Standard_D4ds_v5", "vmPriority": "Dedicated", "nodePublicIpEnabled": False,
            "localAuthEnabled": False, "scaleSettings": {"minNodeCount": 0, "maxNodeCount": 4,
                                                         "scaleDownNodesAfterIdleDuration": "PT120S"}, **props}


def at(props: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(props)
    target = changed
    for key in path[:-1]:
        target = target.setdefault(key, {})
    target[path[-1]] = value
    return changed


INNER = ("properties", "properties")
TAGS = {"requiredTags": ["owner", "cost-center"], "defaultTagValues": {"Cost-Center": "unassigned"}}
# (id, policy, its config, type, inputs as written, the inputs the remediation answers)
CASES = [
    ("min-nodes", "aml-cluster-min-nodes-zero", {}, NATIVE,
     at(cluster_props(), (*INNER, "scaleSettings", "minNodeCount"), 2.0),
     at(cluster_props(), (*INNER, "scaleSettings", "minNodeCount"), 0)),
    ("min-nodes-classic", "aml-cluster-min-nodes-zero", {}, CLASSIC,
     at(classic_cluster(), ("scaleSettings", "minNodeCount"), 1.0), classic_cluster()),
    ("ssh-cluster", "aml-cluster-ssh-disabled", {}, NATIVE,
     at(cluster_props(), (*INNER, "remoteLoginPortPublicAccess"), "Enabled"), cluster_props()),
    ("ssh-cluster-omitted", "aml-cluster-ssh-disabled", {}, NATIVE,
     cluster_props(remoteLoginPortPublicAccess=None), cluster_props()),
    ("ssh-classic", "aml-cluster-ssh-disabled", {}, CLASSIC,
     classic_cluster(sshPublicAccessEnabled=True), classic_cluster(sshPublicAccessEnabled=False)),
    ("ssh-instance", "aml-cluster-ssh-disabled", {}, NATIVE,
     instance_props(sshSettings={"sshPublicAccess": "Enabled", "adminPublicKey": "ssh-rsa AAAA"}),
     instance_props(sshSettings={"sshPublicAccess": "Disabled", "adminPublicKey": "ssh-rsa AAAA"})),
    ("public-ip", "aml-compute-no-public-ip", {}, NATIVE,
     cluster_props(enableNodePublicIp=None), cluster_props()),
    ("public-ip-classic", "aml-compute-no-public-ip", {}, CLASSIC,
     classic_cluster(nodePublicIpEnabled=True), classic_cluster()),
    ("local-auth", "aml-compute-local-auth-disabled", {}, NATIVE,
     at(instance_props(), ("properties", "disableLocalAuth"), False), instance_props()),
    ("local-auth-classic", "aml-compute-local-auth-disabled", {}, CLASSIC,
     {k: v for k, v in classic_cluster().items() if k != "localAuthEnabled"}, classic_cluster()),
    ("idle-scale-down", "aml-cluster-idle-scale-down", {"maxIdleSeconds": 600.0}, NATIVE,
     cluster_props(scaleSettings={"minNodeCount": 0, "maxNodeCount": 4, "nodeIdleTimeBeforeScaleDown": "PT1H"}),
     cluster_props(scaleSettings={"minNodeCount": 0, "maxNodeCount": 4, "nodeIdleTimeBeforeScaleDown": "PT600S"})),
    ("idle-scale-down-classic", "aml-cluster-idle-scale-down", {}, CLASSIC,
     at(classic_cluster(), ("scaleSettings", "scaleDownNodesAfterIdleDuration"), "PT30M"),
     at(classic_cluster(), ("scaleSettings", "scaleDownNodesAfterIdleDuration"), "PT900S")),
    ("instance-idle-missing", "aml-compute-instance-idle-shutdown", {}, NATIVE,
     at(instance_props(), (*INNER, "idleTimeBeforeShutdown"), None), instance_props(idleTimeBeforeShutdown="PT60M")),
    ("instance-idle-over", "aml-compute-instance-idle-shutdown",
     {"maxIdleMinutes": 45.0, "remediationIdleMinutes": 90.0}, NATIVE,
     instance_props(idleTimeBeforeShutdown="P1D"), instance_props(idleTimeBeforeShutdown="PT45M")),
    ("tags-added", "aml-required-tags", TAGS, NATIVE,
     {**cluster_props(), "tags": {"owner": "ml"}}, {**cluster_props(), "tags": {"owner": "ml", "cost-center":
                                                                                 "unassigned"}}),
    ("tags-empty-value-filled", "aml-required-tags", TAGS, NATIVE,
     {**cluster_props(), "tags": {"owner": "ml", "COST-CENTER": " "}},
     {**cluster_props(), "tags": {"owner": "ml", "COST-CENTER": "unassigned"}}),
    ("tags-none-yet", "aml-required-tags", {**TAGS, "requiredTags": ["cost-center"]}, NATIVE,
     cluster_props(), {**cluster_props(), "tags": {"cost-center": "unassigned"}}),
]
# (id, policy, config, type, inputs): at level remediate, Remediate leaves these alone
UNCHANGED = [
    ("compliant", "aml-cluster-min-nodes-zero", {}, NATIVE, cluster_props()),
    ("waived", "aml-cluster-min-nodes-zero",
     {"waivers": [{"resource": "res", "reason": "warm pool for the demo", "expires": "2099-01-01"}]}, NATIVE,
     at(cluster_props(), (*INNER, "scaleSettings", "minNodeCount"), 2.0)),
    ("admin-password-only", "aml-cluster-ssh-disabled", {}, NATIVE,
     cluster_props(userAccountCredentials={"adminUserName": "azureuser", "adminUserPassword": "pw"})),
    ("classic-instance-ssh", "aml-cluster-ssh-disabled", {}, CLASSIC_INSTANCE,
     {"name": "ci-a", "machineLearningWorkspaceId": WORKSPACE_ID, "virtualMachineSize": "Standard_D4ds_v5",
      "nodePublicIpEnabled": False, "localAuthEnabled": False, "ssh": {"publicKey": "ssh-rsa AAAA"}}),
    ("no-duration", "aml-cluster-idle-scale-down", {}, NATIVE,
     cluster_props(scaleSettings={"minNodeCount": 0, "maxNodeCount": 4, "nodeIdleTimeBeforeScaleDown": "soon"})),
    ("tag-without-default", "aml-required-tags", {"requiredTags": ["owner"], "defaultTagValues": {}}, NATIVE,
     cluster_props()),
]


@pytest.fixture(scope="module")
def pack() -> Iterator[PackProcess]:
    from amlkit.review.proc import workers

    with workers.review_session(None, PACK, 1), PackProcess(PACK, "p", "dev", {}, 60.0) as process:
        handshake(process)
        yield process


def _configure(pack: PackProcess, policy: str, config: dict[str, Any], level: str = "remediate") -> None:
    """Only `policy` enabled, at `level`, with `config` (numbers as floats, as the wire carries them)."""
    request = analyzer_pb2.ConfigureAnalyzerRequest()
    for rule in ALL_RULES:
        entry = PolicyConfig(level, config or None) if rule.name == policy else PolicyConfig("disabled")
        request.policyConfig[rule.name].CopyFrom(wire.policy_config_message(entry))
    pack.call("Configure", request, "Configure")


def _request(type_: str, props: dict[str, Any]) -> analyzer_pb2.AnalyzeRequest:
    return analyzer_pb2.AnalyzeRequest(type=type_, properties=wire.to_struct(props), name="res",
                                       urn=f"urn:pulumi:dev::p::{type_}::res")


def _wire(value: Any) -> Any:
    """A JSON value as MessageToDict gives it back from a Struct (numbers as floats)."""
    return json_format.MessageToDict(wire.to_struct({"v": value}))["v"]


@pytest.mark.slow
@pytest.mark.parametrize(("policy", "config", "type_", "given", "fixed"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_remediate_answers_the_fixed_inputs_then_analyze_finds_nothing(pack, policy, config, type_, given, fixed):
    _configure(pack, policy, config)
    before = pack.call("Analyze", _request(type_, given), "Analyze")
    assert [d.policyName for d in before.diagnostics] == [policy]
    assert before.diagnostics[0].enforcementLevel == analyzer_pb2.MANDATORY  # remediate reports as mandatory
    answer = pack.call("Remediate", _request(type_, given), "Remediate")
    assert [(r.policyName, r.diagnostic) for r in answer.remediations] == [(policy, "")]
    remediated = json_format.MessageToDict(answer.remediations[0].properties)
    assert remediated == _wire(fixed)
    after = pack.call("Analyze", _request(type_, remediated), "Analyze")
    assert list(after.diagnostics) == []


@pytest.mark.slow
@pytest.mark.parametrize(("policy", "config", "type_", "given"), [c[1:] for c in UNCHANGED],
                         ids=[c[0] for c in UNCHANGED])
def test_remediate_leaves_compliant_waived_and_human_choices_alone(pack, policy, config, type_, given):
    _configure(pack, policy, config)
    assert list(pack.call("Remediate", _request(type_, given), "Remediate").remediations) == []


@pytest.mark.slow
@pytest.mark.parametrize("level", ["mandatory", "advisory"])
def test_remediate_runs_only_at_level_remediate(pack, level):
    _configure(pack, "aml-cluster-min-nodes-zero", {}, level)
    given = at(cluster_props(), (*INNER, "scaleSettings", "minNodeCount"), 2.0)
    assert list(pack.call("Remediate", _request(NATIVE, given), "Remediate").remediations) == []


@pytest.mark.slow
def test_an_unknown_the_fix_needs_is_the_protocols_unknown_not_a_guess(pack):
    _configure(pack, "aml-cluster-min-nodes-zero", {})
    given = at(cluster_props(), (*INNER, "scaleSettings", "minNodeCount"), UNKNOWN)
    [answer] = pack.call("Remediate", _request(NATIVE, given), "Remediate").remediations
    assert not answer.HasField("properties")
    assert answer.diagnostic == ("can't run remediation 'aml-cluster-min-nodes-zero' from policy pack "
                                 "'amlkit-guardrails@v0.0.1' during preview: string value at "
                                 ".properties.properties.scaleSettings.minNodeCount can't be known during preview")


@pytest.mark.slow
def test_a_secret_stays_secret_through_the_remediation(pack):
    _configure(pack, "aml-required-tags", TAGS)
    secret = {SECRET_SIG_KEY: SECRET_SIG, "value": "pw"}
    given = {**cluster_props(userAccountCredentials={"adminUserName": "u", "adminUserPassword": secret}),
             "tags": {"owner": "ml"}}
    [answer] = pack.call("Remediate", _request(NATIVE, given), "Remediate").remediations
    remediated = json_format.MessageToDict(answer.properties)
    assert remediated["properties"]["properties"]["userAccountCredentials"]["adminUserPassword"] == secret
    assert remediated["tags"] == {"owner": "ml", "cost-center": "unassigned"}


def test_the_remediating_rules_are_the_seven_with_an_unambiguous_fix():
    assert sorted(rule.name for rule in ALL_RULES if rule.remediates) == [
        "aml-cluster-idle-scale-down", "aml-cluster-min-nodes-zero", "aml-cluster-ssh-disabled",
        "aml-compute-instance-idle-shutdown", "aml-compute-local-auth-disabled", "aml-compute-no-public-ip",
        "aml-required-tags"]
