"""The providers' own docs examples for Azure ML computes (tests/fixtures/provider_docs, unmodified, licence
header kept) run offline, and get exactly these findings: the classic provider's `machinelearning.ComputeCluster`
and `ComputeInstance` (from the installed SDK's docstrings) and azure-native's `machinelearningservices.Compute`
(the installed 3.29 SDK has no examples in its docstrings: the Python Pulumi's example codegen published in
pulumi/pulumi-azure-native, pinned by sha256). Every azure-native example runs as published under 3.29 (its
`...Args` classes are unchanged), so none needs an expected error."""

from __future__ import annotations

import hashlib
import importlib
import inspect
import re
import textwrap

import pytest

from amlkit.review.engine import review
from amlkit.review.options import ReviewOptions
from tests.review.helpers import FIXTURES
from tests.review.statefiles import deployed_state

DOCS = FIXTURES / "provider_docs"
M, A = "mandatory", "advisory"
DSV2 = ("found Standard_DS2_v2 of series DSv2 (not in allowedSeries: retiring on 2028-05-01, capacity-restricted "
        "since 2026-07: new subscriptions cannot deploy it); successors in allowedSeries: Dsv5, Ddsv5, Dasv5, Dadsv5, "
        "Dasv6, Dadsv6, Dsv6, Ddsv6, Dasv7, Dadsv7, Esv6, Edsv6, Easv6, Eadsv6, Easv7, Eadsv7.")
WORKSPACE = [
    ("aml-workspace-cmk", A, "example", "Workspace 'example' must be encrypted with a customer-managed key; found no "
     "encryption.keyVaultProperties.keyIdentifier."),
    ("aml-workspace-diagnostics", A, "example", "Workspace 'example' must have a diagnostic setting "
     "(monitor:DiagnosticSetting whose resourceUri is the workspace's id)."),
    ("aml-workspace-hbi", A, "example", "Workspace 'example' must have hbiWorkspace true; found false."),
    ("aml-workspace-managed-network", A, "example", "Workspace 'example' must have managedNetwork.isolationMode "
     "AllowOnlyApprovedOutbound; found Disabled."),
    ("aml-workspace-public-network-disabled", A, "example", "Workspace 'example' must have publicNetworkAccess "
     "Disabled; found Enabled."),
    ("aml-workspace-user-assigned-identity", A, "example", "Workspace 'example' must use a user-assigned identity "
     "(identity type including UserAssigned and primaryUserAssignedIdentity set to one of "
     "identity.userAssignedIdentities); found identity type SystemAssigned."),
]

# (fixture, SDK module whose "Example Usage" it is, exact findings: (policy, level, resource, message))
CASES = [
    ("classic_compute_cluster", "pulumi_azure.machinelearning.compute_cluster", [
        ("aml-compute-approved-vm-family", M, "test", f"AmlCompute cluster 'test' must use a VM size from an allowed "
         f"series; {DSV2}"),
        ("aml-compute-local-auth-disabled", A, "test", "AmlCompute cluster 'test' must set disableLocalAuth to true; "
         "found false."),
        ("aml-compute-no-public-ip", A, "test", "AmlCompute cluster 'test' must set enableNodePublicIp to false; "
         "found true."),
        *WORKSPACE,
    ]),
    ("classic_compute_instance", "pulumi_azure.machinelearning.compute_instance", [
        ("aml-cluster-ssh-disabled", M, "example", "Compute instance 'example' must set sshSettings.sshPublicAccess "
         "to Disabled; found Enabled."),
        ("aml-compute-approved-vm-family", M, "example", f"Compute instance 'example' must use a VM size from an "
         f"allowed series; {DSV2}"),
        ("aml-compute-instance-idle-shutdown", A, "example", "Compute instance 'example' must shut down after 15 to "
         "4320 idle minutes (idleTimeBeforeShutdown); found none (the instance runs and bills until stopped)."),
        ("aml-compute-local-auth-disabled", A, "example", "Compute instance 'example' must set disableLocalAuth to "
         "true; found false."),
        ("aml-compute-no-public-ip", A, "example", "Compute instance 'example' must set enableNodePublicIp to false; "
         "found true."),
        *WORKSPACE,
    ]),
]

