"""End to end: real fixture programs under mocks, the real amlkit pack (and broken packs) over gRPC."""

from __future__ import annotations

import inspect
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import asdict
from importlib import metadata
from pathlib import Path

import pytest

from amlkit import __version__
from amlkit.errors import ConfigError, UsageError
from amlkit.review.engine import default_pack_dir, list_stacks, pack_info, review
from amlkit.review.options import ReviewOptions
from amlkit.review.pack import multi, session
from amlkit.review.pack.process import MAX_ENV_VALUE
from amlkit.review.project import SECRET_PLACEHOLDER
from tests.review.helpers import FAULTY, FIXTURES, MIN_NODES, PACKS, RAW, SECRET

CLUSTER = "urn:pulumi:{stack}::raw-aml::azure-native:machinelearningservices:Workspace" \
          "$azure-native:machinelearningservices:Compute::{name}"


@pytest.fixture(scope="module")
def raw_review():
    return review(RAW)


WAIVER = {MIN_NODES: {"waivers": [
    {"resource": "cpu-always-on", "reason": "warm pool for the demo", "expires": "2999-01-01"}]}}


@pytest.fixture(scope="module")
def waiver_config(tmp_path_factory) -> Path:
    """A level-less config entry that waives one finding."""
    config = tmp_path_factory.mktemp("waiver") / "pack.json"
    config.write_text(json.dumps(WAIVER))
    return config


@pytest.fixture(scope="module")
def raw_waived_review(waiver_config):
    return review(RAW, options=ReviewOptions(policy_pack_config=waiver_config))


def named(violations, policy):
    return {(v.resource, v.level, v.message) for v in violations if v.policy == policy}


def test_every_stack_is_reviewed_in_order(raw_review):
    assert list_stacks(RAW) == ["dev", "prod"]
    assert [s.stack for s in raw_review.stacks] == ["dev", "prod"]
    assert [s.error for s in raw_review.stacks] == [None, None]
    assert raw_review.stacks[0].stack_file == "Pulumi.dev.yaml"
    assert raw_review.stacks[0].environment == "dev"


def test_min_nodes_violations_exactly(raw_review):
    dev, prod = raw_review.stacks
    assert named(dev.violations, MIN_NODES) == {
        ("cpu-always-on", "mandatory", "AmlCompute cluster 'cpu-always-on' must have minNodeCount 0; found 2.")}
    assert named(prod.violations, MIN_NODES) == {
        ("gpu-warm", "mandatory", "AmlCompute cluster 'gpu-warm' must have minNodeCount 0; found 1.")}
    violation = next(v for v in dev.violations if v.policy == MIN_NODES)
    assert violation.urn == CLUSTER.format(stack="dev", name="cpu-always-on")
    assert violation.type == "azure-native:machinelearningservices:Compute"
    assert (violation.severity, violation.pack) == ("medium", "amlkit-guardrails")
    assert raw_review.exit_code() == 1


def test_a_value_unknown_at_preview_is_reported_as_unknown(raw_review):
    dev = raw_review.stacks[0]
    unknown = [u for u in dev.unknown if u.policy == MIN_NODES]
    assert [(u.resource, u.urn) for u in unknown] == [
        ("cpu-unknown-min", "urn:pulumi:dev::raw-aml::azure-native:machinelearningservices:Compute::cpu-unknown-min")]
    assert "during preview" in unknown[0].message
    version = raw_review.stacks[0].pack.version
    assert f"'amlkit-guardrails@v{version}'" in unknown[0].message  # one version, the header's, everywhere
    assert not [v for v in dev.violations if v.resource == "cpu-unknown-min" and v.policy == MIN_NODES]


