"""examples/platform-repo, the adoption example: it reviews exactly as its README says, through the CLI.

The reviews of the example as shipped run the installed console script (`amlkit check`, the sibling of
this interpreter), in parallel; those of a copy in tmp_path with ONE change run the same command in this
process (typer's CliRunner: the console script adds nothing to what the change tests) meanwhile. Nothing
is installed: the example's requirements.txt names amlkit by release, and this repository's .venv
already has it.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.requirements import Requirement
from typer.testing import CliRunner

from amlkit import cli
from amlkit.errors import ConfigError
from tests.conftest import REVIEW_DATE
from tests.review.statefiles import deployed_state

pytestmark = pytest.mark.slow  # whole module: over 2 s on an idle machine

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "platform-repo"
AMLKIT = Path(sys.executable).with_name("amlkit")
STACKS = ("nonprod", "prod")
LEVELS = ("advisory", "mandatory", "remediate", "disabled")

WAIVED_POLICY = "aml-cluster-vm-priority"
WAIVED_RESOURCE = "gpu-cluster-compute"
WAIVED_MESSAGE = "AmlCompute cluster 'gpu-cluster-compute' must have vmPriority LowPriority; found Dedicated."
LOCK_POLICY = "aml-no-resource-group-lock"
CMK_FINDING = ("aml-workspace-cmk", "mlw-workspace", "advisory")
# prod's online deployment: 2 T4 instances reserve ceil(1.2 x 2) = 3 instances' cores (azure-ai-docs
# includes/quota-allocation-online-deployment.md), 12 with the GPU cluster's 8 over the T4 quota of 16
QUOTA_FINDING = ("aml-quota-budget", "scoring-blue", "advisory")
QUOTA_MESSAGE = (
    "Dedicated standardNCASv3_T4Family (NCasT4_v3) cores in westeurope must fit the core quota of 16; found 20: "
    "scoring-blue ceil(1.2 x 2 instances) = 3 x 4 vCPUs = 12, gpu-cluster-compute 2 nodes x 4 vCPUs = 8.")


def lock_message(compute: str) -> str:
    return (
        f"Management lock 'network-rg-lock' must not cover resource group 'network-rg', which holds the subnet of "
        f"compute '{compute}' (a lock there blocks cluster scaling); lock individual resources instead; found a "
        "lock at resource group scope."
    )


@dataclass(frozen=True)
class Result:
    code: int
    report: dict[str, Any] | None
    stderr: str

    @property
    def stack(self) -> dict[str, Any]:
        assert self.report is not None, self.stderr
        (stack,) = self.report["stacks"]
        return stack

    def findings(self) -> list[tuple[str, str, str]]:
        """(policy, resource, level) of every finding, sorted; duplicates kept."""
        return sorted((v["policy"], v["resource"], v["level"]) for v in self.stack["violations"])


def _args(project: Path, stack: str | None, config: Path, states: tuple[Path, ...] = ()) -> list[str]:
    return ["preview" if states else "check", "--project-dir", str(project), *(["--stack", stack] if stack else []),
            "--policy-pack-config", str(config), "--format", "json",
            *[arg for state in states for arg in ("--state", str(state))],
            "--timeout", "600"]  # generous: the module runs several reviews at once on a possibly busy machine


def _result(code: int, stdout: str, stderr: str) -> Result:
    return Result(code, json.loads(stdout) if stdout.strip() else None, stderr)


def check(project: Path, stack: str | None, config: Path, states: tuple[Path, ...] = ()) -> Result:
    """`amlkit check` as JSON, by the console script; stack None reviews every stack in one run (config
    then a directory)."""
    done = subprocess.run([str(AMLKIT), *_args(project, stack, config, states)], capture_output=True, text=True,
                          timeout=900, check=False)
    return _result(done.returncode, done.stdout, done.stderr)


def check_in_process(project: Path, stack: str | None, config: Path, states: tuple[Path, ...] = ()) -> Result:
    """The same command in this process."""
    done = CliRunner().invoke(cli.app, _args(project, stack, config, states))
    return _result(done.exit_code, done.stdout, done.stderr)


def copy_example(root: Path) -> Path:
    target = root / "platform-repo"
    shutil.copytree(EXAMPLE, target, ignore=shutil.ignore_patterns(".venv", "__pycache__"))
    return target


def edit_yaml(path: Path, key: str, change: Any) -> None:
    """Apply `change(value)` to one top-level config key of a stack file."""
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(document["config"][key])
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")


def nonprod_waiver(config: dict[str, Any]) -> dict[str, Any]:
    (waiver,) = config[WAIVED_POLICY]["waivers"]
    return waiver


def load_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def reviews(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    """Every review this module asserts on, run in parallel once (each is a program plus a pack process)."""
    root = tmp_path_factory.mktemp("platform-repo")
    (root / "states").mkdir()
    (root / "unlocked-state").mkdir()

    unlocked = copy_example(root / "unlocked")
    edit_yaml(unlocked / "stacks" / "Pulumi.prod.yaml", "acme-ml-platform:network",
              lambda network: network.update(lockResourceGroup=False))

    expired = root / "expired.json"
    config = load_json(EXAMPLE / "policy-config" / "nonprod.json")
    nonprod_waiver(config)["expires"] = "2020-01-01"
    expired.write_text(json.dumps(config), encoding="utf-8")

    typo = copy_example(root / "typo")
    stack_file = typo / "stacks" / "Pulumi.nonprod.yaml"
    stack_file.write_text(stack_file.read_text(encoding="utf-8").replace("acme-ml-platform:tenantId:",
                                                                       "acme-ml-platform:tenantID:"), encoding="utf-8")

    broken = copy_example(root / "broken")
    edit_yaml(broken / "stacks" / "Pulumi.nonprod.yaml", "acme-ml-platform:clusters",
              lambda clusters: clusters[1].update(maxNodes=0))

    # Reviewed against each stack's own state export, as `pulumi preview` of the deployed platform: the lock
    # and the computes link to the deployed groups and workspaces (in a first preview, being created, their
    # names are unknown and the stack rules that read them are unknown: tests/review/test_preview_knowledge.py)
    states = root / "states"
    nonprod, prod = (deployed_state(EXAMPLE, stack, states) for stack in ("nonprod", "prod"))
    unlocked_prod = deployed_state(unlocked, "prod", root / "unlocked-state")
    shipped = {
        "nonprod": (EXAMPLE, "nonprod", EXAMPLE / "policy-config" / "nonprod.json", (nonprod,)),
        "prod": (EXAMPLE, "prod", EXAMPLE / "policy-config" / "prod.json", (prod,)),
        "one-run": (EXAMPLE, None, EXAMPLE / "policy-config", (nonprod, prod)),  # as the workflow and the hook
    }
    changed = {
        "prod-unlocked": (unlocked, "prod", unlocked / "policy-config" / "prod.json", (unlocked_prod,)),
        "nonprod-expired-waiver": (EXAMPLE, "nonprod", expired, (nonprod,)),
        "nonprod-bad-config": (broken, "nonprod", broken / "policy-config" / "nonprod.json"),
        "nonprod-typo": (typo, "nonprod", typo / "policy-config" / "nonprod.json"),
    }
    with ThreadPoolExecutor(max_workers=len(shipped)) as pool:
        futures = {name: pool.submit(check, *args) for name, args in shipped.items()}
        results = {name: check_in_process(*args) for name, args in changed.items()}
        return {**{name: future.result() for name, future in futures.items()}, **results}


# --- the example as shipped ------------------------------------------------------------------------


def test_nonprod_is_clean_with_one_waived_finding(reviews: dict[str, Result]) -> None:
    waiver = nonprod_waiver(load_json(EXAMPLE / "policy-config" / "nonprod.json"))
    result = reviews["nonprod"]
    assert result.stack["error"] is None
    assert result.stack["unknown"] == []
    # judged as of the suite's fixed review date (tests/conftest.py); the expired case is its own test
    assert date.fromisoformat(REVIEW_DATE) <= date.fromisoformat(waiver["expires"])
    assert result.code == 0, result.stderr
    assert result.findings() == [(WAIVED_POLICY, WAIVED_RESOURCE, "waived")]
    (finding,) = result.stack["violations"]
    assert finding["message"] == WAIVED_MESSAGE
    assert (finding["reason"], finding["expires"]) == (waiver["reason"], waiver["expires"])


def test_prod_fails_on_the_lock_of_the_network_resource_group(reviews: dict[str, Result]) -> None:
    result = reviews["prod"]
    assert result.code == 1, result.stderr
    assert result.stack["error"] is None
    assert result.stack["unknown"] == []
    assert result.findings() == sorted([
        (LOCK_POLICY, "network-rg-lock", "mandatory"),
        (LOCK_POLICY, "network-rg-lock", "mandatory"),
        CMK_FINDING,
        QUOTA_FINDING,
    ])
    messages = sorted(v["message"] for v in result.stack["violations"] if v["policy"] == LOCK_POLICY)
    assert messages == [lock_message("cpu-cluster-compute"), lock_message("gpu-cluster-compute")]
    [quota] = [v for v in result.stack["violations"] if v["policy"] == QUOTA_FINDING[0]]
    assert (quota["type"], quota["message"]) == ("azure-native:machinelearningservices:OnlineDeployment", QUOTA_MESSAGE)


def test_prod_deploys_a_managed_online_deployment_that_passes_the_vm_size_rules(reviews: dict[str, Result]) -> None:
    # the deployment's Standard_NC4as_T4_v3 is approved, current, not isolated-only: only the quota rule speaks
    result = reviews["prod"]
    by_name = {r["name"]: r["type"] for r in result.stack["resources"]}
    assert (by_name["scoring-endpoint"], by_name["scoring-blue"]) == (
        "azure-native:machinelearningservices:OnlineEndpoint", "azure-native:machinelearningservices:OnlineDeployment")
    assert [v["policy"] for v in result.stack["violations"] if v["resource"] in ("scoring-endpoint", "scoring-blue")] \
        == [QUOTA_FINDING[0]]
    assert "scoring-blue" not in {r["name"] for r in reviews["nonprod"].stack["resources"]}


def test_prod_has_only_the_advisory_findings_once_the_lock_is_gone(reviews: dict[str, Result]) -> None:
    result = reviews["prod-unlocked"]
    assert result.code == 0, result.stderr
    assert result.findings() == sorted([CMK_FINDING, QUOTA_FINDING])


def test_an_expired_waiver_no_longer_covers_the_finding(reviews: dict[str, Result]) -> None:
    reason = nonprod_waiver(load_json(EXAMPLE / "policy-config" / "nonprod.json"))["reason"]
    result = reviews["nonprod-expired-waiver"]
    assert result.code == 1, result.stderr
    assert result.findings() == [(WAIVED_POLICY, WAIVED_RESOURCE, "mandatory")]
    (finding,) = result.stack["violations"]
    assert finding["message"] == f"{WAIVED_MESSAGE} (waiver expired on 2020-01-01: {reason})"


def test_a_bad_platform_config_value_is_one_clear_error(reviews: dict[str, Result]) -> None:
    result = reviews["nonprod-bad-config"]
    assert result.code == 2
    assert result.stderr.strip() == (
        "amlkit: stack nonprod was NOT reviewed: stacks/Pulumi.nonprod.yaml: acme-ml-platform:clusters[1].maxNodes: "
        "got 0; allowed: Input should be greater than or equal to 1"
    )
    assert (result.stack["error_kind"], result.report["summary"]["failed"]) == ("config", 1)


def test_a_misspelt_platform_key_is_refused_not_ignored(reviews: dict[str, Result]) -> None:
    result = reviews["nonprod-typo"]
    assert result.code == 2
    assert result.stderr.strip() == (
        "amlkit: stack nonprod was NOT reviewed: stacks/Pulumi.nonprod.yaml: acme-ml-platform:tenantID: unknown "
        "key; allowed keys: tags, network, workspace, clusters, instances, scoring, tenantId"
    )


def test_one_run_with_the_config_directory_matches_the_per_stack_runs(reviews: dict[str, Result]) -> None:
    one_run = reviews["one-run"]
    assert one_run.code == 1, one_run.stderr
    by_stack = {stack["stack"]: stack["violations"] for stack in one_run.report["stacks"]}
    assert by_stack == {name: reviews[name].stack["violations"] for name in ("nonprod", "prod")}


def test_workflow_reviews_with_the_config_directory() -> None:
    workflow = yaml.safe_load((EXAMPLE / ".github" / "workflows" / "amlkit.yml").read_text(encoding="utf-8"))
    commands = [step["run"] for step in workflow["jobs"]["review"]["steps"] if "amlkit check" in step.get("run", "")]
    assert len(commands) == 1  # one review writes both reports (#31)
    assert all("--policy-pack-config policy-config " in command for command in commands)
    assert commands[0].split()[-8:] == ["--format", "sarif", "--output", "amlkit.sarif",
                                        "--format", "markdown", "--output", "amlkit.md"]


# --- platform_config.validate, in process ------------------------------------------------------------


@functools.cache
def platform_config() -> Any:
    """The example's platform_config module (registered under its own name: pydantic resolves its types there)."""
    spec = importlib.util.spec_from_file_location("acme_platform_config", EXAMPLE / "platform_config.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def valid_config() -> dict[str, Any]:
    return {
        "network": {"addressSpace": "10.40.0.0/16", "computeSubnet": "10.40.0.0/22"},
        "clusters": [{"name": "cpu", "size": "Standard_DS3_v2", "maxNodes": 4}],
    }


BAD_CONFIGS = [
    ("no-network", lambda c: c.pop("network"), "acme-ml-platform:network", "required key is missing"),
    ("no-clusters", lambda c: c.update(clusters=[]), "acme-ml-platform:clusters",
     "got a list; allowed: List should have at least 1 item after validation, not 0"),
    ("subnet-outside", lambda c: c["network"].update(computeSubnet="10.9.0.0/22"), "acme-ml-platform:network",
     "computeSubnet 10.9.0.0/22 must lie inside addressSpace 10.40.0.0/16"),
    ("bad-cidr", lambda c: c["network"].update(addressSpace="10.40.0.0/33"), "acme-ml-platform:network.addressSpace",
     "got '10.40.0.0/33'; allowed: Input is not a valid IPv4 network"),
    ("priority", lambda c: c["clusters"][0].update(priority="Spot"), "acme-ml-platform:clusters[0].priority",
     "got 'Spot'; allowed: Input should be 'Dedicated' or 'LowPriority'"),
    ("cluster-extra-key", lambda c: c["clusters"][0].update(gpus=1), "acme-ml-platform:clusters[0].gpus",
     "unknown key; allowed keys: name, size, maxNodes, priority, idleSeconds"),
    ("network-extra-key", lambda c: c["network"].update(lock=True), "acme-ml-platform:network.lock",
     "unknown key; allowed keys: addressSpace, computeSubnet, privateEndpointSubnet, lockResourceGroup"),
    ("scoring-model", lambda c: c.update(scoring={"model": "fraud-scorer", "size": "Standard_NC4as_T4_v3"}),
     "acme-ml-platform:scoring.model",
     "got 'fraud-scorer'; allowed: String should match pattern '^[A-Za-z0-9][A-Za-z0-9_.-]*:[0-9]+$'"),
    ("scoring-instances", lambda c: c.update(scoring={"model": "m:1", "size": "Standard_NC4as_T4_v3", "instances": 0}),
     "acme-ml-platform:scoring.instances", "got 0; allowed: Input should be greater than or equal to 1"),
    ("scoring-extra-key", lambda c: c.update(scoring={"model": "m:1", "size": "Standard_NC4as_T4_v3", "gpus": 1}),
     "acme-ml-platform:scoring.gpus", "unknown key; allowed keys: model, size, instances"),
    ("instance-without-tenant", lambda c: c.update(instances=[
        {"name": "ci-bob", "size": "Standard_DS3_v2", "objectId": "3f2b6c1e-8d4a-4e7b-9c0d-1a2b3c4d5e6f"}]),
     "acme-ml-platform", "tenantId is required when instances are given (the Entra tenant of their users)"),
    ("instance-idle", lambda c: c.update(tenantId="00000000-0000-0000-0000-000000000000", instances=[
        {"name": "ci-bob", "size": "Standard_DS3_v2", "objectId": "3f2b6c1e-8d4a-4e7b-9c0d-1a2b3c4d5e6f",
         "idleMinutes": 5}]),
     "acme-ml-platform:instances[0].idleMinutes", "got 5; allowed: Input should be greater than or equal to 15"),
]


def test_the_valid_base_config_passes_with_secure_defaults() -> None:
    config = platform_config().validate(valid_config(), "stacks/Pulumi.x.yaml")
    assert config.workspace.publicNetworkAccess == "Disabled"
    assert config.workspace.hbi is True
    assert config.network.lockResourceGroup is False
    assert config.clusters[0].priority == "Dedicated"


@pytest.mark.parametrize(("change", "key_path", "problem"), [case[1:] for case in BAD_CONFIGS],
                         ids=[case[0] for case in BAD_CONFIGS])
def test_bad_platform_config_names_file_key_and_allowed(change: Any, key_path: str, problem: str) -> None:
    raw = valid_config()
    change(raw)
    with pytest.raises(ConfigError) as raised:
        platform_config().validate(raw, "stacks/Pulumi.x.yaml")
    assert (raised.value.file, raised.value.key_path, raised.value.problem) == ("stacks/Pulumi.x.yaml", key_path,
                                                                               problem)


# --- the project's files -----------------------------------------------------------------------------


def test_project_is_its_own_pulumi_python_project() -> None:
    project = yaml.safe_load((EXAMPLE / "Pulumi.yaml").read_text(encoding="utf-8"))
    assert project["name"] == "acme-ml-platform"
    assert project["runtime"] == {"name": "python", "options": {"toolchain": "pip", "virtualenv": ".venv"}}
    assert project["stackConfigDir"] == "stacks"


def test_every_stack_has_its_policy_config_and_nothing_else_does() -> None:
    stacks = sorted(p.name[len("Pulumi."):-len(".yaml")] for p in (EXAMPLE / "stacks").glob("Pulumi.*.yaml"))
    configs = sorted(p.stem for p in (EXAMPLE / "policy-config").glob("*.json"))
    assert stacks == configs == sorted(STACKS)


@pytest.mark.parametrize("stack", STACKS)
def test_policy_config_levels_are_explicit(stack: str) -> None:
    config = load_json(EXAMPLE / "policy-config" / f"{stack}.json")
    for policy, entry in config.items():
        level = entry if isinstance(entry, str) else entry.get("enforcementLevel")
        assert level in LEVELS, f"{stack}.json: {policy} has no explicit enforcement level"


def test_exactly_one_waiver_with_a_reason_and_an_expiry() -> None:
    waivers = [
        (stack, policy, waiver)
        for stack in STACKS
        for policy, entry in load_json(EXAMPLE / "policy-config" / f"{stack}.json").items()
        if isinstance(entry, dict)
        for waiver in entry.get("waivers", [])
    ]
    assert [(stack, policy) for stack, policy, _ in waivers] == [("nonprod", WAIVED_POLICY)]
    waiver = waivers[0][2]
    assert waiver["resource"] == WAIVED_RESOURCE
    assert waiver["reason"].strip()
    date.fromisoformat(waiver["expires"])


def test_requirements_name_amlkit_by_release() -> None:
    lines = (EXAMPLE / "requirements.txt").read_text(encoding="utf-8").splitlines()
    requirements = [Requirement(line) for line in lines if line.strip() and not line.lstrip().startswith("#")]
    amlkit = [r for r in requirements if r.name == "amlkit"]
    assert len(amlkit) == 1
    assert amlkit[0].url is not None and amlkit[0].url.startswith("git+https://") and "@v" in amlkit[0].url
    assert not any(r.url and r.url.startswith("file:") for r in requirements)


def test_workflow_previews_each_stack_with_its_policy_config() -> None:
    workflow = yaml.safe_load((EXAMPLE / ".github" / "workflows" / "amlkit.yml").read_text(encoding="utf-8"))
    steps = workflow["jobs"]["pulumi"]["steps"]
    configs = {step["with"]["policyPackConfigs"] for step in steps if "policyPackConfigs" in step.get("with", {})}
    assert configs == {"policy-config/${{ matrix.stack }}.json"}
