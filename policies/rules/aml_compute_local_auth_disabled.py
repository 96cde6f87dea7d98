"""aml-compute-local-auth-disabled: computes accept Microsoft Entra ID only, no local (key/SSH) auth."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.policies.azure import COMPUTE, ComputeView, compute_subject, is_type
from amlkit.policies.framework import Finding, ResourceInput, Rule, must

FIELD = "disableLocalAuth"


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    if not is_type(resource.type, COMPUTE):
        return
    compute = ComputeView(resource.props)
    given = compute.disable_local_auth_given
    if given is not True:
        found = "none (Azure then defaults to false)" if given is None else str(given).lower()
        yield Finding(must(compute_subject(resource.name, compute), f"set {FIELD} to true", found))


RULE = Rule(
    name="aml-compute-local-auth-disabled",
    description="Azure ML computes must set properties.disableLocalAuth to true so only Microsoft Entra "
    "identities can authenticate (omitted means false). Azure Policy e96a9a5f, Checkov CKV_AZURE_142, "
    "PSRule Azure.ML.DisableLocalAuth (AZR-000404).",
    severity="medium",
    level="advisory",
    tags=("security", "identity"),
    url="https://github.com/Azure/azure-policy/blob/master/built-in-policies/policyDefinitions/"
    "Machine%20Learning/MachineLearningServices_DisableLocalAuth_Audit.json",
    remediation="Set properties.disable_local_auth to true on every compute (it cannot be changed after "
    "creation; recreate the compute). Like the built-in audit e96a9a5f this applies to every compute type, "
    "attached ones included.",
    check=check,
)