def test_resources_and_pack_info(raw_review):
    prod = raw_review.stacks[1]
    assert sorted(r.name for r in prod.resources) == ["gpu-warm", "mlw", "rg", "rg-lock"]
    workspace = next(r for r in prod.resources if r.name == "mlw")
    assert workspace.options["protect"] is True
    assert workspace.inputs["workspaceName"] == "mlw-fixture"
    assert (prod.pack.name, prod.pack.version) == ("amlkit-guardrails", __version__)  # PulumiPolicy.yaml
    policy = next(p for p in prod.pack.policies if p.name == MIN_NODES)
    assert (policy.level, policy.severity, policy.stack_policy) == ("mandatory", "medium", False)


def test_jobs_give_the_same_result_as_serial(raw_review):
    assert asdict(review(RAW, options=ReviewOptions(jobs=2))) == asdict(raw_review)


def test_a_level_less_config_entry_keeps_mandatory_and_waivers_are_reported(raw_waived_review):
    dev, prod = raw_waived_review.stacks
    assert [dev.stack, prod.stack] == ["dev", "prod"]
    assert named(dev.violations, MIN_NODES) == {
        ("cpu-always-on", "waived", "AmlCompute cluster 'cpu-always-on' must have minNodeCount 0; found 2.")}
    waived = next(v for v in dev.violations if v.policy == MIN_NODES)
    assert (waived.waiver_reason, waived.waiver_expires) == ("warm pool for the demo", "2999-01-01")
    assert named(prod.violations, MIN_NODES) == {
        ("gpu-warm", "mandatory", "AmlCompute cluster 'gpu-warm' must have minNodeCount 0; found 1.")}


def test_all_downgrades_every_policy(tmp_path):
    config = tmp_path / "pack.json"
    config.write_text(json.dumps({"all": "advisory"}))
    info = pack_info(config=config)
    assert {p.level for p in info.policies} == {"advisory"}
    assert review(RAW, ["prod"], options=ReviewOptions(policy_pack_config=config)).count("mandatory") == 0


def test_pack_info_levels_without_config():
    info = pack_info()
    assert info.name == "amlkit-guardrails"
    assert next(p for p in info.policies if p.name == MIN_NODES).level == "mandatory"
    assert default_pack_dir() == Path(__file__).resolve().parents[2] / "policies"


def test_invalid_pack_config_is_a_config_error_naming_file_and_key(tmp_path):
    config = tmp_path / "pack.json"
    config.write_text(json.dumps({MIN_NODES: {"waivers": [{"resource": "x"}]}}))
    with pytest.raises(ConfigError) as error:
        pack_info(config=config)
    assert error.value.file == str(config)
    assert error.value.key_path == f"{MIN_NODES}.waivers[0].reason"
    assert error.value.problem == "required, a non-empty string"
    assert error.value.exit_code == 2


def test_invalid_stack_file_is_that_stacks_config_error_and_the_others_are_reviewed(tmp_path):
    project = tmp_path / "proj"
    shutil.copytree(RAW, project)
    (project / "Pulumi.prod.yaml").write_text("config:\n  raw-aml:clusters: [\n")
    result = review(project)
    dev, prod = result.stacks
    assert dev.error is None and dev.pack is not None
    assert prod.error == ("stack prod: Pulumi.prod.yaml:3:1: not valid YAML: the file ends inside an unfinished value "
                          "(a [, { or quote that is never closed)")
    assert (prod.error_kind, prod.error_detail["file"], prod.pack) == ("config", "Pulumi.prod.yaml", None)
    assert result.exit_code() == 2


def test_secrets_never_appear_in_results():
    result = review(SECRET, options=ReviewOptions(policy_pack=PACKS / "echo"))
    stack = result.stacks[0]
    assert stack.error is None
    text = json.dumps(asdict(result))
    assert SECRET_PLACEHOLDER not in text
    assert "literal-token-s3cr3t-value" not in text
    assert "AAABAGsJ0cmV0" not in text
    [echo] = [v for v in stack.violations if v.policy == "echo-inputs"]
    assert echo.message == ("inputs: 2025-12-01, AmlCompute, Linux, NotSpecified, Standard_DS3_v2, [secret], "
                            "azureuser, cpu-with-password, [secret], mlw, rg-ml, westeurope")
    cluster = stack.resources[0]
    assert cluster.inputs["tags"] == {"token": "[secret]"}
    assert cluster.inputs["properties"]["properties"]["userAccountCredentials"] == {
        "adminUserName": "azureuser", "adminUserPassword": "[secret]"}


