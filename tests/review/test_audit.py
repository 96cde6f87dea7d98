"""amlkit.review.state_audit: `amlkit check --state FILE` / `amlkit analyze --file FILE`, the packs over a
`pulumi stack export` without the program (as `pulumi policy analyze --file`)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from pulumi.runtime.proto import analyzer_pb2
from typer.testing import CliRunner

from amlkit import __version__, cli
from amlkit.review.engine import default_pack_dir
from amlkit.review.options import ReviewOptions
from amlkit.review.pack import snapshot
from amlkit.review.pack.snapshot import blind
from amlkit.review.plan.state import ENCRYPTED
from amlkit.review.secrets import SECRET_SIG, SECRET_SIG_KEY
from amlkit.review.state_audit import audit
from tests.benchmods import platform_state
from tests.review import auditstates as states
from tests.review.helpers import PACKS

runner = CliRunner()
PASSWORD = "Hunter2-not-for-reports"
PROBE = PACKS / "audit_probe"
ROOT = Path(__file__).resolve().parents[2]
WARNING = "amlkit: warning: could not decrypt secrets in {}; analyzing with secret values redacted\n"


def _json(args: list[str]) -> tuple[int, dict[str, Any], str]:
    result = runner.invoke(cli.app, [*args, "--format", "json"])
    return result.exit_code, json.loads(result.stdout), result.stderr


def _findings(stack: dict[str, Any]) -> set[tuple[str, str, str, str]]:
    return {(v["pack"], v["policy"], v["level"], v["resource"]) for v in stack["violations"]}


AMLKIT = "amlkit-guardrails"
WORKSPACE_ADVISORIES = {(AMLKIT, policy, "advisory", "mlw") for policy in (
    "aml-workspace-cmk", "aml-workspace-diagnostics", "aml-workspace-hbi", "aml-workspace-managed-network",
    "aml-workspace-private-endpoint", "aml-workspace-user-assigned-identity")}
UNKNOWN_ENDPOINT = (
    f"can't run policy 'aml-workspace-private-endpoint' from policy pack 'amlkit-guardrails@v{__version__}' during "
    "preview: "
    "Workspace 'mlw' must have a private endpoint (group amlworkspace) when publicNetworkAccess is Disabled; cannot "
    "tell: no private endpoint in this stack, and the stack reads another stack (StackReference 'acme/network/prod') "
    "where one may be declared.")


@pytest.mark.parametrize("command", [["check", "--state"], ["analyze", "--file"]], ids=["check-state", "analyze"])
def test_a_deployed_cluster_at_min_2_and_an_rg_lock_are_flagged_without_the_program(tmp_path, command):
    state = states.write(tmp_path / "prod.json", states.resources(min_nodes=2, rg_lock=True))
    code, report, stderr = _json([*command, str(state), "-C", str(tmp_path)])  # no Pulumi.yaml, no program
    [stack] = report["stacks"]
    assert code == 1 and stderr == ""
    assert _findings(stack) == {
        (AMLKIT, "aml-cluster-min-nodes-zero", "mandatory", "cpu"),
        (AMLKIT, "aml-no-resource-group-lock", "mandatory", "rg-lock"),
        *WORKSPACE_ADVISORIES,
    }
    [min_nodes] = [v for v in stack["violations"] if v["policy"] == "aml-cluster-min-nodes-zero"]
    assert min_nodes["message"] == "AmlCompute cluster 'cpu' must have minNodeCount 0; found 2."
    assert (stack["stack"], stack["project"], stack["audited_state"]) == ("prod", "acme-ml", "prod.json")
    assert (stack["planBase"], stack["policy_config"]) == (None, "pack defaults")
    # the copy marked `delete: true` (minNodeCount 5) is not audited and not listed
    assert sorted(r["name"] for r in stack["resources"]) == [
        "acme-ml-prod", "cpu", "default_3_29_0", "ml-rg", "mlw", "rg-lock"]


def _sent_stack(monkeypatch) -> dict[str, list[Any]]:
    """The AnalyzeStack requests an audit sends (serialized: what gRPC takes to send, snapshot.StackRequest), parsed."""
    sent: dict[str, list[Any]] = {}
    take = snapshot.StackRequest.take

    def recording(request: snapshot.StackRequest) -> bytes:
        data = take(request)
        sent.setdefault("AnalyzeStack", []).append(analyzer_pb2.AnalyzeStackRequest.FromString(data))
        return data

    monkeypatch.setattr(snapshot.StackRequest, "take", recording)
    return sent


def test_every_pack_gets_the_same_stack_request(tmp_path, monkeypatch):
    sent = _sent_stack(monkeypatch)
    state = states.write(tmp_path / "prod.json", states.resources())
    [stack] = audit([state], tmp_path, options=ReviewOptions(policy_pack=[PROBE, PACKS / "echo"])).stacks
    assert stack.error is None and {v.pack for v in stack.violations} == {"fixture-audit-probe", "fixture-echo"}
    first, second = sent["AnalyzeStack"]
    assert first == second and sorted(r.name for r in first.resources) == [
        "acme-ml-prod", "cpu", "default_3_29_0", "ml-rg", "mlw", "rg-lock"]


def test_the_stack_request_goes_to_each_call_and_the_last_one_takes_it():
    request = snapshot.StackRequest(b"serialized", 2)
    assert (request.size, request.take(), request.take()) == (10, b"serialized", b"serialized")
    with pytest.raises(RuntimeError, match="taken by more calls than it was made for"):
        request.take()  # nothing left here once the last call has it


def test_a_compliant_state_passes(tmp_path):
    state = states.write(tmp_path / "prod.json", states.resources(min_nodes=0, rg_lock=False))
    code, report, _ = _json(["check", "--state", str(state), "-C", str(tmp_path)])
    assert code == 0 and _findings(report["stacks"][0]) == WORKSPACE_ADVISORIES



def test_a_stack_reference_of_the_state_reaches_analyze_stack_and_leaves_the_endpoint_rule_unknown(
        tmp_path, monkeypatch):
    # `pulumi policy analyze --file` sends AnalyzeStack every non-deleted resource of the snapshot, reads included
    # (pkg/resource/deploy/analyze_snapshot.go): the stack reference is there, with its state outputs
    sent = _sent_stack(monkeypatch)
    reference = states.stack_reference("prod", "acme/network/prod", {"endpointSubnetId": "snet-id"})
    state = states.write(tmp_path / "prod.json", [*states.resources(min_nodes=0, rg_lock=False), reference])
    code, report, _ = _json(["check", "--state", str(state), "-C", str(tmp_path)])
    [stack] = report["stacks"]
    [request] = sent["AnalyzeStack"]
    [sent_reference] = [r for r in request.resources if r.type == states.STACK_REFERENCE]
    assert json_format.MessageToDict(sent_reference) == {
        "type": states.STACK_REFERENCE, "urn": reference["urn"], "name": "acme/network/prod",
        "properties": {"name": "acme/network/prod", "outputs": {"endpointSubnetId": "snet-id"},
                       "secretOutputNames": []},
        "options": {"parent": reference["parent"]}, "parent": reference["parent"]}
    # the closed workspace's endpoint may be in the network stack: unknown, and no rule judges the reference itself
    assert code == 0
    assert _findings(stack) == WORKSPACE_ADVISORIES - {(AMLKIT, "aml-workspace-private-endpoint", "advisory", "mlw")}
    # (the protocol's unknown of a stack policy carries no URN: the root stack's, as in pulumi's report)
    assert [(u["policy"], u["resource"], u["message"]) for u in stack["unknown"]] == [
        ("aml-workspace-private-endpoint", "acme-ml-prod", UNKNOWN_ENDPOINT)]


@pytest.mark.parametrize(
    ("password", "warned"),
    [
        pytest.param(states.ENCRYPTED, True, id="encrypted-export"),
        pytest.param({SECRET_SIG_KEY: SECRET_SIG, "plaintext": json.dumps(PASSWORD)}, False, id="show-secrets-export"),
    ],
)
def test_a_secret_input_reaches_the_packs_as_the_string_secret(tmp_path, password, warned):
    cluster = states.cluster_inputs(0, userAccountCredentials={"adminUserName": "azureuser",
                                                               "adminUserPassword": password})
    state = states.write(tmp_path / "prod.json", states.resources(rg_lock=False, cluster=cluster))
    code, report, stderr = _json(["check", "--state", str(state), "-C", str(tmp_path),
                                  "--policy-pack", str(default_pack_dir()), "--policy-pack", str(PACKS / "echo")])
    [stack] = report["stacks"]
    [echo] = [v for v in stack["violations"] if v["policy"] == "echo-inputs"]
    assert echo["pack"] == "fixture-echo"
    # the careless pack echoes every string input: the secret is "[secret]" (redacted, or scrubbed from the echo)
    assert {"azureuser", "[secret]", "cpu"} <= set(echo["message"].removeprefix("inputs: ").split(", "))
    [password_finding] = [v for v in stack["violations"] if v["policy"] == "aml-cluster-ssh-disabled"]
    # the rule read a secret input: its finding says [secret], nothing derived (amlkit.policies.secret_reads)
    assert password_finding["message"].endswith("must not set an admin password in userAccountCredentials; "
                                                "found [secret].")
    assert PASSWORD not in json.dumps(report) and code == 1
    assert stderr == (WARNING.format("prod.json") if warned else "")


def test_an_undecryptable_secret_is_the_string_secret_whatever_its_type():
    secret = {SECRET_SIG_KEY: SECRET_SIG, "value": ENCRYPTED}
    decrypted = {SECRET_SIG_KEY: SECRET_SIG, "value": {"count": 3}}
    assert blind({"n": secret, "list": [secret], "known": decrypted}) == {
        "n": {SECRET_SIG_KEY: SECRET_SIG, "value": "[secret]"},
        "list": [{SECRET_SIG_KEY: SECRET_SIG, "value": "[secret]"}],
        "known": decrypted}


def test_analyze_gets_inputs_and_analyze_stack_gets_outputs_and_the_graph(tmp_path):
    """Remediations are reported, never applied; a stack finding on a URN outside the state is the root's."""
    state = states.write(tmp_path / "prod.json", states.resources())
    [stack] = audit([state], tmp_path, options=ReviewOptions(policy_pack=PROBE)).stacks
    root = states.urn("prod", "pulumi:pulumi:Stack", "acme-ml-prod")
    assert sorted((v.policy, v.level, v.urn.rsplit("::", 1)[-1], v.message) for v in stack.violations) == [
        ("probe-inputs", "advisory", "cpu", "keys=['computeName', 'identity', 'location', 'properties', "
         "'resourceGroupName', 'workspaceName'] parent=acme-ml-prod provider=default_3_29_0"),
        ("probe-inputs", "advisory", "ml-rg", "keys=['location', 'resourceGroupName', 'tags'] parent=acme-ml-prod "
         "provider=default_3_29_0"),
        ("probe-outputs", "advisory", "acme-ml-prod", "a finding about a resource of another stack"),
        ("probe-outputs", "advisory", "cpu", "keys=['id', 'identity', 'location', 'name', 'properties'] "
         "parent=acme-ml-prod dependencies=['ml-rg', 'mlw'] properties={'resourceGroupName': ['ml-rg'], "
         "'workspaceName': ['mlw']}"),
        ("tag-owner", "advisory", "ml-rg",
         "would remediate tags (reported, not applied: an audit never changes a deployed resource)"),
    ]
    assert [v.urn for v in stack.violations if v.resource == "acme-ml-prod"] == [root]
    assert {v.pack for v in stack.violations} == {"fixture-audit-probe"}
    assert (stack.pack.name, stack.pack.version) == ("fixture-audit-probe", "1.2.3")


