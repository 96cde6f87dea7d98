"""The program: each sample stack builds under Pulumi's mocks; config errors surface as one line.

Each stack runs in its own Python process (one stack per process: the mocks' root Stack resource is
process-global). The child runs `amlkit.program.run()` with the stack's config in the engine's wire
form (strings, objects JSON-encoded) and prints what the recording monitor saw as JSON.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml
from google.protobuf import json_format
from pulumi.runtime import rpc

from amlkit import program
from amlkit.errors import ConfigError
from tests.components.harness import DeployedMocks, RecordingMonitor

ROOT = Path(__file__).resolve().parent.parent
STACKS = ROOT / "stacks"
COMPUTE = "azure-native:machinelearningservices:Compute"
WORKSPACE = "azure-native:machinelearningservices:Workspace"
LOCK = "azure-native:authorization:ManagementLockByScope"
RG = "azure-native:resources:ResourceGroup"


def engine_config(stack: str) -> dict[str, str]:
    """A stack file's config as the engine passes it to a program: strings, other values as JSON."""
    document = yaml.safe_load((STACKS / f"Pulumi.{stack}.yaml").read_text(encoding="utf-8"))
    return {key: value if isinstance(value, str) else json.dumps(value) for key, value in document["config"].items()}


def _plain(value: Any) -> Any:
    """Wire-form inputs with each secret (the engine's signature dict) replaced by '[secret]'."""
    if isinstance(value, dict) and value.get(rpc._special_sig_key) == rpc._special_secret_sig:
        return "[secret]"
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def child_main() -> None:
    """Entry point of the child process: argv[1] is a JSON request {stack, config, secret_keys}."""
    request = json.loads(sys.argv[1])
    mocks = DeployedMocks()
    monitor = RecordingMonitor(mocks)
    pulumi.runtime.set_mocks(mocks, project="amlkit", stack=request["stack"], preview=True, monitor=monitor)
    pulumi.runtime.set_all_config(request["config"], request["secret_keys"])

    exported: dict[str, Any] = {}
    resolved: dict[str, Any] = {}
    real_export = pulumi.export

    def export(name: str, value: Any) -> None:
        exported[name] = value
        real_export(name, value)

    pulumi.export = export  # the mocks never finish the root stack, so its outputs are caught here

    @pulumi.runtime.test
    def run() -> pulumi.Output[Any]:
        program.run()
        return pulumi.Output.all(**exported).apply(resolved.update)

    run()
    registrations = [{
        "type": r.type, "name": r.name, "parent": r.parent.split("::")[-1], "protect": r.protect,
        "retain_on_delete": r.retainOnDelete,
        "inputs": _plain(json_format.MessageToDict(r.object)),
    } for r in monitor.requests]
    print(json.dumps({"registrations": registrations, "outputs": resolved}, default=str))