# Where the fault IS a timeout, the review waits the whole timeout, so it is short. It still covers what
# must succeed before the fault: a hanging program needs the pack to start and answer the handshake, a
# hanging Analyze needs the pack started and the program run, each within it (1.5 s: a margin for a busy
# machine). A silent pack fails at the first step (1 s: nothing has to succeed first). Elsewhere a margin
# (60 s) that no fault reaches. The default (120 s) is pinned in tests/test_cli.py.
SHORT, SHORTEST, MARGIN = 1.5, 1, 60

PROGRAM_FAULTS = [
    ("raise", MARGIN, "stack raise: the program failed: RuntimeError: storage account name 'stfaulty' is already "
                      "taken (at __main__.py:17)"),  # the user's own line, without --verbose
    ("crash", MARGIN, "stack crash: the program runner crashed (exit code 9): no output"),
    ("hang", SHORT, "stack hang: the program did not finish within 1.5s"),
    ("duplicate", MARGIN, "stack duplicate: the program failed: Exception: Duplicate resource URN "
                          "'urn:pulumi:duplicate::faulty::azure-native:resources:ResourceGroup::rg'; "
                          "try giving it a unique name"),
]


@pytest.mark.parametrize(("stack", "timeout", "message"), PROGRAM_FAULTS, ids=[c[0] for c in PROGRAM_FAULTS])
def test_program_faults_fail_closed(stack, timeout, message):
    result = review(FAULTY, [stack], options=ReviewOptions(timeout=timeout))
    assert result.stacks[0].error == message
    assert "Traceback" not in message
    assert result.exit_code() == 3


def test_verbose_program_failure_carries_the_traceback():
    error = review(FAULTY, ["raise"], options=ReviewOptions(verbose=True)).stacks[0].error
    assert error.splitlines()[0].endswith("RuntimeError: storage account name 'stfaulty' is already taken "
                                          "(at __main__.py:17)")
    assert "Traceback (most recent call last)" in error


def test_a_config_error_in_the_program_is_that_stacks_error_exit_2():
    result = review(FAULTY, ["config-error", "ok"])
    bad, ok = result.stacks
    assert bad.error == "stack config-error: Pulumi.config-error.yaml: amlkit:clusters[0].max_instances: must be >= 1"
    assert bad.error_kind == "config"
    assert ok.error is None and ok.pack is not None
    assert result.exit_code() == 2


PACK_FAULTS = [
    ("raises", MARGIN, "Analyze of urn:pulumi:ok::faulty::azure-native:resources:ResourceGroup::rg failed: rule "
                       "bug: cannot read properties.scaleSettings: policy 'broken-policy' raised an error"),
    ("exits", MARGIN, "exited before it started (exit code 4): ModuleNotFoundError: No module named "
                      "'amlkit_missing_rules'"),
    ("silent", SHORTEST, "did not print its port within 1s (is __main__.py building a PolicyPack?)"),
    ("hangs", SHORT, "Analyze of urn:pulumi:ok::faulty::azure-native:resources:ResourceGroup::rg did not answer "
                     "within 1.5s; its stderr ends: stuck-policy: waiting on rg"),
]


@pytest.mark.parametrize(("pack", "timeout", "message"), PACK_FAULTS, ids=[c[0] for c in PACK_FAULTS])
def test_pack_faults_fail_closed(pack, timeout, message):
    result = review(FAULTY, ["ok"], options=ReviewOptions(policy_pack=PACKS / pack, timeout=timeout))
    assert result.stacks[0].error == f"policy pack {PACKS / pack}: {message}"
    assert result.exit_code() == 3


