import pytest
from pulumi_policy.proxy import unknown_checking_proxy

from amlkit.policies.rules.aml_workspace_image_build_compute import RULE
from tests.policies import preview_fixtures as preview
from tests.policies.compute_fixtures import cluster, instance, instance_props, resource
from tests.policies.examples import Example
from tests.policies.helpers import Public, cluster_props
from tests.policies.workspace_fixtures import WORKSPACE_TYPE, res, rg_id, stack_messages, workspace_props

PUBLIC = Public("AMLK-0035", "aml-workspace-image-build-compute", level="mandatory", kind="stack")

REGISTRY_TYPE = "azure-native:containerregistry:Registry"
REGISTRY_ID = f"{rg_id('rg-ml-prod')}/providers/Microsoft.ContainerRegistry/registries/crmlprod"
SOURCE = "how-to-managed-network.md, Configure image builds"
EXPECTATION = "name a compute cluster or instance of the workspace in imageBuildCompute"


def registry(name: str = "cr", **props) -> object:
    base = {"registryName": "crmlprod", "resourceGroupName": "rg-ml-prod", "sku": {"name": "Premium"},
            "publicNetworkAccess": "Disabled"}
    return res(REGISTRY_TYPE, name, {key: value for key, value in {**base, **props}.items() if value is not None})


def ws(builder: str | None = None, registry_id: str | None = REGISTRY_ID, name: str = "mlw-prod", **deps):
    props = workspace_props(workspaceName=name)
    if registry_id is not None:
        props["containerRegistry"] = registry_id
    if builder is not None:
        props["imageBuildCompute"] = builder
    return res(WORKSPACE_TYPE, name, props, **deps)


def missing(registry_name: str = "cr") -> tuple[str, str]:
    return "mlw-prod", (f"Workspace 'mlw-prod' must {EXPECTATION}; found none, and its container registry "
                        f"'{registry_name}' is private (\"it can't be used to directly build Docker images\", "
                        f"{SOURCE}).")


def dangling(name: str, computes: str) -> tuple[str, str]:
    return "mlw-prod", (f"Workspace 'mlw-prod' must {EXPECTATION}; found {name}, which names no compute cluster or "
                        f"instance of the workspace in the stack{computes}.")


CPU = cluster("cpu-cluster")
CI = instance("ci-alice", instance_props())
OTHER_CPU = cluster("other-cpu", {**cluster_props(), "workspaceName": "mlw-dev", "computeName": "builder"})

CASES = [
    ("builder-is-a-cluster", [ws("cpu-cluster"), registry(), CPU], []),
    ("builder-is-an-instance-other-casing", [ws("CI-Alice"), registry(), CI], []),
    ("private-registry-by-id-no-builder", [ws(), registry(), CPU], [missing()]),
    ("private-registry-by-dependency", [ws(registry_id="unknown-at-preview", containerRegistry="urn:pulumi:prod::"
                                           "amlkit::azure-native:containerregistry:Registry::cr"), registry(), CPU],
     [missing()]),
    ("registry-denies-by-default", [ws(), registry(publicNetworkAccess=None, networkRuleSet={"defaultAction": "Deny"}),
                                    CPU], [missing()]),
    ("public-registry-needs-none", [ws(), registry(publicNetworkAccess="Enabled"), CPU], []),
    ("registry-access-omitted-is-public", [ws(), registry(publicNetworkAccess=None), CPU], []),
    ("no-registry-azure-creates-a-public-one", [ws(registry_id=None), CPU], []),
    ("registry-outside-the-stack", [ws(), CPU],
     [("mlw-prod", f"Workspace 'mlw-prod' must {EXPECTATION} when its container registry is private; cannot tell: "
                   "its container registry is not in this stack.")]),
    ("dangling-name", [ws("gpu-cluster"), registry(), CPU, CI], [dangling("gpu-cluster", " (computes: ci-alice, "
                                                                                         "cpu-cluster)")]),
    ("dangling-even-with-a-public-registry", [ws("gpu-cluster", registry_id=None)],
     [dangling("gpu-cluster", "")]),
    ("compute-of-another-workspace", [ws("builder"), registry(), OTHER_CPU], [dangling("builder", "")]),
    ("project-uses-its-hub", [res(WORKSPACE_TYPE, "proj", {**workspace_props(workspaceName="proj", kind="Project"),
                                                           "containerRegistry": REGISTRY_ID}), registry()], []),
    ("classic-workspace-and-registry", [
        resource("mlw-classic", {"name": "mlw-prod", "resourceGroupName": "rg-ml-prod", "location": "westeurope",
                                 "containerRegistryId": REGISTRY_ID}, "azure:machinelearning/workspace:Workspace"),
        resource("cr", {"name": "crmlprod", "resourceGroupName": "rg-ml-prod", "sku": "Premium",
                        "publicNetworkAccessEnabled": False}, "azure:containerservice/registry:Registry")],
     [("mlw-classic", f"Workspace 'mlw-classic' must {EXPECTATION}; found none, and its container registry 'cr' is "
                      f"private (\"it can't be used to directly build Docker images\", {SOURCE}).")]),
]

