"""`amlkit import-az-ml`: turn existing `az ml compute` YAML files into `amlkit:` stack entries.

The input is the az ml CLI v2 YAML of a compute (`$schema` amlCompute.schema.json or
computeInstance.schema.json, `type: amlcompute | computeinstance`), or of an attached compute
(`type: kubernetes | virtualmachine | synapsespark`, converted by `amlkit.import_attached`). The
output is the YAML of `amlkit:clusters:` / `amlkit:instances:` / `amlkit:attached:` entries, each
validated by the stack schema (`amlkit.schema`), to paste under `config:` of a stack file.

Nothing is dropped silently: every key that is not imported (unknown to az ml, or not supported by
amlkit) becomes a `Note` naming the file and the key; so does every az ml default written out (kind
DEFAULT: `size` Standard_DS3_v2, `enable_node_public_ip` true), which is no loss. Every file is tried: when
any fails, `ImportFailed` lists each failing file and nothing is written. A password is never copied: the note says how
to store it as a Pulumi secret, and never shows it. A subnet given by name (`vnet_name` + `subnet`)
needs its full ARM id; `vnet_scope` (`/subscriptions/<guid>/resourceGroups/<rg>`) completes it.
Bad input raises `ConfigError` (file, key, problem), which the CLI turns into exit code 2.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from amlkit import azure_facts as facts
from amlkit import import_attached
from amlkit.errors import AmlkitError, ConfigError
from amlkit.import_attached import AttachedConverter, copy_tags
from amlkit.schema import Secret, validate_environment
from amlkit.stackfile import dump_yaml, read_yaml

__all__ = [
    "ATTACHED", "AZ_ML_DEFAULT_SIZE", "CLUSTER", "DEFAULT", "INSTANCE", "ImportFailed", "Imported", "NOT_IMPORTED",
    "Note", "SECTIONS", "SUBNET_TEMPLATE", "convert_document", "import_files",
]

CLUSTER, INSTANCE = "amlcompute", "computeinstance"
ATTACHED = import_attached.KINDS
SECTIONS = {CLUSTER: "amlkit:clusters", INSTANCE: "amlkit:instances",
            **dict.fromkeys(ATTACHED, import_attached.SECTION)}
_KINDS_ALLOWED = "amlcompute | computeinstance | kubernetes | virtualmachine | synapsespark"
SUBNET_TEMPLATE = ("/subscriptions/<subscription-guid>/resourceGroups/<vnet-resource-group>/providers/"
                   "Microsoft.Network/virtualNetworks/{vnet}/subnets/{subnet}")
_SCOPE = re.compile(r"/subscriptions/[0-9a-fA-F-]{36}/resourceGroups/[-\w.()]{1,90}")

# Keys copied as they are (same name and meaning in az ml and in the amlkit schema).
_COPIED = {
    CLUSTER: ("name", "size", "min_instances", "max_instances", "idle_time_before_scale_down", "location",
              "identity", "enable_node_public_ip", "ssh_public_access_enabled", "description"),
    INSTANCE: ("name", "size", "location", "identity", "enable_node_public_ip", "ssh_public_access_enabled",
               "description"),
}
# Keys converted by a function below.
_CONVERTED = {
    CLUSTER: ("$schema", "type", "tier", "tags", "network_settings", "ssh_settings"),
    INSTANCE: ("$schema", "type", "tags", "network_settings", "ssh_settings", "schedules", "create_on_behalf_of",
               "idle_time_before_shutdown", "idle_time_before_shutdown_minutes"),
}
# az ml keys amlkit does not manage: reported, never imported.
_UNSUPPORTED = {
    CLUSTER: ("resource_id", "id", "provisioning_state", "created_on", "enable_os_patching"),
    INSTANCE: ("setup_scripts", "enable_sso", "enable_root_access", "custom_applications", "release_quota_on_stop",
               "enable_os_patching", "os_image_metadata", "resource_id", "id", "provisioning_state", "created_on",
               "services", "last_operation", "state"),
}
_TIERS = {"dedicated": "dedicated", "lowpriority": "low_priority"}
_SCHEMA_NAMES = {CLUSTER: "amlCompute.schema.json", INSTANCE: "computeInstance.schema.json"}


NOT_IMPORTED, DEFAULT = "not imported", "default"
AZ_ML_DEFAULT_SIZE = "Standard_DS3_v2"  # the az ml YAML schemas' default `size` (amlcompute and computeinstance)


@dataclass(frozen=True)
class Note:
    """A key of an input file that was not imported (or imported differently), and why. `kind` DEFAULT:
    a value az ml would have used anyway, written out explicitly (not a loss: `--strict` accepts it)."""

    file: str
    key: str
    message: str
    kind: str = NOT_IMPORTED

    def __str__(self) -> str:
        return f"{self.file}: {self.key}: {self.message}"


class ImportFailed(AmlkitError):
    """One or more input files could not be imported. Lists every failure (file, key, problem); exit 2."""

    exit_code = 2

    def __init__(self, failures: list[ConfigError]) -> None:
        self.failures = failures
        lines = [str(failure) for failure in failures]
        super().__init__("\n".join([*lines, f"{len(failures)} file(s) could not be imported; nothing was written"]))


@dataclass
class Imported:
    """The stack entries built from az ml files, and the notes about what was not imported."""

    sources: list[str] = field(default_factory=list)
    clusters: list[dict[str, Any]] = field(default_factory=list)
    instances: list[dict[str, Any]] = field(default_factory=list)
    attached: list[dict[str, Any]] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)

    def entries(self, kind: str) -> list[dict[str, Any]]:
        """The list entries of `kind` go to."""
        return self.clusters if kind == CLUSTER else self.instances if kind == INSTANCE else self.attached

    @property
    def not_imported(self) -> list[Note]:
        """The notes about keys that were dropped or changed (what `--strict` refuses)."""
        return [note for note in self.notes if note.kind == NOT_IMPORTED]

    def to_yaml(self) -> str:
        """The `amlkit:clusters` / `amlkit:instances` YAML, with a header naming the sources."""
        header = [f"# Imported by `amlkit import-az-ml` from: {', '.join(self.sources)}",
                  "# Paste these keys under `config:` of a stack file (stacks/Pulumi.<stack>.yaml)."]
        body: dict[str, Any] = {}
        if self.clusters:
            body[SECTIONS[CLUSTER]] = self.clusters
        if self.instances:
            body[SECTIONS[INSTANCE]] = self.instances
        if self.attached:
            body[import_attached.SECTION] = self.attached
        text = dump_yaml(body, sort_keys=False, default_flow_style=False, width=120)
        return "\n".join(header) + "\n" + (text if body else "")


def import_files(paths: Iterable[str | Path], vnet_scope: str | None = None) -> Imported:
    """Read each az ml compute YAML file and convert it. Every file is tried; when any fails, raises
    ImportFailed listing every failing file (and nothing is returned to write)."""
    if vnet_scope is not None and not _SCOPE.fullmatch(vnet_scope):
        raise ConfigError(None, "--vnet-scope", f"got {vnet_scope!r}; allowed: "
                          "/subscriptions/<subscription-guid>/resourceGroups/<vnet-resource-group>")
    result = Imported()
    failures: list[ConfigError] = []
    seen: dict[str, str] = {}
    for path in paths:
        file = str(path)
        result.sources.append(file)
        try:
            kind, entry = convert_document(read_yaml(Path(path)), file, result, vnet_scope)
            first = seen.setdefault(str(entry["name"]).lower(), file)
            if first != file:
                raise ConfigError(file, "name", f"got {entry['name']!r}; allowed: a compute name not used by "
                                  f"another input file ({first} has it)")
        except ConfigError as error:
            failures.append(error)
            continue
        result.entries(kind).append(entry)
    if failures:
        raise ImportFailed(failures)
    return result


def convert_document(document: Any, file: str, result: Imported, vnet_scope: str | None) -> tuple[str, dict[str, Any]]:
    """One az ml compute document -> (kind, validated stack entry); notes go to `result.notes`."""
    if not isinstance(document, Mapping):
        raise ConfigError(file, "", "the document is not a mapping; allowed: an az ml compute YAML file "
                          f"(type: {_KINDS_ALLOWED})")
    kind = _kind(document, file)
    index = len(result.entries(kind))
    if kind in ATTACHED:
        return kind, _convert_attached(document, file, kind, index, result)
    converter = _Converter(file, kind, index, vnet_scope)
    entry = converter.convert(document)
    _validate(entry, kind, file, document)
    result.notes.extend(converter.notes)
    return kind, entry


def _kind(document: Mapping[str, Any], file: str) -> str:
    kind = document.get("type")
    if kind is None:
        raise ConfigError(file, "type", f"required key is missing; allowed: {_KINDS_ALLOWED}")
    text = str(kind).lower()
    if text not in (CLUSTER, INSTANCE, *ATTACHED):
        raise ConfigError(file, "type", f"got {kind!r}; allowed: {_KINDS_ALLOWED}")
    return text


def _convert_attached(
    document: Mapping[str, Any], file: str, kind: str, index: int, result: Imported
) -> dict[str, Any]:
    """One attach document -> validated `amlkit:attached` entry (credentials left to the noted secrets)."""
    notes: list[Note] = []
    converter = AttachedConverter(file, kind, index, lambda key, text: notes.append(Note(file, key, text)))
    entry = converter.convert(document)
    _validate(converter.for_validation(entry, Secret(None)), kind, file, document)
    result.notes.extend(notes)
    return entry


class _Converter:
    """Converts one document; collects notes about keys it did not import."""

    def __init__(self, file: str, kind: str, index: int, vnet_scope: str | None) -> None:
        self.file = file
        self.kind = kind
        self.path = f"{SECTIONS[kind]}[{index}]"
        self.vnet_scope = vnet_scope
        self.notes: list[Note] = []

    def note(self, key: str, message: str, kind: str = NOT_IMPORTED) -> None:
        self.notes.append(Note(self.file, key, message, kind))

    def convert(self, document: Mapping[str, Any]) -> dict[str, Any]:
        entry: dict[str, Any] = {}
        for key, value in document.items():
            key = str(key)
            if key in _COPIED[self.kind]:
                entry[key] = value
            elif key in _UNSUPPORTED[self.kind]:
                self.note(key, "not supported by amlkit; not imported")
            elif key not in _CONVERTED[self.kind]:
                self.note(key, f"unknown key (not in the az ml {_SCHEMA_NAMES[self.kind]}); not imported")
        self._schema_url(document.get("$schema"))
        self._tier(document, entry)
        copy_tags(document, entry)
        self._network(document, entry)
        if self.kind == CLUSTER:
            self._cluster_ssh(document, entry)
        else:
            self._instance_ssh(document, entry)
            self._idle_shutdown(document, entry)
            self._assigned_user(document, entry)
            self._schedules(document, entry)
        self._public_ip(entry)
        self._size(entry)
        return _ordered(entry)

    def _size(self, entry: dict[str, Any]) -> None:
        if "size" not in entry:
            entry["size"] = AZ_ML_DEFAULT_SIZE
            self.note("size", f"not set: az ml's default {AZ_ML_DEFAULT_SIZE} is written out", DEFAULT)

    def _schema_url(self, url: Any) -> None:
        if url is not None and not str(url).rstrip().endswith(_SCHEMA_NAMES[self.kind]):
            self.note("$schema", f"got {str(url).strip()!r} with type {self.kind}; expected the "
                      f"{_SCHEMA_NAMES[self.kind]} schema (the file was read as type {self.kind})")

    def _tier(self, document: Mapping[str, Any], entry: dict[str, Any]) -> None:
        if "tier" not in document:
            return
        tier = document["tier"]
        normal = re.sub(r"[\s_-]", "", str(tier)).lower() if isinstance(tier, str) else None
        entry["tier"] = _TIERS.get(normal or "", tier)

    def _network(self, document: Mapping[str, Any], entry: dict[str, Any]) -> None:
        network = document.get("network_settings")
        if network is None:
            return
        if not isinstance(network, Mapping):
            raise ConfigError(self.file, "network_settings", "got a non-mapping value; allowed: a mapping with "
                              "subnet (and vnet_name)")
        for key in network:
            if key not in ("vnet_name", "subnet"):
                self.note(f"network_settings.{key}", "not supported by amlkit; not imported")
        subnet, vnet = network.get("subnet"), network.get("vnet_name")
        if subnet is None:
            raise ConfigError(self.file, "network_settings.subnet", "required key is missing; allowed: the "
                              f"subnet's full ARM id, e.g. {SUBNET_TEMPLATE.format(vnet='<vnet>', subnet='<subnet>')}")
        if isinstance(subnet, str) and not subnet.startswith("/"):
            subnet = self._subnet_id(str(vnet) if vnet is not None else None, subnet)
        entry["network_settings"] = {"subnet": subnet}

    def _subnet_id(self, vnet: str | None, subnet: str) -> str:
        if vnet is None:
            raise ConfigError(self.file, "network_settings.vnet_name", f"required with a subnet given by name "
                              f"({subnet!r}); better: set network_settings.subnet to the subnet's full ARM id, "
                              f"e.g. {SUBNET_TEMPLATE.format(vnet='<vnet>', subnet=subnet)}")
        if self.vnet_scope is None:
            raise ConfigError(self.file, "network_settings.subnet", f"the subnet is given by name ({subnet!r} in "
                              f"vnet {vnet!r}); amlkit needs its full ARM id: set network_settings.subnet to "
                              f"{SUBNET_TEMPLATE.format(vnet=vnet, subnet=subnet)}, or pass --vnet-scope "
                              "/subscriptions/<subscription-guid>/resourceGroups/<vnet-resource-group>")
        self.note("network_settings.vnet_name", f"subnet {subnet!r} of vnet {vnet!r} written as a full ARM id in "
                  f"{self.vnet_scope}")
        return f"{self.vnet_scope}/providers/Microsoft.Network/virtualNetworks/{vnet}/subnets/{subnet}"

    def _cluster_ssh(self, document: Mapping[str, Any], entry: dict[str, Any]) -> None:
        ssh = self._ssh_mapping(document)
        if ssh is None:
            return
        for key in ssh:
            if key not in ("admin_username", "ssh_key_value", "admin_password"):
                self.note(f"ssh_settings.{key}", "unknown key; not imported")
        if "admin_password" in ssh:
            self.note("ssh_settings.admin_password", "not copied: a password never goes into a stack file. Prefer "
                      "ssh_key_value; if the nodes need the password, store it as a Pulumi secret: pulumi config "
                      f"set --secret --path '{self.path}.ssh_settings.admin_password' <password>")
        if "ssh_key_value" not in ssh:
            if "admin_username" in ssh:
                self.note("ssh_settings.admin_username", "not imported: ssh_settings needs ssh_key_value or the "
                          "secret admin_password; add it with one of them")
            return
        entry["ssh_settings"] = {key: ssh[key] for key in ("admin_username", "ssh_key_value") if key in ssh}

    def _instance_ssh(self, document: Mapping[str, Any], entry: dict[str, Any]) -> None:
        ssh = self._ssh_mapping(document)
        if ssh is None:
            return
        for key in ssh:
            if key != "ssh_key_value":
                self.note(f"ssh_settings.{key}", "not supported on compute instances by amlkit; not imported"
                          if key != "admin_password" else "not copied: a password never goes into a stack file")
        if "ssh_key_value" not in ssh:
            return
        if document.get("ssh_public_access_enabled") is not True:
            self.note("ssh_settings", "not imported: amlkit reads it only with ssh_public_access_enabled: true")
            return
        entry["ssh_settings"] = {"ssh_key_value": ssh["ssh_key_value"]}

    def _ssh_mapping(self, document: Mapping[str, Any]) -> Mapping[str, Any] | None:
        ssh = document.get("ssh_settings")
        if ssh is not None and not isinstance(ssh, Mapping):
            raise ConfigError(self.file, "ssh_settings", "got a non-mapping value; allowed: a mapping")
        return ssh

    def _idle_shutdown(self, document: Mapping[str, Any], entry: dict[str, Any]) -> None:
        minutes = document.get("idle_time_before_shutdown_minutes")
        iso = document.get("idle_time_before_shutdown")
        if iso is not None:
            from_iso = _iso_minutes(iso, self.file)
            if minutes is not None and minutes != from_iso:
                raise ConfigError(self.file, "idle_time_before_shutdown", f"got {iso!r} ({from_iso} minutes) and "
                                  f"idle_time_before_shutdown_minutes {minutes!r}; allowed: one of them, or both "
                                  "with the same value")
            minutes = from_iso
        if minutes is not None:
            entry["idle_time_before_shutdown_minutes"] = minutes

    def _assigned_user(self, document: Mapping[str, Any], entry: dict[str, Any]) -> None:
        user = document.get("create_on_behalf_of")
        if user is None:
            return
        if not isinstance(user, Mapping):
            raise ConfigError(self.file, "create_on_behalf_of", "got a non-mapping value; allowed: a mapping with "
                              "user_object_id and user_tenant_id")
        for key in user:
            if key not in ("user_object_id", "user_tenant_id"):
                self.note(f"create_on_behalf_of.{key}", "unknown key; not imported")
        entry["assigned_user"] = {"object_id": user.get("user_object_id"), "tenant_id": user.get("user_tenant_id")}

    def _schedules(self, document: Mapping[str, Any], entry: dict[str, Any]) -> None:
        schedules = document.get("schedules")
        if isinstance(schedules, Mapping) and "compute_start_stop" in schedules:
            for key in schedules:
                if key != "compute_start_stop":
                    self.note(f"schedules.{key}", "unknown key; not imported")
            schedules = schedules["compute_start_stop"]
        if schedules is not None:
            entry["schedules"] = schedules

    def _public_ip(self, entry: dict[str, Any]) -> None:
        if "enable_node_public_ip" not in entry:
            entry["enable_node_public_ip"] = facts.NODE_PUBLIC_IP_DEFAULT
            self.note("enable_node_public_ip", "not set: az ml's default is true (nodes get public IP addresses), "
                      "so it is written as true; set it to false with network_settings.subnet or a workspace "
                      "managed network", DEFAULT)


def _iso_minutes(value: Any, file: str) -> int:
    """`PT30M` -> 30; a duration that is not whole minutes is an error."""
    from amlkit.policies.durations import DurationError, parse_duration

    try:
        seconds = parse_duration(value).total_seconds()
    except DurationError as error:
        raise ConfigError(file, "idle_time_before_shutdown", f"{error}; allowed: an ISO-8601 duration of whole "
                          f"minutes {_IDLE_RANGE}") from None
    if seconds % 60:
        raise ConfigError(file, "idle_time_before_shutdown", f"got {value!r}; allowed: whole minutes "
                          f"(e.g. PT30M), {_IDLE_RANGE}")
    return int(seconds // 60)


_IDLE_RANGE = (f"from {facts.minutes_iso(facts.INSTANCE_IDLE_MINUTES_MIN)} to "
               f"{facts.minutes_iso(facts.INSTANCE_IDLE_MINUTES_MAX)}")

_ORDER = ("name", "size", "location", "min_instances", "max_instances", "idle_time_before_scale_down", "tier",
          "idle_time_before_shutdown_minutes", "assigned_user", "schedules", "identity", "network_settings",
          "enable_node_public_ip", "ssh_public_access_enabled", "ssh_settings", "description", "tags")


def _ordered(entry: dict[str, Any]) -> dict[str, Any]:
    """Keys in the order of the sample stacks (name first, tags last)."""
    return {key: entry[key] for key in _ORDER if key in entry}


# Stack-entry key paths that came from differently named az ml keys.
_SOURCE_KEYS = (
    ("assigned_user.object_id", "create_on_behalf_of.user_object_id"),
    ("assigned_user.tenant_id", "create_on_behalf_of.user_tenant_id"),
    ("assigned_user", "create_on_behalf_of"),
)


def _validate(entry: dict[str, Any], kind: str, file: str, document: Mapping[str, Any]) -> None:
    """Validate one entry with the stack schema; errors name the az ml file and the az ml key."""
    location = entry.get("location") if isinstance(entry.get("location"), str) else "westeurope"
    raw = {
        "location": location,
        "environment": "import",
        "resourceGroup": {"name": "rg-import"},
        "workspace": {"name": "import-check"},
        SECTIONS[kind].removeprefix("amlkit:"): [entry],
    }
    try:
        validate_environment(raw, file)
    except ConfigError as error:
        raise ConfigError(file, _source_key(error.key_path, kind, document), error.problem) from None


def _source_key(key_path: str, kind: str, document: Mapping[str, Any]) -> str:
    prefix = f"{SECTIONS[kind]}[0]"
    key = key_path[len(prefix):].lstrip(".") if key_path.startswith(prefix) else key_path
    for ours, theirs in _SOURCE_KEYS:
        if key == ours or key.startswith(ours + "."):
            return theirs + key[len(ours):]
    if key.startswith("schedules[") and isinstance(document.get("schedules"), Mapping):
        return "schedules.compute_start_stop" + key[len("schedules"):]
    if key == "idle_time_before_shutdown_minutes" and "idle_time_before_shutdown" in document:
        return "idle_time_before_shutdown"
    return key