def test_verbose_pack_failure_carries_the_end_of_its_stderr():
    result = review(FAULTY, ["ok"], options=ReviewOptions(policy_pack=PACKS / "exits", timeout=MARGIN, verbose=True))
    assert result.stacks[0].error == (
        f"policy pack {PACKS / 'exits'}: exited before it started (exit code 4): ModuleNotFoundError: No module "
        "named 'amlkit_missing_rules'\npack stderr (last 1 lines):\n"
        "ModuleNotFoundError: No module named 'amlkit_missing_rules'")


def test_a_pack_that_logs_megabytes_is_reviewed_as_any_other():
    """2.5 MiB to stderr and 2.5 MiB to stdout from one Analyze: far more than a pipe holds, all read."""
    result = review(FAULTY, ["ok"], options=ReviewOptions(policy_pack=PACKS / "noisy", timeout=MARGIN))
    stack = result.stacks[0]
    assert stack.error is None
    assert named(stack.violations, "noisy-policy") == {("rg", "mandatory", "resource group rg-faulty")}
    assert result.exit_code() == 1


def _three_stacks(tmp_path: Path) -> Path:
    project = tmp_path / "raw"
    shutil.copytree(RAW, project)
    shutil.copy(RAW / "Pulumi.dev.yaml", project / "Pulumi.staging.yaml")
    return project


INJECTED = [  # where one stack's review raises what no one expected: (module, function, exception, message)
    (session.Session, "submit", BrokenPipeError(32, "Broken pipe"),
     "internal error: BrokenPipeError: [Errno 32] Broken pipe"),
    (multi, "add_results", KeyError("urn"), "internal error: KeyError: 'urn'"),
]


@pytest.mark.parametrize(("owner", "name", "exception", "message"), INJECTED, ids=[c[1] for c in INJECTED])
def test_an_unexpected_exception_in_one_stack_is_that_stacks_internal_error(tmp_path, monkeypatch, owner, name,
                                                                             exception, message):
    original = getattr(owner, name)

    def injected(first, *args):  # Session.submit(self, ...) and add_results(result, ...) both know the stack
        if first.stack == "prod":
            raise exception
        return original(first, *args)

    monkeypatch.setattr(owner, name, injected)
    result = review(_three_stacks(tmp_path), options=ReviewOptions(jobs=3, timeout=MARGIN))
    dev, prod, staging = result.stacks
    assert [s.stack for s in result.stacks] == ["dev", "prod", "staging"]
    assert (prod.error, prod.error_kind) == (f"stack prod: {message}", "internal")
    for good in (dev, staging):
        assert good.error is None and good.pack is not None
        assert named(good.violations, MIN_NODES) == named(dev.violations, MIN_NODES) != set()
    assert result.exit_code() == 3
    from amlkit.cli import ReportFormat, render_report

    for fmt in ReportFormat:
        report = render_report(result, fmt, tmp_path, "pack", with_plan=True)
        text = report if isinstance(report, str) else report.plain
        assert message in text, fmt
        assert "staging" in text, fmt


def test_a_typod_component_argument_points_at_the_program_line_once_for_every_stack(tmp_path):
    project = tmp_path / "platform"
    shutil.copytree(FIXTURES / "platform_components", project)
    main = project / "__main__.py"
    main.write_text(main.read_text().replace('"max_instances": spec["max"]', '"max_instancs": spec["max"]'))
    line = next(n for n, text in enumerate(main.read_text().splitlines(), 1) if "ComputeCluster(" in text)
    result = review(project, ["dev", "min2"])
    problem = (f'__main__.py:{line}: ComputeCluster "cpu-cluster": max_instancs: unknown argument; did you mean '
               "max_instances? (help(ComputeClusterArgs) lists every argument)")
    assert [(s.error, s.error_kind) for s in result.stacks] == [
        (f"stack dev: {problem}", "config"), (f"stack min2: {problem}", "config")]
    assert {(s.error_detail["file"], s.error_detail["line"]) for s in result.stacks} == {("__main__.py", line)}
    assert result.exit_code() == 2


