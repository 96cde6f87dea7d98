"""amlkit.server: the opt-in persistent review server answers `amlkit check` exactly as a cold run does, and
only its user, only for its directories, only on a private Unix socket; it stops when idle and when stale.

Every test points AMLKIT_SERVER_DIR at its own directory, so no test meets a server its user started.
"""

from __future__ import annotations

import datetime
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from amlkit import server, server_process
from amlkit.cli import app
from amlkit.policies.framework import REVIEW_DATE_ENV

ROOT = Path(__file__).resolve().parents[1]
PLATFORM = ROOT / "examples" / "platform-repo"
AMLKIT = Path(sys.executable).with_name("amlkit")


@pytest.fixture
def server_dir(tmp_path, monkeypatch):
    directory = tmp_path / "srv"
    monkeypatch.setenv(server.SERVER_DIR_ENV, str(directory))
    yield directory
    if not directory.is_symlink() and directory.is_dir() and directory.stat().st_mode & 0o077 == 0:
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
                ("check", "-s", "prod", "-f", "sarif", "-o", "out.sarif"), ("check", "--shard", "2/2", "-f", "json")]
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
    reply = server.request({**server.run_request(["check", "-C", str(PLATFORM)]), "cwd": str(inside)})
    assert reply == {"refused": f"{PLATFORM} is outside the directories the server was started for ({inside})"}


NAMED_PATHS = [  # (argv, the paths it names besides the working directory): every spelling the CLI parses
    (["check"], []),
    (["check", "-C", "proj", "-s", "dev", "-f", "json"], ["proj"]),
    (["check", "--project-dir=proj", "--stack=dev"], ["proj"]),
    (["check", "-C/etc", "-sdev"], ["/etc"]),
    (["check", "-o/etc/x.json", "-fjson"], ["/etc/x.json"]),
    (["check", "--output=/etc/x.json"], ["/etc/x.json"]),
    (["check", "-vC/etc"], ["/etc"]),
    (["check", "-C", "proj", "-C/etc"], ["/etc"]),  # the last one wins, as in the CLI
    (["check", "stacks/Pulumi.dev.yaml", "--policy-pack-config", "../cfg.json"], ["stacks/Pulumi.dev.yaml",
                                                                               "../cfg.json"]),
    (["check", "--policy-pack-config=/etc/cfg.json", "--policy-pack=/etc/pack"], ["/etc/pack", "/etc/cfg.json"]),
    (["check", "--state=/etc/s.json"], ["/etc/s.json"]),
    (["preview", "--state", "a.json", "--state", "b.json", "--base", "origin/main", "-o", "/tmp/x"],
     ["/tmp/x", "a.json", "b.json"]),
    (["check", "-j", "2", "--timeout", "30", "--policy-pack", "pack"], ["pack"]),
    (["check", "--", "-C/etc"], ["-C/etc"]),  # after `--`, a stack file named `-C/etc`
    (["check", "--shard", "2/3", "-f", "json", "-o", "s.json"], ["s.json"]),  # a shard (#33)
]


@pytest.mark.parametrize(("argv", "named"), NAMED_PATHS, ids=[" ".join(argv) for argv, _ in NAMED_PATHS])
def test_server_named_paths(tmp_path, argv, named):
    expected = [tmp_path, *(Path(os.path.realpath(tmp_path / path)) for path in named)]
    assert sorted(server_process.named_paths(argv, tmp_path)) == sorted(Path(os.path.realpath(p)) for p in expected)


def test_server_named_paths_is_none_for_a_command_line_the_cli_refuses(tmp_path):
    assert server_process.named_paths(["check", "--no-such-option", "/etc"], tmp_path) is None
    assert server_process.named_paths(["check", "-C"], tmp_path) is None


@pytest.mark.parametrize("spelling", [["-C/etc"], ["-o/etc/amlkit.json"], ["--output=/etc/amlkit.json"],
                                      ["-vC/etc"], ["--project-dir=/etc"], ["/etc/Pulumi.dev.yaml"]])
def test_server_refuses_a_path_outside_its_directories_in_any_spelling(tmp_path, spelling):
    instance = server_process.Server([tmp_path], idle_timeout=60, path=tmp_path / "s.sock")
    reply, outcome = instance.run({**server.run_request(["check", *spelling]), "cwd": str(tmp_path)})
    assert outcome is None
    assert reply["refused"].startswith("/etc") and reply["refused"].endswith(
        f"is outside the directories the server was started for ({Path(os.path.realpath(tmp_path))})")


