"""aml-workspace-serverless-no-public-ip: serverless compute nodes get no public IP.

Facts (domain.md, "Serverless compute" and workspace settings): the infrastructure side of serverless
jobs is the workspace's `serverlessComputeSettings`; `serverlessComputeNoPublicIP` omitted means false,
so serverless nodes get public IPs unless it is explicitly true. No scanner checks this.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.policies.azure import WORKSPACE, WorkspaceView, is_type
from amlkit.policies.framework import Finding, ResourceInput, Rule, must


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    if not is_type(resource.type, WORKSPACE):
        return
    if not WorkspaceView(resource.props).serverless_no_public_ip:
        expectation = "have serverlessComputeSettings.serverlessComputeNoPublicIP true"
        yield Finding(must(f"Workspace '{resource.name}'", expectation, "false"))


RULE = Rule(
    name="aml-workspace-serverless-no-public-ip",
    description="Workspaces must run serverless compute without public IPs "
    "(serverlessComputeSettings.serverlessComputeNoPublicIP = true).",
    severity="medium",
    level="advisory",
    tags=("security", "network"),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-use-serverless-compute",
    remediation="Set serverless_compute_settings.serverless_compute_no_public_ip to true (with a managed "
    "network or serverless_compute_custom_subnet providing outbound access).",
    check=check,
)
