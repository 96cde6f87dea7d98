"""Warm start: the forked children are what the engine would start, and parallel reviews never drop a stack."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path

import pytest

from amlkit.policies import ALL_RULES
from amlkit.review.engine import default_pack_dir, review
from amlkit.review.options import ReviewOptions
from amlkit.review.pack import process
from amlkit.review.proc import preload, processes, warm, workers
from tests.review.helpers import PACKS, RAW, normalized, raw_request, runner_output

ROOT = Path(__file__).resolve().parents[2]
PACK_ENV = {"PULUMI_PROJECT": "proj", "PULUMI_STACK": "dev", "PULUMI_DRY_RUN": "true",
            "PULUMI_CONFIG": json.dumps({"proj:size": "big"}), "PYTHONUNBUFFERED": "1"}


def _first_lines(process) -> tuple[str, dict]:
    port = process.stdout.readline().decode().strip()
    seen = json.loads(process.stderr.readline())
    return port, seen


def test_the_pack_child_starts_as_the_engine_starts_a_pack():
    """`python -u -m pulumi.policy <engine> <dir>` (cwd = pack dir, PULUMI_* set) and the warm fork look alike."""
    pack = PACKS / "observe"
    cold = subprocess.Popen([sys.executable, "-u", "-m", "pulumi.policy", process.ENGINE_ADDRESS, str(pack)],
                            cwd=pack, env={**os.environ, **PACK_ENV}, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        cold_port, cold_seen = _first_lines(cold)
    finally:
        processes.kill(cold)
    with workers.review_session(None, pack, 1):
        child = warm.spawn_pack(pack, process.ENGINE_ADDRESS, PACK_ENV)
        try:
            warm_port, warm_seen = _first_lines(child)
        finally:
            processes.kill(child)
    assert cold_port.isdigit() and warm_port.isdigit()
    assert warm_seen == cold_seen
    assert warm_seen["argv"][1:] == [process.ENGINE_ADDRESS, str(pack)]
    assert warm_seen["cwd"] == str(pack)
    assert warm_seen["env"] == {key: value for key, value in {**os.environ, **PACK_ENV}.items()
                                if key.startswith("PULUMI_") or key == "PYTHONUNBUFFERED"}


def test_a_pack_child_forked_ahead_is_the_one_its_stack_would_start(monkeypatch):
    """warm.prefork_pack (a one-stack CLI review) forks what spawn_pack would fork; spawn_pack takes it only for
    exactly the same directory, argv, environment and umask, and the review's end kills one nobody took."""
    pack = PACKS / "observe"
    assert warm.pack_env("proj", "dev", {"proj:size": "big"}) == PACK_ENV
    with workers.review_session(None, pack, 1):
        warm.prefork_pack(pack, "proj", "dev", {"proj:size": "big"})
        ahead = next(iter(warm._PARKED.values()))
        monkeypatch.setenv("AMLKIT_TEST_CHANGED", "1")  # the review's environment changed: not that child
        other = warm.spawn_pack(pack, process.ENGINE_ADDRESS, PACK_ENV)
        monkeypatch.delenv("AMLKIT_TEST_CHANGED")
        taken = warm.spawn_pack(pack, process.ENGINE_ADDRESS, PACK_ENV)
        try:
            assert other is not ahead and taken is ahead and warm._PARKED == {}
            port, seen = _first_lines(taken)
            assert port.isdigit() and seen["argv"][1:] == [process.ENGINE_ADDRESS, str(pack)]
            assert seen["env"] == {key: value for key, value in {**os.environ, **PACK_ENV}.items()
                                   if key.startswith("PULUMI_") or key == "PYTHONUNBUFFERED"}
        finally:
            processes.kill(taken)
            processes.kill(other)
        warm.prefork_pack(pack, "proj", "prod", {})
        left = next(iter(warm._PARKED.values()))
    assert warm._PARKED == {} and left.wait(10) is not None  # killed when the review ended


@pytest.mark.slow
def test_the_runner_child_records_what_the_cold_runner_records():
    """`python -P -m amlkit.review.run.runner` (cwd = project dir) and the warm fork that the engine and the
    review tests (tests/review/helpers.run_runner) use record the same registrations and lookups."""
    request = {**raw_request(clusters=json.dumps([{"name": "a", "minNodes": 2}]), unknownCluster="true")}
    cold = subprocess.run([sys.executable, "-P", "-m", "amlkit.review.run.runner"], cwd=RAW,
                          input=json.dumps(request).encode(), capture_output=True, timeout=120, check=True)
    cold_lines = [json.loads(line) for line in cold.stdout.splitlines()]
    warm_lines = [json.loads(line) for line in runner_output(request).splitlines()]
    assert cold_lines[-1] == warm_lines[-1] == {"done": True}
    assert len(cold_lines) > 5
    resources = [[line["resource"] for line in lines if "resource" in line] for lines in (cold_lines, warm_lines)]
    assert normalized(resources[0]) == normalized(resources[1])
    others = [[line for line in lines if "resource" not in line] for lines in (cold_lines, warm_lines)]
    assert others[0] == others[1]