def test_server_declines_another_start_up_environment_and_answers_stale_when_the_code_changed(tmp_path):
    instance = server_process.Server([tmp_path], idle_timeout=60, path=tmp_path / "s.sock")
    message = {**server.run_request(["check"]), "cwd": str(tmp_path)}
    for variable in ("PYTHONHASHSEED", "LC_ALL", "LD_PRELOAD", "GRPC_VERBOSITY"):
        other_env = {**message, "env": {**message["env"], variable: "0"}}
        assert instance.run(other_env) == ({"incompatible": "the start-up environment differs (PYTHON*, LD_*, "
                                                            "GRPC_*, LANG, LC_*): a running server cannot adopt it"},
                                           None)
    older_client = {key: value for key, value in message.items() if key != "umask"}
    assert instance.run(older_client) == (
        {"incompatible": "the request carries no environment and umask (an older amlkit)"}, None)
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
        server_process.Server([tmp_path], 60, path=directory / "s.sock").listen()


def test_server_refuses_a_symlinked_directory(tmp_path):
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(server.ServerError, match="not a directory"):
        server_process.Server([tmp_path], 60, path=tmp_path / "link" / "s.sock").listen()


def test_server_socket_is_0600_in_a_0700_directory_and_exits_when_idle(tmp_path):
    instance = server_process.Server([tmp_path], idle_timeout=0.3, path=tmp_path / "srv" / "s.sock")
    instance.listen()
    try:
        assert oct(os.lstat(tmp_path / "srv").st_mode & 0o777) == "0o700"
        assert oct(os.lstat(instance.path).st_mode & 0o777) == "0o600"
        assert instance.serve() == "idle"
    finally:
        instance.close()


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
    instance = server_process.Server([base], idle_timeout=60, path=base / "srv" / "s.sock")
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
        instance.close()
        shutil.rmtree(base)


def test_without_a_server_nothing_is_forwarded(server_dir):
    assert not server_dir.exists()
    assert server.forward(["check", "-s", "dev"]) is None
    assert server.status() is None


# --- one server per directory (#32) -------------------------------------------------------------------

def test_a_second_server_in_the_same_directory_refuses_to_start_and_leaves_the_first_s_socket(tmp_path):
    first = server_process.Server([tmp_path], 60, path=tmp_path / "srv" / "s.sock")
    first.listen()
    second = server_process.Server([tmp_path], 60, path=tmp_path / "srv" / "s.sock")
    try:
        with pytest.raises(server.ServerError, match=rf"server.lock is held by pid {os.getpid()}: another amlkit "
                                                     "server runs or starts there"):
            second.listen()
        second.close()
        assert first.inode == (os.lstat(first.path).st_dev, os.lstat(first.path).st_ino)
    finally:
        first.close()
    assert not first.path.exists()


def test_a_server_removes_only_the_socket_it_created(tmp_path):
    orphan = server_process.Server([tmp_path], 60, path=tmp_path / "srv" / "s.sock")
    orphan.listen()
    os.unlink(orphan.path)  # another server's socket now sits at the same path
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as live:
        live.bind(str(orphan.path))
        orphan.close()
        assert stat.S_ISSOCK(os.lstat(orphan.path).st_mode)


@pytest.mark.slow
def test_a_silent_connection_delays_no_other_request(tmp_path):
    instance = server_process.Server([tmp_path], idle_timeout=60, path=tmp_path / "srv" / "s.sock")
    instance.listen()
    serving = threading.Thread(target=instance.serve, daemon=True)
    serving.start()
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as silent:
            silent.connect(str(instance.path))  # connects, never sends
            # answered while the silent connection is still open (the server drops it after CLIENT_TIMEOUT)
            assert server.request({"op": "status"}, timeout=server.CLIENT_TIMEOUT - 1,
                                  path=instance.path)["pid"] == os.getpid()
            silent.settimeout(server.CLIENT_TIMEOUT * 3)
            assert silent.recv(1) == b""  # then dropped
        assert server.request({"op": "stop"}, path=instance.path)["pid"] == os.getpid()
        serving.join(timeout=30)
        assert not serving.is_alive()
    finally:
        instance.close()


