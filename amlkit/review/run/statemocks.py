"""Mocks that answer like the engine planning against a deployed state (runs in the runner child).

For a registration whose URN is in the state, the engine's step decides what the program gets back
(pulumi/pulumi `pkg/resource/deploy/step.go`): a `same` resource keeps its deployed id and outputs
(SameStep), so dependents see the deployed values and an unchanged dependency never makes everything
downstream look changed; an `update` keeps its id and gets what the provider answers `Update` in a
preview (azure-native: its preview outputs plus the old `name` and `location`, pulumi/pulumi-azure-native
`provider/pkg/provider/provider.go` `Update`, the `req.GetPreview()` branch; other providers: the
deployed outputs with the new inputs over them); a `replace` or a new resource gets the preview of a
create (amlkit.review.run.mocks.AzureMocks). A secret the state keeps encrypted is an unknown secret.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from google.protobuf import struct_pb2
from pulumi.runtime import rpc
from pulumi.runtime.mocks import MockResourceArgs

from amlkit.review.plan.deployed import find_deployed
from amlkit.review.plan.diff import planned_op
from amlkit.review.plan.state import ENCRYPTED, StateResource
from amlkit.review.run.mocks import GROUP_NAME_INPUTS, AzureMocks, RecordingMonitor, record
from amlkit.review.run.sdk import preview_outputs
from amlkit.review.secrets import UNKNOWN, is_secret
from amlkit.review.urns import stack_urn
from amlkit.tokens import type_parts

__all__ = ["STABLE_OUTPUTS", "StateMocks", "StateMonitor", "answerable", "updated_outputs"]

STABLE_OUTPUTS = ("name", "location")  # azure-native's Update preview keeps these from the old state


class StateMocks(AzureMocks):
    """AzureMocks, except while the monitor has put the deployed resource and its step for the current
    registration (a `same` or an `update`)."""

    def __init__(self) -> None:
        self.local = threading.local()

    def new_resource(self, args: MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        replacement = getattr(self.local, "replacement", None)
        if replacement is not None:  # a replacement's create: its inputs as checked again without the olds
            args.inputs = replacement
        deployed: tuple[str, StateResource] | None = getattr(self.local, "deployed", None)
        if deployed is None:
            return super().new_resource(args)
        op, old = deployed
        if op == "same":
            return old.id or None, answerable(old.outputs)
        return old.id or None, updated_outputs(args.typ, dict(args.inputs), answerable(old.outputs))


def updated_outputs(type_token: str, inputs: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """What the provider answers `Update` in a preview (see the module docstring)."""
    if type_parts(type_token) is not None:  # azure-native
        outputs = preview_outputs(type_token, inputs) or {}
        return {**outputs, **{key: old[key] for key in STABLE_OUTPUTS if key in old}}
    given = preview_outputs(type_token, inputs) or {}
    return {**old, **{key: value for key, value in given.items() if key in inputs and value != rpc.UNKNOWN}}


class StateMonitor(RecordingMonitor):
    """RecordingMonitor that answers deployed resources planned `same` or `update` from the state."""

    def __init__(self, mocks: StateMocks, stack: str, project: str, state: list[dict[str, Any]],
                 emit: Callable[[dict[str, Any]], None] | None = None) -> None:
        super().__init__(mocks, stack, project, emit)
        self.state = {r["urn"]: StateResource.from_dict(r) for r in state}
        self.answers = mocks
        self.stack_urn = stack_urn(project, stack)
        self.local = threading.local()
        self.group_locations = {
            r.outputs["name"]: r.outputs["location"] for r in self.state.values()
            if r.type in GROUP_NAME_INPUTS and isinstance(r.outputs.get("name"), str)
            and isinstance(r.outputs.get("location"), str)}

    def RegisterResource(self, request: Any) -> Any:  # noqa: N802 - the gRPC method name
        urn = self.make_urn(request.parent, request.type, request.name)
        self.local.old = find_deployed(record(request, urn), self.state, self.stack_urn)
        try:
            return super().RegisterResource(request)
        finally:
            self.answers.local.deployed = None
            self.answers.local.replacement = None
            self.local.old = None

    def check(self, request: Any, urn: str, olds: Mapping[str, Any] | None = None) -> None:
        """Check with the deployed resource's old inputs, then the step: a `same` or an `update` is answered from
        the state; a replacement is checked again without the old inputs, as the engine does (so an auto-named
        input is named afresh)."""
        old: StateResource | None = getattr(self.local, "old", None)
        deployed = old if old is not None and old.custom else None
        given = struct_pb2.Struct()
        given.CopyFrom(request.object)
        super().check(request, urn, deployed.inputs if deployed is not None else None)
        op = planned_op(record(request, urn), deployed) if deployed is not None else "create"
        if op == "replace":  # Analyze and the diff keep the inputs checked with the olds; the create gets these
            super().check(_Registration(request, given), urn)
            self.answers.local.replacement = rpc.deserialize_properties(given)
        self.answers.local.deployed = (op, deployed) if deployed is not None and op in ("same", "update") else None

    def group_location(self, group: str) -> Any:
        """Step (4) of Check's location: the group's deployed location when the state holds the group."""
        return self.group_locations.get(group, super().group_location(group))


class _Registration:
    """A registration request with other inputs (`object`), for checking a replacement again."""

    def __init__(self, request: Any, inputs: struct_pb2.Struct) -> None:
        self.type, self.custom, self.provider, self.object = request.type, request.custom, request.provider, inputs


def answerable(value: Any) -> Any:
    """State outputs as the SDK reads them: an encrypted secret becomes an unknown secret."""
    if is_secret(value):
        inner = value.get("value")
        return {**value, "value": UNKNOWN if inner == ENCRYPTED else answerable(inner)}
    if isinstance(value, dict):
        return {key: answerable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [answerable(item) for item in value]
    return value