def test_the_fork_server_preloads_once_and_stays_single_threaded():
    """After preloading pulumi, azure-native, the components and the pack, the server has one thread."""
    with workers.review_session(ROOT, default_pack_dir(), 2) as server:
        child = warm.spawn_pack(default_pack_dir(), process.ENGINE_ADDRESS, PACK_ENV)
        try:
            assert child.stdout.readline().strip().isdigit()
        finally:
            processes.kill(child)
        with open(os.devnull, "wb") as sink:
            processes.kill(warm.spawn_runner(ROOT, sink))  # the program's modules load before its first child
        status = server.status()
    assert status["threads"] == 1
    assert {"pulumi", "pulumi_azure_native.machinelearningservices", "pulumi_azure_native.storage",
            "amlkit.program", "pulumi_policy", "amlkit.policies"} <= set(status["loaded"])
    # amlkit.policies discovers its rules on first use: the server does it once, before forking any pack
    assert status["rules"] == sorted(f"amlkit.policies.rules.{rule.name.replace('-', '_')}" for rule in ALL_RULES)


def test_azure_modules_come_from_the_program_and_from_amlkit_when_it_uses_amlkit():
    assert preload.azure_modules(RAW) == [
        "pulumi_azure_native.authorization", "pulumi_azure_native.machinelearningservices",
        "pulumi_azure_native.resources"]
    sample = preload.azure_modules(ROOT / "__main__.py")
    assert {"pulumi_azure_native.machinelearningservices", "pulumi_azure_native.keyvault",
            "pulumi_azure_native.storage"} <= set(sample)


def test_reading_a_program_s_imports_imports_none_of_them():
    """The fork server reads the program's imports before it can answer a fork: amlkit's modules are found by their
    files (importlib's find_spec of `amlkit.program.x` would import amlkit.program, pydantic and the schema)."""
    code = ("import json, sys; from pathlib import Path; from amlkit.review.proc import preload;"
            " before = set(sys.modules);"
            f" names = preload.program_modules(Path({str(ROOT / '__main__.py')!r}));"
            " print(json.dumps([names, sorted(set(sys.modules) - before)]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    names, imported = json.loads(done.stdout)
    assert names == preload.program_modules(ROOT / "__main__.py")
    assert names[-3:] == list(preload.AMLKIT_PROGRAM_MODULES)
    assert [name for name in imported if name.startswith(("amlkit", "pulumi", "pydantic", "components"))] == []


def test_azure_modules_reached_through_a_package_alias(tmp_path):
    (tmp_path / "__main__.py").write_text(
        "import pulumi_azure_native as azn\nfrom pulumi_azure_native import network\n"
        "azn.storage.StorageAccount('st')\nazn.not_a_module\n")
    assert preload.azure_modules(tmp_path) == ["pulumi_azure_native.network", "pulumi_azure_native.storage"]


def test_azure_modules_of_the_program_s_own_modules_and_relative_imports(tmp_path):
    (tmp_path / "__main__.py").write_text("import helpers\nfrom lib import net\n")
    (tmp_path / "helpers.py").write_text("from pulumi_azure_native import keyvault as kv\n")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "__init__.py").write_text("")
    (tmp_path / "lib" / "net.py").write_text("from . import dns\n")
    (tmp_path / "lib" / "dns.py").write_text("import pulumi_azure_native.network\n")
    (tmp_path / "unused.py").write_text("import pulumi_azure_native.compute\n")
    assert preload.program_modules(tmp_path) == ["pulumi_azure_native.keyvault", "pulumi_azure_native.network"]


def test_a_program_using_amlkit_also_preloads_the_components():
    assert preload.program_modules(ROOT / "examples" / "platform-repo")[-3:] == [
        "amlkit.program", "amlkit.components", "amlkit.vmsizes"]
    assert "pulumi_azure_native.managedidentity" in preload.program_modules(ROOT / "examples" / "platform-repo")


def test_the_pack_modules_are_those_installed_outside_the_pack():
    assert preload.pack_modules(default_pack_dir()) == ["pulumi_policy", "amlkit.policies", "amlkit.policies.pack",
                                                      "amlkit.policies.secret_reads"]
    assert preload.pack_modules(PACKS / "exits") == ["sys"]


def test_a_crashed_child_reports_its_exit_code_and_a_killed_one_its_signal(tmp_path):
    (tmp_path / "__main__.py").write_text("import os\nos._exit(9)\n")
    request = {"program": str(tmp_path), "project": "p", "stack": "s", "config": {}, "secret_keys": []}
    with workers.review_session(None, None, 1), open(os.devnull, "wb") as sink:
        child = warm.spawn_runner(tmp_path, sink)
        child.stdin.write(json.dumps(request).encode())
        child.stdin.close()
        assert child.wait(timeout=60) == 9
        processes.kill(child)
        hung = warm.spawn_runner(tmp_path, sink)  # waits for its request forever
        assert hung.poll() is None
        processes.kill(hung)
        assert hung.returncode == -9