def test_one_broken_state_file_never_hides_the_others(tmp_path):
    good = states.write(tmp_path / "prod.json", states.resources(min_nodes=2, rg_lock=False))
    clean = states.write(tmp_path / "dev.json", states.resources(stack="dev", min_nodes=0, rg_lock=False))
    broken = tmp_path / "staging.json"
    broken.write_text('{"version": 3, "deployment": {"resources": [', encoding="utf-8")
    code, report, stderr = _json(["check", "--state", str(good), "--state", str(broken), "--state", str(clean),
                                  "-C", str(tmp_path)])
    by_stack = {s["stack"]: s for s in report["stacks"]}
    assert sorted(by_stack) == ["dev", "prod", "staging.json"]
    assert (by_stack["staging.json"]["error_kind"], by_stack["staging.json"]["error"]) == (
        "config", f"stack staging.json: {broken}: not valid JSON (a truncated or partial export?): Expecting "
        "value (line 1, column 45); expected the output of `pulumi stack export`")
    assert by_stack["prod"]["error"] is None and by_stack["dev"]["error"] is None
    assert (AMLKIT, "aml-cluster-min-nodes-zero", "mandatory", "cpu") in _findings(by_stack["prod"])
    assert code == 2 and "stack staging.json was NOT reviewed" in stderr


