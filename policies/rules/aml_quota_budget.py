"""aml-quota-budget: the stack's worst-case compute fits the subscription's quotas, per region.

Worst case per resource: a cluster at maxNodeCount nodes, an instance as one node, each node taking
its size's quota vCPUs: a constrained-vCPU size (Standard_E8-2s_v5) takes its base size's (8), "the total vCPUs of
quota that the VM uses" (VirtualMachineSize.numberOfCores, Azure Compute REST API; constrained-vcpu.md).
Dedicated cores add up per region and quota family (clusters and instances share them), low-priority cores per
region.

The regional compute limit counts compute RESOURCES, not nodes (MicrosoftDocs/azure-ai-docs,
articles/machine-learning/how-to-manage-quotas.md, "Azure Machine Learning Compute"): "Total compute
limit per region has a default limit of 500 per region ... up to a maximum value of 2,500 per region.
This limit is shared between training clusters, compute instances, and managed online endpoint
deployments. A compute instance is considered a single-node cluster for quota purposes." So each
AmlCompute cluster (whatever its maxNodeCount), each compute instance and each managed online deployment
(`machinelearningservices:OnlineDeployment` with endpointComputeType Managed) counts once in its region.
Kubernetes online deployments and attached computes do not count.

A compute's region is its `computeLocation`, else its `location`, else its workspace's `location` when the
workspace is in the stack: "The location for the compute. If omitted, defaults to the workspace location"
(MicrosoftDocs/azure-ai-docs articles/machine-learning/reference-yaml-compute-aml.md).

Managed online deployments also take dedicated cores of their instance type's family (since 0.2.0, config
`onlineDeploymentCores`): Azure reserves 20% extra for upgrades, so a deployment of n instances needs
`ceil(1.2 * n) * cores of the VM size` (azure-ai-docs articles/machine-learning/includes/
quota-allocation-online-deployment.md). The sizes whose "Skip 20% Reservation" column is Yes in azure-ai-docs
articles/machine-learning/reference-managed-online-endpoints-vm-sku-list.md (the A100 and H100 NC sizes,
ND96asr_v4, ND96amsr_A100_v4, ND40rs_v2, ND96is(r)_H100_v5; the catalogue's `skip_online_reserve`) take no
reserve: `n * cores`, and the message says so. n is `sku.capacity` (Azure's default 1), or
`scaleSettings.maxInstances` when target-utilization autoscaling may go higher.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from amlkit import azure_facts as facts
from amlkit import regions
from amlkit.errors import ConfigError, UnknownVmSize
from amlkit.policies.azure import (
    MANAGED,
    ComputeView,
    compute_of,
    compute_subject,
    deployment_view,
    region_key,
    same_value,
    workspace_props,
)
from amlkit.policies.framework import Change, Finding, Rule, StackResource, must
from amlkit.policies.links import Workspaces, workspace_of, workspaces_by_key
from amlkit.vmsizes import (
    VmSize,
    family_by_quota_family,
    family_by_series,
    parse_vm_size,
    quota_family_name,
    quota_key,
)

__all__ = [
    "Budget", "Counted", "DEFAULT_COMPUTE_LIMIT", "Demand", "MAX_COMPUTE_LIMIT", "NAME", "RENAMED", "RULE",
    "UPGRADE_RESERVE", "check_stack", "compute_limit_breaches", "dedicated_breaches", "demand_of", "deployment_demand",
    "low_priority_breaches", "managed_deployment", "read_budget",
]

NAME = "aml-quota-budget"
DEFAULT_COMPUTE_LIMIT = facts.REGIONAL_COMPUTE_LIMIT_DEFAULT
MAX_COMPUTE_LIMIT = facts.REGIONAL_COMPUTE_LIMIT_MAX
RENAMED = {"regionalNodeLimit": "regionalComputeLimit"}


@dataclass(frozen=True)
class Demand:
    """One compute's worst case: `nodes` nodes of `size` (None when the size is missing or unknown)."""

    name: str
    urn: str
    region: str
    nodes: int
    size: VmSize | None
    low_priority: bool
    requested: int | None = None
    """A managed online deployment's requested instances (`nodes` is then ceil(1.2 x requested), or `requested`
    for a size without the upgrade reserve)."""

    @property
    def cores(self) -> int:
        return self.nodes * self.size.quota_vcpus if self.size else 0


