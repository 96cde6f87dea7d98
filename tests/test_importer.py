"""`amlkit.importer`: az ml compute YAML -> amlkit stack entries, with every dropped key reported."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from amlkit.errors import ConfigError
from amlkit.importer import DEFAULT, ImportFailed, Note, import_files
from amlkit.stackfile import load_stack_file

FIXTURES = Path(__file__).parent / "fixtures" / "az-ml"
SCOPE = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-network"
ALL = ["cluster-low-priority.yml", "cluster-ssh-password.yml", "cluster-vnet.yml", "instance-schedule.yml"]
PUBLIC_IP_NOTE = ("not set: az ml's default is true (nodes get public IP addresses), so it is written as true; "
                  "set it to false with network_settings.subnet or a workspace managed network")


@pytest.fixture(autouse=True)
def _in_fixtures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIXTURES)


def only(failed: ImportFailed) -> ConfigError:
    """The one failure of a run over one bad file."""
    [failure] = failed.failures
    return failure


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_docs_examples_give_the_expected_stack_entries() -> None:
    result = import_files(ALL, vnet_scope=SCOPE)
    assert result.to_yaml() == (FIXTURES / "expected" / "imported.yaml").read_text(encoding="utf-8")


def test_every_key_not_imported_is_reported_with_file_and_key() -> None:
    result = import_files(ALL, vnet_scope=SCOPE)
    assert result.notes == [
        Note("cluster-low-priority.yml", "enable_node_public_ip", PUBLIC_IP_NOTE, DEFAULT),
        Note("cluster-ssh-password.yml", "ssh_settings.admin_password",
             "not copied: a password never goes into a stack file. Prefer ssh_key_value; if the nodes need the "
             "password, store it as a Pulumi secret: pulumi config set --secret --path "
             "'amlkit:clusters[1].ssh_settings.admin_password' <password>"),
        Note("cluster-ssh-password.yml", "ssh_settings.admin_username",
             "not imported: ssh_settings needs ssh_key_value or the secret admin_password; add it with one of them"),
        Note("cluster-ssh-password.yml", "enable_node_public_ip", PUBLIC_IP_NOTE, DEFAULT),
        Note("cluster-vnet.yml", "network_settings.vnet_name",
             f"subnet 'snet-aml-compute' of vnet 'vnet-ml' written as a full ARM id in {SCOPE}"),
        Note("instance-schedule.yml", "setup_scripts", "not supported by amlkit; not imported"),
        Note("instance-schedule.yml", "enable_sso", "not supported by amlkit; not imported"),
        Note("instance-schedule.yml", "enable_node_public_ip", PUBLIC_IP_NOTE, DEFAULT),
    ]


def test_the_password_never_appears_in_output_or_notes() -> None:
    result = import_files(ALL, vnet_scope=SCOPE)
    assert "example-password" not in result.to_yaml()
    assert all("example-password" not in str(note) for note in result.notes)


def test_output_loads_as_a_stack_file(tmp_path: Path) -> None:
    entries = yaml.safe_load(import_files(ALL, vnet_scope=SCOPE).to_yaml())
    stack = {"config": {"azure-native:location": "westeurope", "amlkit:resourceGroup": {"name": "rg-ml-dev"},
                        "amlkit:workspace": {"name": "mlw-dev"}, **entries}}
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(yaml.safe_dump(stack), encoding="utf-8")
    spec = load_stack_file(path)
    assert [c.name for c in spec.clusters] == ["low-pri-example", "ssh-example", "gpu-cluster"]
    assert [(c.tier, c.enable_node_public_ip) for c in spec.clusters] == [
        ("low_priority", True), ("dedicated", True), ("dedicated", False)]
    assert spec.clusters[2].tags == {"owner": "ml-platform", "cost-center": "4711"}
    assert spec.instances[0].idle_time_before_shutdown_minutes == 30
    assert spec.instances[0].assigned_user is not None
    assert spec.instances[0].assigned_user.object_id == "3f2b6c1e-8d4a-4e7b-9c0d-1a2b3c4d5e6f"
    assert spec.instances[0].schedules[0].trigger.expression == "0 18 * * *"


def test_unknown_keys_are_reported_not_copied(tmp_path: Path) -> None:
    path = write(tmp_path, "c.yml", "name: c1\ntype: amlcompute\nsize: Standard_DS3_v2\nmax_nodes: 3\n"
                                    "enable_node_public_ip: true\n")
    result = import_files([path])
    assert result.clusters == [{"name": "c1", "size": "Standard_DS3_v2", "enable_node_public_ip": True}]
    assert result.notes == [Note(path, "max_nodes",
                                 "unknown key (not in the az ml amlCompute.schema.json); not imported")]


def test_explicit_public_ip_and_full_subnet_id_need_no_note(tmp_path: Path) -> None:
    subnet = f"{SCOPE}/providers/Microsoft.Network/virtualNetworks/vnet-ml/subnets/snet-a"
    path = write(tmp_path, "c.yml", f"name: c1\ntype: amlcompute\nsize: Standard_DS3_v2\nnetwork_settings:\n"
                                    f"  vnet_name: vnet-ml\n  subnet: {subnet}\nenable_node_public_ip: false\n")
    result = import_files([path])
    assert result.clusters[0]["network_settings"] == {"subnet": subnet}
    assert result.notes == []


def test_instance_idle_minutes_and_iso_must_agree(tmp_path: Path) -> None:
    path = write(tmp_path, "i.yml", "name: ci-one\ntype: computeinstance\nsize: Standard_DS3_v2\n"
                                    "idle_time_before_shutdown: PT1H\nidle_time_before_shutdown_minutes: 30\n")
    with pytest.raises(ImportFailed) as caught:
        import_files([path])
    assert str(only(caught.value)) == (f"{path}: idle_time_before_shutdown: got 'PT1H' (60 minutes) and "
                                 "idle_time_before_shutdown_minutes 30; allowed: one of them, or both with the same "
                                 "value")


def test_instance_ssh_key_needs_public_access(tmp_path: Path) -> None:
    path = write(tmp_path, "i.yml", "name: ci-one\ntype: computeinstance\nsize: Standard_DS3_v2\n"
                                    "enable_node_public_ip: true\nssh_settings:\n  ssh_key_value: ssh-ed25519 AAAA x\n")
    result = import_files([path])
    assert "ssh_settings" not in result.instances[0]
    assert result.notes == [Note(path, "ssh_settings",
                                 "not imported: amlkit reads it only with ssh_public_access_enabled: true")]


@pytest.mark.parametrize(("text", "message"), [
    pytest.param("name: x\nsize: Standard_DS3_v2\n", "type: required key is missing; allowed: amlcompute | "
                 "computeinstance | kubernetes | virtualmachine | synapsespark", id="no-type"),
    pytest.param("- a\n- b\n", "the document is not a mapping; allowed: an az ml compute YAML file (type: "
                 "amlcompute | computeinstance | kubernetes | virtualmachine | synapsespark)", id="list-document"),
    pytest.param("type: amlcompute\nsize: Standard_DS3_v2\nenable_node_public_ip: true\n",
                 "name: required key is missing", id="no-name"),
    pytest.param("name: c1\ntype: amlcompute\nsize: Standard_DS3_v2\nmin_instances: 5\nmax_instances: 2\n"
                 "enable_node_public_ip: true\n", "min_instances: got 5; allowed: at most max_instances (2)",
                 id="min-above-max"),
    pytest.param("name: c1\ntype: amlcompute\nsize: Standard_DS3_v2\ntier: spot\nenable_node_public_ip: true\n",
                 "tier: got 'spot'; allowed: dedicated | low_priority", id="bad-tier"),
    pytest.param("name: ci-one\ntype: computeinstance\nsize: Standard_DS3_v2\nidle_time_before_shutdown: PT5M\n"
                 "enable_node_public_ip: true\n", "idle_time_before_shutdown: got 5; allowed: whole minutes from 15 "
                 "to 4320", id="idle-too-short"),
    pytest.param("name: ci-one\ntype: computeinstance\nsize: Standard_DS3_v2\ncreate_on_behalf_of:\n"
                 "  user_object_id: alice\n  user_tenant_id: 00000000-0000-0000-0000-000000000000\n"
                 "enable_node_public_ip: true\n",
                 "create_on_behalf_of.user_object_id: got 'alice'; allowed: a GUID, e.g. "
                 "00000000-0000-0000-0000-000000000000", id="bad-user-object-id"),
    pytest.param("name: ci-one\ntype: computeinstance\nsize: Standard_DS3_v2\nidle_time_before_shutdown: PT90S\n"
                 "enable_node_public_ip: true\n", "idle_time_before_shutdown: got 'PT90S'; allowed: whole minutes "
                 "(e.g. PT30M), from PT15M to PT4320M", id="idle-not-whole-minutes"),
    pytest.param("name: ci-one\ntype: computeinstance\nsize: Standard_DS3_v2\nidle_time_before_shutdown: soon\n"
                 "enable_node_public_ip: true\n", "idle_time_before_shutdown: 'soon' is not an ISO-8601 duration "
                 "(for example PT120S, PT2M30S, PT1H, P1D, P1DT2H); allowed: an ISO-8601 duration of whole minutes "
                 "from PT15M to PT4320M", id="idle-not-a-duration"),
    pytest.param("name: c1\ntype: amlcompute\nsize: Standard_DS3_v2\nnetwork_settings:\n  subnet: snet-a\n",
                 "network_settings.vnet_name: required with a subnet given by name ('snet-a'); better: set "
                 "network_settings.subnet to the subnet's full ARM id, e.g. /subscriptions/<subscription-guid>/"
                 "resourceGroups/<vnet-resource-group>/providers/Microsoft.Network/virtualNetworks/<vnet>/subnets/"
                 "snet-a", id="short-subnet-without-vnet"),
])
def test_invalid_input_names_file_key_and_what_is_allowed(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, "bad.yml", text)
    with pytest.raises(ImportFailed) as caught:
        import_files([path])
    assert str(only(caught.value)) == f"{path}: {message}"


def test_fixture_with_unknown_vm_size_fails() -> None:
    with pytest.raises(ImportFailed) as caught:
        import_files(["cluster-bad-size.yml"])
    assert str(only(caught.value)) == ("cluster-bad-size.yml: size: got 'Standard_Foo9000'; allowed: a known Azure "
                                       "VM size name, e.g. Standard_D4ds_v5")


def test_a_compute_type_amlkit_does_not_manage_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "aks.yml", "name: aks\ntype: aks\n")
    with pytest.raises(ImportFailed) as caught:
        import_files([path])
    assert str(only(caught.value)) == (f"{path}: type: got 'aks'; allowed: amlcompute | computeinstance | "
                                       "kubernetes | virtualmachine | synapsespark")


def test_short_subnet_without_scope_asks_for_the_full_id() -> None:
    with pytest.raises(ImportFailed) as caught:
        import_files(["cluster-vnet.yml"])
    assert str(only(caught.value)) == (
        "cluster-vnet.yml: network_settings.subnet: the subnet is given by name ('snet-aml-compute' in vnet "
        "'vnet-ml'); amlkit needs its full ARM id: set network_settings.subnet to /subscriptions/"
        "<subscription-guid>/resourceGroups/<vnet-resource-group>/providers/Microsoft.Network/virtualNetworks/"
        "vnet-ml/subnets/snet-aml-compute, or pass --vnet-scope /subscriptions/<subscription-guid>/resourceGroups/"
        "<vnet-resource-group>")


def test_bad_vnet_scope_is_a_usage_error() -> None:
    with pytest.raises(ConfigError, match=r"^--vnet-scope: got 'rg-network'; allowed: /subscriptions/"):
        import_files(["cluster-vnet.yml"], vnet_scope="rg-network")


def test_the_same_name_in_two_files_is_refused(tmp_path: Path) -> None:
    first = write(tmp_path, "a.yml", "name: cl1\ntype: amlcompute\nsize: Standard_DS3_v2\n"
                                     "enable_node_public_ip: true\n")
    second = write(tmp_path, "b.yml", "name: CL1\ntype: computeinstance\nsize: Standard_DS3_v2\n"
                                      "enable_node_public_ip: true\n")
    with pytest.raises(ImportFailed) as caught:
        import_files([first, second])
    assert str(only(caught.value)) == (f"{second}: name: got 'CL1'; allowed: a compute name not used by another "
                                       f"input file ({first} has it)")


def test_duplicate_yaml_keys_are_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "dup.yml", "name: c1\nname: c2\ntype: amlcompute\n")
    with pytest.raises(ImportFailed, match=r"name: duplicate key \(lines 1 and 2\)"):
        import_files([path])


def test_a_schema_url_of_the_other_kind_is_reported(tmp_path: Path) -> None:
    path = write(tmp_path, "c.yml", "$schema: https://azuremlschemas.azureedge.net/latest/computeInstance.schema.json\n"
                                    "name: c1\ntype: amlcompute\nsize: Standard_DS3_v2\nenable_node_public_ip: true\n")
    result = import_files([path])
    assert result.notes == [Note(path, "$schema", "got 'https://azuremlschemas.azureedge.net/latest/"
                                 "computeInstance.schema.json' with type amlcompute; expected the "
                                 "amlCompute.schema.json schema (the file was read as type amlcompute)")]


def test_every_failing_file_is_reported_in_one_run_and_nothing_is_returned(tmp_path: Path) -> None:
    aks = write(tmp_path, "aks.yml", "name: aks\ntype: aks\n")  # a compute type amlkit does not manage
    with pytest.raises(ImportFailed) as caught:
        import_files(["cluster-bad-size.yml", "cluster-low-priority.yml", aks])
    assert [(f.file, f.key_path) for f in caught.value.failures] == [
        ("cluster-bad-size.yml", "size"), (aks, "type")]
    assert str(caught.value).splitlines()[-1] == "2 file(s) could not be imported; nothing was written"
    assert caught.value.exit_code == 2


def test_az_ml_defaults_written_out_are_notes_of_kind_default(tmp_path: Path) -> None:
    path = write(tmp_path, "c.yml", "type: amlcompute\nname: cpu\nmax_instances: 2\n")
    result = import_files([path])
    assert result.clusters == [{"name": "cpu", "size": "Standard_DS3_v2", "max_instances": 2,
                                "enable_node_public_ip": True}]
    assert result.notes == [
        Note(path, "enable_node_public_ip", PUBLIC_IP_NOTE, DEFAULT),
        Note(path, "size", "not set: az ml's default Standard_DS3_v2 is written out", DEFAULT)]
    assert result.not_imported == []
