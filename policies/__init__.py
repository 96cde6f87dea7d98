"""The amlkit guardrails policy pack: every rule, as an explicit tuple (no registration by import)."""

from __future__ import annotations

from amlkit.policies.framework import Rule
from amlkit.policies.rules import aml_cluster_min_nodes_zero

ALL_RULES: tuple[Rule, ...] = (aml_cluster_min_nodes_zero.RULE,)

__all__ = ["ALL_RULES", "Rule"]
