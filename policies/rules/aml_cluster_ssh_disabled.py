"""aml-cluster-ssh-disabled: no public SSH on clusters or instances, and no admin password on clusters."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.policies.azure import COMPUTE, ComputeView, compute_subject, is_type, same_value
from amlkit.policies.framework import Finding, ResourceInput, Rule, must

REMOTE_LOGIN = "remoteLoginPortPublicAccess"


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    if not is_type(resource.type, COMPUTE):
        return
    compute = ComputeView(resource.props)
    subject = compute_subject(resource.name, compute)
    if compute.is_cluster:
        yield from _cluster(subject, compute)
    elif compute.is_instance and not same_value(compute.ssh_public_access, "Disabled"):
        yield Finding(must(subject, "set sshSettings.sshPublicAccess to Disabled", str(compute.ssh_public_access)))


def _cluster(subject: str, compute: ComputeView) -> Iterator[Finding]:
    access = compute.remote_login_port_public_access_given
    if not same_value(access, "Disabled"):
        found = str(access) if access is not None else (
            "none (Azure then uses NotSpecified: SSH open on nodes with a public IP)")
        yield Finding(must(subject, f"set {REMOTE_LOGIN} explicitly to Disabled", found))
    if compute.admin_password_set:
        yield Finding(must(subject, "not set an admin password in userAccountCredentials",
                           "a password (value not shown)"))


RULE = Rule(
    name="aml-cluster-ssh-disabled",
    description="No public SSH into compute: clusters must set remoteLoginPortPublicAccess explicitly to "
    "Disabled and carry no admin password; instances must keep sshSettings.sshPublicAccess Disabled "
    "(the ARM default).",
    severity="high",
    level="mandatory",
    tags=("security", "network"),
    url="https://github.com/Azure/Enterprise-Scale/blob/main/src/resources/Microsoft.Authorization/"
    "policyDefinitions/Deny-MachineLearning-ComputeCluster-RemoteLoginPortPublicAccess.json",
    remediation="Clusters: set properties.remote_login_port_public_access to Disabled (omitted means "
    "NotSpecified, which leaves port 22 open on every node with a public IP and cannot be changed after "
    "creation) and remove user_account_credentials.admin_user_password (use an SSH public key, or better no "
    "admin account and disableLocalAuth). Instances: set ssh_settings.ssh_public_access to Disabled or omit it. "
    "Matches ALZ Deny-MachineLearning-ComputeCluster-RemoteLoginPortPublicAccess.",
    check=check,
)
