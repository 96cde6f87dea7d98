"""The edge: turns amlkit rules into pulumi-policy policies. Only `__main__.py` builds the PolicyPack."""

from __future__ import annotations

import contextlib
import gc
import inspect
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    Policy,
    PolicyComplianceFramework,
    PolicyConfigSchema,
    PolicyResource,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    Severity,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.proxy import UnknownValueError

from amlkit.policies import analyze_once, raw_stack, shared_stack
from amlkit.policies.framework import PACK_NAME, CannotLink, Finding, ResourceInput, Rule, StackResource, review_date
from amlkit.policies.metadata import policy_tags
from amlkit.policies.outputs import stack_props
from amlkit.policies.remediate import remediation
from amlkit.policies.rule_baseline import BASELINE_POLICY, BASELINE_SCHEMA, rebase
from amlkit.policies.secret_reads import Taint, secret_paths, tracked
from amlkit.policies.structs import message_to_dict
from amlkit.policies.waivers import (
    ANALYZED_NAMES,
    Subject,
    Waived,
    apply_waivers,
    azure_names,
    describe_waived,
    edge_schema,
    parse_waivers,
    warn_days,
)

LEVELS = {
    "mandatory": EnforcementLevel.MANDATORY,
    "advisory": EnforcementLevel.ADVISORY,
    "disabled": EnforcementLevel.DISABLED,
}
SEVERITIES = {
    "low": Severity.LOW,
    "medium": Severity.MEDIUM,
    "high": Severity.HIGH,
    "critical": Severity.CRITICAL,
}


def config_schema(rule: Rule) -> PolicyConfigSchema:
    properties = {name: dict(schema) for name, schema in rule.config.items()}
    return PolicyConfigSchema(properties={**properties, **edge_schema()})


def build_policies(rules: Sequence[Rule]) -> list[Policy]:
    return [_stack_policy(rule) if rule.is_stack_rule else _resource_policy(rule) for rule in rules]


def _metadata(rule: Rule) -> dict[str, Any]:
    return {
        "name": rule.name,
        "description": rule.description,
        "enforcement_level": LEVELS[rule.level],
        "config_schema": config_schema(rule),
        "severity": SEVERITIES[rule.severity],
        "tags": policy_tags(rule),  # its risk tags and its metadata: amlkit.policies.metadata
        "remediation_steps": rule.remediation,
        "url": rule.docs_url,
        "display_name": rule.display_name or None,
        "framework": _framework(rule),
    }


def _framework(rule: Rule) -> PolicyComplianceFramework | None:
    """The rule's compliance reference as pulumi-policy's framework (name, version, control id, control title)."""
    c = rule.compliance
    return None if c is None else PolicyComplianceFramework(c.name, c.version, c.reference, c.specification)


def _resource_policy(rule: Rule) -> ResourceValidationPolicy:
    effective = _Effective(rule)

    def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
        given = args.get_config()
        taint = Taint()  # the rule reads secret inputs through tracked views: amlkit.policies.secret_reads
        if args.urn not in ANALYZED_NAMES:  # once per resource, not once per policy (a hot path at 100k)
            ANALYZED_NAMES[args.urn] = azure_names(args.props)
        props = tracked(args.props, secret_paths(args.urn), taint)
        assert rule.check is not None
        findings = taint.findings(rule.check(ResourceInput(args.resource_type, args.name, args.urn, props),
                                             effective(given)))

        def subject_of(urn: str) -> Subject:  # read only for a finding (most resources have none)
            if urn != args.urn:
                return Subject(urn)
            return Subject(args.urn, azure_names(args.props), args.opts.parent if args.opts else None)

        _report(rule, findings, given, subject_of, args.urn, report, args.not_applicable)

    return analyze_once.mark(
        ResourceValidationPolicy(validate=validate, remediate=remediation(rule), **_metadata(rule)))


