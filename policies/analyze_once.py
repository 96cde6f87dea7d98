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
- for each of its ~22 resource policies: `deserialize_properties(json_format.MessageToDict(request.properties))`
  (memoized per request: amlkit.policies.pack), `_get_resource_options(request)` and
  `_get_provider_resource(request)`: the same request gives equal objects every time. amlkit's policies only read
  them (`opts.parent`), so `_analyze` (pulumi-policy's `Analyze`, step for step) builds them for the first policy
  that runs and hands them to every policy of that request (with the memo's lookups, ~10-15% of an Analyze).

Everything else is as pulumi-policy does it: its loop, levels, config copies, proxies, violations, unknowns and
not-applicable reasons (tests/policies/test_analyze_once.py compares the answers, byte for byte). A servicer with
any policy that is not amlkit's own (`mark`, `shared_stack.mark`) is served exactly as pulumi-policy serves it.
Installed by `amlkit.policies.pack.convert_each_request_once`, under the same guard: amlkit.patches `request-memo`
hashes the source of `Analyze`, `_configure_runtime_settings`, `_get_resource_options` and `_get_provider_resource`,
so another pulumi-policy release leaves all of this off. The same code runs under `pulumi preview --policy-pack`:
no offline fork.
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
_local = threading.local()  # per gRPC worker thread: the settings it configured for
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
    """Wrap the servicer's `Analyze` and `_configure_runtime_settings` as the module doc says."""
    settings: Callable[[Any], None] = servicer._configure_runtime_settings  # type: ignore[attr-defined]
    servicer._configure_runtime_settings = _settings_once(settings)  # type: ignore[attr-defined]
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
    """Analyze: pulumi-policy's for any pack, `_analyze` for amlkit's own."""

    def serve(self: Any, request: Any, context: Any) -> Any:
        return _analyze(self, request) if own_pack(self) else analyze(self, request, context)

    serve.__name__, serve.__doc__ = analyze.__name__, analyze.__doc__
    return serve


def _analyze(self: Any, request: Any) -> Any:
    """pulumi-policy 1.21's `_PolicyAnalyzerServicer.Analyze`, step for step, with what it builds for each policy
    from the request alone (the converted properties, options, provider) built once, for the first policy that runs.
    Every policy still gets its own proxy of the properties, its own config copy and its own arguments."""
    from inspect import isawaitable

    from pulumi_policy import policy as servicer_module
    from pulumi_policy.policy import EnforcementLevel, ResourceValidationArgs, ResourceValidationPolicy
    from pulumi_policy.proxy import UnknownValueError

    disabled, remediate = EnforcementLevel.DISABLED, EnforcementLevel.REMEDIATE
    proto: Any = servicer_module.proto  # type: ignore[attr-defined]
    name, version = self._PolicyAnalyzerServicer__policy_pack_name, self._PolicyAnalyzerServicer__policy_pack_version
    self._configure_runtime_settings()
    response = proto.AnalyzeResponse()
    built: tuple[Any, Any, Any] | None = None
    for policy in self._PolicyAnalyzerServicer__policies:
        enforcement_level = self._get_enforcement_level(policy)
        if enforcement_level == disabled or not isinstance(policy, ResourceValidationPolicy):
            continue
        if not policy.has_validation():
            response.not_applicable.append(proto.PolicyNotApplicable(
                policy_name=policy.name, reason="Policy does not implement validate"))
            continue
        if enforcement_level == remediate:
            enforcement_level = EnforcementLevel.MANDATORY
        report_violation = self._create_report_violation(response, policy.name, policy.description,
                                                         enforcement_level, policy.severity)
        if built is None:
            built = (servicer_module.deserialize_properties(  # type: ignore[attr-defined]
                servicer_module.json_format.MessageToDict(request.properties)),  # type: ignore[attr-defined]
                self._get_resource_options(request), self._get_provider_resource(request))
        deserialized, opts, provider = built
        props = servicer_module.unknown_checking_proxy(deserialized)  # type: ignore[attr-defined]
        args = ResourceValidationArgs(request.type, props, request.urn, request.name, opts, provider,
                                      self._get_policy_config(policy.name), self._PolicyAnalyzerServicer__stack_tags)
        try:
            result = policy.validate(args, report_violation)
            if result is not None and isawaitable(result):  # isawaitable(None) is False
                import asyncio

                loop = asyncio.new_event_loop()
                task: Any = asyncio.Task(result, loop=loop)  # type: ignore[arg-type]  # as pulumi-policy does
                loop.run_until_complete(task)
                loop.close()
        except UnknownValueError as e:
            response.diagnostics.append(proto.AnalyzeDiagnostic(
                policyName=policy.name, policyPackName=name, policyPackVersion=version,
                message=f"can't run policy '{policy.name}' from policy pack '{name}@v{version}' during preview: "
                        f"{e.message}",
                urn="", description=policy.description,
                enforcementLevel=self._map_enforcement_level(EnforcementLevel.ADVISORY)))
        except servicer_module._NotApplicableError as e:
            response.not_applicable.append(proto.PolicyNotApplicable(policy_name=policy.name, reason=e.reason or ""))
    return response
