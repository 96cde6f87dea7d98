"""amlkit.server: the opt-in persistent review server answers `amlkit check` exactly as a cold run does, and
only its user, only for its directories, only on a private Unix socket; it stops when idle and when stale.

Every test points AMLKIT_SERVER_DIR at its own directory, so no test meets a server its user started.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from amlkit import server

ROOT = Path(__file__).resolve().parents[1]
PLATFORM = ROOT / "examples" / "platform-repo"
AMLKIT = Path(sys.executable).with_name("amlkit")


@pytest.fixture
def server_dir(tmp_path, monkeypatch):
    directory = tmp_path / "srv"
    monkeypatch.setenv(server.SERVER_DIR_ENV, str(directory))
    yield directory
    server.stop()


def _amlkit(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The console script, its output into pipes (as pre-commit runs it)."""
    return subprocess.run([str(AMLKIT), *args], cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_server_check_gives_the_cold_run_s_output_and_exit_code(server_dir, tmp_path):
    cold_dir = tmp_path / "no-server"  # a server directory where no server runs: the command runs cold
    project = tmp_path / "platform-repo"
    shutil.copytree(PLATFORM, project)
    state = server.start([project], idle_timeout=300)
    assert state["served"] == 0
    assert oct(os.lstat(server_dir).st_mode & 0o777) == "0o700"
    assert oct(os.lstat(server_dir / server.SOCKET_NAME).st_mode & 0o777) == "0o600"
    commands = [("check", "-f", "json"), ("check", "-s", "prod"), ("preview", "-s", "nonprod", "-f", "markdown"),
                ("check", "-s", "prod", "-f", "sarif", "-o", "out.sarif")]
    for args in commands:
        served = _amlkit(*args, cwd=project)
        served_file = (project / "out.sarif").read_text() if "-o" in args else None
        cold = subprocess.run([str(AMLKIT), *args], cwd=project, capture_output=True, text=True, timeout=300,
                              env={**os.environ, server.SERVER_DIR_ENV: str(cold_dir)})
        assert (served.returncode, served.stdout, served.stderr) == (cold.returncode, cold.stdout, cold.stderr)
        if served_file is not None:
            assert served_file == (project / "out.sarif").read_text()
    assert server.status()["served"] == len(commands)


@pytest.mark.slow
def test_a_command_outside_the_server_s_directories_runs_cold(server_dir, tmp_path):
    inside = tmp_path / "inside"
    inside.mkdir()
    server.start([inside], idle_timeout=300)
    result = _amlkit("check", "-C", str(PLATFORM), "-s", "nonprod", "-f", "json", cwd=tmp_path)
    assert result.returncode in (0, 1) and '"stacks"' in result.stdout
    assert server.status()["served"] == 0
    reply = server.request({"op": "run", "argv": ["check", "-C", str(PLATFORM)], "cwd": str(inside),
                            "env": server.relevant_env(os.environ)})
    assert reply == {"refused": f"{PLATFORM} is outside the directories the server was started for ({inside})"}


NAMED_PATHS = [  # (argv, the paths it names besides the working directory)
    (["check"], []),
    (["check", "-C", "proj", "-s", "dev", "-f", "json"], ["proj"]),
    (["check", "--project-dir=proj", "--stack=dev"], ["proj"]),
    (["check", "stacks/Pulumi.dev.yaml", "--policy-pack-config", "../cfg.json"], ["stacks/Pulumi.dev.yaml",
                                                                               "../cfg.json"]),
    (["preview", "--state", "a.json", "--state", "b.json", "--base", "origin/main", "-o", "/tmp/x"],
     ["a.json", "b.json", "/tmp/x"]),
    (["check", "-j", "2", "--timeout", "30", "--policy-pack", "pack"], ["pack"]),
]


@pytest.mark.parametrize(("argv", "named"), NAMED_PATHS, ids=[" ".join(argv) for argv, _ in NAMED_PATHS])
def test_server_named_paths(tmp_path, argv, named):
    expected = [tmp_path, *(Path(os.path.realpath(tmp_path / path)) for path in named)]
    assert server.named_paths(argv, tmp_path) == [Path(os.path.realpath(p)) for p in expected]


def test_server_refuses_another_environment_and_answers_stale_when_the_code_changed(tmp_path):
    instance = server.Server([tmp_path], idle_timeout=60, path=tmp_path / "s.sock")
    message = {"op": "run", "argv": ["check"], "cwd": str(tmp_path), "env": server.relevant_env(os.environ)}
    other_env = {**message, "env": {**message["env"], "AMLKIT_REVIEW_DATE": "1999-01-01"}}
    assert instance.run(other_env) == (
        {"incompatible": "the environment differs (AMLKIT_*, PULUMI_*, PYTHON*)"}, None)
    assert instance.run({**message, "argv": ["rules"]}) == ({"refused": "the server runs only check and preview"}, None)
    instance.fingerprint = "the code it started with"
    assert instance.run(message) == (
        {"stale": "amlkit, an SDK or the interpreter changed since the server started"}, "stale")


@pytest.mark.parametrize("mode", [0o755, 0o711, 0o770])
def test_server_refuses_a_directory_others_can_enter(tmp_path, mode):
    directory = tmp_path / "srv"
    directory.mkdir()
    os.chmod(directory, mode)
    with pytest.raises(server.ServerError, match=f"mode {mode:04o}; the server needs 0700"):
        server.Server([tmp_path], 60, path=directory / "s.sock").listen()


def test_server_refuses_a_symlinked_directory(tmp_path):
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(server.ServerError, match="not a directory"):
        server.Server([tmp_path], 60, path=tmp_path / "link" / "s.sock").listen()


def test_server_socket_is_0600_in_a_0700_directory_and_exits_when_idle(tmp_path):
    instance = server.Server([tmp_path], idle_timeout=0.3, path=tmp_path / "srv" / "s.sock")
    instance.listen()
    try:
        assert oct(os.lstat(tmp_path / "srv").st_mode & 0o777) == "0o700"
        assert oct(os.lstat(instance.path).st_mode & 0o777) == "0o600"
        assert instance.serve() == "idle"
    finally:
        instance.sock.close()


OTHER_USER_CLIENT = """  # the server answers another user before reading anything
import json, socket, struct, sys
with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
    sock.connect(sys.argv[1])
    size = struct.unpack("!I", sock.recv(4))[0]
    print(sock.recv(size).decode())
"""
SYSTEM_PYTHON = Path("/usr/bin/python3")  # the venv's interpreter may sit where another user cannot go


@pytest.mark.skipif(os.getuid() != 0 or not SYSTEM_PYTHON.exists(), reason="needs root and /usr/bin/python3 "
                    "to connect as another user")
def test_server_refuses_another_user():
    base = Path(tempfile.mkdtemp(prefix="amlkit-peercred-"))  # pytest's tmp_path is private to root
    instance = server.Server([base], idle_timeout=60, path=base / "srv" / "s.sock")
    instance.listen()
    os.chmod(base, 0o755)
    os.chmod(instance.path.parent, 0o755)  # loosened by hand: SO_PEERCRED is the check left
    os.chmod(instance.path, 0o666)
    client = subprocess.Popen([str(SYSTEM_PYTHON), "-I", "-c", OTHER_USER_CLIENT, str(instance.path)], user=65534,
                              stdout=subprocess.PIPE, text=True, cwd="/")
    try:
        instance.sock.settimeout(30)
        conn, _ = instance.sock.accept()
        with conn:
            assert instance.handle(conn) is None
        out, _ = client.communicate(timeout=30)
        assert json.loads(out) == {"refused": "the server serves only the user who started it"}
    finally:
        client.kill()
        instance.sock.close()
        shutil.rmtree(base)


def test_without_a_server_nothing_is_forwarded(server_dir):
    assert not server_dir.exists()
    assert server.forward(["check", "-s", "dev"]) is None
    assert server.status() is None
