"""The amlkit guardrails policy pack: every rule, as an explicit tuple (no registration by import).

The order is the order of reports and of `amlkit rules`: compute, locks, workspace, general.
"""

from __future__ import annotations

from amlkit.policies.framework import Rule
from amlkit.policies.rules import (
    aml_attached_compute_unique,
    aml_cluster_idle_scale_down,
    aml_cluster_max_nodes,
    aml_cluster_min_nodes_zero,
    aml_cluster_same_region,
    aml_cluster_ssh_disabled,
    aml_cluster_vm_priority,
    aml_compute_approved_vm_family,
    aml_compute_identity,
    aml_compute_instance_idle_shutdown,
    aml_compute_isolated_size,
    aml_compute_local_auth_disabled,
    aml_compute_network_isolated,
    aml_compute_no_public_ip,
    aml_compute_retired_vm_series,
    aml_compute_vm_series_retiring,
    aml_gpu_cuda_compatible,
    aml_no_aks_created_through_aml,
    aml_no_lock_on_batch_resources,
    aml_no_preview_api_versions,
    aml_no_resource_group_lock,
    aml_quota_budget,
    aml_required_tags,
    aml_workspace_cmk,
    aml_workspace_diagnostics,
    aml_workspace_hbi,
    aml_workspace_managed_network,
    aml_workspace_no_public_access_behind_vnet,
    aml_workspace_public_network_disabled,
    aml_workspace_serverless_no_public_ip,
    aml_workspace_user_assigned_identity,
)

ALL_RULES: tuple[Rule, ...] = (
    # compute: cost, sizes, identity, access
    aml_cluster_min_nodes_zero.RULE,
    aml_cluster_max_nodes.RULE,
    aml_cluster_idle_scale_down.RULE,
    aml_compute_approved_vm_family.RULE,
    aml_compute_retired_vm_series.RULE,
    aml_compute_vm_series_retiring.RULE,
    aml_gpu_cuda_compatible.RULE,
    aml_compute_isolated_size.RULE,
    aml_cluster_vm_priority.RULE,
    aml_compute_identity.RULE,
    aml_cluster_ssh_disabled.RULE,
    aml_compute_no_public_ip.RULE,
    aml_compute_local_auth_disabled.RULE,
    aml_compute_network_isolated.RULE,
    aml_cluster_same_region.RULE,
    aml_compute_instance_idle_shutdown.RULE,
    aml_quota_budget.RULE,
    aml_no_aks_created_through_aml.RULE,
    aml_attached_compute_unique.RULE,
    # locks
    aml_no_resource_group_lock.RULE,
    aml_no_lock_on_batch_resources.RULE,
    # workspace
    aml_workspace_public_network_disabled.RULE,
    aml_workspace_no_public_access_behind_vnet.RULE,
    aml_workspace_managed_network.RULE,
    aml_workspace_serverless_no_public_ip.RULE,
    aml_workspace_cmk.RULE,
    aml_workspace_hbi.RULE,
    aml_workspace_user_assigned_identity.RULE,
    aml_workspace_diagnostics.RULE,
    # general
    aml_required_tags.RULE,
    aml_no_preview_api_versions.RULE,
)



def rule_named(name: str) -> Rule | None:
    """The rule of this pack with that public name, or None (e.g. a policy of another pack)."""
    return next((rule for rule in ALL_RULES if rule.name == name), None)


__all__ = ["ALL_RULES", "Rule", "rule_named"]
