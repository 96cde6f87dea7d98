"""How stack rules link resources (a compute to its workspace, a project to its hub, a lock to a resource group) on
what `pulumi preview` knows, not on ids the offline mocks invent.

In a real preview a resource being created has an unknown `id` and unknown output `name`: only its inputs are known,
autonamed `*Name` inputs included (docs/review.md, "What a preview knows"; the provider's Create with preview true
answers its inputs mirrored, every other output unknown). So an input built from another resource's `name` or `id`
is unknown, but the analyzer's AnalyzeStack still tells which resources it was built from (`propertyDependencies`,
pulumi-policy's `PolicyResource.property_dependencies`). A link is therefore decided in this order:

1. the graph: an input built from a stack resource's output names that resource (a compute's `workspaceName` built
   from a workspace's output belongs to it; two `resourceGroupName`s built from one ResourceGroup are one group);
2. the value: a known name or ARM id (a literal id of a workspace in another stack, common in platform repos);
   an unknown name built from ONE resource of the kind it names is that resource's own name input, which preview
   knows (a ResourceGroup's `resourceGroupName`, a workspace's `workspaceName`, a compute's `computeName`);
3. otherwise the link cannot be told: `CannotLink` (`amlkit.policies.framework`), which a rule reports as *unknown*
   for that resource, or, raised out of the rule, the pack reports as the rule's unknown; never a pass.

`Name` is one name as preview knows it; `Stack` indexes the stack once per rule run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from amlkit.policies.arm_ids import is_resource_group, network_parent, parse_arm_id, same_name
from amlkit.policies.azure import (
    compute_view,
    read_known,
    registry_view,
    workspace_view,
)
from amlkit.policies.framework import CannotLink as CannotLink  # re-exported: links raise it
from amlkit.policies.framework import StackResource

__all__ = [
    "Kind", "Name", "Stack", "UNKNOWN_NAME", "WorkspaceRef", "Workspaces", "both", "is_compute", "is_group",
    "is_workspace", "linked", "names_workspace", "stack_of", "workspace_key", "workspace_of", "workspaces_by_key",
    "workspaces_of",
]

Kind = Callable[[StackResource], bool]


@dataclass(frozen=True)
class Name:
    """An Azure name (or part of an ARM id) as preview knows it: `text` when `known` (None when omitted), and the
    stack resource it was built from (`sources`: at most one, of the kind it names), known even when the text is
    not."""

    text: str | None = None
    known: bool = True
    sources: frozenset[str] = frozenset()

    def same(self, other: Name) -> bool | None:
        """True or False when preview can tell whether both name one thing; None when it cannot."""
        if self.sources & other.sources:
            return True
        if self.known and other.known:
            return same_name(self.text, other.text)
        return None

    def shown(self) -> str:
        return str(self.text) if self.known else "<unknown>"


UNKNOWN_NAME = Name(None, False)


def both(first: bool | None, second: bool | None) -> bool | None:
    """Three-valued AND: False wins, then None (cannot tell)."""
    if first is False or second is False:
        return False
    return None if first is None or second is None else True


@dataclass(frozen=True)
class WorkspaceRef:
    """What an input says of a workspace: its resource group and name (`whole`: the stack workspaces the whole input
    was built from, e.g. a compute's `workspaceName` built from `workspace.name`), and its subscription when an ARM
    id gives one."""

    group: Name
    name: Name
    whole: frozenset[str] = frozenset()
    subscription: str | None = None

    def shown(self) -> str:
        return f"{self.name.shown()} (resource group {self.group.shown()})"


def _name_input(resource: StackResource) -> str | None:
    """The input holding a resource's own Azure name, which preview knows (autonamed in the provider's Check)."""
    if is_resource_group(resource.type):
        return "name" if resource.type.startswith("azure:") else "resourceGroupName"
    workspace = workspace_view(resource.type, resource.props)
    if workspace is not None:
        return "workspaceName" if workspace.provider == "azure-native" else "name"
    compute = compute_view(resource.type, resource.props)
    if compute is not None:
        return "computeName" if compute.provider == "azure-native" else "name"
    if registry_view(resource.type, resource.props) is not None:
        return "name" if resource.type.startswith("azure:") else "registryName"
    return None


def is_workspace(resource: StackResource) -> bool:
    return workspace_view(resource.type, resource.props) is not None


def is_compute(resource: StackResource) -> bool:
    return compute_view(resource.type, resource.props) is not None


def is_group(resource: StackResource) -> bool:
    return is_resource_group(resource.type)


def _text(props: Any, key: str) -> Any:
    value = props.get(key) if hasattr(props, "get") else None
    return None if value is None else value


@dataclass
class Stack:
    """The stack's resources indexed once, and the links between them as preview knows them."""

    resources: Sequence[StackResource]
    by_urn: dict[str, StackResource] = field(init=False)
    workspaces: list[StackResource] = field(init=False)
    _refs: dict[str, WorkspaceRef] = field(init=False)
    _by_name: dict[str, list[StackResource]] = field(init=False)
    _nameless: list[StackResource] = field(init=False)
    _position: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        self.by_urn = {r.urn: r for r in self.resources}
        self.workspaces = [r for r in self.resources if is_workspace(r)]
        self._refs, self._by_name, self._nameless = {}, {}, []
        self._position = {w.urn: index for index, w in enumerate(self.workspaces)}
        for workspace in self.workspaces:  # indexed once: a link is a lookup, not a scan of every workspace
            name = self.workspace_ref(workspace).name
            if name.known and name.text is not None:
                self._by_name.setdefault(name.text.lower(), []).append(workspace)
            else:
                self._nameless.append(workspace)

    # --- names ----------------------------------------------------------------------------------------

    def owner(self, resource: StackResource, prop: str, kind: Kind) -> StackResource | None:
        """The one stack resource of `kind` input `prop` was built from; None when none or several."""
        owners = [self.by_urn[urn] for urn in resource.property_dependencies.get(prop, ())
                  if urn in self.by_urn and kind(self.by_urn[urn])]
        return owners[0] if len(owners) == 1 else None

    def own_name(self, resource: StackResource) -> Name:
        """A resource's own name input, with the resource as its source; unknown when the inputs lack it."""
        key = _name_input(resource)
        known, text = read_known(lambda: _text(resource.props, key)) if key else (False, None)
        if not known or text is None:  # not given here (the provider's Check autonames it): not known to the pack
            return Name(None, False, frozenset({resource.urn}))
        return Name(str(text), True, frozenset({resource.urn}))

    def name_at(self, resource: StackResource, prop: str, kind: Kind) -> Name:
        """Input `prop` of `resource` as a name of a resource of `kind`: its value when known, else the own name
        input of the one resource of `kind` it was built from."""
        owner = self.owner(resource, prop, kind)
        known, text = read_known(lambda: _text(resource.props, prop))
        sources = frozenset({owner.urn}) if owner is not None else frozenset()
        if known:
            return Name(None if text is None else str(text), True, sources)
        if owner is not None:
            return self.own_name(owner)
        return Name(None, False, sources)

    # --- workspaces -----------------------------------------------------------------------------------

    def workspace_ref(self, workspace: StackResource) -> WorkspaceRef:
        """A stack workspace's own resource group and name."""
        ref = self._refs.get(workspace.urn)
        if ref is None:
            ref = WorkspaceRef(self.name_at(workspace, "resourceGroupName", is_group), self.own_name(workspace),
                               frozenset({workspace.urn}))
            self._refs[workspace.urn] = ref
        return ref

    def id_ref(self, resource: StackResource, prop: str, value: Callable[[], Any] | None = None) -> WorkspaceRef | None:
        """What input `prop` (an ARM id; `value` reads it when it is nested) says of a workspace; None when it is
        a known id of anything else."""
        whole = frozenset(u for u in resource.property_dependencies.get(prop, ())
                          if u in self.by_urn and is_workspace(self.by_urn[u]))
        known, text = read_known(value or (lambda: _text(resource.props, prop)))
        if not known:
            return WorkspaceRef(UNKNOWN_NAME, UNKNOWN_NAME, whole)
        return self.parsed_ref(text, whole)

    @staticmethod
    def parsed_ref(text: Any, whole: frozenset[str] = frozenset()) -> WorkspaceRef | None:
        parsed = parse_arm_id(text)
        if parsed is None or not parsed.is_resource("Microsoft.MachineLearningServices", "workspaces"):
            return WorkspaceRef(UNKNOWN_NAME, UNKNOWN_NAME, whole) if whole else None
        return WorkspaceRef(Name(parsed.resource_group), Name(parsed.name), whole, parsed.subscription)

    def compute_ref(self, compute: StackResource) -> WorkspaceRef:
        """What a compute's inputs say of its workspace (azure-native: `resourceGroupName` and `workspaceName`;
        classic: the ARM id `machineLearningWorkspaceId`)."""
        view = compute_view(compute.type, compute.props)
        assert view is not None, f"{compute.type} is not a compute"
        if view.provider != "azure-native":
            ref = self.id_ref(compute, view.workspace_input)
            return ref if ref is not None else WorkspaceRef(Name(None), Name(None))
        name = self.name_at(compute, view.workspace_input, is_workspace)
        return WorkspaceRef(self.name_at(compute, "resourceGroupName", is_group), name, name.sources)

    def matches(self, ref: WorkspaceRef, workspace: StackResource) -> bool | None:
        """Whether `ref` names the stack's `workspace`: True, False, or None when preview cannot tell."""
        if workspace.urn in ref.whole:
            return True
        if ref.whole:
            return False  # built from another workspace of the stack
        own = self.workspace_ref(workspace)
        return both(ref.name.same(own.name), ref.group.same(own.group))

    def find(self, ref: WorkspaceRef, what: str, exclude: StackResource | None = None) -> StackResource | None:
        """The stack workspace `ref` names; None when it names none of them; CannotLink when preview cannot tell
        (`what` says whose reference it is, for the reason)."""
        undecided = []
        for workspace in self._candidates(ref):
            if workspace is exclude:
                continue
            verdict = self.matches(ref, workspace)
            if verdict:
                return workspace
            if verdict is None:
                undecided.append(workspace.name)
        if undecided:
            raise CannotLink(f"{what} names workspace {ref.shown()}, and preview cannot tell whether that is "
                             f"workspace '{undecided[0]}' of this stack")
        return None

    def _candidates(self, ref: WorkspaceRef) -> list[StackResource]:
        """The workspaces `ref` may name, in stack order: the ones it was built from; else those of its name and
        those whose name preview cannot know; every workspace when its own name is unknown."""
        if ref.whole:
            built_from = [self.by_urn[u] for u in ref.whole if u in self._position]  # a lookup, not a scan (#32)
            return sorted(built_from, key=lambda w: self._position[w.urn])
        if not ref.name.known or ref.name.text is None:
            return self.workspaces
        found = {w.urn: w for w in self._by_name.get(ref.name.text.lower(), []) + self._nameless}
        return sorted(found.values(), key=lambda w: self._position[w.urn])

    def workspace_of(self, compute: StackResource) -> StackResource | None:
        """The stack's workspace a compute belongs to; None when it is in another stack; CannotLink when preview
        cannot tell."""
        return self.find(self.compute_ref(compute), f"compute '{compute.name}'")

    def subnet(self, compute: StackResource) -> tuple[bool | None, str]:
        """Whether a compute has a subnet (None: preview cannot tell), and how a message shows it: the id when
        known; an unknown id built from a Subnet or VirtualNetwork of the stack is a subnet all the same."""
        view = compute_view(compute.type, compute.props)
        assert view is not None, f"{compute.type} is not a compute"
        known, subnet = read_known(lambda: view.subnet_id)
        if known:
            return bool(subnet), str(subnet)
        network = network_parent(compute, view, self.by_urn)
        if network is not None:
            return True, f"<unknown until deployment> (built from '{network.name}')"
        return None, "<unknown until deployment>"

    def names_workspace(self, arm_id: Any, workspace: StackResource) -> bool | None:
        """Whether a known ARM id names the stack's `workspace` (None: preview cannot tell)."""
        ref = self.parsed_ref(arm_id)
        return False if ref is None else self.matches(ref, workspace)