def test_the_project_policy_config_and_its_waivers_apply_as_in_check(tmp_path):
    """amlkit's own pack gets policy-config/<environment>.json (the stack file's amlkit:environment), with its
    waivers; a pack the user named next to it gets its own defaults."""
    (tmp_path / "Pulumi.yaml").write_text("name: acme-ml\nruntime: python\n", encoding="utf-8")
    (tmp_path / "Pulumi.prod.yaml").write_text("config:\n  amlkit:environment: production\n", encoding="utf-8")
    (tmp_path / "policy-config").mkdir()
    (tmp_path / "policy-config" / "production.json").write_text(json.dumps({
        "all": "disabled",
        "aml-no-resource-group-lock": {"enforcementLevel": "mandatory", "waivers": [
            {"resource": "rg-lock", "reason": "CAB-12: the finance lock stays until the move",
             "expires": "2999-12-31"}]},
        "aml-cluster-min-nodes-zero": "mandatory"}), encoding="utf-8")
    state = states.write(tmp_path / "exports-prod.json", states.resources(min_nodes=2))
    code, report, _ = _json(["analyze", "--file", str(state), "-C", str(tmp_path),
                             "--policy-pack", str(default_pack_dir()), "--policy-pack", str(PACKS / "observe")])
    [stack] = report["stacks"]
    assert _findings(stack) == {(AMLKIT, "aml-cluster-min-nodes-zero", "mandatory", "cpu"),
                                (AMLKIT, "aml-no-resource-group-lock", "waived", "rg-lock")}
    [waived] = [v for v in stack["violations"] if v["level"] == "waived"]
    assert (waived["reason"], waived["expires"]) == ("CAB-12: the finance lock stays until the move", "2999-12-31")
    assert stack["environment"] == "production"
    assert stack["packs"] == [
        {"name": AMLKIT, "version": stack["packs"][0]["version"], "policy_config": "policy-config/production.json"},
        {"name": "fixture-observe", "version": "9.9.1", "policy_config": "pack defaults"}]
    assert code == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["check", "--state", "{state}", "--stack", "prod"],
                     "--state audits the given state files (each names its stack): it takes no stack files and no "
                     "--stack", id="state-and-stack"),
        pytest.param(["analyze", "--file", "{state}", "--policy-pack", str(PROBE), "--policy-pack-config", "{state}",
                      "--policy-pack-config", "{state}"],
                     "the number of --policy-pack-config flags (2) must match the number of --policy-pack flags (1): "
                     "the first config goes with the first pack, and so on; give one config per pack, or none (then "
                     "each pack runs with its defaults, and amlkit's own pack with the project's "
                     "policy-config/<stack>.json)", id="count-mismatch"),
    ],
)
def test_usage_errors_exit_2(tmp_path, args, message):
    state = states.write(tmp_path / "prod.json", states.resources())
    result = runner.invoke(cli.app, [arg.format(state=state) for arg in args])
    assert (result.exit_code, result.stderr, result.stdout) == (2, f"amlkit: error: {message}\n", "")


