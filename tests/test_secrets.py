"""Canary secrets: plant a secret everywhere one can enter a review and grep every output for it.

Entry points: a `secure:` stack value (never decrypted: neither its ciphertext nor the placeholder
that stands for it may show), a secret literal in a program's inputs (`pulumi.Output.secret`), and
the amlkit schema's only secret field (`ssh_settings.admin_password`). Outputs: every format of
`check` and `preview`, `--output` files, `--verbose` logs, a policy that echoes every input into
its message, and a policy that raises with every input in its error (the failure path).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from amlkit import cli
from amlkit.review.project import SECRET_PLACEHOLDER
from tests.replay import ReplayEngine, replaying

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
CIPHERTEXT = "AAABAGsJ0cmV0LWNpcGhlcnRleHQtdGhhdC1tdXN0LW5ldmVyLWJlLWRlY3J5cHRlZA=="
LITERAL = "literal-token-s3cr3t-value"
CANARIES = (CIPHERTEXT, CIPHERTEXT[:16], SECRET_PLACEHOLDER, LITERAL)
FORMATS = ("table", "json", "sarif", "markdown")

runner = CliRunner()

SUBNET = ("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-net/providers/"
          "Microsoft.Network/virtualNetworks/vnet/subnets/aml")
AMLKIT_STACK = f"""\
config:
  azure-native:location: westeurope
  amlkit:resourceGroup: {{name: rg-canary}}
  amlkit:workspace: {{name: mlw-canary}}
  amlkit:clusters:
    - name: cpu
      size: Standard_DS3_v2
      max_instances: 2
      network_settings:
        subnet: {SUBNET}
      ssh_settings:
        admin_username: azureuser
        admin_password:
          secure: {CIPHERTEXT}
