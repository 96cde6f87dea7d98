"""How long do the two join-heavy stack rules take on a deployed state? Not a test: prints CPU seconds.

`python bench/stack_joins.py --sizes 2000,8000 [--repeat 3]` builds the resources of bench/auditstate.py's state
(an Azure ML platform stack: 20 resources per environment, one workspace, compute instance, role assignment and
diagnostic setting each) as the pack's stack rules see them (outputs and propertyDependencies, plain dicts), and
times `check_stack` of aml-compute-instance-identity and aml-workspace-diagnostics (best of `--repeat`,
`time.process_time`), with the number of findings so a before/after run shows the verdicts did not move.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import auditstate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from amlkit.policies.framework import StackResource  # noqa: E402
from amlkit.policies.rules import aml_compute_instance_identity, aml_workspace_diagnostics  # noqa: E402

RULES = (aml_compute_instance_identity.RULE, aml_workspace_diagnostics.RULE)


def stack(count: int) -> list[StackResource]:
    listed = []
    for raw in auditstate.resources(count):
        if not raw.get("custom"):
            continue
        deps = {key: tuple(urns) for key, urns in raw.get("propertyDependencies", {}).items()}
        name = raw["urn"].rsplit("::", 1)[-1]
        listed.append(StackResource(raw["type"], name, raw["urn"], raw.get("outputs", {}), raw.get("parent"), deps))
    return listed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,8000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for size in (int(s) for s in args.sizes.split(",")):
        resources = stack(size)
        for rule in RULES:
            best, findings = float("inf"), []
            for _ in range(args.repeat):
                start = time.process_time()
                findings = list(rule.check_stack(resources, {}))  # type: ignore[misc]
                best = min(best, time.process_time() - start)
            digest = hashlib.sha256(repr(findings).encode()).hexdigest()[:12]
            print(f"{size:>7} resources  {rule.name:<32} {best:8.3f} s CPU  {len(findings)} findings ({digest})")


if __name__ == "__main__":
    main()
