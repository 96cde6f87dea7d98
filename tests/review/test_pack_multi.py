"""amlkit.review.pack.multi: several policy packs, paired with their configs as `pulumi preview` pairs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amlkit.errors import UsageError
from amlkit.review.engine import default_pack_dir, review
from amlkit.review.options import ReviewOptions
from amlkit.review.pack.multi import PackSpec, config_path, pairing_error, resolve
from tests.review.helpers import PACKS, RAW
from tests.review.statefiles import deployed_state

ECHO, PROBE = PACKS / "echo", PACKS / "audit_probe"
MISMATCH = ("the number of --policy-pack-config flags ({configs}) must match the number of --policy-pack flags "
            "({packs}): the first config goes with the first pack, and so on; give one config per pack, or none "
            "(then each pack runs with its defaults, and amlkit's own pack with the project's "
            "policy-config/<stack>.json)")


@pytest.mark.parametrize(
    ("packs", "configs", "message"),
    [
        pytest.param([], [], None, id="nothing"),
        pytest.param([], ["a.json"], None, id="amlkit-pack-one-config"),
        pytest.param(["a", "b"], [], None, id="two-packs-no-config"),
        pytest.param(["a", "b"], ["a.json", "b.json"], None, id="two-and-two"),
        pytest.param(["a", "b"], ["a.json"], MISMATCH.format(configs=1, packs=2), id="two-packs-one-config"),
        pytest.param(["a"], ["a.json", "b.json"], MISMATCH.format(configs=2, packs=1), id="one-pack-two-configs"),
        pytest.param([], ["a.json", "b.json"],
                     "--policy-pack-config was given 2 times but no --policy-pack was: without --policy-pack the "
                     "review runs amlkit's own pack, which takes one --policy-pack-config", id="configs-no-pack"),
    ],
)
def test_pairing_rule(packs, configs, message):
    assert pairing_error([Path(p) for p in packs], [Path(c) for c in configs]) == message


def test_resolve_keeps_the_order_pairs_configs_and_knows_amlkits_own_pack(tmp_path):
    own = default_pack_dir()
    assert resolve(None, None, own) == (PackSpec(own, None, own=True),)
    assert resolve([ECHO, own], [tmp_path / "e.json", tmp_path / "o.json"], own) == (
        PackSpec(ECHO.resolve(), tmp_path / "e.json", own=False), PackSpec(own, tmp_path / "o.json", own=True))
    assert resolve(ECHO, None, None) == (PackSpec(ECHO.resolve(), None, own=False),)


@pytest.mark.parametrize(
    ("packs", "message"),
    [
        pytest.param([ECHO, ECHO], f"{ECHO.resolve()}: --policy-pack given twice (each pack runs once per stack)",
                     id="twice"),
        pytest.param([ECHO, RAW], f"{RAW.resolve()}: not a policy pack (no PulumiPolicy.yaml)", id="not-a-pack"),
    ],
)
def test_resolve_refuses(packs, message):
    with pytest.raises(UsageError) as error:
        resolve(packs, None, default_pack_dir())
    assert str(error.value) == message


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project whose policy-config/ has prod.json, and a config directory with prod.json only."""
    for directory in ("policy-config", "configs"):
        (tmp_path / directory).mkdir()
        (tmp_path / directory / "prod.json").write_text("{}", encoding="utf-8")
    (tmp_path / "policy-config" / "production.json").write_text("{}", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("own", "given", "stack", "environment", "expected"),
    [
        pytest.param(True, None, "prod", "prod", "policy-config/prod.json", id="own-pack-project-convention"),
        pytest.param(True, None, "live", "production", "policy-config/production.json", id="own-pack-by-environment"),
        pytest.param(True, None, "dev", "dev", None, id="own-pack-no-file"),
        pytest.param(False, None, "prod", "prod", None, id="named-pack-never-gets-the-project-config"),
        pytest.param(False, "given.json", "prod", "prod", "given.json", id="given-file"),
        pytest.param(True, "given.json", "prod", "prod", "given.json", id="given-file-wins-for-own-pack"),
        pytest.param(False, "configs", "prod", "prod", "configs/prod.json", id="given-directory"),
    ],
)
def test_config_path(project, own, given, stack, environment, expected):
    spec = PackSpec(Path("pack"), project / given if given else None, own=own)
    assert config_path(spec, project, stack, environment) == (project / expected if expected else None)


