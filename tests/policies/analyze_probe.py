"""Run amlkit's pack servicer in this process, as its __main__.py sets it up, over a list of Analyze requests, in
rounds: each round Configures the pack and sends every request, counting how often pulumi's runtime settings were
configured and how many resource options pulumi-policy built. The rounds (one JSON line each, in order):

1. `own`: amlkit's own pack (amlkit.policies.analyze_once at work), with CONFIG;
2. `own-again`: the same, a second time (the settings are not configured again);
3. `own-reconfigured`: `PULUMI_CONFIG` changed and CONFIG2 configured (settings once more; new config applies);
4. `pulumi-policy`: the marks removed, so the servicer runs as pulumi-policy serves any pack, with CONFIG2.

Each line: the answers (serialized, deterministic, hex), `configured` and `options` counts. Run as a child (`python
-m tests.policies.analyze_probe REQUESTS CONFIG CONFIG2`): installing the pack's patches changes pulumi-policy's
module for the whole process. REQUESTS: a file of length-prefixed serialized AnalyzeRequests; CONFIG, CONFIG2:
JSON files {policy: [level, properties]} laid over the pack's initial config, as the engine's Configure sends it.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any


def main(requests_file: str, config_file: str, config2_file: str) -> None:
    os.environ.update(PULUMI_PROJECT="acme-ml", PULUMI_STACK="prod", PULUMI_DRY_RUN="true", PULUMI_CONFIG="{}")
    import pulumi.runtime
    from google.protobuf import empty_pb2
    from pulumi.runtime.proto import analyzer_pb2
    from pulumi_policy import EnforcementLevel
    from pulumi_policy import policy as servicer_module
    from pulumi_policy.policy import _PolicyAnalyzerServicer

    from amlkit import __version__
    from amlkit.policies import ALL_RULES, analyze_once
    from amlkit.policies.pack import (
        PACK_NAME,
        apply_rule_baselines,
        baseline_policy,
        build_policies,
        convert_each_request_once,
    )
    from amlkit.policies.secret_reads import record_secrets

    assert convert_each_request_once() and record_secrets()
    apply_rule_baselines(ALL_RULES)
    policies = [*build_policies(ALL_RULES), baseline_policy(True)]
    counts = {"configured": 0, "options": 0}
    configure_runtime = pulumi.runtime.configure
    build_options = servicer_module.PolicyResourceOptions

    def counted_configure(settings: Any) -> None:
        counts["configured"] += 1
        configure_runtime(settings)

    def counted_options(*args: Any) -> Any:
        counts["options"] += 1
        return build_options(*args)

    pulumi.runtime.configure = counted_configure  # what _configure_runtime_settings calls, by attribute
    servicer_module.PolicyResourceOptions = counted_options  # type: ignore[misc]  # what _get_resource_options calls
    requests = _requests(Path(requests_file).read_bytes(), analyzer_pb2.AnalyzeRequest)
    servicer: Any = _PolicyAnalyzerServicer(PACK_NAME, __version__, policies, EnforcementLevel.ADVISORY)
    initial = servicer.GetAnalyzerInfo(empty_pb2.Empty(), None).initialConfig

    def run(name: str, config_file: str) -> None:
        configure = analyzer_pb2.ConfigureAnalyzerRequest()
        for policy, entry in initial.items():
            configure.policyConfig[policy].CopyFrom(entry)
        for policy, (level, properties) in json.loads(Path(config_file).read_text()).items():
            configure.policyConfig[policy].enforcementLevel = analyzer_pb2.EnforcementLevel.Value(level.upper())
            if properties:
                configure.policyConfig[policy].properties.update(properties)
        servicer.Configure(configure, None)
        counts.update(configured=0, options=0)
        answers = [servicer.Analyze(request, None).SerializeToString(deterministic=True).hex() for request in requests]
        print(json.dumps({"round": name, "answers": answers, **counts}), flush=True)

    run("own", config_file)
    run("own-again", config_file)
    os.environ["PULUMI_CONFIG"] = '{"acme-ml:x": "1"}'
    run("own-reconfigured", config2_file)
    for policy in policies:
        vars(policy).pop("_amlkit_own_resource_policy", None)  # not amlkit's own: served as pulumi-policy serves it
    vars(servicer).pop("_amlkit_own_pack", None)
    assert not analyze_once.own_pack(servicer)
    run("pulumi-policy", config2_file)


def _requests(data: bytes, message: Any) -> list[Any]:
    found, at = [], 0
    while at < len(data):
        size = int.from_bytes(data[at:at + 4], "big")
        found.append(message.FromString(data[at + 4:at + 4 + size]))
        at += 4 + size
    return found


if __name__ == "__main__":
    main(*sys.argv[1:])
