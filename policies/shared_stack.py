"""AnalyzeStack converts each resource once for amlkit's own stack policies, not once per stack policy.

pulumi-policy's servicer builds, inside its loop over stack policies, a `PolicyResource` of every resource of
the request (properties converted and proxied, options, provider, links to parent and dependencies): amlkit's
16 stack policies convert the whole stack 16 times, and keep two policies' worth alive at once (at 10,000
resources that was ~75% of the call's CPU; at 100,000, 2.1 GB). amlkit's stack policies read of a resource
only what `StackResource` holds (type, name, URN, properties, the parent's URN, the URNs of each property's
dependencies) and never change it, so when every stack policy the servicer runs is amlkit's own (`mark`),
`sharing` builds those `StackResource`s once per AnalyzeStack, when the first policy asks (`current`), and
lets pulumi-policy's servicer run each policy as before (its order, levels, config, violations, unknowns,
not-applicable reasons) over a request without resources. A policy's secret reads are still its own: a
resource with secret inputs is read through that policy's `secret_reads.tracked` view. Equal strings of the
converted stack (property names, locations, URNs) are one object each (`structs.message_to_dict`'s `strings`):
protobuf gives a new `str` per read, and at 100,000 resources those copies were ~280 MB of the pack's peak.

What a policy receives is what pulumi-policy's per-policy conversion gives it: the properties as
`deserialize_properties(json_format.MessageToDict(...))` behind the servicer's unknown-checking proxy, the
parent's URN when the parent is in the request, and per property the URNs of its dependencies that are in the
request; both read through `amlkit.policies.outputs.stack_props` (AnalyzeStack sends outputs). Installed by
`amlkit.policies.pack.convert_each_request_once`, under the same guard; a servicer with any other stack policy
is served exactly as pulumi-policy serves it. The same code runs under `pulumi preview --policy-pack`: no
offline fork.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from amlkit.policies.framework import StackResource
from amlkit.policies.outputs import stack_props
from amlkit.policies.raw_stack import RawStackRequest
from amlkit.policies.secret_reads import Taint, secret_paths, tracked
from amlkit.policies.structs import message_to_dict
from amlkit.policies.waivers import ANALYZED_NAMES, Subject, azure_names

__all__ = ["MARK", "SharedStack", "current", "mark", "sharing"]

MARK = "_amlkit_shared_stack"
_local = threading.local()  # the SharedStack of the AnalyzeStack this gRPC worker thread is serving, else None


_Policy = TypeVar("_Policy")


def mark(policy: _Policy) -> _Policy:
    """Mark `policy` as one of amlkit's stack policies: it reads the stack through `current()` when it is set."""
    setattr(policy, MARK, True)
    return policy


def current() -> SharedStack | None:
    """The stack of the AnalyzeStack being served on this thread, when it is shared (else None)."""
    return getattr(_local, "stack", None)


def sharing(method: Callable[..., Any], empty: Callable[[], Any]) -> Callable[..., Any]:
    """pulumi-policy's `AnalyzeStack`, with the request's resources shared when every stack policy is amlkit's.
    `empty()` makes a request without resources (`AnalyzeStackRequest()`)."""

    def serve(self: Any, request: Any, context: Any) -> Any:
        if not _all_marked(getattr(self, "_PolicyAnalyzerServicer__policies", None)):
            return method(self, request.message() if isinstance(request, RawStackRequest) else request, context)
        _local.stack = SharedStack(request)
        try:
            return method(self, empty(), context)
        finally:
            _local.stack = None

    serve.__name__, serve.__doc__ = method.__name__, method.__doc__
    return serve


def _all_marked(policies: Iterable[Any] | None) -> bool:
    """Whether every stack policy is amlkit's own (a resource policy never sees AnalyzeStack)."""
    if policies is None:
        return False
    from pulumi_policy import StackValidationPolicy

    return all(getattr(p, MARK, False) for p in policies if isinstance(p, StackValidationPolicy))


class SharedStack:
    """The request's resources as amlkit's stack policies read them, converted once, on first use. `request`: the
    AnalyzeStackRequest, or a `RawStackRequest` (its resources parsed one at a time, its bytes let go once
    converted)."""

    def __init__(self, request: Any) -> None:
        self._request = request
        self._resources: list[StackResource] | None = None
        self._secret: list[tuple[int, frozenset[Any]]] = []  # (index, secret paths) of resources with secrets
        self._by_urn: dict[str, StackResource] = {}
        self._subjects: dict[str, Subject] = {}

    def resources(self, taint: Taint) -> list[StackResource]:
        """Every resource, in the request's order; one with secret inputs read through `taint`'s view."""
        if self._resources is None:
            self._resources = self._convert()
        resources = list(self._resources)
        for index, paths in self._secret:
            resources[index] = dataclasses.replace(resources[index],
                                                   props=tracked(resources[index].props, paths, taint))
        return resources

    def subject(self, urn: str) -> Subject:
        """What a waiver can name of resource `urn` (the last resource with that URN, as a dict of them keeps)."""
        if urn not in self._subjects:
            resource = self._by_urn.get(urn)
            self._subjects[urn] = Subject(urn) if resource is None else Subject(
                urn, azure_names(resource.props) or ANALYZED_NAMES.get(urn, ()), resource.parent_urn)
        return self._subjects[urn]

    def _convert(self) -> list[StackResource]:
        from google.protobuf import json_format
        from pulumi_policy import policy as servicer_module
        from pulumi_policy.deserialize import deserialize_properties

        proxy = servicer_module.unknown_checking_proxy  # type: ignore[attr-defined]  # the servicer's own
        strings: dict[str, str] = {}  # one object per distinct string of the stack (structs.message_to_dict)
        same = strings.setdefault
        # not the servicer's memo: nothing is converted twice
        to_dict = message_to_dict(json_format.MessageToDict, strings)
        urns = {same(r.urn, r.urn) for r in self._request.resources}
        converted = []
        for index, r in enumerate(self._request.resources):
            urn = strings[r.urn]
            props = stack_props(r.type, proxy(deserialize_properties(to_dict(r.properties))))
            dependencies = {same(key, key): tuple(strings[u] for u in value.urns if u in urns)
                            for key, value in r.propertyDependencies.items()}
            parent = r.parent
            resource = StackResource(same(r.type, r.type), same(r.name, r.name), urn, props,
                                     strings[parent] if parent in urns else None, dependencies)
            converted.append(resource)
            self._by_urn[urn] = resource
            paths = secret_paths(urn)
            if paths:
                self._secret.append((index, paths))
        if isinstance(self._request, RawStackRequest):
            self._request.release()
        self._request = None  # converted: the request is not read again
        return converted