def _processes_under(directory: Path) -> list[int]:
    """Live processes whose working directory is inside `directory` (packs and runners chdir there)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if cwd.startswith(str(directory)) and state != "Z":
            found.append(int(entry.name))
    return found


@pytest.mark.slow
def test_ctrl_c_leaves_no_pack_or_runner_process(tmp_path):
    """SIGINT while one stack's pack hangs in Analyze and the other's program hangs: every child is gone."""
    pack = tmp_path / "pack"
    shutil.copytree(PACKS / "hangs", pack)
    project = tmp_path / "project"
    shutil.copytree(FAULTY, project)
    # Ctrl-C as a terminal sends it: the child takes SIGINT even when this test runs with it ignored (a job
    # started in the background by a non-interactive shell inherits SIG_IGN, and Python then never raises
    # KeyboardInterrupt)
    script = ("import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
              "from pathlib import Path; from amlkit.review.engine import ReviewOptions, review; "
              f"review(Path({str(project)!r}), ['ok', 'hang'], ReviewOptions(policy_pack=Path({str(pack)!r}), "
              "jobs=2, timeout=600))")
    stuck = tmp_path / "stuck"  # the hanging pack creates a file here when a policy is stuck in Analyze
    stuck.mkdir()
    parent = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE,
                              env={**os.environ, "HANGS_SIGNAL_DIR": str(stuck)})
    try:
        # two packs and the hanging runner (the ok stack's runner has finished), and the ok stack's pack stuck
        # in Analyze of its resource group (generous: the merge gate runs on a loaded machine)
        deadline = time.monotonic() + 180
        while ((len(_processes_under(tmp_path)) < 3 or not (stuck / "ok-rg").exists())
               and time.monotonic() < deadline):
            time.sleep(0.1)
        assert (stuck / "ok-rg").exists()
        assert len(_processes_under(tmp_path)) >= 3
        parent.send_signal(signal.SIGINT)
        _, err = parent.communicate(timeout=60)
    finally:
        parent.kill()
    assert b"KeyboardInterrupt" in err
    deadline = time.monotonic() + 10
    while _processes_under(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _processes_under(tmp_path) == []


@pytest.mark.slow
def test_a_killed_parent_leaves_no_children(tmp_path):
    """SIGKILL (no cleanup can run): the children still die with their parent."""
    pack = tmp_path / "pack"
    shutil.copytree(PACKS / "hangs", pack)
    project = tmp_path / "project"
    shutil.copytree(FAULTY, project)
    script = ("from pathlib import Path; from amlkit.review.engine import ReviewOptions, review; "
              f"review(Path({str(project)!r}), ['hang'], ReviewOptions(policy_pack=Path({str(pack)!r}), "
              "timeout=600))")
    parent = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.monotonic() + 60
        while len(_processes_under(tmp_path)) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(_processes_under(tmp_path)) == 2  # the hanging runner and the pack
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 10
    while _processes_under(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _processes_under(tmp_path) == []


@pytest.mark.slow
def test_a_stack_config_too_large_for_the_environment_is_still_reviewed(tmp_path):
    project = tmp_path / "proj"
    shutil.copytree(RAW, project, ignore=shutil.ignore_patterns("Pulumi.*.yaml"))
    # long names, not many clusters: the size is what matters, and each cluster is a resource to review
    clusters = [{"name": f"c-{index:04d}-{'x' * 1200}", "minNodes": 0} for index in range(120)]
    clusters[7]["minNodes"] = 3
    assert len(json.dumps(clusters)) > MAX_ENV_VALUE  # the value cannot travel in PULUMI_CONFIG
    (project / "Pulumi.big.yaml").write_text(json.dumps({"config": {"raw-aml:clusters": clusters}}))
    stack = review(project, options=ReviewOptions(timeout=600)).stacks[0]
    assert stack.error is None
    assert named(stack.violations, MIN_NODES) == {
        (clusters[7]["name"], "mandatory",
         f"AmlCompute cluster '{clusters[7]['name']}' must have minNodeCount 0; found 3.")}


def _sdk_aliases(resource_class: type) -> int:
    """How many type aliases the installed azure-native SDK gives a resource (its `pulumi.Alias(type_=...)`
    calls): the count changes with the SDK's API versions, so it is read, not pinned."""
    return inspect.getsource(resource_class._internal_init).count("pulumi.Alias(type_=")


