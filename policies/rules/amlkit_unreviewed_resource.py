"""amlkit-unreviewed-resource: every resource the pack is about is reviewed, or reported.

The rules read a provider-neutral view (amlkit.policies.azure), which maps azure-native (3.x, and the
explicit-version tokens that carry the 2.x shape) and the classic provider pulumi-azure 6.x. A resource of an
ML-relevant type that no view maps (another provider's ML workspace or compute, an azure-native 1.x type, a
classic ML type without a view, a compute with no or an unknown computeType whose properties say neither
instance nor cluster, an ARM ML type through the generic azapi provider) would otherwise pass every rule
unread: a silent pass on exactly the resources the pack is about. So it is a violation, mandatory by
default: the review never says clean about what it did not read.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.policies.azure import unmapped
from amlkit.policies.framework import Finding, ResourceInput, Rule, must

__all__ = ["EXPECTATION", "RULE", "check"]

EXPECTATION = "be of a type and shape amlkit's rules read, or it is not reviewed at all"


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    why = unmapped(resource.type, resource.props)
    if why is not None:
        yield Finding(must(f"Resource '{resource.name}' ({resource.type})", EXPECTATION, why))


RULE = Rule(
    name="amlkit-unreviewed-resource",
    ref="AMLK-0032",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.2.0",
    display_name="Every ML resource is reviewed",
    group="general",
    description="Every resource of an ML-relevant type (any provider's ML workspace, compute, cluster, instance, "
    "attached compute, inference cluster, Spark pool, online deployment or management lock) must be one the "
    "rules can read: azure-native 3.x (explicit-version tokens included) or the classic pulumi-azure 6.x "
    "provider's mapped types, and a compute must have a known computeType (or properties that say instance or "
    "cluster). Anything else is reported with its type and why, instead of passing every rule unread.",
    severity="high",
    level="mandatory",
    tags=("governance",),
    url="https://www.pulumi.com/registry/packages/azure-native/api-docs/machinelearningservices/compute/",
    remediation="Declare the resource with azure-native 3.x or pulumi-azure 6.x (docs/review.md, \"Providers and "
    "versions\"); give a machinelearningservices:Compute its properties.computeType (AmlCompute, "
    "ComputeInstance, Kubernetes...). If the resource is deliberately outside amlkit's review, waive this "
    "policy for it with the reason, so the gap stays visible in every report.",
    check=check,
)
