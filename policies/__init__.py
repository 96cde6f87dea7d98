"""The amlkit guardrails policy pack: every rule, as an explicit tuple (no registration by import).

The order is the order of reports and of `amlkit rules`: compute, locks, workspace, general.
"""

from __future__ import annotations

from amlkit.policies.framework import Rule
from amlkit.policies.rules import (
    aml_cluster_idle_scale_down,
    aml_cluster_max_nodes,
    aml_cluster_min_nodes_zero,
    aml_cluster_same_region,
    aml_cluster_ssh_disabled,
    aml_cluster_vm_priority,
    aml_compute_identity,
    aml_compute_instance_idle_shutdown,
    aml_compute_local_auth_disabled,
    aml_compute_network_isolated,
    aml_compute_no_public_ip,
    aml_no_aks_created_through_aml,
)

ALL_RULES: tuple[Rule, ...] = (
    # compute: cost, sizes, identity, access
    aml_cluster_min_nodes_zero.RULE,
    aml_cluster_max_nodes.RULE,
    aml_cluster_idle_scale_down.RULE,
    aml_cluster_vm_priority.RULE,
    aml_compute_identity.RULE,
    aml_cluster_ssh_disabled.RULE,
    aml_compute_no_public_ip.RULE,
    aml_compute_local_auth_disabled.RULE,
    aml_compute_network_isolated.RULE,
    aml_cluster_same_region.RULE,
    aml_compute_instance_idle_shutdown.RULE,
    aml_no_aks_created_through_aml.RULE,
    # locks
    # workspace
    # general
)

__all__ = ["ALL_RULES", "Rule"]
