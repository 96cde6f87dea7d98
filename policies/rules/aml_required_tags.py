"""aml-required-tags: taggable resources carry the tags the organisation requires.

Facts: Azure tag keys are case-insensitive (a `CostCenter` tag satisfies `costcenter`); tag values are
strings and an empty value carries nothing. A resource is taggable when its inputs carry `tags`, or
when its type is one Azure tags although the program left `tags` out (`TAGGABLE_TYPES` for azure-native and
`CLASSIC_TAGGABLE_TYPES` for the classic provider, whose resources of these types all take a `tags` argument:
kept as data below, the AML workspace and compute with their dependent resources and network). The required keys
come from config `requiredTags` (empty by default: the rule then checks nothing).

Remediation (level `remediate`): a missing or empty required tag gets its value from config
`defaultTagValues` (tag key -> value; keys case-insensitive like the tags). A required tag without a
configured value is a human choice: it stays a finding.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.policies.azure import is_type
from amlkit.policies.fixes import Fix
from amlkit.policies.framework import Finding, ResourceInput, Rule, azure_policy, must
from amlkit.tokens import type_parts

__all__ = ["CLASSIC_TAGGABLE_TYPES", "RULE", "TAGGABLE_TYPES", "check"]

TAGGABLE_TYPES = (
    "machinelearningservices:Workspace",
    "machinelearningservices:Compute",
    "machinelearningservices:Registry",
    "machinelearningservices:OnlineEndpoint",
    "machinelearningservices:OnlineDeployment",
    "machinelearningservices:BatchEndpoint",
    "storage:StorageAccount",
    "keyvault:Vault",
    "applicationinsights:Component",
    "operationalinsights:Workspace",
    "containerregistry:Registry",
    "resources:ResourceGroup",
    "managedidentity:UserAssignedIdentity",
    "network:VirtualNetwork",
    "network:NetworkSecurityGroup",
    "network:PrivateEndpoint",
    "network:PublicIPAddress",
    "network:NatGateway",
    "network:RouteTable",
    "network:AzureFirewall",
    "network:LoadBalancer",
    "privatedns:PrivateZone",
    "cognitiveservices:Account",
    "search:Service",
)
CLASSIC_TAGGABLE_TYPES = frozenset({
    "azure:machinelearning/workspace:Workspace",
    "azure:machinelearning/computeCluster:ComputeCluster",
    "azure:machinelearning/computeInstance:ComputeInstance",
    "azure:machinelearning/inferenceCluster:InferenceCluster",
    "azure:machinelearning/synapseSpark:SynapseSpark",
    "azure:storage/account:Account",
    "azure:keyvault/keyVault:KeyVault",
    "azure:appinsights/insights:Insights",
    "azure:operationalinsights/analyticsWorkspace:AnalyticsWorkspace",
    "azure:containerservice/registry:Registry",
    "azure:core/resourceGroup:ResourceGroup",
    "azure:authorization/userAssignedIdentity:UserAssignedIdentity",
    "azure:network/virtualNetwork:VirtualNetwork",
    "azure:network/networkSecurityGroup:NetworkSecurityGroup",
    "azure:privatelink/endpoint:Endpoint",
    "azure:network/publicIp:PublicIp",
    "azure:network/natGateway:NatGateway",
    "azure:network/routeTable:RouteTable",
    "azure:network/firewall:Firewall",
    "azure:lb/loadBalancer:LoadBalancer",
    "azure:privatedns/zone:Zone",
    "azure:cognitive/account:Account",
    "azure:search/service:Service",
})
"""The same kinds as the classic provider (pulumi-azure 6.x) names them; each SDK class takes `tags`."""


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    required = _unique(config["requiredTags"])
    if not required or not _taggable(resource):
        return
    missing = _missing(resource, required)
    if missing:
        subject = f"Resource '{resource.name}' ({_short_type(resource.type)})"
        yield Finding(must(subject, f"carry the tags {', '.join(required)}", f"no value for {', '.join(missing)}"))


def fix(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Fix]:
    """Each missing required tag that has a configured default value, under the spelling the resource already
    uses for it (an empty `CostCenter` is filled, not joined by a `costCenter`)."""
    required = _unique(config["requiredTags"])
    if not required or not _taggable(resource):
        return
    defaults = {str(key).lower(): value for key, value in config["defaultTagValues"].items()}
    written = {str(key).lower(): str(key) for key in resource.props.get("tags") or {}}
    for key in _missing(resource, required):
        value = defaults.get(key.lower())
        if isinstance(value, str) and value.strip():
            yield Fix(("tags", written.get(key.lower(), key)), value)


def _missing(resource: ResourceInput, required: list[str]) -> list[str]:
    tags = resource.props.get("tags") or {}
    present = {str(key).lower() for key, value in tags.items() if value is not None and str(value).strip()}
    return [key for key in required if key.lower() not in present]


def _taggable(resource: ResourceInput) -> bool:
    return ("tags" in resource.props or resource.type in CLASSIC_TAGGABLE_TYPES
            or any(is_type(resource.type, kind) for kind in TAGGABLE_TYPES))


def _unique(keys: list[str]) -> list[str]:
    """Required keys without case-insensitive repeats, first spelling kept."""
    seen: dict[str, str] = {}
    for key in keys:
        seen.setdefault(key.lower(), key)
    return list(seen.values())


def _short_type(type_token: str) -> str:
    parts = type_parts(type_token)
    return f"{parts[0]}:{parts[2]}" if parts else type_token


RULE = Rule(
    name="aml-required-tags",
    ref="AMLK-0026",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="Required tags",
    group="general",
    equivalents=(
        azure_policy("871b6d14-10aa-478d-b590-94f262ecfa99", "Require a tag on resources"),
    ),
    description="Taggable resources must carry every tag key in requiredTags, with a non-empty value.",
    severity="low",
    level="advisory",
    tags=("governance", "cost"),
    url="https://learn.microsoft.com/azure/azure-resource-manager/management/tag-resources",
    remediation="Add the missing tags (the stack's tags setting applies them to every resource amlkit "
    "creates); tag keys are case-insensitive, values must not be empty.",
    check=check,
    fix=fix,
    config={
        "requiredTags": {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": 512},
            "description": "Tag keys every taggable resource must carry (case-insensitive).",
            "default": [],
        },
        "defaultTagValues": {
            "type": "object",
            "additionalProperties": {"type": "string", "minLength": 1, "maxLength": 256},
            "description": "The value the remediation (level remediate) gives a missing required tag, by tag key "
            "(case-insensitive); a required tag without one stays a finding. Azure tag values hold at most 256 "
            "characters.",
            "default": {},
        },
    },
)
