"""pool.PackPool: amlkit's pack, reused across stacks (one process per worker), gives byte for byte the
report a fresh pack per stack gives; a pack that crashes mid-way fails only its own stack.

Each project below has stacks with different policy configs, ordered so a configured stack comes before
one on the pack's defaults (a config must never leak into the next stack a reused pack serves).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
from dataclasses import asdict
from pathlib import Path

import pytest
import yaml

from amlkit.review.engine import review
from amlkit.review.options import ReviewOptions
from amlkit.review.pack.pool import PackPool
from amlkit.review.pack.session import Session
from amlkit.review.proc import warm
from amlkit.review.report import json as report_json
from tests.review.helpers import FIXTURES, PACKS, RAW

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def spawned(monkeypatch):
    """The pack processes a review starts (warm.spawn_pack calls), none idle from earlier tests."""
    for pool in PackPool._shared.values():
        pool.close()
    calls: list[str] = []
    spawn = warm.spawn_pack

    def counting(pack_dir, address, env):
        calls.append(env["PULUMI_STACK"])
        return spawn(pack_dir, address, env)

    monkeypatch.setattr(warm, "spawn_pack", counting)
    return calls


def every_rule_project(tmp_path: Path) -> Path:
    """The every-rule fixture with its pack config for stack `every`, and a copy on the pack's defaults."""
    project = tmp_path / "every"
    shutil.copytree(FIXTURES / "every_rule", project)
    shutil.copy(project / "Pulumi.every.yaml", project / "Pulumi.every-defaults.yaml")
    (project / "policy-config").mkdir()
    shutil.copy(project / "pack-config.json", project / "policy-config" / "every.json")
    return project


def rule_examples_project(tmp_path: Path) -> Path:
    """tests/review/test_rule_examples.py's project: every rule's example, each stack with its own config."""
    from tests.review.test_rule_examples import examples, stacks

    project = tmp_path / "rule-examples"
    shutil.copytree(FIXTURES / "rule_examples", project)
    (project / "policy-config").mkdir()
    for name, (resources, config) in stacks(examples()).items():
        stack_config = {"config": {"rule-examples:resources": json.dumps(resources)}}
        (project / f"Pulumi.{name}.yaml").write_text(yaml.safe_dump(stack_config))
        (project / "policy-config" / f"{name}.json").write_text(json.dumps(config))
    return project


def platform_repo(tmp_path: Path) -> Path:
    return ROOT / "examples" / "platform-repo"


PROJECTS = {"every-rule": every_rule_project, "rule-examples": rule_examples_project,
            "platform-repo": platform_repo}


@pytest.mark.parametrize("make", PROJECTS.values(), ids=PROJECTS.keys())
def test_pack_reuse_gives_the_report_of_a_fresh_pack_per_stack(tmp_path, spawned, make):
    project = make(tmp_path)
    fresh = review(project, options=ReviewOptions(jobs=1, reuse_packs=False))
    stacks = len(fresh.stacks)
    assert stacks >= 2 and len(spawned) == stacks
    assert [s.error for s in fresh.stacks] == [None] * stacks
    spawned.clear()
    reused = review(project, options=ReviewOptions(jobs=1))
    assert len(spawned) == 1  # one worker: one pack for every stack
    assert report_json.render(reused) == report_json.render(fresh)
    assert asdict(reused) == asdict(fresh)
    spawned.clear()
    again = review(project, options=ReviewOptions(jobs=1))
    assert spawned == []  # the next review in this process takes the idle pack
    assert report_json.render(again) == report_json.render(fresh)
    parallel = review(project, options=ReviewOptions(jobs=2))
    assert len(spawned) <= 1  # two workers: at most two packs, one of them idle already
    assert report_json.render(parallel) == report_json.render(fresh)


def test_a_pack_that_crashes_mid_way_fails_only_its_stack_and_is_replaced(tmp_path, spawned, monkeypatch):
    project = tmp_path / "raw"
    shutil.copytree(RAW, project)
    shutil.copy(project / "Pulumi.dev.yaml", project / "Pulumi.m-crash.yaml")  # between dev and prod
    fresh = {s.stack: s for s in review(project, options=ReviewOptions(jobs=1, reuse_packs=False)).stacks}
    submit = Session.submit

    def crash_on_m_crash(session, resource):
        if session.stack == "m-crash" and not session.requests:
            os.kill(session.pack.process.pid, signal.SIGKILL)
            session.pack.process.wait(timeout=10)
        submit(session, resource)

    monkeypatch.setattr(Session, "submit", crash_on_m_crash)
    spawned.clear()
    result = {s.stack: s for s in review(project, options=ReviewOptions(jobs=1)).stacks}
    assert spawned == ["dev", "prod"]  # m-crash got dev's pack, which died under it; prod got a new one
    assert result["m-crash"].error_kind == "pack"
    assert "exited during Analyze of" in result["m-crash"].error
    assert asdict(result["dev"]) == asdict(fresh["dev"])
    assert asdict(result["prod"]) == asdict(fresh["prod"])


def test_another_pack_gets_a_fresh_process_per_stack(spawned):
    result = review(RAW, options=ReviewOptions(policy_pack=PACKS / "echo", jobs=1))
    assert [s.stack for s in result.stacks] == ["dev", "prod"]
    assert spawned == ["dev", "prod"]


def test_a_pack_started_in_another_environment_umask_or_time_zone_is_not_reused(tmp_path, spawned, monkeypatch):
    """The pack judges waivers by its own "today": a pack started under one TZ never serves a review made under
    another (the persistent server changes its environment per command, amlkit.review.proc.environment)."""
    project = tmp_path / "raw"
    shutil.copytree(RAW, project)
    (project / "Pulumi.prod.yaml").unlink()
    review(project, options=ReviewOptions(jobs=1))
    review(project, options=ReviewOptions(jobs=1))
    assert spawned == ["dev"]  # same state: reused
    monkeypatch.setenv("TZ", "Etc/GMT-14")
    review(project, options=ReviewOptions(jobs=1))
    assert spawned == ["dev", "dev"]
    old = os.umask(0o077)
    try:
        review(project, options=ReviewOptions(jobs=1))
    finally:
        os.umask(old)
    assert spawned == ["dev", "dev", "dev"]