def test_a_server_that_accepts_but_never_answers_runs_the_command_cold_saying_so_with_v(server_dir, monkeypatch,
                                                                                        capsys):
    monkeypatch.setattr(server, "CLIENT_TIMEOUT", 0.5)
    server_dir.mkdir(mode=0o700)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as stopped:  # a stopped server: the kernel accepts
        stopped.bind(str(server_dir / server.SOCKET_NAME))
        stopped.listen(4)
        assert server.forward(["check", "-s", "dev"]) is None
        assert capsys.readouterr().err == ""
        assert server.forward(["check", "-v", "-s", "dev"]) is None
        assert capsys.readouterr().err == (f"amlkit: not served: the server at {server_dir / server.SOCKET_NAME} "
                                           "did not answer within 0.5s; running cold\n")


def test_the_client_timeout_is_a_setting(server_dir, monkeypatch, capsys):
    """`AMLKIT_SERVER_TIMEOUT` seconds instead of CLIENT_TIMEOUT (a slow machine, a large audit served)."""
    monkeypatch.setenv(server.TIMEOUT_ENV, " 1.5 ")
    server_dir.mkdir(mode=0o700)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as stopped:  # a stopped server: the kernel accepts
        stopped.bind(str(server_dir / server.SOCKET_NAME))
        stopped.listen(4)
        assert server.forward(["check", "-v", "-s", "dev"]) is None
        assert capsys.readouterr().err == (f"amlkit: not served: the server at {server_dir / server.SOCKET_NAME} "
                                           "did not answer within 1.5s; running cold\n")
    assert server.client_timeout() == 1.5
    monkeypatch.setenv(server.TIMEOUT_ENV, "")
    assert server.client_timeout() == server.CLIENT_TIMEOUT == 5


@pytest.mark.parametrize("value", ["abc", "0", "0.5", "-3", "nan", "inf", "3601", "1e400", "5s", "x" * 50])
def test_a_malformed_client_timeout_is_a_usage_error_naming_the_setting(server_dir, monkeypatch, capsys, value):
    monkeypatch.setenv(server.TIMEOUT_ENV, value)
    shown = value if len(value) <= 40 else value[:37] + "..."
    assert server.forward(["preview", "-s", "dev"]) == 2  # with no server running too: the setting is read first
    assert capsys.readouterr().err == (
        f"amlkit: error: AMLKIT_SERVER_TIMEOUT={shown!r} is not a number of seconds; allowed: 1 to 3600 (the seconds "
        "a command waits for the review server), or unset for 5\n")
    with pytest.raises(server.ServerError):  # `amlkit server status` / `stop` too: exit 2
        server.client_timeout()


