"""Run amlkit's pack servicer in this process, as its __main__.py sets it up, over one AnalyzeStack request: once
with the stack shared between amlkit's stack policies (amlkit.policies.shared_stack) and once converted per policy
as pulumi-policy does. Prints one JSON line: both answers (serialized, deterministic, hex), whether the shared
path ran, and what a stack rule added for the probe (`probe-capture`, no findings) saw of each resource both
times. Run as a child (`python -m tests.policies.stack_probe REQUEST CONFIG`): installing the pack's patches
changes pulumi-policy's module for the whole process.

REQUEST: a file holding a serialized AnalyzeStackRequest. CONFIG: a JSON file {policy: [level, properties]}
laid over the pack's initial config, as the engine's Configure sends it.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any


def main(request_file: str, config_file: str) -> None:
    os.environ.update(PULUMI_PROJECT="acme-ml", PULUMI_STACK="prod", PULUMI_DRY_RUN="true", PULUMI_CONFIG="{}")
    from google.protobuf import empty_pb2
    from pulumi.runtime.proto import analyzer_pb2
    from pulumi_policy import EnforcementLevel
    from pulumi_policy.policy import _PolicyAnalyzerServicer

    from amlkit import __version__
    from amlkit.policies import ALL_RULES, shared_stack
    from amlkit.policies.framework import Rule
    from amlkit.policies.pack import (
        PACK_NAME,
        apply_rule_baselines,
        baseline_policy,
        build_policies,
        convert_each_request_once,
    )
    from amlkit.policies.secret_reads import record_secrets

    assert convert_each_request_once() and record_secrets()
    seen: list[Any] = []
    capture = Rule(name="probe-capture", description="d", severity="low", level="advisory", tags=(), url="u",
                   remediation="r", check_stack=lambda resources, config: seen.append(_plain(resources)) or [])
    rules = [*ALL_RULES, capture]
    apply_rule_baselines(rules)
    policies = [*build_policies(rules), baseline_policy(True)]
    servicer: Any = _PolicyAnalyzerServicer(PACK_NAME, __version__, policies, EnforcementLevel.ADVISORY)
    configure = analyzer_pb2.ConfigureAnalyzerRequest()
    for name, entry in servicer.GetAnalyzerInfo(empty_pb2.Empty(), None).initialConfig.items():
        configure.policyConfig[name].CopyFrom(entry)
    for name, (level, properties) in json.loads(Path(config_file).read_text()).items():
        configure.policyConfig[name].enforcementLevel = analyzer_pb2.EnforcementLevel.Value(level.upper())
        if properties:
            configure.policyConfig[name].properties.update(properties)
    servicer.Configure(configure, None)
    request = analyzer_pb2.AnalyzeStackRequest.FromString(Path(request_file).read_bytes())

    used = []
    current = shared_stack.current

    def watched() -> Any:
        found = current()
        used.append(found is not None)
        return found

    shared_stack.current = watched  # type: ignore[assignment]  # how each policy read the stack
    answers = {"shared": servicer.AnalyzeStack(request, None)}
    shared_used, used[:] = list(used), []
    for policy in policies:
        vars(policy).pop("_amlkit_shared_stack", None)  # no longer amlkit's own: pulumi-policy converts per policy
    answers["per_policy"] = servicer.AnalyzeStack(request, None)
    print(json.dumps({"shared_used": shared_used, "per_policy_used": used, "seen": seen,
                      **{k: v.SerializeToString(deterministic=True).hex() for k, v in answers.items()}}))


def _plain(value: Any) -> Any:
    """A stack rule's resources as plain JSON: type, name, URN, parent URN, property dependencies, properties (an
    unknown value as `<unknown>`)."""
    from collections.abc import Mapping, Sequence

    from pulumi_policy.proxy import UnknownValueError

    from amlkit.policies.framework import StackResource

    if isinstance(value, StackResource):
        return [value.type, value.name, value.urn, value.parent_urn, {k: list(v) for k, v in
                                                                     value.property_dependencies.items()},
                _plain(value.props)]
    if isinstance(value, Mapping):
        out = {}
        for key in value:
            try:
                out[key] = _plain(value[key])
            except UnknownValueError:
                out[key] = "<unknown>"
        return out
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [_plain(item) for item in value]
    return value


if __name__ == "__main__":
    main(*sys.argv[1:])
