"""The policy packs over a deployed state, as `pulumi policy analyze --file` drives them (pulumi/pulumi
`pkg/resource/deploy/analyze_snapshot.go`): per resource `Remediate` (only when a policy is at level
remediate; what would change is reported as an advisory finding, never applied) then `Analyze` with the
state **inputs**; one `AnalyzeStack` with the state **outputs**, parent, dependencies and property
dependencies, where a finding on a URN the state does not have is the root stack's. A secret the export
left encrypted reaches the packs as the string `[secret]` (`blind`). amlkit.review.audit runs it per file.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from google.protobuf import json_format
from pulumi.runtime.proto import analyzer_pb2

from amlkit.review.pack import driver
from amlkit.review.plan.state import ENCRYPTED, State, StateResource
from amlkit.review.secrets import REDACTED, SECRET_SIG, SECRET_SIG_KEY, is_secret
from amlkit.review.urns import STACK_TYPE, stack_urn

__all__ = ["analyze_state", "blind", "root_stack_urn"]


def analyze_state(pack: driver.PackProcess, state: State, live: list[StateResource],
             file_config: Any, file_name: str | None) -> driver.Analysis:
    """One pack over one state: Remediate (reported) and Analyze per resource, then AnalyzeStack."""
    driver.handshake(pack)
    pack.call("ConfigureStack", analyzer_pb2.AnalyzerStackConfigureRequest(
        stack=state.stack, project=state.project, organization="organization", dry_run=True,
        tags=driver.stack_tags(state.project)), "ConfigureStack")
    analysis = driver.configure(pack, file_config, file_name)
    providers = {r.urn: r for r in state.resources if r.type.startswith("pulumi:providers:")}
    remediates = any(entry.level == "remediate" for entry in analysis.config.values())
    requests = [_request(r, blind(r.inputs), providers) for r in live]
    if remediates:
        for resource, request in zip(live, requests, strict=True):
            _remediations(pack, analysis, resource, request)
    pending = [(pack.stub.Analyze.future(request, timeout=pack.timeout), request) for request in requests]
    for future, request in pending:
        driver.collect(analysis, driver.analyze_result(pack, future, request, analysis), request.urn)
    _analyze_stack(pack, analysis, state, live, providers)
    return analysis


def _request(resource: StateResource, properties: dict[str, Any],
             providers: dict[str, StateResource]) -> analyzer_pb2.AnalyzeRequest:
    """The engine's AnalyzerResource of a state resource (`stateToAnalyzerResource`)."""
    pb = analyzer_pb2
    request = pb.AnalyzeRequest(
        type=resource.type, properties=driver.to_struct(properties), urn=resource.urn, name=resource.name,
        options=pb.AnalyzerResourceOptions(
            protect=resource.protect, ignoreChanges=list(resource.ignore_changes),
            additionalSecretOutputs=list(resource.additional_secret_outputs), aliases=list(resource.aliases),
            parent=resource.parent or ""),
    )
    provider = providers.get(resource.provider.rsplit("::", 1)[0]) if resource.provider else None
    if provider is not None:
        request.provider.CopyFrom(pb.AnalyzerProviderResource(
            type=provider.type, urn=provider.urn, name=provider.name,
            properties=driver.to_struct(blind(provider.inputs))))
    return request


def _remediations(pack: driver.PackProcess, analysis: driver.Analysis, resource: StateResource,
                  request: analyzer_pb2.AnalyzeRequest) -> None:
    """What the pack would remediate on a resource: reported as advisory findings, never applied."""
    response = pack.call("Remediate", request, f"Remediate of {resource.urn}")
    severities = driver.policy_severities(analysis)
    before = json_format.MessageToDict(request.properties)
    for remediation in response.remediations:
        severity = severities.get(remediation.policyName, "unspecified")
        if remediation.diagnostic:
            message = remediation.diagnostic
        elif remediation.HasField("properties"):
            after = json_format.MessageToDict(remediation.properties)
            changed = sorted(key for key in {*before, *after} if before.get(key) != after.get(key))
            if not changed:
                continue
            message = (f"would remediate {', '.join(changed)} (reported, not applied: an audit never changes a "
                       "deployed resource)")
        else:
            continue
        analysis.diagnostics.append(driver.Diagnostic(remediation.policyName, "advisory", severity, resource.urn,
                                                      message))


def _analyze_stack(pack: driver.PackProcess, analysis: driver.Analysis, state: State, live: list[StateResource],
                   providers: dict[str, StateResource]) -> None:
    pb = analyzer_pb2
    resources = []
    for resource in live:
        request = _request(resource, blind(resource.outputs), providers)
        message = pb.AnalyzerResource(type=request.type, properties=request.properties, urn=request.urn,
                                      name=request.name, options=request.options, parent=resource.parent or "",
                                      dependencies=list(resource.dependencies))
        if request.HasField("provider"):
            message.provider.CopyFrom(request.provider)
        for key, urns in resource.property_dependencies.items():
            message.propertyDependencies[key].urns.extend(urns)
        resources.append(message)
    first = len(analysis.diagnostics)
    driver.collect(analysis, pack.call("AnalyzeStack", pb.AnalyzeStackRequest(resources=resources),
                                        "AnalyzeStack"), "")
    known = {r.urn for r in live}
    root = root_stack_urn(state)
    analysis.diagnostics[first:] = [d if d.urn in known else dataclasses.replace(d, urn=root)
                                    for d in analysis.diagnostics[first:]]


def root_stack_urn(state: State) -> str:
    """The URN stack findings are attributed to: the state's root Stack, else the default one."""
    for resource in state.resources:
        if resource.type == STACK_TYPE and not resource.parent:
            return resource.urn
    return stack_urn(state.project, state.stack)


def blind(value: Any) -> Any:
    """State values for the packs: a secret amlkit cannot decrypt becomes the string `[secret]` (still a
    secret), whatever its type, as `pulumi policy analyze` redacts it."""
    if is_secret(value):
        inner = value.get("value")
        return {SECRET_SIG_KEY: SECRET_SIG, "value": REDACTED if inner == ENCRYPTED else blind(inner)}
    if isinstance(value, dict):
        return {key: blind(item) for key, item in value.items()}
    if isinstance(value, list):
        return [blind(item) for item in value]
    return value