@dataclass(frozen=True)
class Counted:
    """One compute resource counted against the regional compute limit."""

    name: str
    urn: str
    region: str
    kind: str


@dataclass(frozen=True)
class Budget:
    """The validated config: dedicated cores per region and family, low-priority cores, compute limit."""

    core_quota: Mapping[str, Mapping[str, int]]  # region -> quota key (`_quota_of`) -> cores
    default_core_quota: int | None
    low_priority_core_quota: Mapping[str, int]
    regional_compute_limit: int

    def dedicated_limit(self, region: str, quota: str) -> int | None:
        return self.core_quota.get(region, {}).get(quota, self.default_core_quota)


def check_stack(resources: Sequence[StackResource], config: Mapping[str, Any]) -> Iterator[Finding]:
    budget = read_budget(config)
    demands: list[Demand] = []
    counted: list[Counted] = []
    workspaces = workspaces_by_key(resources)
    for resource in resources:
        compute = compute_of(resource.type, resource.props, MANAGED)
        if compute is None:
            deployment, problem = managed_deployment(resource)
            if problem:
                yield Finding(problem, resource.urn)
            if deployment is not None:
                counted.append(deployment)
                if config.get("onlineDeploymentCores", True):
                    demand, problems = deployment_demand(resource, deployment.region)
                    yield from (Finding(problem, resource.urn) for problem in problems)
                    if demand is not None:
                        demands.append(demand)
            continue
        demand, problems = demand_of(resource, compute,
                                     None if compute.location else _workspace_location(resource, workspaces))
        yield from (Finding(problem, resource.urn) for problem in problems)
        if demand is not None:
            kind = "compute instance" if compute.is_instance else "AmlCompute cluster"
            counted.append(Counted(resource.name, resource.urn, demand.region, kind))
            if demand.nodes > 0:
                demands.append(demand)
    yield from dedicated_breaches(demands, budget)
    yield from low_priority_breaches(demands, budget)
    yield from compute_limit_breaches(counted, budget)


def managed_deployment(resource: StackResource) -> tuple[Counted | None, str | None]:
    """A managed online deployment as one counted compute resource (None for anything else)."""
    deployment = deployment_view(resource.type, resource.props)
    if deployment is None or not deployment.is_managed:
        return None, None
    location = deployment.location
    subject = f"Managed online deployment '{resource.name}'"
    if not location:
        return None, must(subject, "set location so its quota region is known", "none")
    return Counted(resource.name, resource.urn, region_key(location), "managed online deployment"), None


UPGRADE_RESERVE = 1.2
"""Managed online deployments reserve quota for ceil(1.2 x instances) (quota-allocation-online-deployment.md),
except on the sizes that skip the reserve (`VmSize.skips_online_reserve`)."""


def deployment_demand(resource: StackResource, region: str) -> tuple[Demand | None, list[str]]:
    """A managed online deployment's reserved cores: ceil(1.2 x instances) nodes of its instance type (instances
    nodes for a size without the upgrade reserve)."""
    deployment = deployment_view(resource.type, resource.props)
    assert deployment is not None
    subject = f"Managed online deployment '{resource.name}'"
    requested = deployment.instance_count or 1
    if same_value(deployment.scale_type, "TargetUtilization") and deployment.max_instances:
        requested = max(requested, deployment.max_instances)
    raw = deployment.instance_type
    if raw is None:
        return None, [must(subject, "set instanceType so its cores can be counted against quota", "none")]
    try:
        size = parse_vm_size(raw)
    except UnknownVmSize:
        expectation = "use a known Azure VM size so its cores can be counted against quota"
        return None, [must(subject, expectation, f"{raw!r}, which is not a known Azure VM size name")]
    nodes = requested if size.skips_online_reserve else math.ceil(UPGRADE_RESERVE * requested - 1e-9)
    return Demand(resource.name, resource.urn, region, nodes, size, False, requested), []