@pytest.fixture(scope="module")
def twenty_stacks(tmp_path_factory):
    project = tmp_path_factory.mktemp("twenty") / "raw"
    shutil.copytree(RAW, project, ignore=shutil.ignore_patterns("Pulumi.*.yaml"))
    for index in range(20):
        source = RAW / ("Pulumi.dev.yaml" if index % 2 else "Pulumi.prod.yaml")
        shutil.copy(source, project / f"Pulumi.s{index:02d}.yaml")
    return project


@pytest.mark.slow
def test_twenty_stacks_with_four_jobs_are_all_reviewed_as_in_serial(twenty_stacks):
    serial = review(twenty_stacks, options=ReviewOptions(jobs=1))
    assert [s.error for s in serial.stacks] == [None] * 20
    assert serial.count("mandatory") > 0
    for _ in range(3):
        parallel = review(twenty_stacks, options=ReviewOptions(jobs=4))
        assert [s.error for s in parallel.stacks] == [None] * 20
        assert asdict(parallel) == asdict(serial)


def test_the_fork_server_lives_as_long_as_its_process_and_serves_every_review():
    first = review(RAW, ["dev"])
    server = warm._server()
    second = review(RAW, ["dev"])
    assert warm._server() is server and server.alive()  # the second review forked from the same server
    assert asdict(second) == asdict(first)


def test_two_concurrent_reviews_share_the_server_and_neither_closes_it_under_the_other():
    serial = review(RAW, options=ReviewOptions(jobs=1))
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda _: review(RAW, options=ReviewOptions(jobs=1)), range(2)))
    assert [asdict(result) for result in results] == [asdict(serial)] * 2
    assert warm._server().alive()


_WARM_SCRIPT = """
import json, sys
from pathlib import Path
from amlkit.review.engine import review
from amlkit.review.options import ReviewOptions
from amlkit.review.proc import warm
from amlkit.review.report.json import render
reports, warmed = [], []
for _ in range(2):
    reports.append(render(review(Path(sys.argv[1]), options=ReviewOptions(jobs=2))))
    warmed.append(sum(warm.server().status()["warmed"].values()))
print(json.dumps({"same": reports[0] == reports[1], "warmed": warmed, "stacks": reports[0].count('"stack":')}))
"""


@pytest.mark.slow
def test_a_review_that_forks_from_warm_caches_reports_byte_for_byte_what_a_cold_one_reports(tmp_path):
    """The first review of the samples learns the types its stacks use; the second, in the same process, forks
    its program workers from a server that warmed pulumi's caches for them (amlkit.review.run.typecache)."""
    done = subprocess.run([sys.executable, "-c", _WARM_SCRIPT, str(ROOT)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "AMLKIT_CACHE_DIR": str(tmp_path / "cache"),
                                            workers.SWITCH: "1"})
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["same"] and result["stacks"] >= 3
    assert result["warmed"][0] == 0 < result["warmed"][1]  # never reviewed: nothing learned, nothing warmed


@pytest.mark.slow
def test_the_fork_server_and_its_children_stop_when_the_process_exits(tmp_path):
    script = ("import json, sys\nfrom amlkit.review.proc import warm\nfrom amlkit.review.engine import review\n"
              f"review(__import__('pathlib').Path({str(RAW)!r}), ['dev'])\n"
              "server = warm._server()\n"
              "from amlkit.review.pack.pool import PackPool\n"
              "print(json.dumps([server.process.pid, *PackPool.shared_idle_pids()]))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    pids = json.loads(done.stdout)
    assert len(pids) == 2  # the server and the idle pack, alive until the interpreter exited
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid in pids if _alive(pid)] == []


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except FileNotFoundError:
        return False


OBSERVE_STATE = """import json, os, time
mask = os.umask(0)
with open("seen.json", "w") as out:
    json.dump({"var": os.environ.get("AMLKIT_TEST_SEEN"), "offset": time.strftime("%z"), "umask": mask}, out)
os._exit(0)
"""


def test_a_child_gets_the_environment_time_zone_and_umask_of_the_review_not_the_fork_server_s(tmp_path,
                                                                                             monkeypatch):
    """As a Popen child would (the persistent server changes them per command, amlkit.review.proc.environment)."""
    (tmp_path / "__main__.py").write_text(OBSERVE_STATE)
    request = {"program": str(tmp_path), "project": "p", "stack": "s", "config": {}, "secret_keys": []}
    with workers.review_session(None, None, 1), open(os.devnull, "wb") as sink:  # the fork server runs from here
        monkeypatch.setenv("AMLKIT_TEST_SEEN", "the review's")
        monkeypatch.setenv("TZ", "Etc/GMT-14")
        old = os.umask(0o027)
        try:
            child = warm.spawn_runner(tmp_path, sink)
        finally:
            os.umask(old)
        child.stdin.write(json.dumps(request).encode())
        child.stdin.close()
        assert child.wait(timeout=60) == 0
        processes.kill(child)
    assert json.loads((tmp_path / "seen.json").read_text()) == {"var": "the review's", "offset": "+1400",
                                                                 "umask": 0o027}