def preview(stack: str, config: dict[str, str] | None = None, secret_keys: list[str] | None = None) -> dict[str, Any]:
    request = {"stack": stack, "config": config or engine_config(stack), "secret_keys": secret_keys or []}
    result = subprocess.run(
        [sys.executable, "-c", "from tests.test_program import child_main; child_main()", json.dumps(request)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


_BUILT: dict[str, dict[str, Any]] = {}


def sample(stack: str) -> dict[str, Any]:
    """The sample stack's preview, run once per test session."""
    if stack not in _BUILT:
        _BUILT[stack] = preview(stack)
    return _BUILT[stack]


@pytest.fixture(params=["dev", "staging", "prod"])
def built(request) -> tuple[str, dict[str, Any]]:
    return request.param, sample(request.param)


def by_type(result: dict[str, Any], typ: str) -> dict[str, dict[str, Any]]:
    return {r["name"]: r for r in result["registrations"] if r["type"] == typ}


EXPECTED_COMPUTES = {
    "dev": {"cpu-cluster": ("AmlCompute", "LowPriority", 4), "ci-alice-dev": ("ComputeInstance", None, None)},
    "staging": {"cpu-cluster": ("AmlCompute", "Dedicated", 4), "ci-qa-staging": ("ComputeInstance", None, None)},
    "prod": {"cpu-cluster": ("AmlCompute", "Dedicated", 8), "gpu-cluster": ("AmlCompute", "Dedicated", 2),
             "aks-inference": ("Kubernetes", None, None)},
}


@pytest.mark.slow
def test_sample_stack_builds_its_computes(built):
    stack, result = built
    computes = {}
    for record in by_type(result, COMPUTE).values():
        outer = record["inputs"]["properties"]
        inner = outer.get("properties", {})
        computes[record["inputs"]["computeName"]] = (
            outer["computeType"], inner.get("vmPriority"), inner.get("scaleSettings", {}).get("maxNodeCount"),
        )
    assert computes == EXPECTED_COMPUTES[stack]


@pytest.mark.slow
def test_sample_stack_components_are_parented_to_the_environment(built):
    stack, result = built
    top = {(r["type"], r["name"]) for r in result["registrations"] if r["parent"] == stack}
    expected = {("amlkit:index:Workspace", f"{stack}-workspace"), (RG, f"{stack}-rg")}
    expected |= {("amlkit:index:ComputeCluster", f"{stack}-cluster-{n}")
                 for n, v in EXPECTED_COMPUTES[stack].items() if v[0] == "AmlCompute"}
    expected |= {("amlkit:index:ComputeInstance", f"{stack}-instance-{n}")
                 for n, v in EXPECTED_COMPUTES[stack].items() if v[0] == "ComputeInstance"}
    expected |= {("amlkit:index:KubernetesCompute", f"{stack}-attached-{n}")
                 for n, v in EXPECTED_COMPUTES[stack].items() if v[0] == "Kubernetes"}
    assert top == expected


@pytest.mark.slow
def test_every_tagged_resource_carries_the_stack_tags_and_environment(built):
    stack, result = built
    tagged = [r for r in result["registrations"] if "tags" in r["inputs"]]
    assert len(tagged) >= 5
    for record in tagged:
        tags = record["inputs"]["tags"]
        assert (tags["environment"], tags["owner"], tags["cost-center"]) == (stack, "ml-platform", "4711"), record


@pytest.mark.slow
def test_sample_stack_exports_workspace_and_compute_outputs(built):
    stack, result = built
    outputs = result["outputs"]
    assert outputs["environment"] == stack
    assert outputs["workspace_name"] == f"mlw-{stack}"
    assert outputs["workspace_id"].endswith(f"/Microsoft.MachineLearningServices/workspaces/mlw-{stack}")
    clusters = {n for n, v in EXPECTED_COMPUTES[stack].items() if v[0] == "AmlCompute"}
    assert outputs["cluster_names"] == {n: n for n in clusters}
    assert set(outputs["cluster_ids"]) == clusters
    assert all(i.endswith(f"/computes/{n}") for n, i in outputs["cluster_ids"].items())


@pytest.mark.slow
def test_prod_is_private_locked_and_protected():
    result = sample("prod")
    workspace = by_type(result, WORKSPACE)["prod-workspace-workspace"]
    assert workspace["inputs"]["publicNetworkAccess"] == "Disabled"
    # prod runs in its customer VNet (subnets, attached AKS): no managed network, a private endpoint instead
    assert workspace["inputs"]["managedNetwork"]["isolationMode"] == "Disabled"
    assert workspace["inputs"]["imageBuildCompute"] == "cpu-cluster"
    assert workspace["protect"] is True
    assert by_type(result, RG)["prod-rg"]["protect"] is True
    locks = by_type(result, LOCK).values()
    locked = sorted(r["inputs"]["scope"].split("/providers/")[-1].rsplit("/", 1)[0] for r in locks)
    assert locked == ["Microsoft.KeyVault/vaults", "Microsoft.MachineLearningServices/workspaces",
                      "Microsoft.Storage/storageAccounts"]
    assert {r["inputs"]["level"] for r in locks} == {"CanNotDelete"}
    assert by_type(result, "azure-native:storage:StorageAccount")["prod-workspace-storage"]["retain_on_delete"]
    computes = by_type(result, COMPUTE)
    attached = computes.pop("prod-attached-aks-inference-compute")["inputs"]
    for record in computes.values():
        inner = record["inputs"]["properties"]["properties"]
        assert inner["enableNodePublicIp"] is False and inner["remoteLoginPortPublicAccess"] == "Disabled"
        assert inner["subnet"]["id"].endswith("/subnets/snet-aml-compute")
    assert attached["properties"] == {
        "computeType": "Kubernetes", "disableLocalAuth": True,
        "description": "Batch inference on the shared AKS cluster",
        "resourceId": "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-aks-prod/providers/"
        "Microsoft.ContainerService/managedClusters/aks-ml-prod", "properties": {"namespace": "azureml-prod"}}
    assert attached["identity"] == {"type": "SystemAssigned"}


@pytest.mark.slow
def test_dev_is_open_and_unprotected():
    result = sample("dev")
    workspace = by_type(result, WORKSPACE)["dev-workspace-workspace"]
    assert workspace["inputs"]["publicNetworkAccess"] == "Enabled"
    assert workspace["protect"] is False and not by_type(result, LOCK)


@pytest.mark.slow
def test_existing_resource_group_is_referenced_not_declared():
    config = engine_config("dev")
    config["amlkit:resourceGroup"] = json.dumps({"name": "rg-shared", "existing": True})
    result = preview("dev", config)
    assert not by_type(result, RG)
    assert {r["inputs"]["resourceGroupName"] for r in by_type(result, COMPUTE).values()} == {"rg-shared"}


@pytest.mark.slow
def test_secret_admin_password_reaches_the_cluster_as_a_secret():
    config = engine_config("dev")
    clusters = json.loads(config["amlkit:clusters"])
    clusters[0]["ssh_settings"] = {"admin_username": "azureuser", "admin_password": "S3cret-pass!"}
    config["amlkit:clusters"] = json.dumps(clusters)
    result = preview("dev", config, secret_keys=["amlkit:clusters"])
    inner = by_type(result, COMPUTE)["dev-cluster-cpu-cluster-compute"]["inputs"]["properties"]
    assert inner["properties"]["userAccountCredentials"]["adminUserPassword"] == "[secret]"
    assert inner["disableLocalAuth"] is False
    assert "S3cret-pass!" not in json.dumps(result)


@pytest.fixture
def engine_stack():
    class NoResources(pulumi.runtime.Mocks):
        def new_resource(self, args):
            raise AssertionError("a config error must stop the program before any resource")

        def call(self, args):
            raise AssertionError("no calls expected")

    def apply(config: dict[str, str]) -> None:
        pulumi.runtime.set_mocks(NoResources(), project="amlkit", stack="prod", preview=True)
        pulumi.runtime.set_all_config(config, [])

    yield apply
    pulumi.runtime.set_all_config({}, [])


def test_config_error_surfaces_as_one_line_run_error(engine_stack):
    config = engine_config("prod")
    clusters = json.loads(config["amlkit:clusters"])
    clusters[0]["max_instances"] = 70000
    engine_stack({**config, "amlkit:clusters": json.dumps(clusters)})
    with pytest.raises(program.StackConfigError) as caught:
        program.run()
    error = caught.value
    assert isinstance(error, ConfigError) and isinstance(error, pulumi.RunError) and error.exit_code == 2
    # the program finds the stack file as the Pulumi CLI finds the project (the nearest Pulumi.yaml up from the
    # working directory) and names the line of the bad key
    assert str(error) == (f"stacks/Pulumi.prod.yaml:{error.line}:7: amlkit:clusters[0].max_instances: got 70000; "
                          "allowed: an integer from 1 to 65000")
    assert error.line is not None
    assert STACKS.joinpath("Pulumi.prod.yaml").read_text().splitlines()[error.line - 1].strip().startswith(
        "max_instances:")
    assert "\n" not in str(error)


def test_a_component_argument_error_keeps_its_fields_as_a_stack_config_error():
    from amlkit.errors import ComponentArgError

    original = ComponentArgError('ComputeCluster "cpu"', "min_node", "unknown argument; did you mean min_instances?",
                                 allowed="size, max_instances", closest="min_instances")
    error = program.StackConfigError.from_error(original)
    assert str(error) == str(original) == (
        'ComputeCluster "cpu": min_node: unknown argument; did you mean min_instances?')
    assert (error.component, error.arg, error.allowed, error.closest) == (
        'ComputeCluster "cpu"', "min_node", "size, max_instances", "min_instances")
    assert isinstance(error, pulumi.RunError)


def test_a_component_raises_a_run_error_so_pulumi_prints_one_line():
    from amlkit.components import ComputeCluster
    from amlkit.errors import ComponentArgError

    with pytest.raises(ComponentArgError) as caught:
        ComputeCluster("cpu", {"size": "Standard_DS3_v2", "max_instances": 4, "min_node": 2})
    assert isinstance(caught.value, pulumi.RunError)
