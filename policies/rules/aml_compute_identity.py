"""aml-compute-identity: clusters, Kubernetes and Synapse Spark computes have ONE kind of managed identity, system
XOR user-assigned; a compute instance, whose identity Azure makes optional, may have none, and one it has is of one
kind. The instance's Contributor grant for idle shutdown is aml-compute-instance-identity's (advisory), which uses
`idle_shutdown` below.

Facts:
- A compute takes one system-assigned identity OR user-assigned identities, not both; ARM accepts
  `SystemAssigned,UserAssigned` anyway (docs/azure-facts.md, "Identity"; how-to-identity-based-service-authentication).
- "If the compute instance is also configured with a managed identity, the compute instance won't shut
  down due to inactivity unless the managed identity has contributor access to the Azure Machine
  Learning workspace" (MicrosoftDocs/azure-ai-docs, articles/machine-learning/how-to-create-compute-
  instance.md, "Configure idle shutdown" and "Assign managed identity").

The Contributor check reads the stack's `authorization:RoleAssignment` resources. An assignment is the
instance's when its `principalId` was built from the instance's outputs (its system-assigned identity)
or from a user-assigned identity the instance's `identity` was built from (property dependencies, known
even at preview). It counts when its role is Contributor (b24988ac-6180-42a0-ab88-20f7382dd24c) or
Owner (8e3af657-a8ff-443c-a75c-2fe8c4bcb635, which includes every Contributor action) and its scope
is the instance's workspace (built from the workspace's outputs, or its ARM id), the workspace's
resource group, or a subscription (role assignments are inherited downwards).
When the stack assigns the instance's identity no role at all (roles granted in another stack or by
hand), or an assignment's role or scope is unknown until deployment, the rule cannot tell: it reports
an unknown, never a pass.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.policies.arm import parse_arm_id
from amlkit.policies.azure import (
    BUILTIN_ROLES,
    WITH_IDENTITY,
    ComputeView,
    RoleAssignmentView,
    compute_of,
    compute_subject,
    is_type,
    read_known,
    role_assignment_view,
)
from amlkit.policies.framework import (
    CannotLink,
    Change,
    Finding,
    ResourceInput,
    Rule,
    StackResource,
    cannot_tell,
    must,
)
from amlkit.policies.links import Name, Stack, Workspaces, both, workspace_of

__all__ = [
    "Assignments", "CLASSIC_USER_ASSIGNED_IDENTITY", "CONTRIBUTOR", "EITHER", "IDLE", "OWNER", "RULE", "SYSTEM", "USER",
    "USER_ASSIGNED_IDENTITY", "check", "identity_kinds", "idle_shutdown",
]

SYSTEM = "systemassigned"
USER = "userassigned"
EITHER = "have a managed identity, either SystemAssigned or UserAssigned"
USER_ASSIGNED_IDENTITY = "managedidentity:UserAssignedIdentity"
CLASSIC_USER_ASSIGNED_IDENTITY = "azure:authorization/userAssignedIdentity:UserAssignedIdentity"
CONTRIBUTOR = BUILTIN_ROLES["contributor"]
OWNER = BUILTIN_ROLES["owner"]
IDLE = ("give its managed identity Contributor on its workspace (without it, idle shutdown never stops the "
        "instance)")


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    """One compute's identity, on its inputs (Analyze): a resource rule, because AnalyzeStack gets outputs, where a
    compute being created has every identity field it was not given unknown (azure-native `PreviewOutputs`), so a
    stack rule could tell nothing before deployment that the inputs do not already say."""
    compute = compute_of(resource.type, resource.props, WITH_IDENTITY)
    if compute is None:
        return
    subject = compute_subject(resource.name, compute)
    if compute.is_instance and compute.identity_type is None:
        return  # optional on an instance (how-to-create-compute-instance.md, "Assign managed identity")
    problem = _identity_problem(subject, compute)
    if problem is not None:
        yield Finding(problem, resource.urn)


def _identity_problem(subject: str, compute: ComputeView) -> str | None:
    raw = compute.identity_type
    kinds = identity_kinds(raw)
    if kinds == {SYSTEM, USER}:
        return must(subject, "have either a system-assigned or user-assigned identity, not both", raw)
    if kinds == {USER}:
        if not compute.user_assigned_identities:
            return must(subject, "list at least one user-assigned identity id when the identity type is "
                                 "UserAssigned", "none")
        return None
    if kinds == {SYSTEM}:
        if compute.user_assigned_identities:
            return must(subject, "not list user-assigned identities when the identity type is SystemAssigned "
                                 "(one kind of identity only)", f"{len(compute.user_assigned_identities)} listed")
        return None
    return must(subject, EITHER, "none" if raw is None else str(raw))


def identity_kinds(raw: Any) -> set[str]:
    """`SystemAssigned, UserAssigned` (any spacing or casing) -> {"systemassigned", "userassigned"}."""
    if not isinstance(raw, str):
        return set()
    kinds = {part.replace(" ", "").lower() for part in raw.split(",")}
    return kinds if kinds <= {SYSTEM, USER} else set()


# --- instances: Contributor on the workspace for idle shutdown ----------------------------------------


class Assignments:
    """The stack's role assignments indexed once by the resources their `principalId` was built from, so finding
    an instance's assignments is a lookup, not a scan of every assignment (linear in the stack, #32)."""

    def __init__(self, listed: list[StackResource]) -> None:
        self.listed = listed
        self._by_principal: dict[str, list[int]] = {}
        for position, assignment in enumerate(self.listed):
            for urn in set(assignment.property_dependencies.get("principalId", ())):
                self._by_principal.setdefault(urn, []).append(position)

    def granted_to(self, instance: StackResource, compute: ComputeView) -> list[StackResource]:
        """The assignments whose principal is the instance's identity (`_grants_to`), in stack order."""
        if identity_kinds(compute.identity_type) == {SYSTEM}:
            sources: set[str] = {instance.urn}
        else:
            sources = {urn for urn in instance.property_dependencies.get("identity", ()) if _user_assigned(urn)}
        positions = sorted({p for urn in sources for p in self._by_principal.get(urn, ())})
        return [self.listed[p] for p in positions]