def test_the_pack_sees_options_provider_and_the_stack_graph():
    from pulumi_azure_native import machinelearningservices

    stack = review(RAW, ["prod"], options=ReviewOptions(policy_pack=PACKS / "graph")).stacks[0]
    assert stack.error is None
    workspace = "urn:pulumi:prod::raw-aml::azure-native:machinelearningservices:Workspace::mlw"
    provider = "default_" + metadata.version("pulumi-azure-native").replace(".", "_")  # the engine's default name
    compute_aliases, workspace_aliases = (_sdk_aliases(machinelearningservices.Compute),
                                          _sdk_aliases(machinelearningservices.Workspace))
    assert compute_aliases > 0 and workspace_aliases > 0
    assert {(v.policy, v.resource, v.message) for v in stack.violations} == {
        ("echo-options", "gpu-warm", f"protect=True ignoreChanges=[] parent={workspace} aliases={compute_aliases} "
                                     f"provider={provider}"),
        ("echo-options", "mlw", "protect=True ignoreChanges=['tags'] "
                                "parent=urn:pulumi:prod::raw-aml::pulumi:pulumi:Stack::raw-aml-prod "
                                f"aliases={workspace_aliases} provider={provider}"),
        ("echo-graph", "rg", "parent=none dependencies=[] properties={}"),
        ("echo-graph", "mlw", "parent=none dependencies=['rg'] properties={'resourceGroupName': ['rg']}"),
        ("echo-graph", "rg-lock", "parent=none dependencies=['mlw', 'rg'] properties={'resourceGroupName': ['rg']}"),
        ("echo-graph", "gpu-warm", "parent=mlw dependencies=['mlw', 'rg'] "
                                   "properties={'resourceGroupName': ['rg'], 'workspaceName': ['mlw']}"),
    }
    assert stack.pack.version == "1.0.0"


# --- --policy-pack-config as a directory of per-stack files --------------------------------------------


def test_config_directory_gives_each_stack_its_own_file(tmp_path):
    (tmp_path / "dev.json").write_text(json.dumps({MIN_NODES: "disabled"}))
    (tmp_path / "prod.json").write_text(json.dumps({MIN_NODES: {"enforcementLevel": "advisory"}}))
    dev, prod = review(RAW, options=ReviewOptions(policy_pack_config=tmp_path)).stacks
    assert named(dev.violations, MIN_NODES) == set()
    assert named(prod.violations, MIN_NODES) == {
        ("gpu-warm", "advisory", "AmlCompute cluster 'gpu-warm' must have minNodeCount 0; found 1.")}


def test_config_directory_without_a_file_for_a_stack_is_a_usage_error(tmp_path):
    (tmp_path / "dev.json").write_text("{}")
    with pytest.raises(UsageError) as error:
        review(RAW, options=ReviewOptions(policy_pack_config=tmp_path))
    assert str(error.value) == f"{tmp_path}: no policy pack config for stack prod (looked for prod.json)"


# --- which policy config a stack gets: only one the user chose ---------------------------------------

PLATFORM = Path(__file__).resolve().parents[1] / "fixtures" / "platform_components"


