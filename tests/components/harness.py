"""Run components under Pulumi's mocks and record every registration with its options.

`run(build)` sets fresh mocks, calls `build()` inside a Pulumi program and waits for every
registration. The mocks answer as Azure does once deployed (`amlkit.review.run.mocks.DeployedMocks`): ARM
ids, names and identities shaped as outputs (a map of user-assigned identities, a principal id for a
system identity).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pulumi
from pulumi.runtime import mocks, rpc

from amlkit.review.arm import SUBSCRIPTION, TENANT
from amlkit.review.run.mocks import AzureMocks, DeployedMocks, principal_of

__all__ = ["RG", "RG_ID", "SUBSCRIPTION", "TENANT", "AzureMocks", "DeployedMocks", "Recorded", "RecordingMonitor",
           "Registration", "arm_id", "principal_of", "run"]

RG = "rg-ml"
RG_ID = f"/subscriptions/{SUBSCRIPTION}/resourceGroups/{RG}"


def arm_id(provider_type: str, name: str) -> str:
    """The id the mocks give a resource of `provider_type` (e.g. `Microsoft.Storage/storageAccounts`) in RG."""
    return f"{RG_ID}/providers/{provider_type}/{name}"


@dataclass
class Registration:
    """One registered resource: what the engine would see, options included."""

    type: str
    name: str
    inputs: dict[str, Any]
    custom: bool
    parent: str
    protect: bool
    retain_on_delete: bool
    delete_before_replace: bool
    replace_on_changes: list[str]
    id: str = ""
    outputs: dict[str, Any] = field(default_factory=dict)


class RecordingMonitor(mocks.MockMonitor):
    """Keeps every RegisterResourceRequest so tests can see parent, protect and replace options."""

    def __init__(self, azure: AzureMocks) -> None:
        super().__init__(azure)
        self.requests: list[Any] = []
        self.component_outputs: dict[str, dict[str, Any]] = {}

    def RegisterResource(self, request: Any) -> Any:  # noqa: N802 - gRPC method name
        if request.type != "pulumi:pulumi:Stack":
            self.requests.append(request)
        return super().RegisterResource(request)

    def RegisterResourceOutputs(self, request: Any) -> Any:  # noqa: N802 - gRPC method name
        name = request.urn.split("::")[-1]
        self.component_outputs[name] = rpc.deserialize_properties(request.outputs)
        return super().RegisterResourceOutputs(request)


@dataclass
class Recorded:
    """All registrations of one run, by (type, logical name)."""

    registrations: list[Registration]
    outputs: dict[str, Any]
    component_outputs: dict[str, dict[str, Any]]

    def get(self, typ: str, name: str) -> Registration:
        found = [r for r in self.registrations if r.type == typ and r.name == name]
        assert len(found) == 1, f"{typ} {name}: {len(found)} registrations; have {self.names()}"
        return found[0]

    def of_type(self, typ: str) -> list[Registration]:
        return [r for r in self.registrations if r.type == typ]

    def names(self) -> list[tuple[str, str]]:
        return sorted((r.type, r.name) for r in self.registrations)


def _registration(request: Any, monitor: RecordingMonitor) -> Registration:
    outputs: dict[str, Any] = {}
    resource_id = ""
    for urn, reg in monitor.resources.items():
        if urn.endswith(f"::{request.name}") and f"{request.type}::" in urn:
            outputs, resource_id = dict(reg.state), reg.id or ""
    return Registration(
        type=request.type,
        name=request.name,
        inputs=rpc.deserialize_properties(request.object),
        custom=request.custom,
        parent=request.parent.split("::")[-1] if request.parent else "",
        protect=request.protect,
        retain_on_delete=request.retainOnDelete,
        delete_before_replace=request.deleteBeforeReplace,
        replace_on_changes=list(request.replaceOnChanges),
        id=resource_id,
        outputs=outputs,
    )


def run(build: Callable[[], Any], preview: bool = False) -> Recorded:
    """Build under fresh mocks; return every registration and the resolved outputs `build` returns.

    `build` may return a dict of Outputs (e.g. a component's attributes); they are resolved.
    With `preview=True` outputs the mocks do not return stay unknown, as in `pulumi preview`.
    """
    azure = DeployedMocks()
    monitor = RecordingMonitor(azure)
    pulumi.runtime.set_mocks(azure, project="amlkit", stack="test", preview=preview, monitor=monitor)
    resolved: dict[str, Any] = {}

    @pulumi.runtime.test
    def program() -> pulumi.Output[Any]:
        outputs = build() or {}
        return pulumi.Output.all(**outputs).apply(resolved.update)

    program()
    registrations = [_registration(r, monitor) for r in monitor.requests]
    return Recorded(registrations, resolved, monitor.component_outputs)
