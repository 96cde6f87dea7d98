"""aml-cluster-vm-priority: clusters use an allowed VM priority (Dedicated or LowPriority)."""

from __future__ import annotations

from collections.abc import Sequence

from amlkit import azure_facts as facts
from amlkit.policies.azure import CLUSTER
from amlkit.policies.framework import Rule
from amlkit.policies.value_check import ValueCheck, compute_check

__all__ = ["PRIORITIES", "RULE", "check"]

PRIORITIES = facts.VM_PRIORITIES


def _expectation(allowed: Sequence[str]) -> str:
    if not allowed:
        return "have an allowed vmPriority (allowedPriorities is empty)"
    return f"have vmPriority {allowed[0] if len(allowed) == 1 else 'one of ' + ', '.join(allowed)}"


check = compute_check(CLUSTER, ValueCheck(
    read=lambda compute: compute.vm_priority, one_of="allowedPriorities", expectation=_expectation))


RULE = Rule(
    name="aml-cluster-vm-priority",
    ref="AMLK-0006",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="Allowed VM priorities",
    group="compute",
    stack_key="tier",
    description="AmlCompute clusters must use an allowed VM priority (allowedPriorities, default Dedicated "
    "and LowPriority). Omitted means Dedicated.",
    severity="medium",
    level="mandatory",
    tags=("cost", "reliability"),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-use-low-priority-batch",
    remediation="Set properties.vm_priority (stack: tier) to an allowed priority. LowPriority nodes are "
    "cheaper but can be evicted at any time, have no SLA, use a separate regional low-priority core quota and "
    "cap jobs at 7 days: allow them only where jobs checkpoint (e.g. dev), and only Dedicated for production "
    "deadlines.",
    check=check,
    config={
        "allowedPriorities": {
            "type": "array",
            "items": {"type": "string", "enum": list(PRIORITIES)},
            "uniqueItems": True,
            "minItems": 1,
            "default": list(PRIORITIES),
            "description": "VM priorities clusters may use: Dedicated and/or LowPriority.",
        },
    },
)