def test_a_given_directory_without_the_stack_is_a_usage_error(project):
    with pytest.raises(UsageError) as error:
        config_path(PackSpec(Path("theirs"), project / "configs"), project, "dev", "development")
    assert str(error.value) == f"{project / 'configs'}: no policy pack config for stack dev (looked for dev.json or " \
                               "development.json)"


def test_two_packs_with_two_configs_give_both_packs_findings(tmp_path):
    """A program review (raw_aml, stack prod) with amlkit's pack (every policy advisory) and the echo pack
    (its policy mandatory): each pack's findings, at the level its own config gives, naming their pack."""
    ours, theirs = tmp_path / "ours.json", tmp_path / "theirs.json"
    ours.write_text(json.dumps({"all": "advisory"}), encoding="utf-8")
    theirs.write_text(json.dumps({"echo-inputs": "mandatory"}), encoding="utf-8")
    state = deployed_state(RAW, "prod", tmp_path)  # the lock links to the group through its deployed name
    [stack] = review(RAW, ["prod"], options=ReviewOptions(
        policy_pack=(default_pack_dir(), ECHO), policy_pack_config=(ours, theirs), states=[state])).stacks
    assert stack.error is None
    assert sorted((v.pack, v.policy, v.level, v.resource) for v in stack.violations) == [
        ("amlkit-guardrails", policy, "advisory", resource) for policy, resource in (
            ("aml-cluster-min-nodes-zero", "gpu-warm"), ("aml-cluster-ssh-disabled", "gpu-warm"),
            ("aml-compute-local-auth-disabled", "gpu-warm"), ("aml-compute-network-isolated", "gpu-warm"),
            ("aml-compute-no-public-ip", "gpu-warm"), ("aml-no-resource-group-lock", "rg-lock"),
            ("aml-workspace-cmk", "mlw"), ("aml-workspace-diagnostics", "mlw"), ("aml-workspace-hbi", "mlw"),
            ("aml-workspace-managed-network", "mlw"), ("aml-workspace-public-network-disabled", "mlw"),
            ("aml-workspace-user-assigned-identity", "mlw"))
    ] + [("fixture-echo", "echo-inputs", "mandatory", "gpu-warm")]
    assert [(p.name, p.policy_config, p.directory) for p in stack.packs] == [
        ("amlkit-guardrails", str(ours), str(default_pack_dir())), ("fixture-echo", str(theirs), str(ECHO.resolve()))]
    assert (stack.pack, stack.policy_config) == (stack.packs[0], str(ours))


def test_a_stale_waiver_of_amlkits_pack_is_a_warning_with_another_pack_alongside(tmp_path):
    """Two packs on raw_aml prod: a waiver of amlkit's pack config that matches no resource is one warning
    naming that config file (only amlkit's own pack's config is read for waivers: engine._review_one)."""
    ours, theirs = tmp_path / "ours.json", tmp_path / "theirs.json"
    waiver = {"resource": "gpu-wram", "reason": "typo'd name"}
    ours.write_text(json.dumps({"aml-cluster-ssh-disabled": {"waivers": [waiver]}}), encoding="utf-8")
    theirs.write_text(json.dumps({"echo-inputs": "mandatory"}), encoding="utf-8")
    [stack] = review(RAW, ["prod"], options=ReviewOptions(
        policy_pack=(default_pack_dir(), ECHO), policy_pack_config=(ours, theirs))).stacks
    assert stack.error is None
    assert stack.warnings == (f"{ours}: aml-cluster-ssh-disabled.waivers[0]: resource 'gpu-wram' matches no "
                              "resource of stack prod; closest: gpu-warm",)