def _workspace_location(resource: StackResource, workspaces: Workspaces) -> str | None:
    """The location of the compute's workspace when the workspace is in the stack (Azure's default region)."""
    workspace = workspace_of(resource, workspaces)
    return workspace_props(workspace).location if workspace is not None else None


def demand_of(resource: StackResource, compute: ComputeView,
              workspace_location: str | None = None) -> tuple[Demand | None, list[str]]:
    """The compute's worst case, and what stops it from being counted in full (reported, never skipped)."""
    subject = compute_subject(resource.name, compute)
    location = compute.location or workspace_location
    if not location:
        expectation = ("set location (or computeLocation), or belong to a workspace of this stack that sets one, so "
                       "its quota region is known")
        return None, [must(subject, expectation, "none")]
    region = region_key(location)
    nodes = 1 if compute.is_instance else compute.max_nodes
    if nodes is None:
        problem = must(subject, "set scaleSettings.maxNodeCount so its quota can be checked", "none")
        return Demand(resource.name, resource.urn, region, 0, None, False), [problem]
    problems = []
    size = None
    raw = compute.vm_size
    if raw is None:
        problems.append(must(subject, "set vmSize so its cores can be counted against quota", "none"))
    else:
        try:
            size = parse_vm_size(raw)
        except UnknownVmSize:
            expectation = "use a known Azure VM size so its cores can be counted against quota"
            problems.append(must(subject, expectation, f"{raw!r}, which is not a known Azure VM size name"))
    low_priority = compute.is_cluster and same_value(compute.vm_priority, facts.VM_PRIORITIES[1])
    return Demand(resource.name, resource.urn, region, nodes, size, low_priority), problems


# --- breaches -----------------------------------------------------------------------------------------


def dedicated_breaches(demands: Iterable[Demand], budget: Budget) -> Iterator[Finding]:
    counted = [d for d in demands if d.size is not None and not d.low_priority]
    groups = _group(counted, lambda d: (d.region, _quota_of(d.size)))
    for (region, quota), members in sorted(groups.items(), key=lambda g: (g[0][0], _quota_name(g[1][0].size))):
        limit = budget.dedicated_limit(region, quota)
        size = members[0].size
        subject = f"Dedicated {_quota_name(size)} ({size.family.series}) cores in {region}"
        yield from _breach(subject, f"fit the core quota of {limit}", limit, members, lambda d: d.cores, _cores)


def _quota_of(size: VmSize) -> str:
    """The quota a size's cores count against: its quota family (the size's own, e.g. an isolated size's, else its
    series'), folded (`_quota`)."""
    return _quota(size.quota_family, size.family.series)


def _quota(quota_family: str | None, series: str) -> str:
    """A quota family, folded; a series whose quota family no source read publishes is a quota of its own."""
    return quota_key(quota_family) if quota_family else f"series {series}"


def _quota_name(size: VmSize) -> str:
    """The size's quota family, or a placeholder for the families whose quota family no source read publishes."""
    return size.quota_family or "quota family unknown"


def low_priority_breaches(demands: Iterable[Demand], budget: Budget) -> Iterator[Finding]:
    groups = _group([d for d in demands if d.size is not None and d.low_priority], lambda d: d.region)
    for region, members in sorted(groups.items()):
        limit = budget.low_priority_core_quota.get(region)
        expectation = f"fit the low-priority core quota of {limit}"
        yield from _breach(f"Low-priority cores in {region}", expectation, limit, members, lambda d: d.cores, _cores)


