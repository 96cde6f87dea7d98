"""aml-quota-budget: the stack's worst-case compute fits the subscription's quotas, per region.

Worst case per resource: a cluster at maxNodeCount nodes, an instance as one node, each node taking
its size's vCPUs. Dedicated cores add up per region and quota family (clusters and instances share
them), low-priority cores per region, and nodes per region against the regional node limit.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from amlkit.errors import ConfigError, UnknownVmSize
from amlkit.policies.azure import MANAGED, ComputeView, compute_of, compute_subject, region_key, same_value
from amlkit.policies.framework import Finding, Rule, StackResource, must
from amlkit.vmsizes import VmFamily, VmSize, family_by_quota_family, family_by_series, parse_vm_size

NAME = "aml-quota-budget"
DEFAULT_NODE_LIMIT = 500


@dataclass(frozen=True)
class Demand:
    """One compute's worst case: `nodes` nodes of `size` (None when the size is missing or unknown)."""

    name: str
    urn: str
    region: str
    nodes: int
    size: VmSize | None
    low_priority: bool

    @property
    def cores(self) -> int:
        return self.nodes * self.size.vcpus if self.size else 0


@dataclass(frozen=True)
class Budget:
    """The validated config: dedicated cores per region and family, low-priority cores, node limit."""

    core_quota: Mapping[str, Mapping[VmFamily, int]]
    default_core_quota: int | None
    low_priority_core_quota: Mapping[str, int]
    regional_node_limit: int

    def dedicated_limit(self, region: str, family: VmFamily) -> int | None:
        return self.core_quota.get(region, {}).get(family, self.default_core_quota)


def check_stack(resources: Sequence[StackResource], config: Mapping[str, Any]) -> Iterator[Finding]:
    budget = read_budget(config)
    demands: list[Demand] = []
    for resource in resources:
        compute = compute_of(resource.type, resource.props, MANAGED)
        if compute is None:
            continue
        demand, problems = demand_of(resource, compute)
        yield from (Finding(problem, resource.urn) for problem in problems)
        if demand is not None and demand.nodes > 0:
            demands.append(demand)
    yield from dedicated_breaches(demands, budget)
    yield from low_priority_breaches(demands, budget)
    yield from node_breaches(demands, budget)


def demand_of(resource: StackResource, compute: ComputeView) -> tuple[Demand | None, list[str]]:
    """The compute's worst case, and what stops it from being counted in full (reported, never skipped)."""
    subject = compute_subject(resource.name, compute)
    if not compute.location:
        return None, [must(subject, "set location (or computeLocation) so its quota region is known", "none")]
    nodes = 1 if compute.is_instance else compute.max_nodes
    if nodes is None:
        return None, [must(subject, "set scaleSettings.maxNodeCount so its quota can be checked", "none")]
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
    low_priority = compute.is_cluster and same_value(compute.vm_priority, "LowPriority")
    return Demand(resource.name, resource.urn, region_key(compute.location), nodes, size, low_priority), problems


# --- breaches -----------------------------------------------------------------------------------------


def dedicated_breaches(demands: Iterable[Demand], budget: Budget) -> Iterator[Finding]:
    counted = [d for d in demands if d.size is not None and not d.low_priority]
    groups = _group(counted, lambda d: (d.region, d.size.family))  # type: ignore[union-attr]
    for (region, family), members in sorted(groups.items(), key=lambda g: (g[0][0], g[0][1].quota_family)):
        limit = budget.dedicated_limit(region, family)
        subject = f"Dedicated {family.quota_family} ({family.series}) cores in {region}"
        yield from _breach(subject, f"fit the core quota of {limit}", limit, members, lambda d: d.cores, _cores)


def low_priority_breaches(demands: Iterable[Demand], budget: Budget) -> Iterator[Finding]:
    groups = _group([d for d in demands if d.size is not None and d.low_priority], lambda d: d.region)
    for region, members in sorted(groups.items()):
        limit = budget.low_priority_core_quota.get(region)
        expectation = f"fit the low-priority core quota of {limit}"
        yield from _breach(f"Low-priority cores in {region}", expectation, limit, members, lambda d: d.cores, _cores)


def node_breaches(demands: Iterable[Demand], budget: Budget) -> Iterator[Finding]:
    limit = budget.regional_node_limit
    for region, members in sorted(_group(demands, lambda d: d.region).items()):
        expectation = f"fit the regional node limit of {limit}"
        yield from _breach(f"Nodes in {region}", expectation, limit, members, lambda d: d.nodes, _nodes)


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
    vcpus = demand.size.vcpus if demand.size else 0
    return f"{demand.name} {_plural(demand.nodes, 'node')} x {vcpus} vCPUs = {demand.cores}"