def workspaces_of(resources: Iterable[StackResource]) -> list[StackResource]:
    return [r for r in resources if is_workspace(r)]


# --- the call shapes the rules use -----------------------------------------------------------------------


def workspace_key(resource_group: str | None, name: str | None) -> tuple[str, str]:
    """Case-insensitive identity of a workspace (ARM names are case-insensitive)."""
    return ((resource_group or "").lower(), (name or "").lower())


class Workspaces(dict[tuple[str, str], StackResource]):
    """The stack's workspaces keyed by (resource group, name) as preview knows them (a workspace whose group or
    name preview cannot know is keyed by ("", its URN)), with the `Stack` that links resources to them."""

    def __init__(self, resources: Iterable[StackResource]) -> None:
        super().__init__()
        self.stack = Stack(list(resources))
        for workspace in self.stack.workspaces:
            ref = self.stack.workspace_ref(workspace)
            known = ref.group.known and ref.name.known
            self[workspace_key(ref.group.text, ref.name.text) if known else ("", workspace.urn)] = workspace


_LAST: list[tuple[Sequence[StackResource], Stack]] = []
"""The index of the last resource list `stack_of` saw (one entry, kept with that list so its identity is not
reused): the rules of one AnalyzeStack call share it instead of each indexing the stack again."""


