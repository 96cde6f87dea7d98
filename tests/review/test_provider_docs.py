"""The classic provider's own docs examples for Azure ML computes (tests/fixtures/provider_docs, unmodified,
licence header kept) run offline, and get exactly these findings."""

from __future__ import annotations

import importlib
import inspect
import re
import textwrap

import pytest

from amlkit.review.engine import review
from tests.review.helpers import FIXTURES

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


def sdk_example(module: str) -> str:
    source = inspect.getsource(importlib.import_module(module))
    return textwrap.dedent(re.search(r"## Example Usage\n\n\s*```python\n(.*?)```", source, re.S)[1])


@pytest.mark.parametrize(("fixture", "module"), [c[:2] for c in CASES], ids=[c[0] for c in CASES])
def test_the_fixture_is_the_providers_example_unmodified_with_its_licence(fixture, module):
    text = (DOCS / fixture / "__main__.py").read_text(encoding="utf-8")
    header, _, body = text.partition("\n\n")
    assert "Licensed under the Apache License, Version 2.0" in header and "Pulumi Corporation" in header
    assert body == sdk_example(module)


@pytest.mark.slow
@pytest.mark.parametrize(("fixture", "findings"), [(c[0], c[2]) for c in CASES], ids=[c[0] for c in CASES])
def test_the_providers_docs_example_gets_exactly_these_findings(fixture, findings):
    (stack,) = review(DOCS / fixture).stacks
    assert stack.error is None
    assert sorted((v.policy, v.level, v.resource, v.message) for v in stack.violations) == sorted(findings)
    assert stack.lookups == []  # azure.core.get_client_config() is answered offline
