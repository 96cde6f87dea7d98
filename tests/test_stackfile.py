"""Loading environments: safe YAML from stack files and the running program's Pulumi config."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pulumi
import pytest
import yaml

from amlkit.errors import ConfigError
from amlkit.schema import Secret
from amlkit.stackfile import MAX_FILE_BYTES, dump_yaml, load_stack_file, spec_from_pulumi_config

STACKS = Path(__file__).resolve().parent.parent / "stacks"

MINIMAL = """\
config:
  azure-native:location: westeurope
  amlkit:resourceGroup: {name: rg-ml-test}
  amlkit:workspace: {name: mlw-test}
"""


def write(tmp_path: Path, text: str, name: str = "Pulumi.test.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_stack_file(path)
    return re.sub(rf"^{re.escape(str(path))}(:\d+:\d+)?: ", "", str(caught.value))


def test_minimal_stack_defaults_environment_to_stack_name(tmp_path):
    spec = load_stack_file(write(tmp_path, MINIMAL, "Pulumi.Dev.yaml"))
    assert (spec.environment, spec.location, spec.workspace.name) == ("dev", "westeurope", "mlw-test")
    assert spec.protect_data is False


def test_bare_keys_are_the_project_namespace(tmp_path):
    text = MINIMAL.replace("amlkit:workspace", "workspace")
    assert load_stack_file(write(tmp_path, text)).workspace.name == "mlw-test"


def test_other_namespaces_are_ignored(tmp_path):
    text = MINIMAL + "  azure-native:subscriptionId: abc\n  pulumi:tags: {a: b}\n"
    assert load_stack_file(write(tmp_path, text)).resource_group.name == "rg-ml-test"


SECURE = MINIMAL + """\
  amlkit:clusters:
    - name: cpu
      size: Standard_DS3_v2
      ssh_settings:
        admin_password:
          secure: v1:AAAABBBBCCCC