class _Effective:
    """`rule.effective_config(given)`, worked out again only when the config changed.

    pulumi-policy hands each policy a shallow copy of the config `Configure` stored (`_get_policy_config`), so the
    same values (by identity) mean the same config; they are held here, so their identities cannot be reused.
    Each call gets its own copy of the result, as `effective_config` gives."""

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        self.given: list[tuple[str, Any]] | None = None
        self.config: dict[str, Any] = {}

    def __call__(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        if not self._same(given):
            self.config = self.rule.effective_config(given)
            self.given = list((given or {}).items())
        return dict(self.config)

    def _same(self, given: Mapping[str, Any] | None) -> bool:
        """Whether `given` holds the same keys, in the same order, with the same values (by identity) as held."""
        held = self.given
        if held is None:
            return False
        given = given or {}
        if len(given) != len(held):
            return False
        for (key, value), (held_key, held_value) in zip(given.items(), held, strict=True):
            if key != held_key or value is not held_value:
                return False
        return True


def _stack_policy(rule: Rule) -> StackValidationPolicy:
    def validate(args: StackValidationArgs, report: ReportViolation) -> None:
        given = args.get_config()
        taint = Taint()
        shared = shared_stack.current()  # the AnalyzeStack's resources, converted once for every policy
        resources = shared.resources(taint) if shared else [_stack_resource(r, taint) for r in args.resources]
        assert rule.check_stack is not None
        try:
            findings = taint.findings(rule.check_stack(resources, rule.effective_config(given)))
        except CannotLink as unknown:  # a link preview cannot tell, out of the rule: the rule's unknown
            raise CannotTell([unknown.reason]) from None
        _report(rule, findings, given, shared.subject if shared else _subjects(resources), "", report,
                args.not_applicable)

    return shared_stack.mark(StackValidationPolicy(validate=validate, **_metadata(rule)))


def _subjects(resources: Sequence[StackResource]) -> Callable[[str], Subject]:
    """What a waiver can name of each resource, by URN (the last resource with a URN), read when asked."""
    by_urn = {r.urn: r for r in resources}

    def subject_of(urn: str) -> Subject:
        r = by_urn.get(urn)
        if r is None:
            return Subject(urn)
        return Subject(r.urn, azure_names(r.props) or ANALYZED_NAMES.get(urn, ()), r.parent_urn)

    return subject_of


def _stack_resource(resource: PolicyResource, taint: Taint) -> StackResource:
    return StackResource(
        resource.resource_type,
        resource.name,
        resource.urn,
        tracked(stack_props(resource.resource_type, resource.props), secret_paths(resource.urn), taint),
        resource.parent.urn if resource.parent else None,
        {key: tuple(dep.urn for dep in deps) for key, deps in resource.property_dependencies.items()},
    )


def _report(rule: Rule, findings: list[Finding], given: Mapping[str, Any] | None,
            subject_of: Callable[[str], Subject], default_urn: str, report: ReportViolation,
            not_applicable: Callable[[str | None], None]) -> None:
    """Report live findings as violations; waived ones go out as the policy's not-applicable reason;
    unknown ones ("cannot tell") go out last, as the protocol's unknown.

    pulumi-policy reports every violation at the policy's level, so a waived finding cannot be a
    lower-level violation; "not applicable, with the waiver's reason" is the protocol's own way to say
    the policy was deliberately not applied. It never fails a deployment, whatever the level.

    The protocol has one way to say "cannot tell": an `UnknownValueError` out of the validation, which
    pulumi-policy turns into an advisory "can't run policy ... during preview" diagnostic. It is raised
    only after every decided finding has been reported, so an unknown never hides them. No waiver
    applies to an unknown (there is nothing to waive yet).
    """
    waivers = parse_waivers(rule.name, (given or {}).get("waivers"))  # malformed: fails, with findings or not
    today = _review_day()  # the same for a malformed AMLKIT_REVIEW_DATE
    if not findings:  # most policies on most resources: nothing to report
        return
    decided = [f for f in findings if not f.unknown]
    undecided = [f.message for f in findings if f.unknown]
    active, waived = apply_waivers(decided, waivers, subject_of, default_urn, today, warn_days(given)) if decided \
        else ([], [])
    for finding in active:
        report(finding.message, finding.urn)
    if undecided:
        # not_applicable and the unknown both end the validation: the unknown wins and counts the waived
        if waived:
            undecided.append(f"{len(waived)} waived finding(s) of this policy not listed while it cannot tell")
        raise CannotTell(undecided)
    if waived:
        not_applicable(describe_waived(waived))


def _review_day() -> Any:
    """`review_date()`, read once per request served (every policy of every resource asks)."""
    memo = getattr(_scope, "memo", None)
    if memo is None:
        return review_date()
    day = memo.get(_REVIEW_DAY)
    if day is None:  # a malformed AMLKIT_REVIEW_DATE raises each time, as review_date does
        day = memo[_REVIEW_DAY] = review_date()
    return day


_REVIEW_DAY = ("review_date",)  # its key in the request's memo (no function's key: those are pairs)


class CannotTell(UnknownValueError):
    """The rule's own "cannot tell" findings, raised as the unknown pulumi-policy already reports."""

    def __init__(self, messages: list[str]) -> None:
        Exception.__init__(self, *messages)
        self.unknown_type_sentinel = ""
        self.props: list[str] = []
        self.message = " | ".join(messages)


# --- converting each analyzer request once -----------------------------------------------------------

# The lines of pulumi-policy's servicer the memo below relies on (pulumi-policy 1.21).
_EXPECTED_SOURCE = {
    "Analyze": "deserialized = deserialize_properties(json_format.MessageToDict(request.properties))\n"
               "            props = unknown_checking_proxy(deserialized)",
    "AnalyzeStack": "deserialized = deserialize_properties(json_format.MessageToDict(r.properties))\n"
                    "                props = unknown_checking_proxy(deserialized)",
    "_get_provider_resource": "deserialized = deserialize_properties(json_format.MessageToDict(prov.properties))",
}
_scope = threading.local()  # the memo of the request this gRPC worker thread is serving, else None


def convert_each_request_once() -> bool:
    """Make pulumi-policy convert each request's properties once, not once per policy.

    pulumi-policy's servicer turns `request.properties` (a protobuf Struct) into a dict with
    `json_format.MessageToDict` and then `deserialize_properties`, inside its loop over policies: 21
    resource policies convert the same Struct 21 times per Analyze, and every stack policy converts
    every resource again in AnalyzeStack. Both functions are pure (the same message gives an equal
    dict, and neither mutates its argument), so while one Analyze/AnalyzeStack call runs, their
    results are kept per input object (by identity, holding a reference so the identity cannot be
    reused) and handed out again. Each policy still gets its own proxies (`unknown_checking_proxy`),
    so no policy ever sees an object another policy could have changed, but they are made as the
    policy reads them (amlkit.policies.proxies.lazy_proxy), not all up front; policies receive exactly
    what they received before. AnalyzeStack goes further when every stack policy is amlkit's own: the
    request's resources are converted once, for all of them (amlkit.policies.shared_stack).

    Installed only if pulumi-policy's servicer is the code it was verified on (amlkit.patches
    `request-memo`) and contains the exact calls above (else untouched, and False is returned). The
    same code runs under `pulumi preview --policy-pack`: no offline fork.
    """
    try:
        from pulumi_policy import policy as servicer_module
    except ImportError:
        return False
    servicer = getattr(servicer_module, "_PolicyAnalyzerServicer", None)
    if servicer is None or getattr(servicer, "_amlkit_memo", False) or not _servicer_as_expected(servicer):
        return False
    # private names of pulumi-policy's module, replaced on purpose (guarded by amlkit.patches)
    json_format = servicer_module.json_format  # type: ignore[attr-defined]
    servicer_module.json_format = _MemoJsonFormat(json_format)  # type: ignore[attr-defined,assignment]
    servicer_module.deserialize_properties = _memoized(  # type: ignore[attr-defined]
        servicer_module.deserialize_properties)  # type: ignore[attr-defined]
    try:  # its base classes are pulumi-policy's private ones: only where they are as verified
        from amlkit.policies.proxies import lazy_proxy
    except ImportError:
        pass
    else:
        servicer_module.unknown_checking_proxy = lazy_proxy  # type: ignore[attr-defined]
    analyze_once.install(servicer)  # runtime settings, options and provider once per request (own pack only)
    for method in ("Analyze", "AnalyzeStack"):
        setattr(servicer, method, _in_scope(getattr(servicer, method)))
    from pulumi.runtime.proto import analyzer_pb2

    servicer.AnalyzeStack = shared_stack.sharing(servicer.AnalyzeStack, analyzer_pb2.AnalyzeStackRequest)
    raw_stack.install(servicer_module)  # AnalyzeStack's request read one resource at a time (where verified)
    servicer._amlkit_memo = True
    return True


def _servicer_as_expected(servicer: type) -> bool:
    from amlkit.patches import off_reason

    if off_reason("request-memo") is not None:  # not the pulumi-policy code this memo was verified on
        return False
    try:
        sources = {name: inspect.getsource(getattr(servicer, name)) for name in _EXPECTED_SOURCE}
    except (AttributeError, OSError, TypeError):
        return False
    return all(expected in sources[name] for name, expected in _EXPECTED_SOURCE.items())


def _in_scope(method: Callable[..., Any]) -> Callable[..., Any]:
    """The servicer method with a fresh memo for the duration of one call (per thread); AnalyzeStack with
    the cyclic garbage collector paused (`_Collector`)."""
    paused = _COLLECTOR.paused if method.__name__ == "AnalyzeStack" else contextlib.nullcontext

    def serve(self: Any, request: Any, context: Any) -> Any:
        _scope.memo = {}
        try:
            with paused():
                return method(self, request, context)
        finally:
            _scope.memo = None

    serve.__name__, serve.__doc__ = method.__name__, method.__doc__
    return serve


class _Collector:
    """Python's cyclic collector, off while an AnalyzeStack builds its objects (every policy gets a proxy, a
    PolicyResource and its options per resource). Each generation-2 collection walks every live object, so
    with the collector on the call grew faster than the stack: 3.6 s CPU for 2,000 resources, 26.9 s for
    8,000; paused, 1.8 s and 8.4 s (bench/auditstate.py states, 2026-11-28). Reference counting still frees
    everything acyclic at once; the collector resumes when the call ends (the last one, if several run)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls = 0
        self.was_enabled = False

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        with self.lock:
            if self.calls == 0:
                self.was_enabled = gc.isenabled()
                gc.disable()
            self.calls += 1
        try:
            yield
        finally:
            with self.lock:
                self.calls -= 1
                if self.calls == 0 and self.was_enabled:
                    gc.enable()


_COLLECTOR = _Collector()


def _memoized(function: Callable[..., Any]) -> Callable[..., Any]:
    """`function(value)` once per input object within a request; other calls pass straight through."""

    def once(*args: Any, **kwargs: Any) -> Any:
        memo = getattr(_scope, "memo", None)
        if memo is None or len(args) != 1 or kwargs:
            return function(*args, **kwargs)
        key = (function, id(args[0]))
        if key not in memo:
            memo[key] = (args[0], function(args[0]))  # the input is kept alive: its id stays unique
        return memo[key][1]

    return once


class _MemoJsonFormat:
    """`google.protobuf.json_format` as pulumi-policy's servicer sees it: MessageToDict memoized (and a Struct converted
    by amlkit.policies.structs, where verified)."""

    def __init__(self, module: Any) -> None:
        self._module = module
        self.MessageToDict = _memoized(message_to_dict(module.MessageToDict))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)


__all__ = ["PACK_NAME", "apply_rule_baselines", "baseline_policy", "build_policies", "config_schema",
           "convert_each_request_once", "Waived"]


# --- the rule baseline -------------------------------------------------------------------------------

def baseline_policy(secrets_by_value: bool = False) -> StackValidationPolicy:
    """The policy behind the pack config's `baseline` entry: it checks nothing; its config (`version`) is the
    rule baseline `apply_rule_baselines` applies (see `amlkit.policies.rule_baseline` for why a policy).
    `secrets_by_value`: `secret_reads.record_secrets` installed; the description then says so (BY_VALUE_NOTE)."""
    from amlkit.policies.secret_reads import BY_VALUE_NOTE

    return shared_stack.mark(StackValidationPolicy(
        name=BASELINE_POLICY,
        description="Not a rule: its config pins the amlkit release whose rules this stack has adopted "
        "(rules newer than it run as advisory, rules changed after it keep that release's defaults)."
        + (BY_VALUE_NOTE if secrets_by_value else ""),
        enforcement_level=EnforcementLevel.ADVISORY,
        config_schema=PolicyConfigSchema(properties=BASELINE_SCHEMA),
        validate=lambda args, report: None,
    ))


def apply_rule_baselines(rules: Sequence[Rule]) -> None:
    """Make the pack apply the `baseline` entry of the config the engine sends (`Configure`) to `rules`.

    pulumi-policy reports each violation at the level its servicer stored in `Configure`, so the request is
    rebased (`rule_baseline.rebase`) before the servicer stores it. A baseline naming no release of this pack
    fails `Configure` (the engine then fails the preview). Without the servicer's `Configure` the pack does not
    start: it never runs while ignoring a baseline.
    """
    from google.protobuf import json_format
    from pulumi.runtime.proto import analyzer_pb2
    from pulumi_policy import policy as servicer_module

    servicer = servicer_module._PolicyAnalyzerServicer
    configure: Callable[[Any, Any, Any], Any] = servicer.Configure
    if getattr(configure, "_amlkit_baseline", False):
        return
    levels = analyzer_pb2.EnforcementLevel

    def rebased_configure(self: Any, request: Any, context: Any) -> Any:
        config = {name: (levels.Name(entry.enforcementLevel).lower(),
                         json_format.MessageToDict(entry.properties) or None)
                  for name, entry in request.policyConfig.items()}
        rebased = rebase(rules, config)
        if rebased != config:
            request = analyzer_pb2.ConfigureAnalyzerRequest()
            for name, (level, properties) in rebased.items():
                entry = request.policyConfig[name]
                entry.enforcementLevel = levels.Value(level.upper())
                if properties:
                    entry.properties.update(properties)
        ANALYZED_NAMES.clear()  # a stack's review starts here: the names of the last one never carry over
        return configure(self, request, context)

    rebased_configure._amlkit_baseline = True  # type: ignore[attr-defined]
    servicer.Configure = rebased_configure  # type: ignore[method-assign]
