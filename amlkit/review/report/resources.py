"""The preview's plan: every resource the program would create, as a tree under its parent, with the
settings people review (size, nodes, priority, identity, network, locks, protect; for an attached
compute, the resource it attaches), for azure-native and the classic provider alike (`classic` places each
classic input where azure-native puts the same ARM property). A project workspace's network settings are its
hub's (concept-hub-workspace.md: projects obtain the hub's security settings), shown as inherited, never as
defaults.

Only those settings are shown, never the raw inputs; a value that is a Pulumi secret (redacted by the
engine, or still wearing the secret signature) prints as `[secret]`, one unknown at preview as
`(unknown)`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from rich.text import Text

from amlkit import azure_facts as facts
from amlkit.review.model import ResourceRecord, StackReview
from amlkit.review.report import classic
from amlkit.review.secrets import REDACTED, SECRET_SIG_KEY, UNKNOWN

__all__ = ["COMPUTE", "LOCK_PREFIX", "WORKSPACE", "render_plan", "settings", "show"]

COMPUTE = "azure-native:machinelearningservices:Compute"
WORKSPACE = "azure-native:machinelearningservices:Workspace"
LOCK_PREFIX = "azure-native:authorization:ManagementLock"


def render_plan(stack: StackReview) -> Text:
    """The plan of one stack, columns aligned as in `pulumi preview`."""
    rows = list(_rows(stack.resources))
    type_width = max([len("Type"), *(len(prefix + r.type) for prefix, r in rows)])
    name_width = max([len("Name"), *(len(r.name) for _, r in rows)])
    out = Text(f"     {'Type'.ljust(type_width)}  {'Name'.ljust(name_width)}  Plan    Info\n", style="bold")
    for prefix, record in rows:
        info = "; ".join(settings(record, stack.resources))
        line = f" +   {(prefix + record.type).ljust(type_width)}  {record.name.ljust(name_width)}  create  {info}"
        out.append(line.rstrip() + "\n", style="green")
    out.append(f"\nResources:\n    + {len(rows)} to create\n")
    return out


def settings(record: ResourceRecord, stack: Sequence[ResourceRecord] = ()) -> list[str]:
    """The reviewable settings of one resource, in a fixed order; `stack` (the stack's records) finds a project's
    hub."""
    describe = _DESCRIBERS.get(record.type)
    if describe is None and record.type.startswith(LOCK_PREFIX):
        describe = _lock
    found = describe(record.inputs) if describe else []
    if record.type in _WORKSPACES and str(_get(_WORKSPACES[record.type](record.inputs), "kind")).lower() == "project":
        found = _inherited(record, found, stack)
    if record.options.get("protect"):
        found.append("protect")
    if record.options.get("retainOnDelete"):
        found.append("retain on delete")
    return found


def show(value: Any) -> str:
    """One input value for display, never revealing a secret."""
    if _is_secret(value):
        return REDACTED
    if value == UNKNOWN:
        return "(unknown)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (dict, list)):
        return "(set)"
    return str(value)


def _rows(resources: Sequence[ResourceRecord]) -> Iterator[tuple[str, ResourceRecord]]:
    """(tree prefix, record) depth first; children sorted by (type, name); orphans count as roots."""
    urns = {r.urn for r in resources}
    children: dict[str | None, list[ResourceRecord]] = {}
    for r in resources:
        parent = r.parent if r.parent in urns and r.parent != r.urn else None
        children.setdefault(parent, []).append(r)
    for siblings in children.values():
        siblings.sort(key=lambda r: (r.type, r.name, r.urn))
    seen: set[str] = set()

    def walk(parent: str | None, indent: str, top: bool) -> Iterator[tuple[str, ResourceRecord]]:
        siblings = [r for r in children.get(parent, []) if r.urn not in seen]
        for i, record in enumerate(siblings):
            seen.add(record.urn)
            last = i == len(siblings) - 1
            yield ("" if top else indent + ("└─ " if last else "├─ ")), record
            yield from walk(record.urn, "" if top else indent + ("   " if last else "│  "), False)

    yield from walk(None, "", True)


def _get(data: Any, path: str) -> Any:
    for key in path.split("."):
        if _is_secret(data):
            return data
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


def _is_secret(value: Any) -> bool:
    return value == REDACTED or (isinstance(value, Mapping) and SECRET_SIG_KEY in value)


def _labelled(inputs: Mapping[str, Any], fields: Sequence[tuple[str, str, str | None]]) -> list[str]:
    """`label value` for each (label, path, default-when-missing); missing without default is skipped."""
    found = []
    for label, path, default in fields:
        value = _get(inputs, path)
        if value is None and default is not None:
            found.append(f"{label} {default} (default)")
        elif value is not None:
            found.append(f"{label} {show(value)}")
    return found


def _identity(inputs: Mapping[str, Any]) -> list[str]:
    kind = _get(inputs, "identity.type")
    if kind is None:
        return []
    ids = _get(inputs, "identity.userAssignedIdentities")
    count = f" ({len(ids)} user-assigned)" if isinstance(ids, (list, dict)) and ids else ""
    return [f"identity {show(kind)}{count}"]


def _subnet(value: Any) -> list[str]:
    if value is None:
        return []
    text = show(value)
    parts = text.split("/")
    if len(parts) > 4 and parts[-2].lower() == "subnets":
        text = f"{parts[-3]}/{parts[-1]}"
    return [f"subnet {text}"]


def _target(value: Any) -> str:
    """An attached resource's ARM id, short: `managedClusters/aks-ml in rg-aks` (the id as is if not ARM)."""
    text = show(value)
    parts = text.split("/")
    lowered = [part.lower() for part in parts]
    if "providers" not in lowered or "resourcegroups" not in lowered:
        return text
    group = parts[lowered.index("resourcegroups") + 1]
    path = "/".join(parts[lowered.index("providers") + 2:])
    return f"{path} in {group}"


def _attached(kind: Any, inputs: Mapping[str, Any]) -> list[str]:
    found = [f"attaches {_target(_get(inputs, 'properties.resourceId'))}"]
    if kind == "Kubernetes":
        found += _labelled(inputs, [("namespace", "properties.properties.namespace", "default")])
    found += _identity(inputs)
    return found + _labelled(inputs, [("local auth disabled", facts.DISABLE_LOCAL_AUTH, None)])


_PUBLIC_IP_DEFAULT = str(facts.NODE_PUBLIC_IP_DEFAULT).lower()


def _compute(inputs: Mapping[str, Any], fields: tuple[_Kinds, _Kinds] | None = None) -> list[str]:
    kind = _get(inputs, "properties.computeType")
    found = [show(kind)] if kind is not None else []
    if _get(inputs, "properties.resourceId") is not None:
        return found + _attached(kind, inputs)
    if kind is None:
        kind = _inferred_compute_type(inputs)
        if kind is None:  # neither kind's defaults would be true: only what the program set
            return ["no computeType", *_labelled(inputs, [("size", facts.VM_SIZE, None)])]
        found = [f"{kind} (no computeType; judged by its properties)"]
    sizing, access = (fields or (_INSTANCE, _CLUSTER))[0 if kind == "ComputeInstance" else 1]
    return [*found, *_labelled(inputs, sizing), *_identity(inputs), *_subnet(_get(inputs, facts.SUBNET_ID)),
            *_labelled(inputs, access)]


# (sizing, access) settings of a compute instance and of a cluster, shown in this order around the identity
# and the subnet: (label, input path, what a missing value means)
_Fields = list[tuple[str, str, str | None]]
_INSTANCE: tuple[_Fields, _Fields] = (
    [("size", facts.VM_SIZE, None), ("idle shutdown", facts.IDLE_TIME_BEFORE_SHUTDOWN, None)],
    [("node public IP", facts.ENABLE_NODE_PUBLIC_IP, _PUBLIC_IP_DEFAULT),
     ("SSH", facts.SSH_PUBLIC_ACCESS, facts.SSH_PUBLIC_ACCESS_DEFAULT)],
)
_CLUSTER: tuple[_Fields, _Fields] = (
    [("size", facts.VM_SIZE, None),
     ("min nodes", facts.MIN_NODE_COUNT, str(facts.MIN_NODES_DEFAULT)),
     ("max nodes", facts.MAX_NODE_COUNT, None),
     ("priority", facts.VM_PRIORITY, facts.VM_PRIORITY_DEFAULT),
     ("idle", facts.NODE_IDLE_TIME, None),
     ("location", facts.COMPUTE_LOCATION, None)],
    [("node public IP", facts.ENABLE_NODE_PUBLIC_IP, _PUBLIC_IP_DEFAULT),
     ("SSH", facts.REMOTE_LOGIN, facts.REMOTE_LOGIN_DEFAULT),
     ("local auth disabled", facts.DISABLE_LOCAL_AUTH, None)],
)


_Kinds = tuple[_Fields, _Fields]
_CLASSIC: tuple[_Kinds, _Kinds] = (
    (_INSTANCE[0], _INSTANCE[1]),
    (_CLUSTER[0], [("node public IP", facts.ENABLE_NODE_PUBLIC_IP, _PUBLIC_IP_DEFAULT),
                   ("SSH", facts.REMOTE_LOGIN, "Disabled"),
                   ("local auth disabled", facts.DISABLE_LOCAL_AUTH, "false")]),
)
"""The classic provider's defaults where they differ from ARM's: it sends a cluster's SSH as Disabled and local auth
as enabled when omitted (terraform-provider-azurerm machine_learning_compute_cluster_resource.go)."""


def _inferred_compute_type(inputs: Mapping[str, Any]) -> str | None:
    """What the rules judge a compute without computeType as (amlkit.policies.azure.ComputeView)."""
    from amlkit.policies.azure import ComputeView

    if _is_secret(inputs.get("properties")):
        return None
    return ComputeView(inputs).inferred_compute_type


def _workspace(inputs: Mapping[str, Any]) -> list[str]:
    found = _labelled(inputs, [
        ("kind", "kind", None),
        ("public network access", "publicNetworkAccess", "Enabled"),
        ("managed network", "managedNetwork.isolationMode", "Disabled"),
        ("serverless subnet", "serverlessComputeSettings.serverlessComputeCustomSubnet", None),
        ("serverless no public IP", "serverlessComputeSettings.serverlessComputeNoPublicIP", None),
        ("HBI", "hbiWorkspace", None),
    ])
    return found + _identity(inputs)


def _lock(inputs: Mapping[str, Any]) -> list[str]:
    level = show(_get(inputs, "level")) if _get(inputs, "level") is not None else "(unset)"
    for label, path in (("scope", "scope"), ("resource", "resourceName"), ("resource group", "resourceGroupName")):
        target = _get(inputs, path)
        if target is not None:
            return [f"lock {level} on {label} {show(target)}"]
    return [f"lock {level} on the subscription"]


_NETWORK = ("public network access", "managed network")
"""The settings a project workspace takes from its hub (concept-hub-workspace.md)."""


def _inherited(project: ResourceRecord, found: list[str], stack: Sequence[ResourceRecord]) -> list[str]:
    """A project's settings with its network ones replaced by its hub's, marked as inherited."""
    hub = _hub(project, stack)
    inherited = {}
    if hub is not None:
        for line in settings(hub):
            label = next((label for label in _NETWORK if line.startswith(label + " ")), None)
            if label is not None:
                inherited[label] = f"{line.removesuffix(' (default)')} (from hub '{hub.name}')"
    hub_id = _get(project.inputs, "hubResourceId")
    where = f"its hub {_target(hub_id)}, not in this stack" if hub_id is not None else "its hub (no hubResourceId)"
    shown = []
    for line in found:
        label = next((label for label in _NETWORK if line.startswith(label + " ")), None)
        shown.append(line if label is None else inherited.get(label, f"{label} from {where}"))
    return shown


def _hub(project: ResourceRecord, stack: Sequence[ResourceRecord]) -> ResourceRecord | None:
    """The stack's workspace a project's hubResourceId was built from, or names (resource group and name)."""
    workspaces = [r for r in stack if r.type in _WORKSPACES and r.urn != project.urn]
    built_from = (project.options.get("propertyDependencies") or {}).get("hubResourceId") or []
    for record in workspaces:
        if record.urn in built_from:
            return record
    parts = [part.lower() for part in str(_get(project.inputs, "hubResourceId")).split("/")]
    for record in workspaces:
        inputs = _WORKSPACES[record.type](record.inputs)
        group, name = _get(record.inputs, "resourceGroupName"), _get(inputs, "workspaceName") or _get(
            record.inputs, "name")
        if len(parts) > 4 and [parts[4], parts[-1]] == [str(group).lower(), str(name).lower()]:
            return record
    return None


_WORKSPACES: dict[str, Callable[[Mapping[str, Any]], Mapping[str, Any]]] = {
    WORKSPACE: lambda inputs: inputs,
    classic.WORKSPACE: classic.workspace,
}
_DESCRIBERS: dict[str, Callable[[Mapping[str, Any]], list[str]]] = {
    COMPUTE: _compute,
    WORKSPACE: _workspace,
    classic.CLUSTER: lambda inputs: _compute(classic.cluster(inputs), _CLASSIC),
    classic.INSTANCE: lambda inputs: _compute(classic.instance(inputs), _CLASSIC),
    classic.INFERENCE_CLUSTER: lambda inputs: _compute(classic.inference_cluster(inputs)),
    classic.SYNAPSE_SPARK: lambda inputs: _compute(classic.synapse_spark(inputs)),
    classic.WORKSPACE: lambda inputs: _workspace(classic.workspace(inputs)),
    **{lock: (lambda inputs: _lock(classic.lock(inputs))) for lock in classic.LOCKS},
}