def compute_limit_breaches(counted: Iterable[Counted], budget: Budget) -> Iterator[Finding]:
    """Clusters, instances and managed online deployments per region against the regional compute limit."""
    limit = budget.regional_compute_limit
    for region, members in sorted(_group(counted, lambda c: c.region).items()):
        if len(members) <= limit:
            continue
        ranked = sorted(members, key=lambda c: c.name)
        found = f"{len(members)}: " + ", ".join(f"{c.name} ({c.kind})" for c in ranked)
        expectation = (f"fit the regional compute limit of {limit} (each cluster, compute instance and managed "
                       "online deployment counts once, whatever its node count)")
        yield Finding(must(f"Compute resources in {region}", expectation, found), ranked[0].urn)


def _breach(subject: str, expectation: str, limit: int | None, members: list[Demand],
            amount: Callable[[Demand], int], describe: Callable[[Demand], str]) -> Iterator[Finding]:
    """One finding when the members' total exceeds `limit`, at the URN of the largest contributor."""
    total = sum(amount(d) for d in members)
    if limit is None or total <= limit:
        return
    ranked = sorted(members, key=lambda d: (-amount(d), d.name))
    found = f"{total}: " + ", ".join(describe(d) for d in ranked)
    yield Finding(must(subject, expectation, found), ranked[0].urn)


def _cores(demand: Demand) -> str:
    vcpus = _vcpus(demand.size)
    if demand.requested is not None and demand.size is not None and demand.size.skips_online_reserve:
        return (f"{demand.name} {_plural(demand.requested, 'instance')} (no upgrade reserve for {demand.size.name}) "
                f"x {vcpus} = {demand.cores}")
    if demand.requested is not None:
        return (f"{demand.name} ceil(1.2 x {_plural(demand.requested, 'instance')}) = {demand.nodes} x {vcpus} "
                f"= {demand.cores}")
    return f"{demand.name} {_plural(demand.nodes, 'node')} x {vcpus} = {demand.cores}"


