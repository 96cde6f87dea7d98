"""aml-cluster-ssh-disabled: no public SSH on clusters or instances, and no admin password on clusters.

Fact (the ARM schema's description of `remoteLoginPortPublicAccess`, shipped in pulumi-azure-native
3.29 `machinelearningservices/_inputs.py`, AmlComputePropertiesArgs; the same text is in the Azure ML
SDK's AmlCompute `ssh_public_access_enabled`): `Disabled` closes the public SSH port on every node,
`Enabled` opens it, and `NotSpecified` (the default when omitted) closes it when the cluster is in a
VNet (a subnet is set) and opens it on all public nodes otherwise. `NotSpecified` exists only at
creation: Azure then stores Enabled or Disabled, and the setting cannot change afterwards.

So an omitted or NotSpecified value is safe only while the cluster keeps its subnet. The rule still
requires an explicit `Disabled` (as ALZ Deny-MachineLearning-ComputeCluster-RemoteLoginPortPublicAccess
does): the outcome then does not depend on the network settings, and the message says which case the
cluster is in.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit import azure_facts as facts
from amlkit.policies.azure import ComputeView, compute_subject, compute_view, same_value
from amlkit.policies.fixes import Fix, compute_fix
from amlkit.policies.framework import Finding, ResourceInput, Rule, alz, must

__all__ = ["REMOTE_LOGIN", "RULE", "check"]

REMOTE_LOGIN = "remoteLoginPortPublicAccess"


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    compute = compute_view(resource.type, resource.props)
    if compute is None:
        return
    subject = compute_subject(resource.name, compute)
    if compute.is_cluster:
        yield from _cluster(subject, compute)
    elif compute.is_instance and not same_value(compute.ssh_public_access, "Disabled"):
        yield Finding(must(subject, "set sshSettings.sshPublicAccess to Disabled", str(compute.ssh_public_access)))


def _cluster(subject: str, compute: ComputeView) -> Iterator[Finding]:
    access = compute.remote_login_port_public_access_given
    if not same_value(access, "Disabled"):
        yield Finding(must(subject, f"set {REMOTE_LOGIN} explicitly to Disabled", _found(access, compute)))
    if compute.admin_password_set:
        yield Finding(must(subject, "not set an admin password in userAccountCredentials",
                           "a password (value not shown)"))


def _found(access: str | None, compute: ComputeView) -> str:
    """The value, and for NotSpecified (or omitted) what it means for this cluster's network."""
    if access is not None and not same_value(access, facts.REMOTE_LOGIN_DEFAULT):
        return str(access)
    value = f"none (Azure then uses {facts.REMOTE_LOGIN_DEFAULT}: " if access is None else f"{access} ("
    if compute.subnet_id:
        return value + "port 22 closed only because the cluster is in a VNet subnet)"
    return value + "no subnet is set, so port 22 is open on every node with a public IP)"


def fix(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Fix]:
    """Public SSH closed: a cluster's remoteLoginPortPublicAccess Disabled (classic: sshPublicAccessEnabled false),
    an instance's sshSettings.sshPublicAccess Disabled (the classic provider opens SSH with an `ssh` block, whose
    removal is the user's choice). An admin password is never removed: what replaces it is a human choice."""
    compute = compute_view(resource.type, resource.props)
    if compute is None:
        return
    change = None
    if compute.is_cluster and not same_value(compute.remote_login_port_public_access_given, "Disabled"):
        change = compute_fix(compute, facts.REMOTE_LOGIN, "Disabled", "sshPublicAccessEnabled", False)
    elif compute.is_instance and not same_value(compute.ssh_public_access, "Disabled"):
        change = compute_fix(compute, facts.SSH_PUBLIC_ACCESS, "Disabled")
    if change:
        yield change


RULE = Rule(
    name="aml-cluster-ssh-disabled",
    ref="AMLK-0008",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="No public SSH on compute",
    group="compute",
    equivalents=(
        alz("Deny-MachineLearning-ComputeCluster-RemoteLoginPortPublicAccess"),
    ),
    stack_key="ssh_public_access_enabled",
    description="No public SSH into compute: clusters must set remoteLoginPortPublicAccess explicitly to "
    "Disabled (NotSpecified, the default, closes port 22 only when the cluster is in a VNet) and carry no "
    "admin password; instances must keep sshSettings.sshPublicAccess Disabled (the ARM default).",
    severity="high",
    level="mandatory",
    tags=("security", "network"),
    url="https://github.com/Azure/Enterprise-Scale/blob/main/src/resources/Microsoft.Authorization/"
    "policyDefinitions/Deny-MachineLearning-ComputeCluster-RemoteLoginPortPublicAccess.json",
    remediation="Clusters: set properties.remote_login_port_public_access to Disabled. Omitted means "
    "NotSpecified: port 22 is closed when the cluster is in a VNet (subnet set) and open on every node "
    "otherwise, and Azure fixes the result (Enabled or Disabled) at creation, so an explicit Disabled keeps "
    "SSH closed whatever the network. Remove user_account_credentials.admin_user_password (use an SSH "
    "public key, or better no admin account and disableLocalAuth). Instances: set "
    "ssh_settings.ssh_public_access to Disabled or omit it. Matches ALZ "
    "Deny-MachineLearning-ComputeCluster-RemoteLoginPortPublicAccess.",
    check=check,
    fix=fix,
)