def stack_of(resources: Sequence[StackResource]) -> Stack:
    """The `Stack` of `resources`, indexed once per resource list."""
    last = _LAST[0] if _LAST else None
    if last is not None and last[0] is resources:
        return last[1]
    stack = Stack(resources)
    _LAST[:] = [(resources, stack)]
    return stack


def workspaces_by_key(resources: Iterable[StackResource]) -> Workspaces:
    """The stack's workspaces, keyed by (resource group, workspace name); pass it to `workspace_of`."""
    return Workspaces(resources)


def workspace_of(compute: StackResource, workspaces: Workspaces) -> StackResource | None:
    """The stack's workspace a compute belongs to, or None when it is not in the stack (or not a compute);
    `CannotLink` when preview cannot tell (see the module's order: graph, value, cannot tell)."""
    if not is_compute(compute):
        return None
    return workspaces.stack.workspace_of(compute)


def names_workspace(arm_id: Any, workspace: StackResource, stack: Stack | None = None) -> bool:
    """True when a known `arm_id` is the ARM id of the stack's `workspace`; `CannotLink` when preview cannot tell."""
    verdict = (stack or Stack([workspace])).names_workspace(arm_id, workspace)
    if verdict is None:
        raise CannotLink(f"preview cannot tell whether {arm_id} is workspace '{workspace.name}'")
    return verdict


def linked(compute: StackResource, workspaces: Workspaces) -> tuple[StackResource | None, str | None]:
    """`workspace_of` as (workspace, None), or (None, why) when preview cannot tell: for rules that report that
    compute as unknown (`framework.cannot_tell`) and go on judging the others."""
    try:
        return workspace_of(compute, workspaces), None
    except CannotLink as unknown:
        return None, unknown.reason
