"""`amlkit check --shard K/N` and `amlkit merge` (amlkit.review.shard, amlkit.review.report.shardfile,
amlkit.merge_cmd): the split, the shard report's round trip through every renderer, and the shards merge
refuses. End to end on the sample stacks, the platform example's workflow and a generated 200-stack
project: the slow tests at the end."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from amlkit import __version__, cli
from amlkit.errors import UsageError
from amlkit.review.model import Review
from amlkit.review.report import json as report_json
from amlkit.review.report import markdown, sarif, shardfile, table
from amlkit.review.shard import SPEC_FORM, Shard, assign, bound, parse_spec
from tests.benchmods import bench_module
from tests.data.reviews import (
    config_error_stack,
    dev_stack,
    failed_stack,
    prod_stack,
    remediated_stack,
    two_pack_stack,
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "platform-repo"
runner = CliRunner()

SPECS = [("1/1", (1, 1)), ("2/4", (2, 4)), (" 3 / 3 ", (3, 3)), ("10/12", (10, 12))]
BAD_SPECS = ["0/2", "3/2", "x", "1/0", "", "1/", "-1/2", "1/2/3", "1.0/2"]


@pytest.mark.parametrize(("text", "expected"), SPECS)
def test_parse_spec(text: str, expected: tuple[int, int]) -> None:
    assert parse_spec(text) == expected


@pytest.mark.parametrize("text", BAD_SPECS)
def test_parse_spec_refuses_with_the_allowed_form(text: str) -> None:
    with pytest.raises(UsageError) as raised:
        parse_spec(text)
    assert str(raised.value) == f"--shard {text!r}: expected {SPEC_FORM}"


@pytest.mark.parametrize("text", ["0/2", "3/2", "x"])
def test_check_refuses_a_bad_shard_with_exit_2(text: str) -> None:
    result = runner.invoke(cli.app, ["check", "--shard", text, "-C", str(ROOT)])
    assert result.exit_code == 2
    assert result.stderr == f"amlkit: error: --shard {text!r}: expected K/N with 1 <= K <= N (e.g. --shard 1/4)\n"


def test_check_shard_takes_no_stack_files() -> None:
    result = runner.invoke(cli.app, ["check", "--shard", "1/2", str(ROOT / "stacks" / "Pulumi.dev.yaml")])
    assert result.exit_code == 2
    assert "--shard splits the stacks of a project" in result.stderr


def _names(count: int) -> list[str]:
    return [f"env{index:03d}" for index in range(1, count + 1)]


@pytest.mark.parametrize("count", [1, 2, 3, 4, 8])
@pytest.mark.parametrize("stacks", [3, 17, 200])
def test_every_stack_in_one_shard_and_none_over_its_bound(count: int, stacks: int) -> None:
    shards = assign(_names(stacks), count)
    assert sorted(shards) == _names(stacks) and set(shards.values()) <= set(range(1, count + 1))
    assert max(Counter(shards.values()).values()) <= bound(stacks, count) <= max(math.ceil(stacks / count),
                                                                          1.1 * stacks / count)


def test_assignment_is_stable_when_a_stack_is_added() -> None:
    """A stack moves only when its preferred shard is full: adding env002..env200 one at a time to 4 shards
    moves fewer than one existing stack per addition on average (a re-deal by position would move most)."""
    moved = []
    for size in range(2, 201):
        before, after = assign(_names(size - 1), 4), assign(_names(size), 4)
        moved.append(sum(before[name] != after[name] for name in before))
    assert sum(moved) / len(moved) < 1 and max(moved) <= 3
    samples = assign(["dev", "prod", "staging"], 2)
    assert {name: shard for name, shard in assign(["dev", "prod", "staging", "test"], 2).items()
            if name != "test"} == samples


def _review() -> Review:
    errored = replace(failed_stack(), stack="qa")
    multi = replace(two_pack_stack(), stack="multi")
    remediated = replace(remediated_stack(), stack="remediated")
    return Review(stacks=[prod_stack(), dev_stack(), errored, config_error_stack(), multi, remediated])


def _shard_reports(review: Review, tmp_path: Path, count: int, setup: dict[str, Any] | None = None) -> list[Path]:
    names = sorted(s.stack for s in review.stacks)
    shares = assign(names, count)
    tmp_path.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(1, count + 1):
        shard = Shard(index, count, str(tmp_path), names, setup or {"strict": False, "policy_pack": [],
                                                                     "policy_pack_config": [], "digest": "d"})
        part = Review(stacks=[s for s in review.stacks if shares[s.stack] == index])
        path = tmp_path / f"shard-{index}.json"
        path.write_text(shardfile.render(part, shard), encoding="utf-8")
        paths.append(path)
    return paths


def test_a_shard_file_is_the_json_modules_indented_text(tmp_path: Path) -> None:
    for path in _shard_reports(_review(), tmp_path, 3):
        text = path.read_text(encoding="utf-8")
        assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("count", [1, 2, 3, 5])
def test_merged_review_renders_as_the_unsharded_one(tmp_path: Path, count: int) -> None:
    review = _review()
    merged = shardfile.load(_shard_reports(review, tmp_path, count)).review
    assert report_json.render(merged) == report_json.render(review)
    assert sarif.render(merged, tmp_path) == sarif.render(review, tmp_path)
    assert markdown.render(merged) == markdown.render(review)
    assert table.render(merged, "policies").plain == table.render(review, "policies").plain
    assert merged.exit_code() == review.exit_code() == 3


def test_a_shard_report_is_the_json_report_of_its_stacks_plus_the_shard(tmp_path: Path) -> None:
    path = _shard_reports(Review(stacks=[prod_stack()]), tmp_path, 1)[0]
    data = json.loads(path.read_text(encoding="utf-8"))
    shard = data.pop("shard")
    assert data == report_json.to_dict(Review(stacks=[prod_stack()]))
    assert (shard["format"], shard["amlkit"], shard["spec"], shard["stacks"]) == (1, __version__, "1/1", ["prod"])
    inputs = [r["inputs"] for s in shard["review"] for r in s["resources"]]
    assert all(set(i) <= {"computeName", "workspaceName"} for i in inputs)  # no other input value travels


def _refusal(paths: list[Path]) -> str:
    with pytest.raises(UsageError) as raised:
        shardfile.load(paths)
    return str(raised.value)


def test_merge_refuses_missing_and_overlapping_shards(tmp_path: Path) -> None:
    one, two, three = _shard_reports(_review(), tmp_path, 3)
    assert _refusal([one, three]) == "shard(s) 2/3 missing: give the reports of all 3 shards"
    assert _refusal([one, two, three, two]) == f"shards overlap: 2/3 is both {two} and {two}"


def test_merge_refuses_shards_of_another_run_or_version(tmp_path: Path) -> None:
    first = _shard_reports(_review(), tmp_path / "a", 2)
    other = _shard_reports(_review(), tmp_path / "b", 2, {"strict": True, "policy_pack": [],
                                                            "policy_pack_config": [], "digest": "d"})
    assert _refusal([first[0], other[1]]).startswith(f"{other[1]}: another run than {first[0]}: its project differs")
    data = json.loads(first[1].read_text(encoding="utf-8"))
    data["shard"]["project_dir"] = str(tmp_path / "a")
    data["shard"]["setup"]["digest"] = "changed"
    first[1].write_text(json.dumps(data), encoding="utf-8")
    assert "its setup (policy packs, their configs" in _refusal(first)
    data["shard"]["amlkit"] = "0.1.0"
    first[1].write_text(json.dumps(data), encoding="utf-8")
    assert _refusal(first) == (f"{first[1]}: a shard report of amlkit 0.1.0 (shard format 1); this is amlkit "
                               f"{__version__} (shard format 1): run every shard and the merge with one amlkit")
    plain = tmp_path / "plain.json"
    plain.write_text(report_json.render(_review()), encoding="utf-8")
    assert _refusal([plain]).startswith(f"{plain}: not a shard report")


def test_merge_refuses_another_pack_version(tmp_path: Path) -> None:
    paths = _shard_reports(_review(), tmp_path, 2)
    data = json.loads(paths[1].read_text(encoding="utf-8"))
    for pack in data["shard"]["packs"]:
        pack["version"] = "9.9.9"
    paths[1].write_text(json.dumps(data), encoding="utf-8")
    assert " 9.9.9, but " in _refusal(paths)


def test_merge_command_exits_2_on_shards_that_do_not_fit(tmp_path: Path) -> None:
    one = _shard_reports(_review(), tmp_path, 2)[0]
    result = runner.invoke(cli.app, ["merge", str(one)])
    assert result.exit_code == 2
    assert result.stderr == "amlkit: error: shard(s) 2/2 missing: give the reports of all 2 shards\n"


# --- end to end (slow) ------------------------------------------------------------------------------

FORMATS = {"json": "json", "sarif": "sarif", "markdown": "md", "table": "txt"}


def _amlkit(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "amlkit.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=900, check=False)


def _shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """A workflow step's command, as written, with `amlkit` this interpreter's."""
    env = {**os.environ, "NO_COLOR": "1", "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=900,
                          check=False)


def _outputs(directory: Path) -> list[str]:
    return [arg for fmt, ext in FORMATS.items() for arg in ("-f", fmt, "-o", str(directory / f"report.{ext}"))]


def _in_process(*args: str) -> subprocess.CompletedProcess[str]:
    """`amlkit ARGS` in this process (typer's CliRunner): what these tests compare is the unsharded run against
    the shards and their merge, each run the same way, not the console script (the workflow test below runs
    that); this saves an interpreter, its imports and its fork server per command. NO_COLOR as in `_amlkit`."""
    done = CliRunner().invoke(cli.app, list(args), env={"NO_COLOR": "1"})
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        raise done.exception  # a crash, where the console script would print a traceback
    return subprocess.CompletedProcess(list(args), done.exit_code, done.stdout, done.stderr)


def _assert_merged_is_unsharded(project: Path, count: int, tmp_path: Path, *extra: str) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "merged").mkdir()
    full = _in_process("check", "-C", str(project), *extra, *_outputs(tmp_path / "full"))
    assert full.returncode in (0, 1, 2, 3), full.stderr
    shards = []
    for index in range(1, count + 1):
        shard = tmp_path / f"shard-{index}.json"
        done = _in_process("check", "-C", str(project), *extra, "--shard", f"{index}/{count}", "-f", "json", "-o",
                           str(shard))
        assert done.returncode in (0, 1, 2, 3) and shard.is_file(), done.stderr
        shards.append(str(shard))
    merged = _in_process("merge", *shards, *_outputs(tmp_path / "merged"))
    assert merged.returncode == full.returncode, (merged.stderr, full.stderr)
    assert merged.stderr == full.stderr
    for ext in FORMATS.values():
        merged_bytes = (tmp_path / "merged" / f"report.{ext}").read_bytes()
        assert merged_bytes == (tmp_path / "full" / f"report.{ext}").read_bytes(), ext


@pytest.mark.slow
def test_merged_equals_unsharded_on_the_sample_stacks(tmp_path: Path) -> None:
    _assert_merged_is_unsharded(ROOT, 2, tmp_path)


@pytest.mark.slow
def test_merged_equals_unsharded_with_remediations_on_the_sample_stacks(tmp_path: Path) -> None:
    configs = tmp_path / "remediate"
    configs.mkdir()
    for stack in ("dev", "prod", "staging"):
        (configs / f"{stack}.json").write_text(json.dumps({
            "aml-cluster-min-nodes-zero": {"enforcementLevel": "remediate"},
            "aml-required-tags": {"enforcementLevel": "remediate", "requiredTags": ["data-classification"],
                                  "defaultTagValues": {"data-classification": "internal"}}}), encoding="utf-8")
    _assert_merged_is_unsharded(ROOT, 2, tmp_path, "--policy-pack-config", str(configs))
    report = json.loads((tmp_path / "full" / "report.json").read_text(encoding="utf-8"))
    assert all(stack["remediations"] for stack in report["stacks"])  # every sample stack has some to carry


@pytest.mark.slow
def test_the_platform_example_workflow_shards_and_merges(tmp_path: Path) -> None:
    """The sharded workflow's own commands, as written (matrix values substituted), on the example repo."""
    workflow = yaml.safe_load((EXAMPLE / ".github" / "workflows" / "amlkit-sharded.yml").read_text(encoding="utf-8"))
    shards = workflow["jobs"]["shard"]["strategy"]["matrix"]["shard"]
    assert shards == list(range(1, workflow["env"]["SHARDS"] + 1))
    check = next(s["run"] for s in workflow["jobs"]["shard"]["steps"] if "amlkit check" in s.get("run", ""))
    merge = next(s["run"] for s in workflow["jobs"]["merge"]["steps"] if "amlkit merge" in s.get("run", ""))
    assert "--policy-pack-config policy-config" in check and "--shard ${{ matrix.shard }}/${{ env.SHARDS }}" in check
    work = tmp_path / "repo"
    subprocess.run(["cp", "-r", str(EXAMPLE), str(work)], check=True)
    (work / "shards").mkdir()
    for shard in shards:
        command = check.replace("${{ matrix.shard }}", str(shard)).replace("${{ env.SHARDS }}", str(len(shards)))
        assert _shell(command, work).returncode == 0
        (work / f"shard-{shard}.json").rename(work / "shards" / f"shard-{shard}.json")
    merged = _shell(merge, work)
    full = _amlkit("check", "--policy-pack-config", "policy-config", "-f", "sarif", "-o", "full.sarif", "-f",
                   "markdown", "-o", "full.md", cwd=work)
    assert merged.returncode == full.returncode == 1, merged.stderr
    assert (work / "amlkit.sarif").read_bytes() == (work / "full.sarif").read_bytes()
    assert (work / "amlkit.md").read_bytes() == (work / "full.md").read_bytes()


@pytest.mark.slow
def test_merged_equals_unsharded_on_200_generated_stacks(tmp_path: Path) -> None:
    project, _, _ = bench_module("environments").write_environments(tmp_path / "gen", 200, None)
    _assert_merged_is_unsharded(project, 4, tmp_path, "--jobs", "2")