"""


def test_secure_values_stay_secret_markers(tmp_path):
    password = load_stack_file(write(tmp_path, SECURE)).clusters[0].ssh_settings.admin_password
    assert isinstance(password, Secret) and password.reveal() is None


FAILING = [
    ("duplicate-key", MINIMAL + "  amlkit:workspace: {name: other}\n",
     "amlkit:workspace: duplicate key (lines 4 and 5); allowed: each key once"),
    ("duplicate-nested-key", MINIMAL.replace("{name: mlw-test}", "{name: a, name: b}"),
     "amlkit:workspace.name: duplicate key (lines 4 and 4); allowed: each key once"),
    ("namespace-twice", MINIMAL + "  workspace: {name: other}\n",
     "workspace: given twice (as 'workspace' and 'amlkit:workspace'); allowed: once"),
    ("unknown-amlkit-key", MINIMAL + "  amlkit:location: westeurope\n",
     "amlkit:location: unknown key 'amlkit:location'; allowed keys: amlkit:environment, amlkit:resourceGroup, "
     "amlkit:tags, "
     "amlkit:workspace, amlkit:clusters, amlkit:instances, amlkit:attached, amlkit:protectData, "
     "amlkit:prodLikeEnvironments, amlkit:extraRegions, "
     "azure-native:location"),
    ("list-document", "- a\n- b\n", "the document is a list; allowed: a mapping with a config: key"),
    ("empty-document", "", "the document is empty; allowed: a mapping with a config: key"),
    ("config-not-mapping", "config: [a]\n", "config: got a list; allowed: a mapping of config keys"),
    ("bad-yaml", "config:\n  a: [1, 2\n",
     "not valid YAML: a list in [ ] that is not closed or not separated by ','"),
    ("two-documents", MINIMAL + "---\nconfig: {}\n",
     "not valid YAML: a second YAML document (a '---' or '...' line): a stack file holds one"),
    ("self-alias", "config: &a\n  amlkit:tags: *a\n",
     "amlkit:tags: a YAML alias refers to itself; allowed: plain values"),
    ("plain-password", SECURE.replace("admin_password:\n          secure: v1:AAAABBBBCCCC",
                                      "admin_password: hunter2"),
     "amlkit:clusters[0].ssh_settings.admin_password: a plain-text credential is not allowed in stack config; "
     "store it as a Pulumi secret: pulumi config set --secret --path "
     "'amlkit:clusters[0].ssh_settings.admin_password' <value>"),
    ("secret-elsewhere", MINIMAL.replace("{name: mlw-test}", "{name: {secure: v1:abc}}"),
     "amlkit:workspace.name: holds a secret, which amlkit does not read here (offline it cannot be decrypted); "
     "allowed: a plain value (secrets are read only at amlkit:clusters[].ssh_settings.admin_password, "
     "amlkit:attached[].ssh_settings.admin_password, amlkit:attached[].ssh_settings.ssh_private_key)"),
    ("control-character", "config:\n  other:key: b\x00c\n",
     "not valid YAML: character #x0000 at position 22 is not allowed (control characters are not text)"),
    ("bad-explicit-tag", MINIMAL + "  amlkit:protectData: !!int x\n",
     "not valid YAML: cannot read 'x' as !!int (write the value without the tag, or quote it)"),
    ("impossible-date",
     MINIMAL + "  amlkit:clusters: [{name: cpu, size: Standard_DS3_v2, max_instances: 2001-02-30}]\n",
     "not valid YAML: cannot read '2001-02-30' as !!timestamp (write the value without the tag, or quote it)"),
    ("huge-integer", MINIMAL + "  amlkit:clusters: [{name: cpu, size: Standard_DS3_v2, max_instances: 0x"
     + "F" * 5000 + "}]\n",
     "amlkit:clusters[0].max_instances: got a very large integer; allowed: an integer from 1 to 65000"),
    ("too-deep", MINIMAL.replace("{name: mlw-test}", "[" * 600 + "]" * 600),
     "amlkit:workspace" + "[0]" * 39 + ": nested more than 40 levels deep"),
    ("too-deep-list-config", "config: " + "[" * 50 + "]" * 50 + "\n",
     "config" + "[0]" * 40 + ": nested more than 40 levels deep"),
    ("newline-in-key", "config:\n  ? 'amlkit:a\n\n  b'\n  : x\n",
     "amlkit:a\\nb: unknown key 'amlkit:a\\nb'; allowed keys: amlkit:environment, amlkit:resourceGroup, amlkit:tags, "
     "amlkit:workspace, amlkit:clusters, amlkit:instances, amlkit:attached, amlkit:protectData, "
     "amlkit:prodLikeEnvironments, amlkit:extraRegions, "
     "azure-native:location"),
    ("top-level-credential-key", MINIMAL + "  amlkit:adminPassword: hunter2\n",
     "amlkit:adminPassword: a plain-text credential is not allowed in stack config; store it as a Pulumi "
     "secret: pulumi config set --secret --path 'amlkit:adminPassword' <value>"),
    ("cron-unicode-digit", MINIMAL + "  amlkit:instances: [{name: ci-a, size: Standard_DS3_v2, schedules: "
     "[{action: stop, trigger: {type: cron, expression: '\u00b2 19 * * *'}}]}]\n",
     "amlkit:instances[0].schedules[0].trigger.expression: got '\u00b2 19 * * *'; allowed: a five-field cron "
     "expression 'minute hour day-of-month month day-of-week', e.g. '0 19 * * 1-5'"),
    ("schema-error-names-key-path", MINIMAL + "  amlkit:clusters: [{name: cpu, size: Standard_DS3_v2, "
     "max_instances: 70000}]\n",
     "amlkit:clusters[0].max_instances: got 70000; allowed: an integer from 1 to 65000"),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in FAILING], ids=[c[0] for c in FAILING])
def test_stack_file_rejects(tmp_path, text, expected):
    assert error_of(write(tmp_path, text)) == expected


def test_yaml_bomb_is_refused(tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, "
              f"*a{i - 1}, *a{i - 1}, *a{i - 1}]" for i in range(1, 9)]
    text = "bomb:\n" + "\n".join(f"  {line}" for line in lines) + "\n" + MINIMAL
    assert error_of(write(tmp_path, text)) == (
        "the YAML expands to more than 20000 values (alias bomb?); allowed: a plain stack file")


def test_huge_file_is_refused_before_parsing(tmp_path):
    path = write(tmp_path, MINIMAL + "#" * MAX_FILE_BYTES)
    assert error_of(path) == f"the file is {path.stat().st_size} bytes; allowed: at most {MAX_FILE_BYTES} bytes"


def test_missing_file(tmp_path):
    assert error_of(tmp_path / "Pulumi.none.yaml") == "cannot read the file: No such file or directory"


def test_file_name_must_name_the_stack(tmp_path):
    with pytest.raises(ConfigError, match=r"a stack file must be named Pulumi.<stack>.yaml$"):
        load_stack_file(write(tmp_path, MINIMAL, "prod.yaml"))


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_sample_stacks_load(stack):
    spec = load_stack_file(STACKS / f"Pulumi.{stack}.yaml")
    assert spec.environment == stack
    assert spec.clusters and all(c.min_instances == 0 and not c.ssh_public_access_enabled for c in spec.clusters)


def test_sample_stacks_differ_where_they_should():
    dev, staging, prod = (load_stack_file(STACKS / f"Pulumi.{s}.yaml") for s in ("dev", "staging", "prod"))
    assert {c.tier for c in dev.clusters} == {"low_priority"}
    assert {c.tier for c in prod.clusters} == {"dedicated"}
    assert dev.workspace.public_network_access == "enabled"
    assert prod.workspace.public_network_access == staging.workspace.public_network_access == "disabled"
    assert prod.workspace.locks and not dev.workspace.locks and not staging.workspace.locks
    assert (dev.protect_data, staging.protect_data, prod.protect_data) == (False, False, True)
    assert all(c.network_settings and c.enable_node_public_ip is False for c in prod.clusters)
    # staging isolates computes with the managed network, prod with its customer VNet (subnets, attached AKS)
    assert staging.workspace.managed_network.isolation_mode == "allow_only_approved_outbound"
    assert all(c.network_settings is None for c in [*staging.clusters, *staging.instances])
    assert prod.workspace.managed_network.isolation_mode == "disabled" and prod.attached
    assert prod.workspace.private_endpoints and staging.workspace.private_endpoints
    assert prod.workspace.image_build_compute == staging.workspace.image_build_compute == "cpu-cluster"
    assert not prod.instances


# --- from the running program's config ---------------------------------------------------------------


class NoResources(pulumi.runtime.Mocks):
    def new_resource(self, args):
        raise AssertionError("loading config must not create resources")

    def call(self, args):
        raise AssertionError("loading config must not call functions")


@pytest.fixture
def pulumi_config():
    """Set the engine-form config (strings, JSON objects) for one test, then clear it."""

    def apply(config: dict[str, str], secret_keys: list[str] | None = None) -> None:
        pulumi.runtime.set_mocks(NoResources(), project="amlkit", stack="qa", preview=True)
        pulumi.runtime.set_all_config(config, secret_keys or [])

    yield apply
    pulumi.runtime.set_all_config({}, [])


ENGINE_CONFIG = {
    "azure-native:location": "westeurope",
    "amlkit:resourceGroup": json.dumps({"name": "rg-ml-qa", "existing": True}),
    "amlkit:workspace": json.dumps({"name": "mlw-qa"}),
    "amlkit:protectData": "true",
}


def test_engine_config_is_decoded_and_validated(pulumi_config):
    pulumi_config(ENGINE_CONFIG)
    spec = spec_from_pulumi_config()
    assert (spec.environment, spec.resource_group.existing, spec.protect_data) == ("qa", True, True)


def test_engine_config_errors_name_the_stack_file(pulumi_config):
    pulumi_config({**ENGINE_CONFIG, "amlkit:protectData": "maybe"})
    with pytest.raises(ConfigError) as caught:
        spec_from_pulumi_config()
    assert str(caught.value) == ("Pulumi.qa.yaml: amlkit:protectData: got 'maybe'; "
                                 "allowed: a YAML mapping, list or boolean")


def test_engine_secret_key_wraps_the_password_and_redacts_messages(pulumi_config):
    cluster = {"name": "cpu", "size": "Standard_DS3_v2", "ssh_settings": {"admin_password": "hunter2"}}
    pulumi_config({**ENGINE_CONFIG, "amlkit:clusters": json.dumps([cluster])}, ["amlkit:clusters"])
    password = spec_from_pulumi_config().clusters[0].ssh_settings.admin_password
    assert isinstance(password, Secret) and password.reveal() == "hunter2"

    cluster["max_instances"] = 70000
    pulumi_config({**ENGINE_CONFIG, "amlkit:clusters": json.dumps([cluster])}, ["amlkit:clusters"])
    with pytest.raises(ConfigError) as caught:
        spec_from_pulumi_config()
    assert "hunter2" not in str(caught.value)
    assert str(caught.value).endswith("amlkit:clusters[0].max_instances: got a secret value; "
                                      "allowed: an integer from 1 to 65000")


def test_engine_plain_password_is_refused(pulumi_config):
    cluster = {"name": "cpu", "size": "Standard_DS3_v2", "ssh_settings": {"admin_password": "hunter2"}}
    pulumi_config({**ENGINE_CONFIG, "amlkit:clusters": json.dumps([cluster])})
    with pytest.raises(ConfigError, match=r"admin_password: a plain-text credential is not allowed"):
        spec_from_pulumi_config()


@pytest.mark.parametrize("namespace", ["amlkt", "AMLKIT", "aml-kit"])
def test_engine_config_with_a_near_miss_namespace_is_refused_under_pulumi_too(pulumi_config, namespace):
    """The same check as the offline review's (amlkit.review.project), so `pulumi preview` fails alike."""
    pulumi_config({**ENGINE_CONFIG, f"{namespace}:tags": "{}"})
    with pytest.raises(ConfigError) as caught:
        spec_from_pulumi_config()
    assert str(caught.value) == (f"Pulumi.qa.yaml: {namespace}:tags: unknown config namespace {namespace!r}; "
                                 "did you mean 'amlkit'? (only amlkit: keys configure amlkit)")


