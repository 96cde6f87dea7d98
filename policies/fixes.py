"""Remediations: what a rule sets on a resource so that it passes, when its level is `remediate`.

A rule whose fix is unambiguous and safe (one value makes the resource compliant, and it needs no human
choice) carries a `fix` next to its `check`: a pure function of (resource, config) giving the properties to
set, as `Fix` entries (a key path in the resource's inputs, engine form, and the new value). Rules whose fix
needs a human choice (a VM size, a region, a quota, an identity kind, locks, networks) have none.

The edge (`amlkit.policies.remediate`) turns it into pulumi-policy's `remediate` callback: asked only when
the policy's level is `remediate` (pulumi-policy `policy.py`, `_PolicyAnalyzerServicer.Remediate`), it runs
the rule's check first and sets the fix only when the check reports a live (not waived, not unknown)
finding, then returns the whole property map, as pulumi-policy's contract asks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from amlkit.policies.framework import Fix, ResourceFix

if TYPE_CHECKING:
    from amlkit.policies.azure import ComputeView

__all__ = ["Fix", "ResourceFix", "compute_fix"]  # Fix and ResourceFix: the rule model's (framework)


def compute_fix(compute: ComputeView, native: str, value: Any, classic: str | None = None,
                classic_value: Any = None) -> Fix | None:
    """The fix of one compute setting in the provider's own shape: `native` is the azure-native path
    (`azure_facts`' dotted wire paths) taking `value`; `classic` the pulumi-azure input taking `classic_value`
    (None: the same value), or None where the classic provider has no input for it (nothing to set then)."""
    from amlkit.policies.azure import CLASSIC

    if compute.provider != CLASSIC:
        return Fix(tuple(native.split(".")), value)
    if classic is None:
        return None
    return Fix(tuple(classic.split(".")), value if classic_value is None else classic_value)