def test_a_project_stack_named_dev_gets_the_pack_defaults_not_amlkits_sample_config():
    [dev] = review(PLATFORM, ["dev"]).stacks
    assert dev.policy_config == "pack defaults"
    # amlkit's sample dev config makes LowPriority mandatory: it must not reach another project
    assert [v.policy for v in dev.violations if v.level == "mandatory"] == []
    assert dev.error is None


def test_the_projects_policy_config_directory_is_the_convention(tmp_path):
    project = tmp_path / "platform"
    shutil.copytree(PLATFORM, project)
    (project / "policy-config").mkdir()
    (project / "policy-config" / "dev.json").write_text(json.dumps(
        {"aml-cluster-vm-priority": {"enforcementLevel": "mandatory", "allowedPriorities": ["LowPriority"]}}))
    dev, min2 = review(project, ["dev", "min2"]).stacks
    assert (dev.policy_config, min2.policy_config) == ("policy-config/dev.json", "pack defaults")
    assert named(dev.violations, "aml-cluster-vm-priority") == {
        ("cpu-cluster-compute", "mandatory",
         "AmlCompute cluster 'cpu-cluster-compute' must have vmPriority LowPriority; found Dedicated.")}
    assert named(min2.violations, "aml-cluster-vm-priority") == set()


def test_amlkits_own_sample_project_keeps_its_configs_through_the_same_convention():
    [dev] = review(ROOT, ["dev"]).stacks
    assert dev.policy_config == "policy-config/dev.json"


def test_an_explicit_config_wins_over_the_projects_directory(tmp_path):
    config = tmp_path / "all-advisory.json"
    config.write_text(json.dumps({"all": "advisory"}))
    [dev] = review(ROOT, ["dev"], options=ReviewOptions(policy_pack_config=config)).stacks
    assert dev.policy_config == str(config)
    assert dev.count("mandatory") == 0


def test_a_typo_in_one_stacks_policy_config_is_that_stacks_config_error(tmp_path):
    (tmp_path / "dev.json").write_text(json.dumps({"aml-cluster-max-node": {"maxNodes": 2}}))
    (tmp_path / "min2.json").write_text(json.dumps({"aml-cluster-max-nodes": {"maxNode": 2}}))
    (tmp_path / "wrongtype.json").write_text("{}")
    result = review(PLATFORM, ["dev", "min2"], options=ReviewOptions(policy_pack_config=tmp_path))
    dev, min2 = result.stacks
    assert dev.error == (f"stack dev: {tmp_path}/dev.json: aml-cluster-max-node: unknown policy (did you mean "
                         "'aml-cluster-max-nodes'?); allowed: `all` or a policy of the pack (listed by `amlkit rules`)")
    assert min2.error == (f"stack min2: {tmp_path}/min2.json: aml-cluster-max-nodes.maxNode: unknown setting (did you "
                          "mean 'maxNodes'?); allowed: enforcementLevel, maxNodes, waiverExpiryWarningDays, waivers")
    assert (dev.error_kind, min2.error_detail["key_path"]) == ("config", "aml-cluster-max-nodes.maxNode")
    assert result.exit_code() == 2


def test_a_waiver_with_a_difficult_reason_is_reported_exactly(tmp_path):
    reason = 'T4 quota | see "NET-42" | expires never |\nsecond line: Kühlung ⚡ 配额'
    config = tmp_path / "dev.json"
    config.write_text(json.dumps({"aml-cluster-vm-priority": {
        "enforcementLevel": "mandatory", "allowedPriorities": ["LowPriority"],
        "waivers": [{"resource": "cpu-cluster-*", "reason": reason, "expires": "2999-12-31"}]}}))
    [dev] = review(PLATFORM, ["dev"], options=ReviewOptions(policy_pack_config=config)).stacks
    [waived] = [v for v in dev.violations if v.level == "waived"]
    assert (waived.policy, waived.resource, waived.waiver_reason, waived.waiver_expires, waived.message) == (
        "aml-cluster-vm-priority", "cpu-cluster-compute", reason, "2999-12-31",
        "AmlCompute cluster 'cpu-cluster-compute' must have vmPriority LowPriority; found Dedicated.")
    assert dev.count("mandatory") == 0 and dev.error is None


