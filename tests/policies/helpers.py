"""Shared fixtures for rule tests: a valid happy-path resource per kind, changed one field at a time."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Literal

from amlkit.policies.framework import Finding, ResourceInput, Rule, StackResource

COMPUTE_TYPE = "azure-native:machinelearningservices:Compute"


@dataclass(frozen=True)
class Public:
    """A rule's public interface, pinned as `PUBLIC` in its own test module and checked against the rule by
    tests/policies/test_pack.py: the stable ref (never changed or reused), the name (pack config keys,
    waivers, reports), the default level and the kind (a resource rule sees one resource, a stack rule all)."""

    ref: str
    name: str
    level: Literal["mandatory", "advisory", "disabled"]
    kind: Literal["resource", "stack"]


def cluster_props(**inner: Any) -> dict[str, Any]:
    """A compliant AmlCompute cluster's inputs, wire form; keyword args override `properties.properties`."""
    props: dict[str, Any] = {
        "resourceGroupName": "rg-ml-prod",
        "workspaceName": "mlw-prod",
        "computeName": "cpu-cluster",
        "location": "westeurope",
        "identity": {"type": "SystemAssigned"},
        "properties": {
            "computeType": "AmlCompute",
            "disableLocalAuth": True,
            "properties": {
                "vmSize": "Standard_D4ds_v5",
                "vmPriority": "Dedicated",
                "scaleSettings": {
                    "minNodeCount": 0.0,
                    "maxNodeCount": 4.0,
                    "nodeIdleTimeBeforeScaleDown": "PT120S",
                },
                "enableNodePublicIp": False,
                "remoteLoginPortPublicAccess": "Disabled",
                "subnet": {"id": "/subscriptions/0000/resourceGroups/rg-net/providers/"
                           "Microsoft.Network/virtualNetworks/vnet/subnets/aml"},
            },
        },
    }
    props["properties"]["properties"].update(inner)
    return props


def changed(props: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A deep copy of props with the dotted `path` set to value (or removed when value is DELETE)."""
    result = copy.deepcopy(props)
    *parents, last = path.split(".")
    target = result
    for key in parents:
        target = target.setdefault(key, {})
    if value is DELETE:
        target.pop(last, None)
    else:
        target[last] = value
    return result


DELETE = object()


def messages(rule: Rule, props: dict[str, Any], config: dict[str, Any] | None = None,
             name: str = "cpu-cluster", type_: str = COMPUTE_TYPE) -> list[str]:
    """The messages of `rule` on one resource (a stack rule: on a stack of that one resource)."""
    urn = f"urn:pulumi:prod::amlkit::{type_}::{name}"
    if rule.is_stack_rule:
        return [f.message for f in rule.evaluate_stack([StackResource(type_, name, urn, props)], config)]
    findings: list[Finding] = rule.evaluate(ResourceInput(type_, name, urn, props), config)
    return [f.message for f in findings]
