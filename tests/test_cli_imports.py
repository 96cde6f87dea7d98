"""The commands that review nothing import neither grpc, nor pulumi-policy, nor the review engine.

Each command runs in a fresh interpreter (as the console script does) and reports, when it exits, which
of those modules it loaded. `amlkit rules` describes amlkit's own pack from its rules' metadata
(amlkit.review.pack.info); a review (`check`) still loads all of them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from amlkit.server import SERVER_DIR_ENV

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("grpc", "pulumi_policy", "amlkit.review.engine", "amlkit.review.pack.session", "pulumi", "pulumi_azure_native",
         "pulumi_azure")

_PROBE = """
import atexit, json, sys
report, heavy, args = sys.argv[1], sys.argv[2].split(","), sys.argv[3:]
def _report():
    with open(report, "w") as out:
        json.dump([name for name in heavy if name in sys.modules], out)
atexit.register(_report)
sys.argv = ["amlkit", *args]
from amlkit.launch import main  # the console script (#33: a timing-free guard of its lazy imports)
main()
"""


def _loaded(tmp_path: Path, args: list[str], heavy: tuple[str, ...] | list[str] = HEAVY) -> tuple[int, list[str]]:
    """The exit code of `amlkit <args>` (cwd tmp_path) and which of HEAVY it had imported when it exited."""
    report = tmp_path / "modules.json"
    done = subprocess.run([sys.executable, "-c", _PROBE, str(report), ",".join(heavy), *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env={**os.environ, "NO_COLOR": "1"})
    assert report.is_file(), done.stderr
    return done.returncode, json.loads(report.read_text())


LIGHT = {
    "help": ["--help"],
    "version": ["--version"],
    "check-help": ["check", "--help"],
    "rules": ["rules"],
    "rules-json-with-config": ["rules", "-f", "json", "--policy-pack-config",
                               str(ROOT / "examples/platform-repo/policy-config/prod.json")],
    "sizes": ["sizes", "--gpu"],
    "sizes-approved": ["sizes", "--approved", "-f", "json"],
    "init": ["init", "--non-interactive", "--location", "westeurope", "-s", "dev"],
    "import-az-ml": ["import-az-ml", str(ROOT / "tests/fixtures/az-ml/cluster-low-priority.yml")],
    "pack-path": ["pack-path"],
}


@pytest.mark.parametrize("args", LIGHT.values(), ids=LIGHT.keys())
@pytest.mark.slow
def test_cli_imports_nothing_heavy_for_commands_that_review_nothing(tmp_path, args):
    (tmp_path / "Pulumi.yaml").write_text("name: demo\nruntime: python\n")
    code, loaded = _loaded(tmp_path, args)
    assert code == 0
    assert loaded == []


@pytest.mark.slow
def test_cli_imports_the_engine_for_a_review(tmp_path):
    code, loaded = _loaded(tmp_path, ["check", "-C", str(ROOT / "examples/platform-repo"), "-s", "nonprod",
                                      "--timeout", "600"], [*HEAVY, "pydantic"])
    assert code in (0, 1)
    assert {"grpc", "amlkit.review.engine", "amlkit.review.pack.session"} <= set(loaded)
    # `-s NAME`, `-C DIR` and `--timeout 600` (bench/compare.py gives it) coerce without typer's pydantic adapters
    # (cli_options._as_typer_returns)
    assert "pydantic" not in loaded
    # its side of the analyzer protocol needs only pulumi's protobufs (amlkit.review.pack.proto), and the start-up
    # canary runs in a child of the fork server (amlkit.review.pack.canary): no pulumi/__init__ in this process
    assert not {"pulumi", "pulumi_policy", "pulumi_azure_native"} & set(loaded)


@pytest.mark.parametrize("args", [["rules"], ["sizes", "--approved"], ["init", "--help"]],
                         ids=["rules", "sizes", "init"])
def test_light_commands_without_a_config_file_import_neither_jsonschema_nor_pydantic(tmp_path, args):
    """Only a config file needs validating: amlkit's own defaults are valid (tests/review/test_pack_info.py). And
    typer builds no pydantic adapter for a default enum member (amlkit.cli_options.lazy_coercion; a value given on
the command line, `-f json`, still goes through typer's adapter)."""
    report = tmp_path / "modules.json"
    done = subprocess.run([sys.executable, "-c", _PROBE, str(report), "jsonschema,pydantic", *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env={**os.environ, "NO_COLOR": "1"})
    assert done.returncode == 0, done.stderr
    assert json.loads(report.read_text()) == []


_ORDER_PROBE = """
import sys
from amlkit.review.proc import warm
def prestart(project_dir=None, one_shot=False):
    print("prestart", project_dir, one_shot, "amlkit.cli" in sys.modules, "typer" in sys.modules)
    raise SystemExit(0)
warm.prestart = prestart
sys.argv = ["amlkit", *sys.argv[1:]]
from amlkit.launch import main
main()
"""


@pytest.mark.parametrize(("args", "expected"), [
    (["check", "-C", "proj", "-s", "dev"], "prestart proj True False False"),
    (["analyze", "--file", "prod.json"], "prestart None True False False"),
])
def test_the_console_script_starts_the_fork_server_before_importing_the_command_line(tmp_path, args, expected):
    """The server's imports overlap the CLI's: it starts before typer, rich or amlkit.cli are imported."""
    done = subprocess.run([sys.executable, "-c", _ORDER_PROBE, *args], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env={**os.environ, SERVER_DIR_ENV: str(tmp_path / "none")})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == expected
