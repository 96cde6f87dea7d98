"""The edge of remediation: a rule's `fix` as pulumi-policy's `remediate` callback (`ResourceRemediation`).

pulumi-policy 1.21 (`policy.py`, `_PolicyAnalyzerServicer.Remediate`) calls `remediate(args)` only for a
`ResourceValidationPolicy` whose level is `remediate`, in the pack's policy order, each one seeing the
properties the previous one returned. `args.props` there is NOT the unknown-checking proxy Analyze gives:
it is the secrets-preserving proxy (`deserialize_properties(..., True)`), where an unknown value is its raw
sentinel string and a write over a secret stays secret. The callback returns the new property map (or None:
no change); pulumi-policy serializes it into the `Remediation.properties` of its answer, and an
`UnknownValueError` out of the callback becomes the remediation's "can't run remediation ... during
preview" diagnostic. The engine (pulumi/pulumi `pkg/resource/deploy/step_generator.go`, the Remediate pass
before `analyzeAll`) then uses those properties as the resource's inputs, for Analyze and for the provider.

So the callback reads the resource through pulumi-policy's own unknown-checking proxy (an unknown the rule
needs is the protocol's unknown, never a guess), runs the rule's check with its waivers, and sets the
rule's fix only when a live finding remains: a compliant or waived resource is returned unchanged (None).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from pulumi_policy import ResourceValidationArgs
from pulumi_policy.proxy import unknown_checking_proxy
from pulumi_policy.secret import Secret

from amlkit.policies.fixes import Fix
from amlkit.policies.framework import ResourceInput, Rule, review_date
from amlkit.policies.waivers import Subject, apply_waivers, azure_names, parse_waivers, warn_days

__all__ = ["remediation"]

Remediate = Callable[[ResourceValidationArgs], Any]
"""pulumi-policy types the callback's result as an awaitable, but its servicer takes a plain property map too
(`Remediate`: `elif result is not None: new_props = result`), as its documented examples return one."""


def remediation(rule: Rule) -> Remediate | None:
    """pulumi-policy's `remediate` callback for a rule with a fix; None for a rule without one."""
    if rule.fix is None or rule.check is None:
        return None
    fix, check = rule.fix, rule.check

    def remediate(args: ResourceValidationArgs) -> Mapping[str, Any] | None:
        given = args.get_config()
        config = rule.effective_config(given)
        plain = _plain(args.props)
        resource = ResourceInput(args.resource_type, args.name, args.urn, unknown_checking_proxy(plain))
        decided = [finding for finding in check(resource, config) if not finding.unknown]
        subject = Subject(args.urn, azure_names(plain), args.opts.parent if args.opts else None)
        waivers = parse_waivers(rule.name, (given or {}).get("waivers"))
        live, _ = apply_waivers(decided, waivers, lambda urn: subject if urn == args.urn else Subject(urn),
                                args.urn, review_date(), warn_days(given))
        if not live:
            return None
        changed = [change for change in fix(resource, config) if _assign(args.props, change)]
        return args.props if changed else None

    return cast(Remediate, remediate)


def _plain(value: Any) -> Any:
    """The values under pulumi-policy's secrets-preserving proxies, secrets unwrapped (what Analyze reads)."""
    if isinstance(value, Secret):
        return _plain(value.value)
    if isinstance(value, Mapping):
        return {key: _plain(value[key]) for key in value}
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return [_plain(value[index]) for index in range(len(value))]
    return value


def _assign(props: Any, change: Fix) -> bool:
    """Set the fix through the secrets-preserving proxy (a secret stays secret); False when already so."""
    target = props
    for key in change.path[:-1]:
        child = target.get(key)
        if not isinstance(child, Mapping):
            target[key] = {}
            child = target[key]
        target = child
    last = change.path[-1]
    if last in target and _same(_plain(target[last]), change.value):
        return False
    target[last] = change.value
    return True


def _same(value: Any, wanted: Any) -> bool:
    """Equal as JSON values (2.0 is 2, false is not 0)."""
    if isinstance(value, bool) or isinstance(wanted, bool):
        return value is wanted
    return bool(value == wanted)
