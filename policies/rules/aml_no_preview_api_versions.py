"""aml-no-preview-api-versions: resources use stable Azure API versions.

Facts (docs/azure-facts.md, "Peer tools"): Pulumi's compliance-policies library has exactly this rule for every
azure-native resource with a preview version ("disallow-preview-resource"; all 349 of its AML rules are
this one). Preview API versions can change or disappear without notice. In azure-native the version is
in the type token: `azure-native:<module>/v20240101preview:<Name>` (2.x versioned modules) and
`azure-native_<module>_v20240101preview:<module>:<Name>` (3.x, `pulumi package add azure-native <module>
<version>`) are previews, while `azure-native:<module>:<Name>` (the default version) and dated stable
versions are fine. Any
azure-native module counts, not only machinelearningservices.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.policies.framework import Finding, ResourceInput, Rule, must
from amlkit.tokens import type_parts

__all__ = ["RULE", "check"]


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    parts = type_parts(resource.type)
    if parts is None or parts[1] is None or "preview" not in parts[1].lower():
        return
    module, _, name = parts
    expectation = f"use a stable API version (azure-native:{module}:{name})"
    yield Finding(must(f"Resource '{resource.name}'", expectation, resource.type))


RULE = Rule(
    name="aml-no-preview-api-versions",
    ref="AMLK-0027",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="No preview API versions",
    group="general",
    description="Resources must not use a preview Azure API version (azure-native:<module>/v<date>preview:<Name>).",
    severity="medium",
    level="advisory",
    tags=("reliability", "governance"),
    url="https://github.com/pulumi/compliance-policies/tree/main/vendor-azure/azurenative",
    remediation="Import the resource from the module's default version (e.g. pulumi_azure_native."
    "machinelearningservices) or a dated stable version instead of a v<date>preview module.",
    check=check,
)