def test_engine_config_keeps_other_namespaces(pulumi_config):
    pulumi_config({**ENGINE_CONFIG, "amlkit-platform:x": "1", "azure:location": "westeurope", "amlkit:tags": "{}"})
    assert spec_from_pulumi_config().environment == "qa"



DUMPS = [
    pytest.param({"a": "plain"}, "a: plain\n", id="ascii"),
    pytest.param({"a": "Zürich ✓"}, "a: Zürich ✓\n", id="unicode-as-is"),
    pytest.param({"a": "x\x85y"}, 'a: "x\\Ny"\n', id="nel-escaped"),
    pytest.param({"a": "x\u2028y"}, "a: 'x\u2028  y'\n", id="line-separator-reads-back-as-is"),
]


@pytest.mark.parametrize(("document", "text"), DUMPS)
def test_dump_yaml_reads_back_exactly(document, text):
    """PyYAML writes NEL raw in a quoted scalar and reads it back as a space (the stack-file fuzzer found it)."""
    assert dump_yaml(document) == text
    assert yaml.safe_load(dump_yaml(document)) == document


def test_a_named_pipe_is_refused_without_being_read(tmp_path):
    """Before 0.3.0 the review called a FIFO stack file missing, and reading one would block forever."""
    path = tmp_path / "Pulumi.dev.yaml"
    os.mkfifo(path)
    assert error_of(path) == "not a regular file (a named pipe); allowed: a regular file"


def test_non_utf8_text_names_the_first_bad_byte_and_its_offset(tmp_path):
    path = tmp_path / "Pulumi.test.yaml"
    path.write_bytes((MINIMAL + "  amlkit:tags: {team: caf\xe9}\n").encode("latin-1"))
    offset = len(MINIMAL) + len("  amlkit:tags: {team: caf")
    assert error_of(path) == (f"not UTF-8 text: byte 0xe9 at offset {offset} (invalid continuation byte); "
                              "allowed: UTF-8 text")
