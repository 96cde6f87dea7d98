"""aml-gpu-cuda-compatible: GPU sizes must run the platform's CUDA version.

Off unless configured: without `cudaVersion` the rule checks nothing (its level stays mandatory, so setting
`cudaVersion` alone turns it on; `enforcementLevel: disabled` turns it off as for any rule).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.errors import ConfigError
from amlkit.policies import catalogue as catalogue_schema
from amlkit.policies.azure import sized_of
from amlkit.policies.framework import Finding, ResourceInput, Rule, must
from amlkit.policies.rules.aml_compute_retired_vm_series import known_size
from amlkit.vmsizes import VmSize, cuda_tuple, gpu_architecture, min_cuda

__all__ = ["NAME", "PATTERN", "RULE", "check", "cuda_version", "incompatibility"]

NAME = "aml-gpu-cuda-compatible"
PATTERN = r"^\d+\.\d+$"


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    cuda = cuda_version(config)
    if cuda is None:
        return
    sized = sized_of(resource.type, resource.name, resource.props)
    if sized is None:
        return
    size = known_size(sized.vm_size, catalogue_schema.catalogue(config, NAME))
    if size is None or size.family.gpu_generation is None:
        return
    problem = incompatibility(size, cuda)
    if problem:
        yield Finding(must(sized.subject, f"use a GPU that CUDA {cuda} supports",
                           f"{size.name} ({size.family.gpu_model or size.family.series}, {problem})"))


def incompatibility(size: VmSize, cuda: str) -> str | None:
    """Why `cuda` cannot drive the size's GPU, or None when it can."""
    arch = gpu_architecture(size.family.gpu_generation)  # type: ignore[arg-type]
    if arch.cuda_min is None:
        return f"an {arch.vendor} {arch.name} GPU, which CUDA does not support"
    needed = min_cuda(size) or arch.cuda_min  # a family whose GPU needs more than its architecture's first
    if cuda_tuple(cuda) < cuda_tuple(needed):
        return f"{arch.name}, which needs CUDA {needed} or later"
    if arch.cuda_dropped_in and cuda_tuple(cuda) >= cuda_tuple(arch.cuda_dropped_in):
        return f"{arch.name}, which CUDA {arch.cuda_dropped_in} dropped"
    return None


def cuda_version(config: Mapping[str, Any]) -> str | None:
    raw = config.get("cudaVersion")
    if raw is None:
        return None
    if not isinstance(raw, str) or re.fullmatch(PATTERN, raw) is None:
        raise ConfigError(None, f"{NAME}.cudaVersion", "expected a CUDA version such as '12.4'", raw)
    return raw


RULE = Rule(
    name=NAME,
    ref="AMLK-0029",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="GPU architecture supported by the CUDA version",
    group="compute",
    description="When cudaVersion (the CUDA version of the platform's training images) is configured, GPU "
    "clusters, instances and managed online deployments must use a size whose GPU architecture that CUDA "
    f"supports: {catalogue_schema.cuda_text()}, and not an AMD GPU (per the amlkit VM catalogue). Off unless "
    "cudaVersion is set.",
    severity="medium",
    level="mandatory",
    tags=("reliability", "governance"),
    url="https://docs.nvidia.com/datacenter/tesla/drivers/cuda-toolkit-driver-and-architecture-matrix.html",
    remediation="Pick a GPU size whose architecture your CUDA version supports (`amlkit sizes --gpu` lists "
    "each size's minimum CUDA), or rebuild the training images on a CUDA version that supports the GPU.",
    check=check,
    config={
        "cudaVersion": {
            "type": "string",
            "pattern": PATTERN,
            "description": "CUDA version of the platform's training images, e.g. '12.4'. Unset: the rule is off.",
        },
        "extraFamilies": catalogue_schema.SCHEMA,
    },
)
