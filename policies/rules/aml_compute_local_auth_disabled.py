"""aml-compute-local-auth-disabled: clusters and instances accept Microsoft Entra ID only, no local (SSH) auth.

Facts and scope (checked against the sources):
- Azure Policy built-in e96a9a5f "Azure Machine Learning Computes should have local authentication
  methods disabled", v2.1.0 (Azure/azure-policy, built-in-policies/policyDefinitions/Machine Learning/
  DisableLocalAuth_Audit.json) audits `disableLocalAuth != true` only where `computeType` is
  `ComputeInstance` or `AmlCompute`. (Its v1.0.0, MachineLearningServices_DisableLocalAuth_Audit.json,
  audited every compute type.)
- PSRule Azure.ML.DisableLocalAuth / AZR-000404 (Azure/PSRule.Rules.Azure,
  src/PSRule.Rules.Azure/rules/Azure.ML.Rule.yaml) has no computeType condition: it is the check that
  covers every compute type, attached ones included.
- The Azure ML docs describe the setting as disabling local authentication (SSH) on a compute cluster
  or instance (MicrosoftDocs/azure-ai-docs, articles/machine-learning/how-to-integrate-azure-policy.md).

This rule follows the built-in and the docs: AmlCompute clusters and compute instances only. Attached
computes (Kubernetes, AKS, VirtualMachine, Databricks...) keep their own authentication on the attached
resource; a team that wants PSRule's wider scope can run PSRule AZR-000404 alongside.
Omitted means false (local auth on).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit import azure_facts as facts
from amlkit.policies.azure import MANAGED, compute_of
from amlkit.policies.fixes import Fix, compute_fix
from amlkit.policies.framework import ResourceInput, Rule, azure_policy, checkov, mcsb, psrule
from amlkit.policies.value_check import ValueCheck, compute_check

__all__ = ["RULE", "check"]

check = compute_check(MANAGED, ValueCheck(
    read=lambda compute: compute.disable_local_auth_given, equals=True,
    expectation="set disableLocalAuth to true", default=facts.LOCAL_AUTH_DISABLED_DEFAULT))


def fix(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Fix]:
    """disableLocalAuth true (the classic provider's localAuthEnabled false)."""
    compute = compute_of(resource.type, resource.props, MANAGED)
    change = compute and compute_fix(compute, facts.DISABLE_LOCAL_AUTH, True, "localAuthEnabled", False)
    if change:
        yield change


RULE = Rule(
    name="aml-compute-local-auth-disabled",
    ref="AMLK-0010",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="Compute local authentication disabled",
    group="compute",
    stack_key="local_auth_enabled",
    compliance=mcsb("IM-1", "Use centralized identity and authentication system", "mcsb-identity-management"),
    equivalents=(
        azure_policy("e96a9a5f-07ca-471b-9bc5-6a0f33cbd68f",
            "Azure Machine Learning Computes should have local authentication methods disabled"),
        psrule("AZR-000404", "Azure.ML.DisableLocalAuth"),
        checkov("CKV_AZURE_142"),
    ),
    description="AmlCompute clusters and compute instances must set properties.disableLocalAuth to true so "
    "only Microsoft Entra identities can authenticate (omitted means false). Same scope as Azure Policy "
    "e96a9a5f v2.1.0 (ComputeInstance and AmlCompute only); attached computes are not checked (PSRule "
    "Azure.ML.DisableLocalAuth, AZR-000404, covers every compute type).",
    severity="medium",
    level="advisory",
    tags=("security", "identity"),
    url="https://github.com/Azure/azure-policy/blob/master/built-in-policies/policyDefinitions/"
    "Machine%20Learning/DisableLocalAuth_Audit.json",
    remediation="Set properties.disable_local_auth to true on every compute cluster and compute instance "
    "(it cannot be changed after creation; recreate the compute). Attached computes are out of scope, as in "
    "built-in e96a9a5f v2.1.0; use PSRule AZR-000404 if attached computes must be audited too.",
    check=check,
    fix=fix,
)