def idle_shutdown(subject: str, instance: StackResource, compute: ComputeView,
                  assignments: Assignments, workspaces: Workspaces) -> Iterator[Finding]:
    """An instance's identity must hold Contributor (or Owner) on its workspace or a scope above it."""
    mine = assignments.granted_to(instance, compute)
    if not mine:
        yield cannot_tell(subject, IDLE, "the stack assigns its managed identity no role, so a grant made "
                          "elsewhere cannot be seen", instance.urn)
        return
    _, workspace = read_known(lambda: workspace_of(instance, workspaces))
    undecided = []
    for assignment in mine:
        known, grants = read_known(functools.partial(_grants_contributor, assignment, instance, workspace,
                                                     workspaces.stack))
        if known and grants:
            return
        if not known:
            undecided.append(assignment.name)
    if undecided:
        names = ", ".join(f"'{name}'" for name in undecided)
        yield cannot_tell(subject, IDLE, f"role or scope of {names} unknown until deployment", instance.urn)
        return
    names = ", ".join(f"'{a.name}'" for a in mine)
    found = f"role assignments {names}, none of them Contributor or Owner on the workspace or a scope above it"
    yield Finding(must(subject, IDLE, found), instance.urn)


def _grants_to(assignment: StackResource, instance: StackResource, compute: ComputeView) -> bool:
    """The assignment's principal is the instance's system identity or one of its user-assigned identities."""
    principal = set(assignment.property_dependencies.get("principalId", ()))
    if identity_kinds(compute.identity_type) == {SYSTEM}:
        return instance.urn in principal
    identities = set(instance.property_dependencies.get("identity", ())) & principal
    return any(_user_assigned(urn) for urn in identities)