# azure-native: Pulumi's example codegen output for the Azure REST API spec's Compute examples (API 2023-04-01, the
# registry page's "Create AKS Compute", "Create a AML Compute", "Attach a Kubernetes Compute", ... examples), as
# published in github.com/pulumi/pulumi-azure-native at this commit; not reachable offline, so each fixture's text
# is pinned by the sha256 of the published file (read with the search tool's read_file, lengths checked)
NATIVE_COMMIT = "f6dcc93b2b08eeea29114b7ef2d39c23fb5a33ca"
NATIVE_DIR = ("DEBUG_CODEGEN_EXAMPLE_PYTHON/machinelearningservices/resource-manager/Microsoft.MachineLearningServices/"
              "stable/2023-04-01/examples/Compute/createOrUpdate")
NC6 = "found Standard_NC6 of series NC, retired on 2023-09-06; successors in the default allowedSeries: NCasT4_v3."
NO_SUBNET = ("must have a subnet or belong to a workspace whose managed network is isolated (isolationMode "
             "AllowInternetOutbound or AllowOnlyApprovedOutbound); found no subnet, and its workspace "
             "'workspaces123' is not in this stack.")
CLUSTER = "AmlCompute cluster 'compute'"
INSTANCE = "Compute instance 'compute'"


def cluster_defaults() -> list[tuple[str, str, str, str]]:
    """What an AmlCompute example without identity, subnet, disableLocalAuth or enableNodePublicIp false gets."""
    return [
        ("aml-cluster-ssh-disabled", M, "compute", f"{CLUSTER} must set remoteLoginPortPublicAccess explicitly to "
         "Disabled; found NotSpecified (no subnet is set, so port 22 is open on every node with a public IP)."),
        ("aml-compute-identity", M, "compute", f"{CLUSTER} must have a managed identity, either SystemAssigned or "
         "UserAssigned; found none."),
        ("aml-compute-local-auth-disabled", A, "compute", f"{CLUSTER} must set disableLocalAuth to true; found none "
         "(Azure then uses false)."),
        ("aml-compute-network-isolated", A, "compute", f"{CLUSTER} {NO_SUBNET}"),
        ("aml-compute-no-public-ip", A, "compute", f"{CLUSTER} must set enableNodePublicIp to false; found true."),
    ]


RUNS = "the instance runs and bills until stopped"
SCHEDULED = "a schedule stops it at fixed times; between them it bills while idle"


def instance_defaults(subnet: bool, idle: str = RUNS) -> list[tuple[str, str, str, str]]:
    """What a ComputeInstance example on Standard_NC6 without idle shutdown or local-auth/public-IP settings gets;
    `idle`: what the idle-shutdown finding says the instance does instead."""
    return [
        ("aml-compute-instance-idle-shutdown", A, "compute", f"{INSTANCE} must shut down after 15 to 4320 idle minutes "
         f"(idleTimeBeforeShutdown); found none ({idle})."),
        ("aml-compute-local-auth-disabled", A, "compute", f"{INSTANCE} must set disableLocalAuth to true; found none "
         "(Azure then uses false)."),
        *([] if subnet else [("aml-compute-network-isolated", A, "compute", f"{INSTANCE} {NO_SUBNET}")]),
        ("aml-compute-no-public-ip", A, "compute", f"{INSTANCE} must set enableNodePublicIp to false; found none "
         "(Azure then uses true)."),
        ("aml-compute-retired-vm-series", M, "compute", f"{INSTANCE} must not use a VM series retired for Azure ML "
         f"compute; {NC6}"),
    ]