EXAMPLE = Example.of_stacks(CASES, fails="private-registry-by-id-no-builder", passes="builder-is-a-cluster")


@pytest.mark.parametrize(("resources", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_workspace_image_build_compute(resources, expected):
    assert stack_messages(RULE, resources) == expected


# --- what a real preview knows: ids and output names unknown, property dependencies, both providers ------------

CLASSIC_REGISTRY = "azure:containerservice/registry:Registry"


def preview_registry(provider, rg):
    if provider == "native":
        props = {"registryName": "crmlprod", "resourceGroupName": preview.U, "publicNetworkAccess": "Disabled"}
        return res(REGISTRY_TYPE, "cr", unknown_checking_proxy(props), resourceGroupName=rg.urn)
    props = {"name": "crmlprod", "resourceGroupName": preview.U, "publicNetworkAccessEnabled": False}
    return res(CLASSIC_REGISTRY, "cr", unknown_checking_proxy(props), resourceGroupName=rg.urn)


def preview_stack(provider, builder, registry_id):
    """A workspace with a private registry; `builder`: "graph" (imageBuildCompute = the cluster's unknown name),
    a literal name, or None; `registry_id`: "graph" (the registry's unknown id) or a literal id."""
    rg = preview.group(provider)
    cr = preview_registry(provider, rg)
    registry_input = "containerRegistry" if provider == "native" else "containerRegistryId"
    build_input = "imageBuildCompute" if provider == "native" else "imageBuildComputeName"
    inputs = {registry_input: preview.U if registry_id == "graph" else registry_id}
    if builder is not None:
        inputs[build_input] = preview.U if builder == "graph" else builder
    ws = preview.workspace(provider, rg, **inputs)
    deps = {registry_input: cr.urn} if registry_id == "graph" else {}
    gpu = preview.cluster(provider, ws, rg)
    if builder == "graph":
        deps[build_input] = gpu.urn
    ws = res(ws.type, ws.name, ws.props, resourceGroupName=rg.urn, **deps)
    return [rg, cr, ws, preview.cluster(provider, ws, rg)]


IN_RG_ML = f"{rg_id('rg-ml')}/providers/Microsoft.ContainerRegistry/registries/crmlprod"
PRIVATE = (f"Workspace 'mlw' must {EXPECTATION}; found none, and its container registry 'cr' is private (\"it can't "
           f"be used to directly build Docker images\", {SOURCE}).")
PREVIEW_CASES = [
    ("builder-built-from-the-cluster-name", "graph", "graph", []),
    ("builder-named-by-the-cluster-input", "gpu", "graph", []),
    ("builder-names-no-compute", "cpu", "graph",
     [("mlw", f"Workspace 'mlw' must {EXPECTATION}; found cpu, which names no compute cluster or instance of the "
       "workspace in the stack (computes: gpu).", False)]),
    ("no-builder-registry-built-from-the-stack-registry", None, "graph", [("mlw", PRIVATE, False)]),
    ("no-builder-literal-registry-id-meets-its-group-resource", None, IN_RG_ML, [("mlw", PRIVATE, False)]),
]


@pytest.mark.parametrize("provider", ["native", "classic"])
@pytest.mark.parametrize(("builder", "registry_id", "expected"), [c[1:] for c in PREVIEW_CASES],
                         ids=[c[0] for c in PREVIEW_CASES])
def test_preview_knowledge(provider, builder, registry_id, expected):
    assert preview.verdicts(RULE, preview_stack(provider, builder, registry_id)) == expected