def _user_assigned(urn: str) -> bool:
    """The URN is a user-assigned identity's (azure-native or classic)."""
    return is_type(_urn_type(urn), USER_ASSIGNED_IDENTITY) or _urn_type(urn) == CLASSIC_USER_ASSIGNED_IDENTITY


def _urn_type(urn: str) -> str:
    """The resource's own type token in a URN (the last of a parent chain `a$b$type`)."""
    parts = urn.split("::")
    return parts[2].split("$")[-1] if len(parts) >= 4 else ""


def _assignment(resource: StackResource) -> RoleAssignmentView:
    view = role_assignment_view(resource.type, resource.props)
    assert view is not None
    return view


def _is_contributor(assignment: StackResource) -> bool:
    return _assignment(assignment).role_guid in (CONTRIBUTOR, OWNER)


def _grants_contributor(assignment: StackResource, instance: StackResource, workspace: StackResource | None,
                        stack: Stack) -> bool:
    return _is_contributor(assignment) and _covers(assignment, instance, workspace, stack)


def _covers(assignment: StackResource, instance: StackResource, workspace: StackResource | None,
            stack: Stack) -> bool:
    """The scope is the instance's workspace, its resource group or a subscription: built from the workspace's or
    the group's outputs (`scope=workspace.id`, `scope=rg.id`, known even at preview), else by its ARM id.
    `CannotLink` when preview cannot tell."""
    ref = stack.workspace_ref(workspace) if workspace is not None else stack.compute_ref(instance)
    if any(assignment.depends_on("scope", urn) for urn in ref.whole | ref.group.sources):
        return True
    scope = parse_arm_id(_assignment(assignment).scope)
    if scope is None:
        return False
    if scope.kind == "subscription":
        return True
    if scope.kind == "resource" and not scope.is_resource("Microsoft.MachineLearningServices", "workspaces"):
        return False
    verdict = Name(scope.resource_group).same(ref.group)
    if scope.kind == "resource":
        verdict = both(verdict, Name(scope.name).same(ref.name))
    if verdict is None:
        raise CannotLink(f"preview cannot tell whether scope {scope.text} holds the instance's workspace")
    return verdict


RULE = Rule(
    name="aml-compute-identity",
    ref="AMLK-0007",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    changed=(
        Change("0.2.0", "a compute instance may have no managed identity (Azure makes it optional), and its "
               "Contributor grant for idle shutdown moved to aml-compute-instance-identity (advisory)"),
        Change("0.3.0", "a resource rule (each compute's inputs): as a stack rule it read outputs, where a compute "
               "being created has its identity's unlisted fields unknown, so a first preview could not judge it"),
    ),
    display_name="One kind of compute identity",
    group="compute",
    stack_key="identity",
    description="AmlCompute clusters and attached Kubernetes and SynapseSpark computes must have a managed "
    "identity, either system-assigned or user-assigned (with at least one id), never both and never none (their "
    "jobs reach data with it). A compute instance may have none (Azure makes it optional); one it has must be of "
    "one kind. Whether an instance's identity holds Contributor on the workspace (idle shutdown) is "
    "aml-compute-instance-identity's. Not VirtualMachine or other attached types, which az ml attaches without an "
    "identity.",
    severity="high",
    level="mandatory",
    tags=("identity", "security"),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-create-compute-instance#configure-idle-shutdown",
    remediation="Set identity.type to SystemAssigned, or to UserAssigned with user_assigned_identities "
    "listing the identity's ARM id. A compute supports one system-assigned identity OR user-assigned "
    "identities, not both; ARM accepts 'SystemAssigned,UserAssigned' anyway, so only this policy stops it. "
    "Without an identity the compute cannot use identity-based access to datastores, Key Vault or ACR.",
    check=check,
)