# (fixture, the published example's file name, sha256 of its text, exact findings)
NATIVE_CASES = [
    # attaches an existing AKS cluster (resourceId): nothing an AKS rule reads is wrong
    ("native_aks_compute", "AKSCompute",
     "015d664868e28023d0a09d76564bd1a5a2c9b41f8d71b0c4cf1e47bea1517b78", []),
    ("native_aml_compute", "AmlCompute",
     "951f8aef6fdacee24c9fb9b35172152d2d229b7ff2708f07318997e7d20ccada", [
         *cluster_defaults(),
         ("aml-cluster-min-nodes-zero", M, "compute", f"{CLUSTER} must have minNodeCount 0; found 4."),
         # an update example: no vmSize
         ("aml-compute-approved-vm-family", M, "compute", f"{CLUSTER} must set vmSize to a size from an allowed "
          "series; found none."),
         ("aml-quota-budget", A, "compute", f"{CLUSTER} must set vmSize so its cores can be counted against quota; "
          "found none."),
     ]),
    ("native_basic_aks_compute", "BasicAKSCompute",
     "949b2c3dd584a6eda50ea0a22b06ab284977e8c1e14e0e706138f8e12e0a14b1", [
         ("aml-no-aks-created-through-aml", A, "compute", "AKS compute 'compute' must attach an existing cluster "
          "through resourceId, not have Azure ML create one; found no resourceId."),
     ]),
    ("native_basic_aml_compute", "BasicAmlCompute",
     "14c9a125bf1a481e7ed46ebf48c8ad9be897f77b715a12c5a7de0665cb4fceb6", [
         *cluster_defaults(),
         ("aml-compute-retired-vm-series", M, "compute", f"{CLUSTER} must not use a VM series retired for Azure ML "
          f"compute; {NC6}"),
     ]),
    # an attached Data Factory: mapped (an attached compute kind), and no rule of the pack is about it
    ("native_basic_data_factory_compute", "BasicDataFactoryCompute",
     "8f1be0298dac9e6d3492c3ac4af087df399e573d4219de7e915f3782e746cc6f", []),
    # in a subnet (its id is a placeholder string, which the network rule takes as set), SSH Disabled
    ("native_compute_instance", "ComputeInstance",
     "8479d0af8c434c963994bb84b1d7c83a5bed41ae89f6d6a1b9a788d73f309f06", instance_defaults(subnet=True)),
    ("native_compute_instance_minimal", "ComputeInstanceMinimal",
     "cc036b57cdc1cf2166d43e39b18c0eddd247db495f309d764d28075d63bfdcdd", instance_defaults(subnet=False)),
    # a daily stop schedule (action Stop, status Enabled, cron 0 18 * * *) is not an idle shutdown: still a finding,
    # which says the schedule stops it
    ("native_compute_instance_with_schedules", "ComputeInstanceWithSchedules",
     "20b938b56399959bbbc36c496ea8688611ed2008054f12e098947d10b7679999",
     instance_defaults(subnet=False, idle=SCHEDULED)),
    ("native_kubernetes_compute", "KubernetesCompute",
     "630b2079789d6f1a9aa1899940795a8c807232f9aa366f3f8514a906e2f593a9", [
         ("aml-compute-identity", M, "compute", "Kubernetes compute 'compute' must have a managed identity, either "
          "SystemAssigned or UserAssigned; found none."),
     ]),
]


def sdk_example(module: str) -> str:
    source = inspect.getsource(importlib.import_module(module))
    return textwrap.dedent(re.search(r"## Example Usage\n\n\s*```python\n(.*?)```", source, re.S)[1])


@pytest.mark.parametrize(("fixture", "module"), [c[:2] for c in CASES], ids=[c[0] for c in CASES])
def test_the_fixture_is_the_providers_example_unmodified_with_its_licence(fixture, module):
    text = (DOCS / fixture / "__main__.py").read_text(encoding="utf-8")
    header, _, body = text.partition("\n\n")
    assert "Licensed under the Apache License, Version 2.0" in header and "Pulumi Corporation" in header
    assert body == sdk_example(module)


@pytest.mark.parametrize(("fixture", "example", "sha256"), [c[:3] for c in NATIVE_CASES],
                         ids=[c[0] for c in NATIVE_CASES])
def test_the_native_fixture_is_the_published_example_unmodified_with_its_licence(fixture, example, sha256):
    text = (DOCS / fixture / "__main__.py").read_text(encoding="utf-8")
    header, _, body = text.partition("\n\n")
    assert "Licensed under the Apache License, Version 2.0" in header and "Pulumi Corporation" in header
    assert NATIVE_COMMIT in header and f"{NATIVE_DIR}/{example}.json.python" in header
    assert hashlib.sha256(body.encode("utf-8")).hexdigest() == sha256


ALL_FINDINGS = [(c[0], c[2]) for c in CASES] + [(c[0], c[3]) for c in NATIVE_CASES]


@pytest.mark.slow
@pytest.mark.parametrize(("fixture", "findings"), ALL_FINDINGS, ids=[c[0] for c in ALL_FINDINGS])
def test_the_providers_docs_example_gets_exactly_these_findings(fixture, findings, tmp_path):
    # deployed (its own state export): the docs' computes name their workspace by its id, unknown before it
    # exists (tests/review/test_preview_knowledge.py)
    project = DOCS / fixture
    stack_name = next(path.name[len("Pulumi."):-len(".yaml")] for path in project.glob("Pulumi.*.yaml"))
    state = deployed_state(project, stack_name, tmp_path)
    (stack,) = review(project, [stack_name], options=ReviewOptions(states=[state])).stacks
    assert stack.error is None
    assert sorted((v.policy, v.level, v.resource, v.message) for v in stack.violations) == sorted(findings)
    assert stack.unknown == ()
    assert stack.lookups == ()  # azure.core.get_client_config() is answered offline