def _nodes(demand: Demand) -> str:
    return f"{demand.name} {_plural(demand.nodes, 'node')}"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _group(demands: Iterable[Demand], key: Callable[[Demand], Hashable]) -> dict[Any, list[Demand]]:
    groups: dict[Any, list[Demand]] = {}
    for demand in demands:
        groups.setdefault(key(demand), []).append(demand)
    return groups


# --- config -----------------------------------------------------------------------------------------------


def read_budget(config: Mapping[str, Any]) -> Budget:
    """The rule's config, validated; anything malformed raises `ConfigError` naming the key path."""
    default = config.get("defaultCoreQuota")
    return Budget(
        core_quota=_core_quota(config.get("coreQuota", {})),
        default_core_quota=None if default is None else _count(f"{NAME}.defaultCoreQuota", default),
        low_priority_core_quota=_per_region(f"{NAME}.lowPriorityCoreQuota", config.get("lowPriorityCoreQuota", {})),
        regional_node_limit=_count(f"{NAME}.regionalNodeLimit", config.get("regionalNodeLimit", DEFAULT_NODE_LIMIT),
                                   minimum=1),
    )


def _core_quota(raw: Any) -> dict[str, dict[VmFamily, int]]:
    path = f"{NAME}.coreQuota"
    quota: dict[str, dict[VmFamily, int]] = {}
    for region, families in _regions(path, raw).items():
        region_path = f"{path}.{region}"
        if not isinstance(families, Mapping):
            raise ConfigError(None, region_path, "expected a map of VM series or quota family -> cores", families)
        limits: dict[VmFamily, int] = {}
        for key, cores in families.items():
            family = _family(f"{region_path}.{key}", key)
            if family in limits:
                raise ConfigError(None, f"{region_path}.{key}", f"{family.series} is given twice in this region")
            limits[family] = _count(f"{region_path}.{key}", cores)
        quota[region_key(region)] = limits
    return quota


def _per_region(path: str, raw: Any) -> dict[str, int]:
    return {region_key(region): _count(f"{path}.{region}", cores) for region, cores in _regions(path, raw).items()}


def _regions(path: str, raw: Any) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise ConfigError(None, path, "expected a map keyed by region (e.g. westeurope)", raw)
    seen: dict[str, str] = {}
    for region in raw:
        key = region_key(region) if isinstance(region, str) else ""
        if not key:
            raise ConfigError(None, path, f"{region!r} is not a region name", region)
        if key in seen:
            raise ConfigError(None, f"{path}.{region}", f"the same region as {seen[key]!r}", region)
        seen[key] = region
    return raw


def _family(path: str, key: Any) -> VmFamily:
    for lookup in (family_by_series, family_by_quota_family):
        try:
            return lookup(key)
        except UnknownVmSize:
            continue
    problem = (f"unknown VM series or quota family {key!r}; use a series such as DSv2 or a quota family "
               "such as standardDSv2Family")
    raise ConfigError(None, path, problem, key)


def _count(path: str, value: Any, minimum: int = 0) -> int:
    """A whole number >= minimum; integral floats (the wire form of config numbers) are accepted."""
    whole = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if isinstance(value, bool) or not whole or value < minimum:
        raise ConfigError(None, path, f"expected a whole number, at least {minimum}; got {value!r}", value)
    return int(value)


_CORES_BY_REGION = {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}}

RULE = Rule(
    name=NAME,
    description="The worst-case cores of the stack's AmlCompute clusters (maxNodeCount x vCPUs) and "
    "compute instances (1 node) must fit the configured quotas per region: dedicated cores per VM family "
    "(coreQuota), low-priority cores (lowPriorityCoreQuota) and total nodes (regionalNodeLimit).",
    severity="medium",
    level="advisory",
    tags=("cost", "reliability"),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-manage-quotas",
    remediation="Lower maxNodeCount, move a compute to a family or region with headroom, or request more "
    "quota (`az vm list-usage --location <region>` shows the family limits; GPU and specialised families "
    "start at zero). Record the granted quotas in this rule's coreQuota / lowPriorityCoreQuota config so "
    "the review keeps them in sync with the stack. Compute instances and serverless jobs share the same "
    "dedicated quota.",
    check_stack=check_stack,
    config={
        "coreQuota": {
            "type": "object",
            "additionalProperties": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
            "default": {},
            "description": "Dedicated vCPU quota per region and VM family: {region: {series or quota "
            "family: cores}}, e.g. {\"westeurope\": {\"DSv2\": 100, \"standardNCASv3_T4Family\": 16}}. "
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
        "regionalNodeLimit": {
            "type": "integer",
            "minimum": 1,
            "default": DEFAULT_NODE_LIMIT,
            "description": "Total nodes per region across clusters (at maxNodeCount) and compute instances "
            "(Azure's default limit is 500).",
        },
    },
)
