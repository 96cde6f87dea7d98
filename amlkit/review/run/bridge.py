"""What the Terraform bridge plans for an attribute the program left out (the classic `pulumi-azure` provider).

In a preview, the bridge answers `Create` with the Terraform plan's proposed state (pulumi/pulumi-terraform-bridge
`pkg/tfbridge/provider.go` `Create`: `if !req.GetPreview() { p.tf.Apply(...) } else { diff.ProposedState(...) }`,
then `MakeTerraformResult`). Terraform's plan sets an optional attribute the configuration leaves out to its schema
`Default` (terraform-plugin-sdk: the diff of a new resource takes a schema default as the attribute's new value),
and leaves a computed one unknown. The SDK has no schema, but the provider documents each default on the argument
("Defaults to `true`.", from terraform-provider-azurerm's docs: e.g. `node_public_ip_enabled`, `Default: true`,
in `internal/services/machinelearning/machine_learning_compute_cluster_resource.go`), and that sentence is what
`planned_defaults` reads. An attribute without a documented default stays unknown (computed, or null: the SDK
cannot tell them apart, and unknown is never a pass).
"""

from __future__ import annotations

import functools
import importlib
import re
from typing import Any

__all__ = ["planned_defaults"]

_DEFAULT = re.compile(r"Defaults to `([^`]+)`")


@functools.cache
def planned_defaults(resource_class: type) -> dict[str, Any]:
    """Wire name -> the value the bridge plans for each top-level argument of a classic resource with a documented
    scalar default (bool, number or string, as the argument's type takes it)."""
    module = importlib.import_module(resource_class.__module__)
    args = getattr(module, f"{resource_class.__name__}Args", None)
    if not isinstance(args, type):
        return {}
    found = {}
    for prop in vars(args).values():
        wire = getattr(getattr(prop, "fget", None), "_pulumi_name", None)
        documented = _DEFAULT.search(" ".join((getattr(prop, "__doc__", None) or "").split()))
        if isinstance(prop, property) and isinstance(wire, str) and documented:
            value = _value(documented[1], prop.fget.__annotations__.get("return"))
            if value is not None:
                found[wire] = value
    return found


def _value(text: str, hint: Any) -> Any:
    """The documented default as the argument's type reads it; None when it does not read as that type."""
    shown = str(hint)
    if "bool" in shown:
        return {"true": True, "false": False}.get(text)
    if "int" in shown or "float" in shown:
        try:
            return float(text)
        except ValueError:
            return None
    return text if "str" in shown and "Sequence" not in shown and "Mapping" not in shown else None