TIMEOUT_MESSAGE = re.compile(
    r"stack prod: the audit of prod\.json did not finish within 3s: "
    r"((?P<analysed>[\d,]+) (of [\d,]+ resources analysed|resources analysed of about [\d,]+ \([\d,]+ read, \d+% "
    r"of the file\)|resources analysed)|all 4,007 resources analysed, the stack policies \(AnalyzeStack\) had not "
    r"answered); raise --timeout( \(at this pace its resources need about --timeout \d+, its stack policies more on "
    r"top\))?")


@pytest.mark.slow
def test_a_timeout_names_the_stack_how_far_the_audit_got_and_the_flag_to_raise(tmp_path):
    """--timeout bounds the whole audit of a state, reading included (4,000 clusters take far longer than 3 s)."""
    rg = states.urn("prod", "azure-native:resources:ResourceGroup", "ml-rg")
    ws = states.urn("prod", states.WORKSPACE, "mlw")
    provider = states.urn("prod", "pulumi:providers:azure-native", "default_3_29_0")
    clusters = [states.cluster_resource("prod", f"c{n}", states.cluster_inputs(0), ws, rg, provider)
                for n in range(4000)]
    state = states.write(tmp_path / "prod.json", [*states.resources(min_nodes=0, rg_lock=False), *clusters])
    code, report, _ = _json(["check", "--state", str(state), "-C", str(tmp_path), "--timeout", "3"])
    [stack] = report["stacks"]
    assert code == 3 and (stack["error_kind"], stack["violations"], stack["unknown"]) == ("pack", [], [])
    found = TIMEOUT_MESSAGE.fullmatch(stack["error"])
    assert found, stack["error"]
    assert found["analysed"] is None or int(found["analysed"].replace(",", "")) < 4007


