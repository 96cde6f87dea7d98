"""Mocks that answer like the engine planning against a deployed state (runs in the runner child).

For a registration whose URN is in the state and that is not replaced, the engine answers with the
deployed id and outputs, so dependents see the deployed values (an unchanged dependency never makes
everything downstream look changed). Created and replaced resources get the usual Azure-like mock
outputs. A secret the state keeps encrypted is answered as an unknown secret.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from pulumi.runtime.mocks import MockResourceArgs

from amlkit.review.plan.deployed import answers_from_state, find_deployed
from amlkit.review.plan.state import ENCRYPTED, StateResource
from amlkit.review.run.mocks import AzureMocks, RecordingMonitor, record
from amlkit.review.secrets import UNKNOWN, is_secret
from amlkit.review.urns import stack_urn

__all__ = ["StateMocks", "StateMonitor", "answerable"]


class StateMocks(AzureMocks):
    """AzureMocks, except while the monitor has put a deployed answer for the current registration."""

    def __init__(self) -> None:
        self.local = threading.local()

    def new_resource(self, args: MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        answer: tuple[str | None, dict[str, Any]] | None = getattr(self.local, "answer", None)
        if answer is not None:
            return answer
        return super().new_resource(args)


class StateMonitor(RecordingMonitor):
    """RecordingMonitor that answers deployed, not-replaced resources from the state."""

    def __init__(self, mocks: StateMocks, stack: str, project: str, state: list[dict[str, Any]],
                 emit: Callable[[dict[str, Any]], None] | None = None) -> None:
        super().__init__(mocks, stack, project, emit)
        self.state = {r["urn"]: StateResource.from_dict(r) for r in state}
        self.answers = mocks
        self.stack_urn = stack_urn(project, stack)

    def RegisterResource(self, request: Any) -> Any:  # noqa: N802 - the gRPC method name
        urn = self.make_urn(request.parent, request.type, request.name)
        registration = record(request, urn)
        old = find_deployed(registration, self.state, self.stack_urn)
        answer = None
        if old is not None and old.custom and answers_from_state(registration, old):
            answer = (old.id or None, answerable(old.outputs))
        self.answers.local.answer = answer
        try:
            return super().RegisterResource(request)
        finally:
            self.answers.local.answer = None


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
