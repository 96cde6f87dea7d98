"""aml-online-deployment-supported-size: a managed online deployment uses a size managed online endpoints accept.

Fact (azure-ai-docs articles/machine-learning/reference-managed-online-endpoints-vm-sku-list.md): "The following
table shows the virtual machine (VM) stock keeping units (SKUs) that are supported for Azure Machine Learning
managed online endpoints." The catalogue keeps that table as each family's `online_sizes`
(amlkit/data/vm_families.yaml); a size outside it (Standard_D4ds_v5, Standard_ND96isr_H200_v5) cannot be
deployed. The message names the closest listed sizes of the default allowedOnlineSeries: the same kind (CPU or
GPU), then the same category and GPU architecture, then the nearest GPU and vCPU counts.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

from amlkit.policies import catalogue as catalogue_schema
from amlkit.policies.azure import sized_of
from amlkit.policies.framework import Finding, ResourceInput, Rule, must
from amlkit.policies.rules.aml_compute_retired_vm_series import known_size
from amlkit.vmsizes import Catalogue, VmSize, default_online_series, online_sizes

__all__ = ["CLOSEST", "NAME", "RULE", "SOURCE", "check", "closest_listed"]

NAME = "aml-online-deployment-supported-size"
SOURCE = "reference-managed-online-endpoints-vm-sku-list.md"
CLOSEST = 3


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    sized = sized_of(resource.type, resource.name, resource.props)
    if sized is None or sized.deployment is None:
        return
    catalogue = catalogue_schema.catalogue(config, NAME)
    size = known_size(sized.vm_size, catalogue)
    if size is None or size.online_deployable:
        return  # a missing or unknown instanceType is aml-compute-approved-vm-family's finding
    closest = ", ".join(listed.name for listed in closest_listed(size, catalogue))
    found = f"{size.name}, which is not on Azure's managed online endpoints SKU list ({SOURCE}); closest listed: " \
            f"{closest}"
    yield Finding(must(sized.subject, "use a VM size that managed online endpoints support", found))


def closest_listed(size: VmSize, catalogue: Catalogue) -> list[VmSize]:
    """The listed sizes of the default allowedOnlineSeries nearest to `size`, best first."""
    allowed = set(default_online_series(catalogue))
    listed = [s for s in online_sizes(catalogue) if s.family.series in allowed]
    order = {s.name: index for index, s in enumerate(listed)}
    return sorted(listed, key=lambda s: (_distance(size, s), order[s.name]))[:CLOSEST]


def _distance(wanted: VmSize, listed: VmSize) -> tuple[Any, ...]:
    return (
        (wanted.family.gpu_generation is None) != (listed.family.gpu_generation is None),
        wanted.family.category != listed.family.category,
        wanted.family.gpu_generation != listed.family.gpu_generation,
        abs(_gpus(wanted) - _gpus(listed)),
        abs(wanted.quota_vcpus - listed.quota_vcpus),
    )


def _gpus(size: VmSize) -> Fraction:
    return Fraction(size.gpus) if size.gpus else Fraction(0)


RULE = Rule(
    name=NAME,
    ref="AMLK-0037",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.3.0",
    display_name="Online deployment on a supported size",
    group="compute",
    stack_key="size",
    description="A managed online deployment's instanceType must be a VM size on Azure's managed online endpoints "
    f"SKU list ({SOURCE}, kept in the VM catalogue as `online_sizes`): Azure refuses any other size. The message "
    "names the closest listed sizes of the default allowedOnlineSeries. A missing or unknown instanceType is "
    "aml-compute-approved-vm-family's finding.",
    severity="high",
    level="mandatory",
    tags=("reliability", "governance"),
    url="https://learn.microsoft.com/azure/machine-learning/reference-managed-online-endpoints-vm-sku-list",
    remediation="Deploy on a size from the managed online endpoints SKU list (`amlkit sizes --online` lists it, "
    "with the default allowedOnlineSeries marked); sizes for training clusters, such as the v5 and v6 D and E "
    "series, are not offered for managed online endpoints.",
    check=check,
    config={"extraFamilies": catalogue_schema.SCHEMA},
)
