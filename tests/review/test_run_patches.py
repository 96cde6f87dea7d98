"""The SDK patches: each applies only on the code it was verified on, and changes no registration."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from amlkit import patches
from amlkit.review.engine import review
from amlkit.review.options import ReviewOptions
from amlkit.review.project import load_project, load_stack_config
from tests.review.helpers import RAW, normalized, raw_request, run_runner

ROOT = Path(__file__).resolve().parents[2]
RUNNER_PATCHES = ["alias-shortcut", "alias-specs", "provider-modules", "source-positions"]
REPLACED = {  # the SDK function each runner patch replaces
    "alias-shortcut": "pulumi.resource.collapse_alias_to_urn",
    "alias-specs": "pulumi.runtime.resource.prepare_aliases",
    "provider-modules": "pulumi._utils.lazy_import",  # its guard is checked as azure-native loads (see below)
    "source-positions": "pulumi.runtime.resource._get_stack_trace",
}


def sample_request(stack: str) -> dict:
    project = load_project(ROOT)
    config = load_stack_config(project, stack)
    return {"program": str(project.main), "project": project.name, "stack": stack, "config": config.values,
            "secret_keys": list(config.secret_keys)}


REQUESTS = {
    "raw": raw_request(clusterCount="5", clusters=json.dumps([{"name": "warm", "minNodes": 1}])),
    "sample-prod": sample_request("prod"),
}


@pytest.fixture(scope="module", params=sorted(REQUESTS))
def unpatched(request):
    return request.param, normalized(run_runner({**REQUESTS[request.param], "alias_shortcut": False})["resources"])


@pytest.mark.parametrize("patch", RUNNER_PATCHES)
@pytest.mark.slow
def test_each_runner_patch_records_exactly_the_registrations_of_the_unpatched_sdk(patch, unpatched):
    name, expected = unpatched
    patched = run_runner({**REQUESTS[name], "patches": [patch]})["resources"]
    assert normalized(patched) == expected
    assert len(expected) > 5


def test_every_patch_is_verified_on_the_installed_sdks():
    assert {name: patches.off_reason(name) for name in patches.PATCHES} == dict.fromkeys(patches.PATCHES)
    assert patches.report() == []


def _applied(names: list[str], unverified: str | None = None) -> dict[str, bool]:
    """Which SDK functions `apply_patches(names)` replaced, in a fresh process (one patch made unverified)."""
    code = (
        "import dataclasses, json, importlib\n"
        "from amlkit import patches\n"
        "from amlkit.review.run import runner\n"
        f"unverified = {unverified!r}\n"
        "if unverified:\n"
        "    patches.PATCHES[unverified] = dataclasses.replace(patches.PATCHES[unverified], verified=frozenset())\n"
        f"replaced = {REPLACED!r}\n"
        "def current(path):\n"
        "    module, name = path.rsplit('.', 1)\n"
        "    return getattr(importlib.import_module(module), name)\n"
        "before = {k: current(v) for k, v in replaced.items()}\n"
        f"runner.apply_patches({names!r})\n"
        "print(json.dumps({k: current(v) is not before[k] for k, v in replaced.items()}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    return json.loads(done.stdout)


@pytest.mark.slow
def test_verified_patches_are_applied_and_an_unverified_one_is_left_off():
    assert _applied(RUNNER_PATCHES) == dict.fromkeys(RUNNER_PATCHES, True)
    # the declaring-line positions are sent whenever verified (the speed-up only skips the SDK's walk)
    assert _applied(["alias-specs"]) == {"alias-shortcut": False, "alias-specs": True, "provider-modules": False,
                                         "source-positions": True}
    assert _applied(RUNNER_PATCHES, unverified="alias-specs") == {
        "alias-shortcut": True, "alias-specs": False, "provider-modules": True, "source-positions": True}
    assert _applied(RUNNER_PATCHES, unverified="source-positions") == {
        "alias-shortcut": True, "alias-specs": True, "provider-modules": True, "source-positions": False}
    # unverified, azure-native's modules stay pulumi's own lazy modules (tests/review/test_run_provider_modules.py)


def test_an_unverified_patch_says_why_it_is_off(monkeypatch):
    monkeypatch.setitem(patches.PATCHES, "alias-specs",
                        dataclasses.replace(patches.PATCHES["alias-specs"], verified=frozenset({"0" * 64})))
    patches.off_reason.cache_clear()
    try:
        version = metadata.version("pulumi")
        assert patches.off_reason("alias-specs") == (
            f"pulumi {version}: pulumi.runtime.resource:prepare_aliases, pulumi.runtime.resource:create_alias_spec "
            "(called from pulumi.runtime.resource:prepare_resource) is not the code this patch was verified on")
        assert patches.report() == [
            f"SDK patch 'alias-specs' is off (pulumi {version}: pulumi.runtime.resource:prepare_aliases, "
            "pulumi.runtime.resource:create_alias_spec (called from pulumi.runtime.resource:prepare_resource) is not "
            "the code this patch was verified on); the review still works, without skipping an Output per alias "
            "field for plain Alias(type_=...) values"]
    finally:
        patches.off_reason.cache_clear()


CALLER_CHANGES = {  # a caller of the patched code that is not what the patch was verified on, per patch
    "alias-shortcut": ("pulumi.resource:Resource.__init__", "pulumi.resource:CustomResource.__init__"),
    "alias-specs": ("pulumi.runtime.resource:prepare_resource", "pulumi.runtime.resource:register_resource"),
    "source-positions": ("pulumi.runtime.resource:read_resource", "pulumi.runtime.resource:get_resource"),
    "request-memo": ("pulumi_policy.policy:_PolicyAnalyzerServicer.Analyze",
                     "pulumi_policy.policy:_PolicyAnalyzerServicer.Remediate"),
}


@pytest.mark.parametrize("name", sorted(CALLER_CHANGES))
def test_a_patch_whose_caller_changed_is_off(monkeypatch, name):
    """The hash covers the callers: the same targets called from other code are not the verified code."""
    patch = patches.PATCHES[name]
    verified, changed = CALLER_CHANGES[name]
    callers = tuple(changed if caller == verified else caller for caller in patch.callers)
    assert callers != patch.callers
    monkeypatch.setitem(patches.PATCHES, name, dataclasses.replace(patch, callers=callers))
    patches.off_reason.cache_clear()
    try:
        assert patches.off_reason(name) == (
            f"{patch.distribution} {metadata.version(patch.distribution)}: {', '.join(patch.targets)} (called from "
            f"{', '.join(callers)}) is not the code this patch was verified on")
    finally:
        patches.off_reason.cache_clear()


def test_a_patch_whose_code_is_missing_is_off(monkeypatch):
    monkeypatch.setitem(patches.PATCHES, "source-positions", dataclasses.replace(
        patches.PATCHES["source-positions"], targets=("pulumi.runtime.resource:_no_such_function",)))
    patches.off_reason.cache_clear()
    try:
        assert patches.off_reason("source-positions") == (
            f"pulumi {metadata.version('pulumi')}: cannot read the patched code (AttributeError: module "
            "'pulumi.runtime.resource' has no attribute '_no_such_function')")
    finally:
        patches.off_reason.cache_clear()


def test_verbose_review_names_the_patch_that_is_off(monkeypatch, capsys):
    monkeypatch.setitem(patches.PATCHES, "request-memo",
                        dataclasses.replace(patches.PATCHES["request-memo"], verified=frozenset()))
    patches.off_reason.cache_clear()
    try:
        result = review(RAW, ["dev"], options=ReviewOptions(verbose=True))
    finally:
        patches.off_reason.cache_clear()
    assert result.stacks[0].error is None
    assert capsys.readouterr().err == (
        f"amlkit: SDK patch 'request-memo' is off (pulumi-policy {metadata.version('pulumi-policy')}: "
        "pulumi_policy.deserialize:deserialize_properties, pulumi_policy.proxy:unknown_checking_proxy, "
        "pulumi_policy.policy:_PolicyAnalyzerServicer._configure_runtime_settings, "
        "pulumi_policy.policy:_PolicyAnalyzerServicer._get_resource_options (called from "
        "pulumi_policy.policy:_PolicyAnalyzerServicer.Analyze, pulumi_policy.policy:_PolicyAnalyzerServicer."
        "AnalyzeStack, pulumi_policy.policy:_PolicyAnalyzerServicer._get_provider_resource) is not the code this "
        "patch was verified on); the review still works, without skipping converting each analyzer request once "
        "per policy\n")


@pytest.mark.slow
def test_the_request_memo_stays_off_on_an_unverified_pulumi_policy():
    code = (
        "import dataclasses\n"
        "from pulumi_policy import policy\n"
        "from amlkit import patches\n"
        "from amlkit.policies import pack\n"
        "patches.PATCHES['request-memo'] = dataclasses.replace(patches.PATCHES['request-memo'], verified=frozenset())\n"
        "before = policy._PolicyAnalyzerServicer.Analyze\n"
        "print(pack.convert_each_request_once(), policy._PolicyAnalyzerServicer.Analyze is before)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.split() == ["False", "True"]
