"""Analyze does once per request, not once per policy, what pulumi-policy's servicer redoes for each policy,
when every policy of the pack is amlkit's own.

pulumi-policy's servicer (1.21) does, for every Analyze request:

- `_configure_runtime_settings()`: parses `PULUMI_CONFIG`, sets each of its values as pulumi config and builds a
  new `pulumi.runtime.Settings` from `PULUMI_PROJECT`, `PULUMI_STACK`, `PULUMI_DRY_RUN` and `PULUMI_ORGANIZATION`
  (with an `inspect.signature` of `Settings` each time): 11-15% of an Analyze. What it sets depends on nothing but
  those variables, and it sets it in the calling thread's context (pulumi's settings and config are context
  variables). So here it runs again in a thread only when one of them changed since it last ran in that thread;
  until then the thread holds exactly what running it again would set, since amlkit's policies never read or
  change pulumi's runtime settings or config.
- for each of its ~22 resource policies, `_get_resource_options(request)` and `_get_provider_resource(request)`:
  the same request gives equal objects every time. amlkit's policies only read them (`opts.parent`), so the
  first policy's are handed to every policy of that request (9% of an Analyze).

Everything else is pulumi-policy's own code: its loop, levels, config, violations, unknowns and not-applicable
reasons. A servicer with any policy that is not amlkit's own (`mark`, `shared_stack.mark`) is served exactly as
pulumi-policy serves it. Installed by `amlkit.policies.pack.convert_each_request_once`, under the same guard
(amlkit.patches `request-memo` covers these functions' source); the same code runs under
`pulumi preview --policy-pack`: no offline fork.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["SETTINGS_ENV", "install", "mark", "own_pack"]

SETTINGS_ENV = ("PULUMI_CONFIG", "PULUMI_PROJECT", "PULUMI_STACK", "PULUMI_DRY_RUN", "PULUMI_ORGANIZATION")
"""What `_configure_runtime_settings` reads (pulumi_policy/policy.py and pulumi.runtime.get_config_env)."""

_MARK = "_amlkit_own_resource_policy"
_OWN = "_amlkit_own_pack"  # cached on the servicer: its policies never change after it is built
_local = threading.local()  # per gRPC worker thread: the settings it configured for; the request it serves
_Policy = TypeVar("_Policy")


def mark(policy: _Policy) -> _Policy:
    """Mark `policy` as one of amlkit's resource policies: it only reads a request's options and provider."""
    setattr(policy, _MARK, True)
    return policy


def own_pack(servicer: Any) -> bool:
    """Whether every policy the servicer runs is amlkit's own (resource policies `mark`ed, stack policies
    `shared_stack.mark`ed)."""
    known = servicer.__dict__.get(_OWN)
    if known is None:
        from pulumi_policy import ResourceValidationPolicy, StackValidationPolicy

        from amlkit.policies.shared_stack import MARK as STACK_MARK

        policies = getattr(servicer, "_PolicyAnalyzerServicer__policies", None)
        known = policies is not None and all(
            (isinstance(p, ResourceValidationPolicy) and getattr(p, _MARK, False))
            or (isinstance(p, StackValidationPolicy) and getattr(p, STACK_MARK, False)) for p in policies)
        servicer.__dict__[_OWN] = known
    return bool(known)


def install(servicer: type) -> None:
    """Wrap the servicer's `Analyze`, `_configure_runtime_settings`, `_get_resource_options` and
    `_get_provider_resource` as the module doc says."""
    settings: Callable[[Any], None] = servicer._configure_runtime_settings  # type: ignore[attr-defined]
    servicer._configure_runtime_settings = _settings_once(settings)  # type: ignore[attr-defined]
    for name in ("_get_resource_options", "_get_provider_resource"):
        setattr(servicer, name, _per_request(name, getattr(servicer, name)))
    servicer.Analyze = _serving(servicer.Analyze)  # type: ignore[attr-defined]


def _settings_once(configure: Callable[[Any], None]) -> Callable[[Any], None]:
    def configure_runtime_settings(self: Any) -> None:
        if not own_pack(self):
            return configure(self)
        key = tuple(os.environ.get(name) for name in SETTINGS_ENV)
        if getattr(_local, "settings", None) == key:
            return None
        _local.settings = None  # if it raises, it runs again next time
        configure(self)
        _local.settings = key
        return None

    configure_runtime_settings.__doc__ = configure.__doc__
    return configure_runtime_settings


def _serving(analyze: Callable[..., Any]) -> Callable[..., Any]:
    """Analyze, with the request it serves known to `_per_request` (amlkit's own pack only)."""

    def serve(self: Any, request: Any, context: Any) -> Any:
        if not own_pack(self):
            return analyze(self, request, context)
        _local.request, _local.built = request, {}
        try:
            return analyze(self, request, context)
        finally:
            _local.request, _local.built = None, None

    serve.__name__, serve.__doc__ = analyze.__name__, analyze.__doc__
    return serve


def _per_request(name: str, build: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """`build(self, request)` once for the Analyze request being served; any other call as it was."""

    def once(self: Any, request: Any) -> Any:
        if getattr(_local, "request", None) is not request:
            return build(self, request)
        built = _local.built
        if name not in built:
            built[name] = build(self, request)
        return built[name]

    once.__name__, once.__doc__ = build.__name__, build.__doc__
    return once
