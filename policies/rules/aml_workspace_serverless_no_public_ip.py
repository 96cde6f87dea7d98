"""aml-workspace-serverless-no-public-ip: serverless compute in a custom subnet gets no public IP.

Facts and scope (checked against the sources):
- `serverlessComputeNoPublicIP` is "the flag to signal if serverless compute nodes deployed in custom
  vNet would have no public IP addresses for a workspace with private endpoint" (ARM schema, as shipped
  in pulumi-azure-native 3.29 machinelearningservices/_inputs.py, ServerlessComputeSettingsArgs).
  Omitted means false.
- The Azure ML docs configure it together with `serverlessComputeCustomSubnet`, on a workspace that
  uses a private endpoint, and say the no-public-IP settings are "only valid when using an Azure
  Virtual Network": with a managed virtual network, compute is not deployed in your VNet
  (MicrosoftDocs/azure-ai-docs, articles/machine-learning/how-to-secure-training-vnet.md, "Compute
  instance/cluster or serverless compute with no public IP").

So the rule applies only to a workspace without a managed network (isolationMode omitted or Disabled)
that puts serverless compute in a custom subnet. A managed-network workspace is not checked (its
managed network isolates serverless compute; aml-workspace-managed-network governs it), nor is a
workspace without a custom subnet (the flag has no effect there; such serverless compute is outside
any customer network, which aml-workspace-managed-network reports). The rule does not look for the
workspace's private endpoint: no-public-IP nodes reach the workspace only through one, which the
remediation says.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit import azure_facts as facts
from amlkit.policies.azure import same_value, workspace_view
from amlkit.policies.framework import Finding, ResourceInput, Rule, as_written, must

__all__ = ["EXPECTATION", "RULE", "check"]

EXPECTATION = ("have serverlessComputeSettings.serverlessComputeNoPublicIP true for serverless compute in its "
               "custom subnet")


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    workspace = workspace_view(resource.type, resource.props)
    if workspace is None:
        return
    managed = not same_value(workspace.managed_network_isolation_mode, facts.MANAGED_NETWORK_ISOLATION_DEFAULT)
    if managed or not workspace.serverless_custom_subnet:
        return
    given = workspace.serverless_no_public_ip_given
    if given is not True:
        found = as_written(given, facts.SERVERLESS_NO_PUBLIC_IP_DEFAULT)
        yield Finding(must(f"Workspace '{resource.name}'", EXPECTATION, found))


RULE = Rule(
    name="aml-workspace-serverless-no-public-ip",
    ref="AMLK-0021",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="Serverless compute without public IP",
    group="workspace",
    stack_key="serverless_compute",
    description="A workspace without a managed network that runs serverless compute in a custom subnet "
    "(serverlessComputeSettings.serverlessComputeCustomSubnet) must set serverlessComputeNoPublicIP to true "
    "(omitted means false). Managed-network workspaces and workspaces without a custom subnet are not checked.",
    severity="medium",
    level="advisory",
    tags=("security", "network"),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-secure-training-vnet"
    "#compute-instancecluster-or-serverless-compute-with-no-public-ip",
    remediation="Set serverless_compute_settings.serverless_compute_no_public_ip to true (stack: "
    "serverless_compute.no_public_ip: true). The workspace needs a private endpoint in that VNet and the "
    "subnet needs outbound access to the Azure ML dependencies (AzureMachineLearning, "
    "BatchNodeManagement.<region>, Storage.<region>), e.g. through a NAT gateway or firewall. With a "
    "managed network instead, the setting does not apply.",
    check=check,
)