def test_a_waiver_contract_this_review_cannot_read_fails_the_stack_closed():
    [ok] = review(FAULTY, ["ok"], options=ReviewOptions(policy_pack=PACKS / "future_waivers")).stacks
    assert ok.error == ("stack ok: policy future-waiver-policy: waived findings in format 'amlkit-waivers/v3'; this "
                        "amlkit reads amlkit-waivers/v2 (use the same amlkit version for the pack and the review)")
    assert (ok.error_kind, ok.pack, ok.violations) == ("pack", None, ())


def test_rules_refuses_a_config_directory(tmp_path):
    with pytest.raises(UsageError, match="a directory; `rules` takes one policy pack config file"):
        pack_info(config=tmp_path)


# --- speed-ups change nothing --------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
MEMO_CALL = "convert_each_request_once()\n"


@pytest.fixture(scope="module")
def pack_without_memo(tmp_path_factory):
    """amlkit's pack, except that pulumi-policy converts each request once per policy, as shipped."""
    pack = tmp_path_factory.mktemp("pack-without-memo")
    shutil.copy(default_pack_dir() / "PulumiPolicy.yaml", pack)
    main = (default_pack_dir() / "__main__.py").read_text()
    assert MEMO_CALL in main
    (pack / "__main__.py").write_text(main.replace(MEMO_CALL, ""))
    return pack


def test_the_pack_installs_its_request_memo_on_this_pulumi_policy():
    code = "from amlkit.policies.pack import convert_each_request_once as c; print(c(), c())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.split() == ["True", "False"]  # installed once, never twice


def test_the_request_memo_leaves_an_unexpected_pulumi_policy_untouched():
    code = (
        "from google.protobuf import json_format\n"
        "from pulumi_policy import policy\n"
        "from amlkit.policies import pack\n"
        "before = (policy.json_format, policy.deserialize_properties, policy._PolicyAnalyzerServicer.Analyze)\n"
        "pack._EXPECTED_SOURCE['Analyze'] = 'a line this pulumi-policy does not have'\n"
        "print(pack.convert_each_request_once(), before == (policy.json_format, policy.deserialize_properties,\n"
        "      policy._PolicyAnalyzerServicer.Analyze), policy.json_format is json_format)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.split() == ["False", "True", "True"]


@pytest.mark.slow
@pytest.mark.parametrize("project", [RAW, ROOT], ids=["raw-fixture", "sample-stacks"])
def test_converting_each_request_once_gives_the_same_review(project, pack_without_memo, request):
    fast = request.getfixturevalue("raw_review") if project == RAW else review(project)
    assert [s.error for s in fast.stacks] == [None] * len(fast.stacks)
    assert fast.count("mandatory") + fast.count("advisory") + sum(len(s.unknown) for s in fast.stacks) > 0
    # a copy of amlkit's pack is a pack the user named: the project's policy-config/ is given explicitly
    config = ROOT / "policy-config" if project == ROOT else None
    assert _ran_anywhere(fast) == _ran_anywhere(review(project, options=ReviewOptions(
        policy_pack=pack_without_memo, policy_pack_config=config)))


def test_converting_each_request_once_keeps_waivers_and_unknowns(raw_waived_review, waiver_config, pack_without_memo):
    fast = raw_waived_review
    assert fast.count("waived") == 1 and fast.stacks[0].unknown
    assert _ran_anywhere(fast) == _ran_anywhere(review(RAW, options=ReviewOptions(
        policy_pack_config=waiver_config, policy_pack=pack_without_memo)))


def _ran_anywhere(result) -> dict:
    """The review as a dict, without the directory each pack ran from."""
    data = asdict(result)
    for stack in data["stacks"]:
        for pack in [stack["pack"], *stack["packs"]]:
            if pack:
                pack["directory"] = ""
    return data