def _vcpus(size: VmSize | None) -> str:
    """The vCPUs a VM of `size` takes from quota: a constrained size's base size's, with its active ones named."""
    if size is None:
        return "0 vCPUs"
    if size.quota_vcpus != size.vcpus:
        return f"{size.quota_vcpus} vCPUs (constrained {size.name}: {size.vcpus} active)"
    return f"{size.vcpus} vCPUs"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _group(items: Iterable[Any], key: Callable[[Any], Hashable]) -> dict[Any, list[Any]]:
    groups: dict[Any, list[Any]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return groups


# --- config -----------------------------------------------------------------------------------------------


def read_budget(config: Mapping[str, Any]) -> Budget:
    """The rule's config, validated; anything malformed raises `ConfigError` naming the key path."""
    for old, new in RENAMED.items():
        if old in config:
            problem = (f"renamed to {new}: Azure's regional limit counts compute resources (clusters, compute "
                       "instances, managed online deployments), not nodes")
            raise ConfigError(None, f"{NAME}.{old}", problem, config[old])
    default = config.get("defaultCoreQuota")
    extra = _extra_regions(config.get("extraRegions", []))
    return Budget(
        core_quota=_core_quota(config.get("coreQuota", {}), extra),
        default_core_quota=None if default is None else _count(f"{NAME}.defaultCoreQuota", default),
        low_priority_core_quota=_per_region(f"{NAME}.lowPriorityCoreQuota", config.get("lowPriorityCoreQuota", {}),
                                            extra),
        regional_compute_limit=_count(f"{NAME}.regionalComputeLimit",
                                      config.get("regionalComputeLimit", DEFAULT_COMPUTE_LIMIT),
                                      minimum=1, maximum=MAX_COMPUTE_LIMIT),
    )


def _extra_regions(raw: Any) -> tuple[str, ...]:
    if not isinstance(raw, list):
        raise ConfigError(None, f"{NAME}.extraRegions", f"got {raw!r}; allowed: a list of region names", raw)
    for index, name in enumerate(raw):
        problem = regions.extra_problem(name)
        if problem is not None:
            raise ConfigError(None, f"{NAME}.extraRegions[{index}]", problem, name)
    return tuple(raw)


def _core_quota(raw: Any, extra: tuple[str, ...]) -> dict[str, dict[str, int]]:
    path = f"{NAME}.coreQuota"
    quota: dict[str, dict[str, int]] = {}
    for region, families in _regions(path, raw, extra).items():
        region_path = f"{path}.{region}"
        if not isinstance(families, Mapping):
            raise ConfigError(None, region_path, "expected a map of VM series or quota family -> cores", families)
        limits: dict[str, int] = {}
        for key, cores in families.items():
            limited, name = _quota_key(f"{region_path}.{key}", key)
            if limited in limits:
                raise ConfigError(None, f"{region_path}.{key}", f"{name} is given twice in this region")
            limits[limited] = _count(f"{region_path}.{key}", cores)
        quota[region_key(region)] = limits
    return quota


def _per_region(path: str, raw: Any, extra: tuple[str, ...]) -> dict[str, int]:
    return {region_key(region): _count(f"{path}.{region}", cores)
            for region, cores in _regions(path, raw, extra).items()}


def _regions(path: str, raw: Any, extra: tuple[str, ...]) -> Mapping[str, Any]:
    """A map keyed by region names Azure knows (or `extraRegions` adds): a misspelt key would limit nothing."""
    if not isinstance(raw, Mapping):
        raise ConfigError(None, path, "expected a map keyed by region (e.g. westeurope)", raw)
    seen: dict[str, str] = {}
    for region in raw:
        key = region_key(region) if isinstance(region, str) else ""
        if not key:
            raise ConfigError(None, path, f"{region!r} is not a region name", region)
        if key in seen:
            raise ConfigError(None, f"{path}.{region}", f"the same region as {seen[key]!r}", region)
        problem = regions.region_problem(key, extra, f"{NAME}.extraRegions")
        if problem is not None:
            raise ConfigError(None, f"{path}.{region}", problem, region)
        seen[key] = region
    return raw


def _quota_key(path: str, key: Any) -> tuple[str, str]:
    """A coreQuota key as the quota it limits (`_quota_of`) and its name: a series stands for its series' quota
    family (not the quota families of its sizes that have their own, such as isolated sizes), named by the series;
    a series' quota family likewise; a size's own quota family for itself."""
    for lookup in (family_by_series, family_by_quota_family):
        try:
            family = lookup(key)
        except UnknownVmSize:
            continue
        return _quota(family.quota_family, family.series), family.series
    quota = quota_family_name(key)
    if quota is not None:
        return quota_key(quota), quota
    problem = (f"unknown VM series or quota family {key!r}; use a series such as DSv2 or a quota family "
               "such as standardDSv2Family")
    raise ConfigError(None, path, problem, key)


def _count(path: str, value: Any, minimum: int = 0, maximum: int | None = None) -> int:
    """A whole number in [minimum, maximum]; integral floats (the wire form of config numbers) are accepted."""
    whole = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    too_big = maximum is not None and whole and value > maximum
    if isinstance(value, bool) or not whole or value < minimum or too_big:
        bounds = f"at least {minimum}" + (f" and at most {maximum}" if maximum is not None else "")
        raise ConfigError(None, path, f"expected a whole number, {bounds}; got {value!r}", value)
    return int(value)


_CORES_BY_REGION = {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}}

