"""aml-compute-identity: clusters and instances have ONE kind of managed identity, system XOR user-assigned."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.policies.azure import MANAGED, compute_of, compute_subject
from amlkit.policies.framework import Finding, ResourceInput, Rule, must

SYSTEM = "systemassigned"
USER = "userassigned"
EITHER = "have a managed identity, either SystemAssigned or UserAssigned"


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    compute = compute_of(resource.type, resource.props, MANAGED)
    if compute is None:
        return
    subject = compute_subject(resource.name, compute)
    raw = compute.identity_type
    kinds = _kinds(raw)
    if kinds == {SYSTEM, USER}:
        yield Finding(must(subject, "have either a system-assigned or user-assigned identity, not both", raw))
    elif kinds == {USER}:
        if not compute.user_assigned_identities:
            yield Finding(must(subject, "list at least one user-assigned identity id when the identity type "
                                        "is UserAssigned", "none"))
    elif kinds == {SYSTEM}:
        if compute.user_assigned_identities:
            yield Finding(must(subject, "not list user-assigned identities when the identity type is "
                                        "SystemAssigned (one kind of identity only)",
                               f"{len(compute.user_assigned_identities)} listed"))
    else:
        yield Finding(must(subject, EITHER, "none" if raw is None else str(raw)))


def _kinds(raw: Any) -> set[str]:
    """`SystemAssigned, UserAssigned` (any spacing or casing) -> {"systemassigned", "userassigned"}."""
    if not isinstance(raw, str):
        return set()
    kinds = {part.replace(" ", "").lower() for part in raw.split(",")}
    return kinds if kinds <= {SYSTEM, USER} else set()


RULE = Rule(
    name="aml-compute-identity",
    description="AmlCompute clusters and compute instances must have a managed identity, either "
    "system-assigned or user-assigned (with at least one id), never both and never none.",
    severity="high",
    level="mandatory",
    tags=("identity", "security"),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-identity-based-service-authentication"
    "#compute-cluster",
    remediation="Set identity.type to SystemAssigned, or to UserAssigned with user_assigned_identities "
    "listing the identity's ARM id. A cluster supports one system-assigned identity OR user-assigned "
    "identities, not both; ARM accepts 'SystemAssigned,UserAssigned' anyway, so only this policy stops it. "
    "Without an identity the compute cannot use identity-based access to datastores, Key Vault or ACR.",
    check=check,
)
