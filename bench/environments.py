"""The platform scenario: S environments of the `dev` size, as one Pulumi project with S stacks and
as S Terraform directories (what a platform repo with a stack per team and environment looks like).

Environment i (1-based) is the benchmark plan with one cluster, numbered i, so the planted defects
spread over the environments by the same positions as in the one-workspace scenario (every 10th
environment's cluster keeps min nodes 2, every 7th has local auth on, environments 5, 30, 55, ... use
a retired size), plus the resource-group lock every environment plants.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from terraform import write_terraform

from stacks import plan, write_project


def environment_name(index: int) -> str:
    return f"env{index:03d}"


def write_environments(root: Path, s: int, knob: str | None) -> tuple[Path, Path, dict[str, int]]:
    """`root/amlkit` (one project, stacks env001..) and `root/terraform/env001..`; the planted counts."""
    project_dir, tf_root = root / "amlkit", root / "terraform"
    planted: Counter[str] = Counter()
    for index in range(1, s + 1):
        bench = plan(1, knob, first=index)
        write_project(project_dir, bench, stack=environment_name(index))
        write_terraform(tf_root / environment_name(index), bench)
        planted.update(bench.planted())
    return project_dir, tf_root, dict(planted)