def test_a_state_too_large_for_one_analyze_stack_fails_saying_so(tmp_path, monkeypatch):
    monkeypatch.setattr(snapshot, "MAX_STACK_REQUEST", 2**20 // 10)  # 0.1 MiB instead of pulumi-policy's 400
    clusters = [states.cluster_resource("prod", f"c{n}", states.cluster_inputs(0), "ws", "rg", "p") for n in range(150)]
    state = states.write(tmp_path / "prod.json", [*states.resources(), *clusters])
    [stack] = audit([state], tmp_path).stacks
    assert (stack.error_kind, stack.violations) == ("pack", ())
    assert re.fullmatch(r"stack prod: the stack policies' AnalyzeStack request is 0\.\d MiB, over the 0\.1 MiB a "
                        r"Python policy pack accepts \(pulumi-policy's _MAX_RPC_MESSAGE_SIZE; `pulumi policy analyze` "
                        r"cannot send it either\)", stack.error), stack.error


def test_an_answer_over_grpcs_default_4_mib_is_read_as_the_engine_reads_it(tmp_path):
    """The engine takes up to 400 MiB from a plugin (pulumi/pulumi rpcutil.GrpcChannelOptions); gRPC's default is
    4 MiB, which failed the AnalyzeStack answer of a 100,000-resource state (17 MB of findings)."""
    cluster = states.cluster_inputs(0, description="x" * (5 * 2**20))
    state = states.write(tmp_path / "prod.json", states.resources(rg_lock=False, cluster=cluster))
    [stack] = audit([state], tmp_path, options=ReviewOptions(policy_pack=PACKS / "echo")).stacks
    [echo] = [v for v in stack.violations if v.policy == "echo-inputs"]
    assert stack.error is None and len(echo.message) > 5 * 2**20


# --- state files that are links (#32): like stack files, a link inside the project never reads another file ------

CREDENTIAL = "https://user:ghp_SECRETTOKEN@github.com"


def _linked_state(tmp_path, project: bool):
    root = tmp_path / "p"
    (root / "states").mkdir(parents=True)
    if project:
        (root / "Pulumi.yaml").write_text("name: acme-ml\nruntime: python\n", encoding="utf-8")
    target = tmp_path / "git-credentials"
    target.write_text(CREDENTIAL + "\n", encoding="utf-8")
    link = root / "states" / "prod.json"
    link.symlink_to(target)
    return root, link, target


@pytest.mark.parametrize("fmt", ["table", "json", "sarif", "markdown"])
@pytest.mark.parametrize("project", [True, False], ids=["project", "no-project"])
def test_a_state_file_linking_out_of_the_project_is_refused_naming_the_link_and_target(tmp_path, project, fmt):
    """Before 0.3.0 the target was read (a credential file: `not valid JSON`; a JSON document: audited)."""
    root, link, target = _linked_state(tmp_path, project)
    result = runner.invoke(cli.app, ["analyze", "--file", str(link), "-C", str(root), "-f", fmt])
    assert result.exit_code == 2
    assert (f"{link}: a symbolic link to {target}, outside the project; allowed: a file inside the project "
            f"({root})") in result.stdout
    assert "SECRETTOKEN" not in result.stdout + result.stderr


def test_a_linked_state_refused_in_json_has_no_value(tmp_path):
    root, link, target = _linked_state(tmp_path, True)
    code, report, _ = _json(["check", "--state", str(link), "-C", str(root)])
    (stack,) = report["stacks"]
    assert (code, stack["error_kind"], stack["error_detail"]["value"]) == (2, "config", None)
    assert stack["error"] == (f"stack states/prod.json: {link}: a symbolic link to {target}, outside the project; "
                              f"allowed: a file inside the project ({root})")


def test_a_state_path_written_outside_the_project_is_the_users_choice(tmp_path):
    """Given explicitly outside the project (a CI export in /tmp, say), a link is followed as written."""
    root = tmp_path / "p"
    root.mkdir()
    (tmp_path / "exports").mkdir()
    exported = states.write(tmp_path / "exports" / "prod.json", states.resources(min_nodes=2, rg_lock=False))
    link = tmp_path / "latest.json"
    link.symlink_to(exported)
    code, report, _ = _json(["check", "--state", str(link), "-C", str(root)])
    (stack,) = report["stacks"]
    assert (stack["stack"], stack["error"]) == ("prod", None)
    assert (AMLKIT, "aml-cluster-min-nodes-zero", "mandatory", "cpu") in _findings(stack)


@pytest.mark.slow
def test_an_audit_reports_the_same_with_the_stack_converted_once_as_per_policy(tmp_path):
    """amlkit's pack converts the AnalyzeStack request once for all its stack policies (amlkit.policies.shared_stack,
    installed with its request memo); a copy of the pack without them converts it per policy, as pulumi-policy
    ships. The same JSON report, on a generated ML platform state (with secrets the export left encrypted)."""
    state = _platform_state(tmp_path, 12)
    plain = tmp_path / "pack-as-shipped"
    plain.mkdir()
    shutil.copy(default_pack_dir() / "PulumiPolicy.yaml", plain)
    main = (default_pack_dir() / "__main__.py").read_text()
    assert "convert_each_request_once()\n" in main
    (plain / "__main__.py").write_text(main.replace("convert_each_request_once()\n", ""))
    reports = []
    for pack in (default_pack_dir(), plain):
        code, report, _ = _json(["check", "--state", str(state), "-C", str(tmp_path), "--policy-pack", str(pack)])
        for stack in report["stacks"]:
            for info in [stack["pack"], *stack["packs"]]:
                info.pop("directory", None)
        reports.append((code, report))
    assert reports[0] == reports[1]
    [stack] = reports[0][1]["stacks"]
    levels = [v["level"] for v in stack["violations"]]  # 4 advisories per workspace, 4 clusters at two nodes
    assert (reports[0][0], levels.count("advisory"), levels.count("mandatory")) == (1, 12 * 4, 4)


def _platform_state(tmp_path, environments: int):
    """A generated ML platform state (bench/auditstate.py): 20 resources per environment, and the stack and provider."""
    return platform_state(tmp_path / "prod.json", environments)


def _answered_by(monkeypatch) -> list[int]:
    """The process id of the pack process that answered each Analyze, in the order collected."""
    pids: list[int] = []
    settle = snapshot._settle

    def recording(side, deadline):
        pids.append(side.pending[0][0].process.pid)
        return settle(side, deadline)

    monkeypatch.setattr(snapshot, "_settle", recording)
    return pids


def test_amlkits_pack_shares_the_analyze_calls_of_a_large_state_with_a_helper_process(tmp_path, monkeypatch):
    """With --jobs 2, one file: once HELPERS_AFTER resources are read, a second process of amlkit's own pack answers
    every other Analyze; the report is the one a single process gives (its rules are pure, pool.PackPool)."""
    state = _platform_state(tmp_path, 4)  # 82 resources
    monkeypatch.setattr(snapshot, "HELPERS_AFTER", 30)
    pids = _answered_by(monkeypatch)
    reports = [_json(["check", "--state", str(state), "-C", str(tmp_path), "--jobs", jobs]) for jobs in ("2", "1")]
    assert reports[0] == reports[1] and reports[0][0] == 1
    shared, alone = pids[:82], pids[82:]
    assert len(set(shared)) == 2 and set(shared[:30]) == {shared[0]}  # the helper starts after 30 resources
    assert sorted(shared[30:].count(pid) for pid in set(shared)) == [26, 26]  # round robin
    assert len(alone) == 82 and len(set(alone)) == 1


def test_a_pack_the_user_named_gets_no_helper(tmp_path, monkeypatch):
    state = _platform_state(tmp_path, 2)
    monkeypatch.setattr(snapshot, "HELPERS_AFTER", 10)
    pids = _answered_by(monkeypatch)
    code, _, _ = _json(["check", "--state", str(state), "-C", str(tmp_path), "--jobs", "2", "--policy-pack",
                        str(PROBE)])
    assert code in (0, 1) and len(pids) == 42 and len(set(pids)) == 1