"""


@pytest.fixture(scope="module")
def amlkit_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's own program with a stack whose admin password is a secure value."""
    root = tmp_path_factory.mktemp("canary")
    shutil.copy(ROOT / "Pulumi.yaml", root / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", root / "__main__.py")
    (root / "stacks").mkdir()
    (root / "stacks" / "Pulumi.canary.yaml").write_text(AMLKIT_STACK, encoding="utf-8")
    return root


@pytest.fixture(scope="module", autouse=True)
def engine() -> Iterator[ReplayEngine]:
    """Each distinct review runs once for real (its own output grepped too); every other command, format
    and --output file of this module renders that same review (tests/replay.py)."""
    with replaying() as replay:
        yield replay
    # echo verbose, echo plain, leaky_raise, the amlkit program, secret_values dev and crash, dev with the
    # hookless pack (fewer with -k)
    assert replay.real_runs <= 7


def _assert_clean(text: str) -> None:
    for canary in CANARIES:
        assert canary not in text


def _run(args: list[str]) -> str:
    """The command's output; the stack must have been reviewed (exit 0 or 1), or grepping proves nothing."""
    result = runner.invoke(cli.app, args)
    assert result.exit_code in (0, 1), result.output
    return result.output


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("command", ["check", "preview"])
def test_no_canary_in_any_format_with_an_echoing_policy(command: str, fmt: str, tmp_path: Path) -> None:
    report = tmp_path / "report.out"
    args = [command, "-C", str(FIXTURES / "secret"), "--policy-pack", str(FIXTURES / "packs" / "echo"),
            "--format", fmt, "--verbose"]
    output = _run(args)
    assert "echo-inputs" in output
    _assert_clean(output)
    _assert_clean(_run([*args, "--output", str(report)]) + report.read_text(encoding="utf-8"))


def test_echoed_inputs_show_the_redaction_marker(tmp_path: Path) -> None:
    output = _run(["check", "-C", str(FIXTURES / "secret"), "--policy-pack", str(FIXTURES / "packs" / "echo")])
    assert "[secret]" in output


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_canary_when_a_policy_raises_with_the_inputs(fmt: str) -> None:
    result = runner.invoke(cli.app, ["check", "-C", str(FIXTURES / "secret"), "--policy-pack",
                                     str(FIXTURES / "packs" / "leaky_raise"), "--format", fmt, "--verbose"])
    assert result.exit_code == 3
    _assert_clean(result.output)


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_canary_from_the_amlkit_program(amlkit_project: Path, fmt: str) -> None:
    output = _run(["preview", "-C", str(amlkit_project), "--format", fmt, "--verbose"])
    assert "aml-" in output or '"violations": []' in output or "✅" in output
    _assert_clean(output)


# --- secrets by value (#32): what a rule derives from a secret is the secret -------------------------

SECRET_VALUES = FIXTURES / "secret_values"  # cluster c3: size, minNodeCount 3 and idle time 99999 s are secrets
BY_VALUE = (
    "AmlCompute cluster 'c3' must release idle nodes within 900 seconds (nodeIdleTimeBeforeScaleDown); found "
    "[secret].",
    "AmlCompute cluster 'c3' must have minNodeCount 0; found [secret].",
    "AmlCompute cluster 'c3' must use a VM size from an allowed series; found [secret].",
    "(waiver expired on 2023-08-31: ssh needed until 2023-08-31)",  # dates intact though a secret is 3
)
DERIVED = ("99999", "PT27H46M39S", "Mv2", "M208ms", "c[secret]", "[secret]1", "202[secret]")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("command", ["check", "preview"])
def test_a_finding_built_from_a_secret_says_found_secret_in_every_format(command: str, fmt: str) -> None:
    """Before 0.3.0: `found [secret] (99999 seconds)`, `found [secret] of series Mv2`, resource `c[secret]`
    and `202[secret]-08-[secret]1` (every `3` of the report replaced)."""
    output = _run([command, "-C", str(SECRET_VALUES), "-s", "dev", "--format", fmt, "--verbose"])
    assert [line for line in BY_VALUE if line not in output] == []
    assert [text for text in DERIVED if text in output] == []


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("command", ["check", "preview"])
def test_an_exception_in_an_apply_over_a_secret_is_scrubbed(command: str, fmt: str) -> None:
    """Before 0.3.0: `ValueError: invalid literal for int() with base 10: 'SECRET-4f1d-never-shown'`."""
    result = runner.invoke(cli.app, [command, "-C", str(SECRET_VALUES), "-s", "crash", "--format", fmt, "--verbose"])
    assert result.exit_code == 3
    assert "SECRET-4f1d-never-shown" not in result.output
    assert ("SecretApplyError: ValueError in an apply over a secret value: invalid literal for int() with base 10: "
            "'[secret]'") in result.output


SCRUBBED = [  # the safety net for text amlkit did not build (a program's error, another pack's message)
    ("whole-token", "found 3 nodes, x=3.", "found [secret] nodes, x=[secret]."),
    ("inside-a-name", "cluster c3 and c3-gpu", "cluster c3 and c3-gpu"),
    ("after-a-hyphen", "x-3 and gpu-3", "x-[secret] and gpu-[secret]"),
    ("inside-a-date", "expires 2023-08-31", "expires 2023-08-31"),
    ("inside-a-version", "python 3.11.7", "python 3.11.7"),
    ("quoted", "int('3') failed", "int('[secret]') failed"),
    ("longest-first", "token literal-token-s3cr3t-value", "token [secret]"),
]


@pytest.mark.parametrize(("text", "scrubbed"), [s[1:] for s in SCRUBBED], ids=[s[0] for s in SCRUBBED])
def test_scrubbing_replaces_whole_tokens_only(text: str, scrubbed: str) -> None:
    from amlkit.review.secrets import Secrets

    assert Secrets(["3", "literal-token-s3cr3t-value", "literal"]).scrub(text) == scrubbed


# --- fail closed (#32): without the pack's by-value hook, the review scrubs amlkit's own pack's text too --------

SECRET_TEXTS = ("Standard_M208ms_v2", "PT27H46M39S", "found 3")  # the secrets of tests/fixtures/secret_values


@pytest.fixture(scope="module")
def hookless_pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """amlkit's own pack, except that `record_secrets` cannot install (as with a pulumi-policy whose servicer
    changed): its findings are built from the secrets' values."""
    pack = tmp_path_factory.mktemp("hookless")
    shutil.copy(ROOT / "policies" / "PulumiPolicy.yaml", pack)
    (pack / "__main__.py").write_text(
        "import runpy\n"
        "from amlkit.policies import secret_reads\n"
        "secret_reads.record_secrets = lambda: False  # the hook could not install\n"
        f"runpy.run_path({str(ROOT / 'policies' / '__main__.py')!r}, run_name='__main__')\n", encoding="utf-8")
    return pack


@pytest.mark.parametrize("fmt", FORMATS)
def test_without_the_by_value_hook_no_secret_reaches_any_format(hookless_pack: Path, fmt: str,
                                                                 tmp_path: Path) -> None:
    report = tmp_path / "report.out"
    args = ["check", "-C", str(SECRET_VALUES), "-s", "dev", "--policy-pack", str(hookless_pack),
            "--policy-pack-config", str(SECRET_VALUES / "policy-config" / "dev.json"), "--format", fmt,
            "--verbose", "--output", str(report)]
    output = _run(args) + report.read_text(encoding="utf-8")
    assert "AmlCompute cluster 'c3' must have minNodeCount 0; found [secret]." in output  # scrubbed by the net
    assert "found [secret] of series" in output  # before: found Standard_M208ms_v2 of series ...
    assert [text for text in SECRET_TEXTS if text in output] == []


def test_the_pack_confirms_its_by_value_hook_only_when_it_installed(hookless_pack: Path) -> None:
    from amlkit.review.pack import process, session
    from amlkit.review.proc import workers

    def by_value(pack_dir: Path) -> bool:
        with workers.review_session(None, pack_dir, 1), process.PackProcess(pack_dir, "p", "dev", {}, 60.0) as pack:
            session.handshake(pack)
            return session.configure(pack, None, None).by_value

    assert (by_value(ROOT / "policies"), by_value(hookless_pack)) == (True, False)
