"""`amlkit import-az-ml` for attached computes: az ml `kubernetes`, `virtualmachine` and `synapsespark`
YAML -> `amlkit:attached` entries.

Keys with the same name and meaning are copied (`name`, `type`, `resource_id`, `namespace`, `identity`,
`description`, `tags`, `ssh_settings.admin_username`, `ssh_settings.ssh_port`). Credentials are never
copied: `ssh_settings.admin_password` and `ssh_settings.ssh_private_key_file` become notes that give
the `pulumi config set --secret` command storing them at the entry's key path. Every other key is a
note naming the file and the key. `amlkit.importer` dispatches here by `type` and validates the entry
with the stack schema.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from amlkit.errors import ConfigError

__all__ = [
    "AttachedConverter", "KINDS", "KUBERNETES", "SCHEMA_NAMES", "SECTION", "SYNAPSE_SPARK", "VIRTUAL_MACHINE",
    "copy_tags",
]

KUBERNETES, VIRTUAL_MACHINE, SYNAPSE_SPARK = "kubernetes", "virtualmachine", "synapsespark"
KINDS = (KUBERNETES, VIRTUAL_MACHINE, SYNAPSE_SPARK)
SECTION = "amlkit:attached"
SCHEMA_NAMES = {KUBERNETES: "kubernetesCompute.schema.json", VIRTUAL_MACHINE: "vmCompute.schema.json"}
"""The az ml JSON schema of each type (az ml's Synapse examples name none, so any is accepted there)."""
_COPIED = {
    KUBERNETES: ("name", "resource_id", "namespace", "identity", "description"),
    VIRTUAL_MACHINE: ("name", "resource_id", "description"),
    SYNAPSE_SPARK: ("name", "resource_id", "identity", "description"),
}
_CONVERTED = ("$schema", "type", "tags", "ssh_settings")
_SERVER_SIDE = ("id", "provisioning_state", "created_on", "provisioning_errors", "location", "size")
"""Keys `az ml compute show` prints: facts of the existing compute, not settings to import."""
_ORDER = ("name", "type", "resource_id", "namespace", "identity", "ssh_settings", "description", "tags")


def copy_tags(document: Mapping[str, Any], entry: dict[str, Any]) -> None:
    """An az ml document's `tags` into a stack entry. az ml sends tag values as text: `cost-center: 4711`
    is the tag "4711"; anything that is not a mapping is copied for the schema to refuse."""
    tags = document.get("tags")
    if isinstance(tags, Mapping):
        entry["tags"] = {key: str(value) if isinstance(value, (int, float)) and not isinstance(value, bool)
                         else value for key, value in tags.items()}
    elif tags is not None:
        entry["tags"] = tags


class AttachedConverter:
    """Converts one attach document at `amlkit:attached[index]`; collects notes about what it left out."""

    def __init__(self, file: str, kind: str, index: int, note: Callable[[str, str], None]) -> None:
        self.file = file
        self.kind = kind
        self.path = f"{SECTION}[{index}]"
        self.note = note
        self.pending_secrets: list[str] = []
        """Credential keys (under ssh_settings) the user stores as secrets: validated as if set."""

    def convert(self, document: Mapping[str, Any]) -> dict[str, Any]:
        entry: dict[str, Any] = {"type": self.kind}
        for key, value in document.items():
            key = str(key)
            if key in _COPIED[self.kind]:
                entry[key] = value
            elif key in _SERVER_SIDE:
                self.note(key, "a property of the existing compute, not a setting; not imported")
            elif key not in _CONVERTED or (key == "ssh_settings" and self.kind != VIRTUAL_MACHINE):
                schema = SCHEMA_NAMES.get(self.kind, f"az ml {self.kind}")
                self.note(key, f"unknown key (not in the {schema} schema); not imported")
        self._schema_url(document.get("$schema"))
        copy_tags(document, entry)
        if self.kind == VIRTUAL_MACHINE:
            self._ssh(document, entry)
        return {key: entry[key] for key in _ORDER if key in entry}

    def _schema_url(self, url: Any) -> None:
        expected = SCHEMA_NAMES.get(self.kind)
        if url is not None and expected and not str(url).rstrip().endswith(expected):
            self.note("$schema", f"got {str(url).strip()!r} with type {self.kind}; expected the {expected} schema "
                      f"(the file was read as type {self.kind})")

    def _ssh(self, document: Mapping[str, Any], entry: dict[str, Any]) -> None:
        ssh = document.get("ssh_settings")
        if ssh is None:
            raise ConfigError(self.file, "ssh_settings", "required key is missing; allowed: ssh_settings with "
                              "admin_username and admin_password or ssh_private_key_file (Azure ML logs in to the VM "
                              "over SSH; amlkit stores the credential as a Pulumi secret)")
        if not isinstance(ssh, Mapping):
            raise ConfigError(self.file, "ssh_settings", "got a non-mapping value; allowed: a mapping with "
                              "admin_username, admin_password or ssh_private_key_file, ssh_port")
        settings = {key: ssh[key] for key in ("admin_username", "ssh_port") if key in ssh}
        for key in ssh:
            if key not in ("admin_username", "ssh_port", "admin_password", "ssh_private_key_file"):
                self.note(f"ssh_settings.{key}", "unknown key; not imported")
        if "admin_password" in ssh:
            self.pending_secrets.append("admin_password")
            self.note("ssh_settings.admin_password", "not copied: a password never goes into a stack file; store it "
                      f"as a Pulumi secret: pulumi config set --secret --path '{self.path}.ssh_settings."
                      "admin_password' <password>")
        if "ssh_private_key_file" in ssh:
            self.pending_secrets.append("ssh_private_key")
            self.note("ssh_settings.ssh_private_key_file", "not copied: the private key never goes into a stack "
                      "file; store its content as a Pulumi secret: pulumi config set --secret --path "
                      f"'{self.path}.ssh_settings.ssh_private_key' < {ssh['ssh_private_key_file']}")
        entry["ssh_settings"] = settings

    def for_validation(self, entry: Mapping[str, Any], secret: Any) -> dict[str, Any]:
        """The entry as the stack file will hold it once the noted secrets are set (`secret` stands for each)."""
        checked = dict(entry)
        if "ssh_settings" in entry:
            checked["ssh_settings"] = {**entry["ssh_settings"], **dict.fromkeys(self.pending_secrets, secret)}
        return checked