RULE = Rule(
    name=NAME,
    ref="AMLK-0014",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="Core quota budget",
    group="compute",
    description="The worst-case cores of the stack's AmlCompute clusters (maxNodeCount x vCPUs; a constrained-vCPU "
    "size counts its base size's vCPUs, all charged to quota), "
    "compute instances (1 node) and managed online deployments (ceil(1.2 x instances) x vCPUs; instances x vCPUs "
    "on the sizes Azure exempts from the 20% upgrade reserve) must fit the "
    "configured quotas per region: dedicated cores per VM family "
    "(coreQuota) and low-priority cores (lowPriorityCoreQuota); and the number of compute resources per region "
    "(clusters, instances and managed online deployments, each counted once) must fit regionalComputeLimit. A "
    "compute's region is its computeLocation, else its location, else its workspace's location (Azure's default) "
    "when the workspace is in the stack.",
    severity="medium",
    level="advisory",
    tags=("cost", "reliability"),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-manage-quotas",
    remediation="Lower maxNodeCount, move a compute to a family or region with headroom, or request more "
    "quota (`az vm list-usage --location <region>` shows the family limits; GPU and specialised families "
    "start at zero). Record the granted quotas in this rule's coreQuota / lowPriorityCoreQuota config so "
    "the review keeps them in sync with the stack. Compute instances and serverless jobs share the same "
    "dedicated quota. The regional compute limit (default 500, up to 2,500 on request) counts clusters, "
    "instances and managed online deployments, not nodes: merge or remove computes, or request an increase.",
    check_stack=check_stack,
    changed=(Change("0.2.0", "Managed online deployments' reserved cores, ceil(1.2 x instances) x vCPUs of their "
                    "instance type, count against the dedicated core quotas (quota-allocation-online-deployment.md).",
                    config={"onlineDeploymentCores": False}),
             Change("0.3.0", "A constrained-vCPU size counts its base size's vCPUs (Standard_E8-2s_v5: 8, not 2): "
                    "\"the total vCPUs of quota that the VM uses\" (VirtualMachineSize.numberOfCores; "
                    "constrained-vcpu.md).")),
    config={
        "onlineDeploymentCores": {
            "type": "boolean",
            "default": True,
            "description": "Count managed online deployments' reserved cores (ceil(1.2 x instances) x vCPUs of "
            "their instanceType) against the dedicated core quotas (false: count them against the regional "
            "compute limit only, as amlkit 0.1.0 did).",
        },
        "coreQuota": {
            "type": "object",
            "additionalProperties": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
            "default": {},
            "description": "Dedicated vCPU quota per region and VM family: {region: {series or quota "
            "family: cores}}, e.g. {\"westeurope\": {\"DSv2\": 100, \"standardNCASv3_T4Family\": 16}}. "
            "A series stands for its quota family; sizes Azure counts against a quota family of their own (isolated "
            "sizes such as Standard_E104i_v5: standardEIv5Family) are limited by that family's entry. "
            "Families without an entry are not checked unless defaultCoreQuota is set.",
        },
        "defaultCoreQuota": {
            "type": "integer",
            "minimum": 0,
            "description": "Dedicated vCPU quota assumed for every region and family coreQuota does not "
            "list (unset: such families are not checked).",
        },
        "lowPriorityCoreQuota": {
            **_CORES_BY_REGION,
            "default": {},
            "description": "Low-priority vCPU quota per region: {region: cores}. Regions without an entry "
            "are not checked.",
        },
        "extraRegions": {
            "type": "array",
            "items": {"type": "string"},
            "default": [],
            "description": "Region names accepted as coreQuota / lowPriorityCoreQuota keys besides Azure's public "
            "regions (amlkit/data/azure_regions.yaml): sovereign clouds such as usgovvirginia, or regions newer "
            "than amlkit's list. A key that is neither is refused with the closest region.",
        },
        "regionalComputeLimit": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_COMPUTE_LIMIT,
            "default": DEFAULT_COMPUTE_LIMIT,
            "description": "Compute resources allowed per region: each AmlCompute cluster (whatever its node "
            "count), compute instance and managed online deployment counts once (Azure's default limit is "
            "500, raisable to 2,500). Replaces regionalNodeLimit, which is refused.",
        },
    },
)