def test_the_console_script_exits_2_on_a_malformed_client_timeout(server_dir, tmp_path):
    done = subprocess.run([str(AMLKIT), "check", "-s", "dev"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env={**os.environ, server.TIMEOUT_ENV: "soon"})
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("amlkit: error: AMLKIT_SERVER_TIMEOUT='soon' is not a number of seconds; allowed: 1 to 3600 "
                           "(the seconds a command waits for the review server), or unset for 5\n")


def test_a_declined_command_says_why_with_v(server_dir, capsys):
    server_dir.mkdir(mode=0o755)
    (server_dir / server.SOCKET_NAME).touch()
    assert server.forward(["preview", "--verbose"]) is None
    assert capsys.readouterr().err == (f"amlkit: not served: {server_dir}: mode 0755; the server needs 0700; "
                                       "running cold\n")


def _bad_socket_dir(kind: str, directory: Path) -> str:
    """Make `directory` a bad socket directory of `kind`; the one line `status` / `stop` must print."""
    if kind == "symlink":
        real = directory.with_name("real")
        real.mkdir(mode=0o700)
        directory.symlink_to(real)
        return f"amlkit: error: {directory}: not a directory (refusing to use it for the server's socket)\n"
    directory.mkdir(mode=0o700)
    if kind == "loose":
        os.chmod(directory, 0o775)
        return f"amlkit: error: {directory}: mode 0775; the server needs 0700\n"
    os.chown(directory, 65534, 65534)
    return f"amlkit: error: {directory}: owned by uid 65534, not by this user ({os.getuid()})\n"


@pytest.mark.parametrize("command", ["status", "stop"])
@pytest.mark.parametrize("kind", ["symlink", "loose", pytest.param("foreign", marks=pytest.mark.skipif(
    os.getuid() != 0, reason="needs root to give the directory to another user"))])
def test_status_and_stop_report_a_bad_socket_directory_in_one_line(tmp_path, monkeypatch, kind, command):
    directory = tmp_path / "srv"
    monkeypatch.setenv(server.SERVER_DIR_ENV, str(directory))
    expected = _bad_socket_dir(kind, directory)
    result = CliRunner().invoke(app, ["server", command])
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", expected)


def _server_pids(directory: Path) -> list[int]:
    """The server processes whose socket directory is `directory` (their AMLKIT_SERVER_DIR)."""
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            if (b"amlkit.server_process" in (entry / "cmdline").read_bytes()
                    and f"{server.SERVER_DIR_ENV}={directory}".encode() in environ):
                pids.append(int(entry.name))
        except (OSError, ValueError):
            continue
    return pids


@pytest.mark.slow
def test_three_concurrent_starts_leave_one_server_and_the_others_say_so(server_dir, tmp_path):
    starts = [subprocess.Popen([str(AMLKIT), "server", "start", str(tmp_path), "--idle-timeout", "300"],
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for _ in range(3)]
    results = [(start.wait(timeout=300), *start.communicate()) for start in starts]
    pid = server.status()["pid"]
    assert sorted(code for code, _, _ in results) == [0, 2, 2]
    assert [out for code, out, _ in results if code == 0] == [
        f"amlkit server: pid {pid} listening on {server_dir / server.SOCKET_NAME} for {tmp_path} (idle timeout 300s)\n"]
    assert [err for code, _, err in results if code == 2] == 2 * [
        f"amlkit: error: a server already runs (pid {pid}, for {tmp_path}); stop it first: amlkit server stop\n"]
    assert _server_pids(server_dir) == [pid]


@pytest.mark.slow
def test_a_stopped_server_never_hangs_check(server_dir, tmp_path):
    project = tmp_path / "platform-repo"
    shutil.copytree(PLATFORM, project)
    pid = server.start([project], idle_timeout=300)["pid"]
    os.kill(pid, signal.SIGSTOP)
    try:
        served = _amlkit("check", "-s", "nonprod", "-f", "json", "-v", cwd=project)
    finally:
        os.kill(pid, signal.SIGCONT)
    cold = subprocess.run([str(AMLKIT), "check", "-s", "nonprod", "-f", "json", "-v"], cwd=project,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, server.SERVER_DIR_ENV: str(tmp_path / "no-server")})
    assert served.stderr == (f"amlkit: not served: the server at {server_dir / server.SOCKET_NAME} did not answer "
                             f"within {server.CLIENT_TIMEOUT:g}s; running cold\n{cold.stderr}")
    assert (served.returncode, served.stdout) == (cold.returncode, cold.stdout)
    assert server.status()["served"] == 0


# --- served equals cold (#32) -------------------------------------------------------------------------

PARITY = ROOT / "tests" / "fixtures" / "server_parity"
BEHIND, AHEAD = "Etc/GMT+12", "Etc/GMT-14"  # UTC-12 and UTC+14: their dates always differ
SERVER_STATE = {"TZ": BEHIND}  # the server's own time zone; it has no PARITY_MIN_NODES, umask 022
PARITY_CASES = [  # (id, the client's environment, umask, cwd under the project, arguments, exit code, served)
    ("program-reads-a-variable", {"PARITY_MIN_NODES": "2"}, 0o022, ".", ("-f", "json", "-o", "r.json"), 1, True),
    ("tz-at-a-waiver-boundary", {"TZ": AHEAD}, 0o022, ".", ("-f", "json", "-o", "r.json"), 1, True),
    ("umask-077", {}, 0o077, ".", ("-f", "sarif", "-o", "r.sarif"), 0, True),
    ("cwd-below-the-project", {}, 0o022, "sub", ("-C", "..", "-f", "markdown", "-o", "out/r.md"), 0, True),
    ("locale", {"LC_ALL": "C"}, 0o022, ".", ("-f", "json", "-o", "r.json"), 0, False),  # declined: runs cold
    # min nodes at level remediate: both clusters' remediations reported, the verdict of the remediated ones
    ("remediate", {"PARITY_MIN_NODES": "2"}, 0o022, ".", ("--policy-pack-config", "remediate.json", "-f", "table",
                                                          "-o", "r.txt"), 0, True),
]


def _parity_project(tmp_path: Path) -> Path:
    """The fixture with a waiver on cluster `waived` that expires today in BEHIND: holds there, expired AHEAD."""
    project = tmp_path / "parity"
    shutil.copytree(PARITY, project)
    (project / "sub" / "out").mkdir(parents=True)
    (project / "out").mkdir()
    today_behind = datetime.datetime.now(datetime.timezone(datetime.timedelta(hours=-12))).date()
    (project / "policy-config" / "dev.json").write_text(json.dumps({"aml-cluster-min-nodes-zero": {
        "enforcementLevel": "mandatory",
        "waivers": [{"resource": "waived", "reason": "batch window", "expires": today_behind.isoformat()}]}}))
    remediate = {"aml-cluster-min-nodes-zero": {"enforcementLevel": "remediate"}}
    (project / "remediate.json").write_text(json.dumps(remediate))
    return project


def _client(args: tuple[str, ...], env: dict[str, str], mask: int, cwd: Path) -> tuple[Any, ...]:
    """`amlkit check -s dev ARGS`: exit code, stdout, stderr, and the report's bytes and mode."""
    result = subprocess.run([str(AMLKIT), "check", "-s", "dev", *args], cwd=cwd, env=env, umask=mask,
                            capture_output=True, timeout=300)
    report = cwd / args[args.index("-o") + 1]
    outcome = (result.returncode, result.stdout, result.stderr, report.read_bytes(), oct(report.stat().st_mode))
    report.unlink()
    return outcome


@pytest.mark.slow
def test_a_served_command_runs_in_the_client_s_environment_cwd_umask_and_time_zone(server_dir, tmp_path):
    project = _parity_project(tmp_path)
    base = {key: value for key, value in os.environ.items() if key not in (REVIEW_DATE_ENV, "PARITY_MIN_NODES")}
    started = subprocess.run([str(AMLKIT), "server", "start", str(project), "--idle-timeout", "300"], cwd=project,
                             env={**base, **SERVER_STATE}, umask=0o022, capture_output=True, text=True, timeout=300)
    assert started.returncode == 0, started.stderr
    served_count = 0
    for case, env, mask, cwd, args, code, served in PARITY_CASES:
        client_env = {**base, **SERVER_STATE, **env}
        served_run = _client(args, client_env, mask, project / cwd)
        served_count += served
        assert server.status()["served"] == served_count, case
        cold_run = _client(args, {**client_env, server.SERVER_DIR_ENV: str(tmp_path / "no-server")}, mask,
                           project / cwd)
        assert served_run == cold_run, case
        assert (served_run[0], served_run[4]) == (code, oct(0o100666 & ~mask)), case


@pytest.mark.parametrize("command", ["status", "stop"])
def test_status_and_stop_name_a_server_that_holds_the_lock_but_does_not_answer(server_dir, monkeypatch, command):
    monkeypatch.setattr(server, "CLIENT_TIMEOUT", 0.3)
    hung = server_process.Server([server_dir.parent], 60, path=server_dir / server.SOCKET_NAME)
    hung.listen()  # listens, never accepts: as a stopped server
    try:
        result = CliRunner().invoke(app, ["server", command])
    finally:
        hung.close()
    assert (result.exit_code, result.stdout) == (1, (
        f"amlkit server: pid {os.getpid()} holds {server_dir / server.LOCK_NAME} but does not answer within 0.3s "
        f"(stopped or hung): kill {os.getpid()}\n"))
    assert CliRunner().invoke(app, ["server", command]).stdout == "amlkit server: not running\n"


@pytest.mark.parametrize("argv", [["check"], ["check", "-C", "."], ["check", "stacks/Pulumi.dev.yaml"]],
                         ids=" ".join)
def test_server_refuses_a_command_whose_project_is_found_above_its_directories(tmp_path, argv):
    """The CLI finds the nearest Pulumi.yaml upward, as `pulumi` does: that project must be inside too."""
    (tmp_path / "Pulumi.yaml").write_text("name: above\nruntime: python\n")
    inside = tmp_path / "sub"
    (inside / "stacks").mkdir(parents=True)
    (inside / "stacks" / "Pulumi.dev.yaml").write_text("config: {}\n")
    instance = server_process.Server([inside], idle_timeout=60, path=tmp_path / "s.sock")
    reply, _ = instance.run({**server.run_request(argv), "cwd": str(inside)})
    assert reply == {"refused": f"{Path(os.path.realpath(tmp_path))} is outside the directories the server was "
                                f"started for ({Path(os.path.realpath(inside))})"}
