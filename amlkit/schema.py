"""The environment schema: what a stack's `amlkit:` config may say, validated with pydantic v2.

Field names follow the `az ml` CLI v2 YAML vocabulary (snake_case); enum values accept the az-ml
spellings (`low_priority`, `LowPriority`, `allow_only_approved_outbound`...). Every model forbids
unknown keys. Values Azure could never accept (node counts above 65,000, negative durations,
unknown VM sizes, malformed ARM ids or cron) are schema errors, not review findings.

`validate_environment(raw, file)` is the one validation both loaders use (`amlkit.stackfile`): it
scans for plain-text credentials first, then validates, and turns the first problem into a
`ConfigError(file, key_path, problem)` whose key path reads like `amlkit:clusters[0].max_instances`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, NoReturn

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from amlkit import azure_facts as facts
from amlkit.errors import ConfigError, UnknownVmSize

MAX_NODES = facts.CLUSTER_MAX_NODES
"""The platform's absolute per-cluster node limit (100 by default, raisable to 65,000)."""
DEFAULT_PROD_LIKE = ("prod", "production")
SECRET_PATHS = (
    "amlkit:clusters[].ssh_settings.admin_password",
    "amlkit:attached[].ssh_settings.admin_password",
    "amlkit:attached[].ssh_settings.ssh_private_key",
)
"""The only places a Pulumi secret is read."""


# --- secrets ---------------------------------------------------------------------------------------


class Secret:
    """A Pulumi secret. Offline (a `secure:` value in a stack file) it is never decrypted: plaintext None.

    Its repr and str never show the value, so it cannot leak into logs, reports or messages.
    """

    __slots__ = ("_plaintext",)

    def __init__(self, plaintext: str | None = None) -> None:
        self._plaintext = plaintext

    @property
    def known(self) -> bool:
        """True when the program received the decrypted value (a real deployment)."""
        return self._plaintext is not None

    def reveal(self) -> str | None:
        """The plaintext, for wrapping into `pulumi.Output.secret` only."""
        return self._plaintext

    def __repr__(self) -> str:
        return "Secret([secret])"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._plaintext == self._plaintext

    def __hash__(self) -> int:
        return hash(("Secret", self._plaintext))


_CREDENTIAL_KEY = re.compile(
    r"(password|passwd|secret|connection_?string|account_?key|access_?key|api_?key|sas_?token|"
    r"private_?key|client_?secret|token)$",
    re.IGNORECASE,
)
_CREDENTIAL_TEXT = re.compile(
    r"AccountKey=|SharedAccessSignature=|SharedAccessKey=|-----BEGIN [A-Z ]*PRIVATE KEY-----", re.IGNORECASE
)


def is_credential_key(key: str) -> bool:
    """True for key names that hold credentials (`admin_password`, `accountKey`, `sas_token`...)."""
    return bool(_CREDENTIAL_KEY.search(key))


def credential_problem(key_path: str) -> str:
    return (
        "a plain-text credential is not allowed in stack config; store it as a Pulumi secret: "
        f"pulumi config set --secret --path '{key_path}' <value>"
    )


def find_plaintext_credential(value: Any, key_path: str) -> str | None:
    """The key path of the first plain-text credential under `value`, or None. Secrets are fine."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            path = f"{key_path}.{key}"
            if is_credential_key(str(key)) and item not in (None, "") and not isinstance(item, (Secret, Mapping)):
                return path
            found = find_plaintext_credential(item, path)
            if found:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = find_plaintext_credential(item, f"{key_path}[{index}]")
            if found:
                return found
    elif isinstance(value, str) and _CREDENTIAL_TEXT.search(value):
        return key_path
    return None


# --- messages --------------------------------------------------------------------------------------


def show(value: Any) -> str:
    """A short, YAML-like rendering of a bad value for messages (never of a secret)."""
    if isinstance(value, Secret):
        return "a secret value"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        text = value if len(value) <= 80 else value[:77] + "..."
        return repr(text)  # repr escapes line breaks and control characters
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, int) and value.bit_length() > 128:
        return "a very large integer"
    return _escaped(str(value))


def _escaped(text: str) -> str:
    """One line: control characters and line breaks escaped."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def _bad(value: Any, allowed: str, at: tuple[str | int, ...] = ()) -> NoReturn:
    """Fail with `got <value>; allowed: <allowed>` (optionally at a sub-key of the current location)."""
    raise PydanticCustomError("amlkit", "got {got}; allowed: {allowed}", {"got": show(value), "allowed": allowed,
                                                                          "at": at})


def _problem(text: str, at: tuple[str | int, ...] = ()) -> NoReturn:
    raise PydanticCustomError("amlkit", "{problem}", {"problem": text, "at": at})


def _plain(value: Any) -> None:
    if isinstance(value, Secret):
        _problem(
            "holds a secret, which amlkit does not read here (offline it cannot be decrypted); allowed: a "
            f"plain value (secrets are read only at {', '.join(SECRET_PATHS)})"
        )


# --- scalar types ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Allowed:
    """Annotated metadata: what a value may be, the same words as the `allowed:` of its errors.

    Validation ignores it; `tools/gen_docs.py` reads it for docs/configuration.md. `values` lists a
    choice's values.
    """

    text: str
    values: tuple[str, ...] = ()


def _snake(text: str) -> str:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text.strip())
    return re.sub(r"[\s-]+", "_", spaced).lower()


def choice(*values: str) -> Any:
    """A string enum in az-ml spelling; `LowPriority`, `low-priority` and `low_priority` are the same."""
    allowed = " | ".join(values)

    def check(value: Any) -> str:
        _plain(value)
        if isinstance(value, str) and _snake(value) in values:
            return _snake(value)
        _bad(value, allowed)

    return Annotated[str, BeforeValidator(check), Allowed(allowed, values)]


def integer(low: int, high: int | None, what: str) -> Any:
    """An integer in [low, high]; booleans, text and fractions are refused."""
    allowed = f"{what} from {low} to {high}" if high is not None else f"{what} of at least {low}"

    def check(value: Any) -> int:
        _plain(value)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            _bad(value, allowed)
        if value < low or (high is not None and value > high):
            _bad(value, allowed)
        return value

    return Annotated[int, BeforeValidator(check), Allowed(allowed)]


_BOOL_ALLOWED = "true or false"


def _boolean(value: Any) -> bool:
    _plain(value)
    if not isinstance(value, bool):
        _bad(value, _BOOL_ALLOWED)
    return value


Bool = Annotated[bool, BeforeValidator(_boolean), Allowed(_BOOL_ALLOWED)]


def text(pattern: str, allowed: str) -> Any:
    """A string matching `pattern` in full."""
    compiled = re.compile(pattern)

    def check(value: Any) -> str:
        _plain(value)
        if not isinstance(value, str) or not compiled.fullmatch(value):
            _bad(value, allowed)
        return value

    return Annotated[str, BeforeValidator(check), Allowed(allowed)]


Description = text(r"(?s).{0,5000}", "text of up to 5000 characters")
Region = text(r"[a-z][a-z0-9]{2,39}", "an Azure region name in lowercase, e.g. westeurope")
Guid = text(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
            "a GUID, e.g. 00000000-0000-0000-0000-000000000000")
EnvironmentName = text(r"[a-z0-9][a-z0-9_-]{0,62}", "1-63 lowercase letters, digits, '-' or '_'")
WorkspaceName = text(r"[A-Za-z0-9][A-Za-z0-9_-]{2,32}",
                     "3-33 letters, digits, '-' or '_', starting with a letter or digit")
ResourceGroupName = text(r"[-\w.()]{0,89}[-\w()]", "1-90 letters, digits, '-', '_', '.', '(' or ')', "
                         "not ending with '.'")
ClusterName = text(r"[A-Za-z][A-Za-z0-9-]{1,15}", "2-16 letters, digits or '-', starting with a letter")
InstanceName = text(r"[A-Za-z][A-Za-z0-9-]{2,23}", "3-24 letters, digits or '-', starting with a letter")
AdminUsername = text(r"[a-z_][a-z0-9_-]{0,31}", "a Linux user name: 1-32 lowercase letters, digits, '-' or '_'")
SshPublicKey = text(r"(ssh-(rsa|ed25519|dss)|ecdsa-sha2-nistp(256|384|521)|sk-[a-z0-9@.-]+) [A-Za-z0-9+/=]+( .*)?",
                    "an OpenSSH public key line, e.g. 'ssh-ed25519 AAAA... user@host'")
KeyUri = text(r"https://[A-Za-z0-9-]{3,24}\.vault\.azure\.net/keys/[A-Za-z0-9-]{1,127}(/[0-9a-fA-F]{32})?",
              "a key identifier, e.g. https://kv-name.vault.azure.net/keys/key-name[/version]")
TimeZone = text(r"[A-Za-z][A-Za-z0-9 .()+:/_-]{0,79}", "a time zone name, e.g. UTC or W. Europe Standard Time")

_SUB = r"/subscriptions/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_RG = r"/resourceGroups/[-\w.()]{1,90}"


def arm_id(provider: str, *types: str) -> Any:
    """An ARM resource id of the given provider type, e.g. arm_id("Microsoft.Network", "virtualNetworks", "subnets")."""
    segments = "".join(rf"/{re.escape(kind)}/[^/\s]+" for kind in types)
    pattern = re.compile(rf"{_SUB}{_RG}/providers/{re.escape(provider)}{segments}", re.IGNORECASE)
    example = f"/subscriptions/<guid>/resourceGroups/<rg>/providers/{provider}/" + "/".join(
        f"{kind}/<name>" for kind in types
    )
    allowed = f"an ARM id like {example}"

    def check(value: Any) -> str:
        _plain(value)
        if not isinstance(value, str) or not pattern.fullmatch(value):
            _bad(value, allowed)
        return value

    return Annotated[str, BeforeValidator(check), Allowed(allowed)]


SubnetId = arm_id("Microsoft.Network", "virtualNetworks", "subnets")
StorageAccountId = arm_id("Microsoft.Storage", "storageAccounts")
KeyVaultId = arm_id("Microsoft.KeyVault", "vaults")
AppInsightsId = arm_id("Microsoft.Insights", "components")
LogAnalyticsId = arm_id("Microsoft.OperationalInsights", "workspaces")
RegistryId = arm_id("Microsoft.ContainerRegistry", "registries")
WorkspaceId = arm_id("Microsoft.MachineLearningServices", "workspaces")
IdentityId = arm_id("Microsoft.ManagedIdentity", "userAssignedIdentities")


_REGISTRY_ALLOWED = ("true (create one), false (none) or an existing registry's ARM id like "
                     "/subscriptions/<guid>/resourceGroups/<rg>/providers/Microsoft.ContainerRegistry/registries/<name>")


def _registry(value: Any) -> str | bool:
    if isinstance(value, bool):
        return value
    _plain(value)
    if isinstance(value, str) and re.fullmatch(
        rf"{_SUB}{_RG}/providers/Microsoft\.ContainerRegistry/registries/[^/\s]+", value, re.IGNORECASE
    ):
        return value
    _bad(value, _REGISTRY_ALLOWED)


ContainerRegistry = Annotated[str | bool, BeforeValidator(_registry), Allowed(_REGISTRY_ALLOWED)]


_VM_SIZE_ALLOWED = "a known Azure VM size name, e.g. Standard_D4ds_v4"


def _vm_size(value: Any) -> str:
    _plain(value)
    from amlkit.vmsizes import parse_vm_size  # the catalogue is large: load it on first use

    if not isinstance(value, str):
        _bad(value, _VM_SIZE_ALLOWED)
    try:
        parse_vm_size(value)
    except UnknownVmSize:
        _bad(value, _VM_SIZE_ALLOWED)
    return value


VmSize = Annotated[str, BeforeValidator(_vm_size), Allowed(_VM_SIZE_ALLOWED)]

_SECRET_ALLOWED = "a Pulumi secret (a `secure:` value)"


def _secret(value: Any) -> Secret:
    if not isinstance(value, Secret):
        _problem(f"must be {_SECRET_ALLOWED}")
    return value


SecretValue = Annotated[Any, BeforeValidator(_secret), Allowed(_SECRET_ALLOWED)]

_TAGS_ALLOWED = "a mapping of tag names to text values"
_TAGS_COUNT = "at most 50 tags per resource"
_TAG_NAME = "a tag name of 1-512 characters without < > % & \\ ? /"
_TAG_VALUE = "text of up to 256 characters (quote numbers: \"4711\")"


def _tags(value: Any) -> dict[str, str]:
    _plain(value)
    if not isinstance(value, Mapping):
        _bad(value, _TAGS_ALLOWED)
    if len(value) > 50:
        _bad(f"{len(value)} tags", _TAGS_COUNT)
    for key, item in value.items():
        if not isinstance(key, str) or not re.fullmatch(r"[^<>%&\\?/]{1,512}", key):
            _bad(key, _TAG_NAME, at=(str(key),))
        _plain(item)
        if not isinstance(item, str) or len(item) > 256:
            _bad(item, _TAG_VALUE, at=(key,))
    return dict(value)


Tags = Annotated[dict[str, str], BeforeValidator(_tags),
                 Allowed(f"{_TAGS_ALLOWED}: {_TAGS_COUNT}; each {_TAG_NAME}; each value {_TAG_VALUE}")]


def list_of(item: Any, max_items: int | None = None) -> Any:
    """A list (YAML sequence), optionally capped."""

    def check(value: Any) -> list[Any]:
        _plain(value)
        if not isinstance(value, list):
            _bad(value, "a list")
        if max_items is not None and len(value) > max_items:
            _bad(f"{len(value)} items", f"at most {max_items}")
        return value

    allowed = f"a list of at most {max_items} items" if max_items is not None else "a list"
    return Annotated[list[item], BeforeValidator(check), Allowed(allowed)]


# --- cron ------------------------------------------------------------------------------------------

_CRON_FIELDS = (
    ("minute", 0, 59, {}),
    ("hour", 0, 23, {}),
    ("day of month", 1, 31, {}),
    ("month", 1, 12, {m: i + 1 for i, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))}),
    ("day of week", 0, 6, {d: i for i, d in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}),
)


def _small_number(token: str) -> int | None:
    """An ASCII number of at most 4 digits (cron fields never need more), else None."""
    return int(token) if re.fullmatch(r"[0-9]{1,4}", token) else None


def _cron_number(token: str, low: int, high: int, names: Mapping[str, int]) -> bool:
    number = names.get(token.lower(), _small_number(token))
    return number is not None and low <= number <= high


def _cron_part(part: str, low: int, high: int, names: Mapping[str, int]) -> bool:
    base, _, step = part.partition("/")
    step_number = _small_number(step) if step else 1
    if step_number is None or step_number < 1:
        return False
    if base == "*":
        return True
    start, _, end = base.partition("-")
    if not _cron_number(start, low, high, names):
        return False
    return not end or _cron_number(end, low, high, names)


def cron_ok(expression: str) -> bool:
    """True for a five-field cron expression (minute hour day-of-month month day-of-week)."""
    fields = expression.split()
    if len(fields) != 5:
        return False
    return all(
        all(_cron_part(part, low, high, names) for part in field.split(","))
        for field, (_, low, high, names) in zip(fields, _CRON_FIELDS, strict=True)
    )


_CRON_ALLOWED = "a five-field cron expression 'minute hour day-of-month month day-of-week', e.g. '0 19 * * 1-5'"


def _cron(value: Any) -> str:
    _plain(value)
    if not isinstance(value, str) or not cron_ok(value):
        _bad(value, _CRON_ALLOWED)
    return value


Cron = Annotated[str, BeforeValidator(_cron), Allowed(_CRON_ALLOWED)]

_START_TIME_ALLOWED = "a local time 'yyyy-MM-ddTHH:mm:ss', e.g. '2026-01-05T08:00:00'"


def _start_time(value: Any) -> str:
    _plain(value)
    try:
        datetime.strptime(value, "%Y-%m-%dT%H:%M:%S")
    except (TypeError, ValueError):
        _bad(value, _START_TIME_ALLOWED)
    return value


StartTime = Annotated[str, BeforeValidator(_start_time), Allowed(_START_TIME_ALLOWED)]


# --- models ----------------------------------------------------------------------------------------


class Model(BaseModel):
    """Base: unknown keys and non-mapping values are refused with the allowed keys named."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, use_attribute_docstrings=True)

    @classmethod
    def accepted_keys(cls) -> list[str]:
        """The keys this mapping accepts, as written in a stack file."""
        return [field.alias or name for name, field in cls.model_fields.items()]

    @classmethod
    def allowed_keys_text(cls) -> str:
        return ", ".join(cls.accepted_keys())

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            _plain(data)
            _bad(data, f"a mapping with keys {cls.allowed_keys_text()}")
        for key in data:
            if key not in cls.accepted_keys():
                _problem(f"unknown key; allowed keys: {cls.allowed_keys_text()}", at=(str(key),))
        return data


class UserAssignedIdentity(Model):
    resource_id: IdentityId
    """ARM id of the user-assigned managed identity."""


class IdentitySpec(Model):
    """`identity:` of a workspace or compute, as in az ml: `type` plus user-assigned identities."""

    type: choice("system_assigned", "user_assigned", "none")
    """Which managed identity: one system-assigned identity, or user-assigned ones (never both)."""
    user_assigned_identities: list_of(UserAssignedIdentity) = []
    """The user-assigned identities, each `{resource_id: <identity ARM id>}`."""

    @model_validator(mode="after")
    def _ids_match_type(self) -> IdentitySpec:
        """Cross-field rules:

        - `user_assigned_identities` is required when `type` is `user_assigned`, and only read then.
        """
        if self.type == "user_assigned" and not self.user_assigned_identities:
            _problem("required when type is user_assigned (a list of {resource_id: <identity ARM id>})",
                     at=("user_assigned_identities",))
        if self.type != "user_assigned" and self.user_assigned_identities:
            _bad(self.type, "user_assigned (user_assigned_identities are only read with it)", at=("type",))
        return self

    @property
    def ids(self) -> list[str]:
        return [identity.resource_id for identity in self.user_assigned_identities]


class ResourceGroupSpec(Model):
    """The resource group: created by the stack unless `existing: true` (then only referenced)."""

    name: ResourceGroupName
    """Name of the resource group that holds the workspace and its dependencies."""
    existing: Bool = False
    """true: the group exists and is only referenced (never created, locked or deleted)."""


class ManagedNetworkSpec(Model):
    isolation_mode: choice("disabled", "allow_internet_outbound", "allow_only_approved_outbound")
    """Outbound isolation of the managed network; once enabled it cannot be disabled."""


class ServerlessComputeSpec(Model):
    custom_subnet: SubnetId | None = None
    """Subnet serverless jobs run in; unset: the Azure-managed network."""
    no_public_ip: Bool = True
    """Serverless compute nodes get no public IP."""


class CustomerManagedKeySpec(Model):
    key_vault: KeyVaultId
    """ARM id of the key vault holding the encryption key."""
    key_uri: KeyUri
    """Key identifier of the customer-managed key (data encryption at rest)."""


class WorkspaceSpec(Model):
    """`amlkit:workspace`: the workspace and its dependencies (omitted dependency = created)."""

    name: WorkspaceName
    """Workspace name (az ml `name`)."""
    kind: choice("default", "hub", "project") = "default"
    """`hub` shares its resources and network with `project` workspaces; `default` stands alone."""
    hub_id: WorkspaceId | None = None
    """ARM id of the hub a `project` workspace belongs to."""
    display_name: Description | None = None
    """Name shown in the studio."""
    description: Description | None = None
    """Free-text description."""
    public_network_access: choice("enabled", "disabled") = "disabled"
    """Access to the workspace from public networks."""
    managed_network: ManagedNetworkSpec = ManagedNetworkSpec(isolation_mode="allow_only_approved_outbound")
    """The workspace's managed virtual network (`isolation_mode`)."""
    serverless_compute: ServerlessComputeSpec | None = None
    """Network settings of serverless compute jobs."""
    identity: IdentitySpec = IdentitySpec(type="system_assigned")
    """The workspace's managed identity."""
    primary_user_assigned_identity: IdentityId | None = None
    """With user-assigned identities: the one the workspace uses by default."""
    hbi_workspace: Bool | None = None
    """High business impact: less diagnostic data, encrypted local scratch disks; unset: true."""
    customer_managed_key: CustomerManagedKeySpec | None = None
    """Encrypt workspace data with your own key; unset: Microsoft-managed keys."""
    storage_account: StorageAccountId | None = None
    """ARM id of an existing storage account to use; unset: one is created."""
    key_vault: KeyVaultId | None = None
    """ARM id of an existing key vault to use; unset: one is created."""
    application_insights: AppInsightsId | None = None
    """ARM id of an existing Application Insights component; unset: one is created."""
    log_analytics_workspace: LogAnalyticsId | None = None
    """ARM id of an existing Log Analytics workspace; unset: one is created."""
    container_registry: ContainerRegistry = False
    """`true` creates a registry, `false` uses none (Azure creates one on first image build)."""
    locks: Bool = False
    """CanNotDelete locks on the created workspace, storage account and key vault (never the group)."""
    tags: Tags = {}
    """Tags of the workspace and its dependencies, over `amlkit:tags`."""

    @model_validator(mode="after")
    def _cross_fields(self) -> WorkspaceSpec:
        """Cross-field rules:

        - `hub_id` is required when `kind` is `project`, and only read then.
        - `identity.type` cannot be `none`: a workspace needs an identity.
        - `primary_user_assigned_identity` must be one of `identity.user_assigned_identities`.
        """
        if self.kind == "project" and not self.hub_id:
            _problem("required when kind is project (the hub workspace's ARM id)", at=("hub_id",))
        if self.kind != "project" and self.hub_id:
            _bad(self.kind, "project (hub_id is only read for projects)", at=("kind",))
        if self.identity.type == "none":
            _bad("none", "system_assigned | user_assigned (a workspace needs an identity)", at=("identity", "type"))
        primary = self.primary_user_assigned_identity
        if primary and primary.lower() not in {i.lower() for i in self.identity.ids}:
            _bad(primary, "one of identity.user_assigned_identities", at=("primary_user_assigned_identity",))
        return self

    @property
    def has_managed_network(self) -> bool:
        return self.managed_network.isolation_mode != "disabled"


class NetworkSettingsSpec(Model):
    subnet: SubnetId
    """ARM id of the subnet the nodes join."""


class ClusterSshSettings(Model):
    admin_username: AdminUsername = "azureuser"
    """Administrator account on the nodes."""
    ssh_key_value: SshPublicKey | None = None
    """OpenSSH public key of the administrator."""
    admin_password: SecretValue | None = None
    """Administrator password; a Pulumi secret only."""

    @model_validator(mode="after")
    def _has_credential(self) -> ClusterSshSettings:
        """Cross-field rules:

        - `ssh_key_value` or a secret `admin_password` is required.
        """
        if self.ssh_key_value is None and self.admin_password is None:
            _problem("required: ssh_key_value (or a secret admin_password) when ssh_settings is given",
                     at=("ssh_key_value",))
        return self


class ClusterSpec(Model):
    """One `amlkit:clusters` entry (az ml `type: amlcompute`)."""

    name: ClusterName
    """Compute name, unique among the workspace's computes."""
    type: choice("amlcompute") = "amlcompute"
    """az ml compute type; clusters are `amlcompute`."""
    size: VmSize
    """VM size of the nodes."""
    min_instances: integer(0, MAX_NODES, "an integer") = 0
    """Nodes kept running (and billed) when idle; 0 scales to zero."""
    max_instances: integer(1, MAX_NODES, "an integer") = 1
    """Most nodes the cluster scales to."""
    idle_time_before_scale_down: integer(0, None, "a whole number of seconds") = facts.CLUSTER_IDLE_SECONDS_DEFAULT
    """Seconds a node stays idle before it is released."""
    tier: choice("dedicated", "low_priority") = "dedicated"
    """VM priority: `low_priority` nodes are cheaper but can be evicted at any time."""
    identity: IdentitySpec | None = None
    """The cluster's managed identity; unset: a system-assigned identity."""
    location: Region | None = None
    """Region of the cluster when it differs from the workspace's."""
    network_settings: NetworkSettingsSpec | None = None
    """Customer virtual network the nodes join."""
    enable_node_public_ip: Bool | None = None
    """Nodes get public IPs (Azure's default is true)."""
    ssh_public_access_enabled: Bool = False
    """Open the SSH port of the nodes to public access."""
    ssh_settings: ClusterSshSettings | None = None
    """Administrator account for SSH (needs local authentication)."""
    local_auth_enabled: Bool | None = None
    """Local (SSH key or password) authentication on the nodes; unset: on only with `ssh_settings`."""
    description: Description | None = None
    """Free-text description."""
    tags: Tags = {}
    """Tags of the cluster, over `amlkit:tags`."""

    @model_validator(mode="after")
    def _cross_fields(self) -> ClusterSpec:
        """Cross-field rules:

        - `min_instances` must be at most `max_instances`.
        - `identity.type` cannot be `none` (omit `identity` for no identity).
        - `ssh_settings` needs local authentication (`local_auth_enabled` not false).
        """
        if self.min_instances > self.max_instances:
            _bad(self.min_instances, f"at most max_instances ({self.max_instances})", at=("min_instances",))
        if self.ssh_settings is not None and self.local_auth_enabled is False:
            _bad(False, "true or unset (ssh_settings logs in with local authentication)", at=("local_auth_enabled",))
        if self.identity and self.identity.type == "none":
            _bad("none", "system_assigned | user_assigned", at=("identity", "type"))
        return self

    @property
    def local_auth(self) -> bool:
        """Whether local authentication is on: as set, else only when `ssh_settings` is given."""
        return self.ssh_settings is not None if self.local_auth_enabled is None else self.local_auth_enabled


class RecurrenceScheduleSpec(Model):
    hours: list_of(integer(0, 23, "an hour")) = []
    """Hours of the day the schedule fires."""
    minutes: list_of(integer(0, 59, "a minute")) = []
    """Minutes of the hour the schedule fires."""
    week_days: list_of(choice("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")) = []
    """Days of the week the schedule fires."""


class TriggerSpec(Model):
    """az ml trigger: `type: cron` with `expression`, or `type: recurrence` with frequency/interval/schedule."""

    type: choice("cron", "recurrence")
    """`cron` (with `expression`) or `recurrence` (with `frequency` and `interval`)."""
    expression: Cron | None = None
    """Cron expression of a `cron` trigger."""
    frequency: choice("minute", "hour", "day", "week", "month") | None = None
    """Unit of a `recurrence` trigger's interval."""
    interval: integer(1, None, "an integer") | None = None
    """Fire every `interval` units of `frequency`."""
    schedule: RecurrenceScheduleSpec | None = None
    """Hours, minutes and week days of a `recurrence` trigger."""
    start_time: StartTime | None = None
    """Local time the trigger starts from."""
    time_zone: TimeZone = "UTC"
    """Time zone of the schedule (a Windows time zone name, as in az ml)."""

    @model_validator(mode="after")
    def _fields_match_type(self) -> TriggerSpec:
        """Cross-field rules:

        - `type: cron` needs `expression` and takes no `frequency`, `interval` or `schedule`.
        - `type: recurrence` needs `frequency` and `interval` and takes no `expression`.
        """
        if self.type == "cron":
            if self.expression is None:
                _problem("required when type is cron", at=("expression",))
            for key in ("frequency", "interval", "schedule"):
                if getattr(self, key) is not None:
                    _problem("only read when type is recurrence", at=(key,))
        else:
            if self.expression is not None:
                _problem("only read when type is cron", at=("expression",))
            for key in ("frequency", "interval"):
                if getattr(self, key) is None:
                    _problem("required when type is recurrence", at=(key,))
        return self


class ScheduleEntry(Model):
    action: choice("start", "stop")
    """Start or stop the instance."""
    trigger: TriggerSpec
    """When the action runs."""
    state: choice("enabled", "disabled") = "enabled"
    """A disabled schedule is kept but does not fire."""


def _schedules(value: Any) -> Any:
    """Accept the az ml form `{compute_start_stop: [...]}` as well as a plain list."""
    if isinstance(value, Mapping) and set(value) == {"compute_start_stop"}:
        return value["compute_start_stop"]
    return value


class AssignedUserSpec(Model):
    object_id: Guid
    """Entra object id of the user the instance is created for."""
    tenant_id: Guid
    """Entra tenant id of that user."""


class InstanceSshSettings(Model):
    ssh_key_value: SshPublicKey
    """OpenSSH public key of the `azureuser` account."""


class InstanceSpec(Model):
    """One `amlkit:instances` entry (az ml `type: computeinstance`)."""

    name: InstanceName
    """Compute name, unique among the workspace's computes."""
    type: choice("computeinstance") = "computeinstance"
    """az ml compute type; instances are `computeinstance`."""
    size: VmSize
    """VM size of the instance."""
    idle_time_before_shutdown_minutes: integer(
        facts.INSTANCE_IDLE_MINUTES_MIN, facts.INSTANCE_IDLE_MINUTES_MAX, "whole minutes (15 minutes to 3 days)"
    ) = 60
    """Idle minutes before the instance shuts down."""
    assigned_user: AssignedUserSpec | None = None
    """The user the instance is created for (az ml `create_on_behalf_of`)."""
    schedules: Annotated[list_of(ScheduleEntry, 4), BeforeValidator(_schedules)] = []
    """Start/stop schedules; the az ml form `{compute_start_stop: [...]}` is accepted too."""
    identity: IdentitySpec | None = None
    """The instance's managed identity; unset: a system-assigned identity."""
    location: Region | None = None
    """Region of the instance; it must be the workspace's."""
    network_settings: NetworkSettingsSpec | None = None
    """Customer virtual network the instance joins."""
    enable_node_public_ip: Bool | None = None
    """The instance gets a public IP (Azure's default is true)."""
    ssh_public_access_enabled: Bool = False
    """Open the SSH port to public access."""
    ssh_settings: InstanceSshSettings | None = None
    """The SSH key; only with `ssh_public_access_enabled: true`."""
    description: Description | None = None
    """Free-text description."""
    tags: Tags = {}
    """Tags of the instance, over `amlkit:tags`."""

    @model_validator(mode="after")
    def _cross_fields(self) -> InstanceSpec:
        """Cross-field rules:

        - `ssh_settings` is required when `ssh_public_access_enabled` is true, and only read then.
        - `identity.type` cannot be `none` (omit `identity` for no identity).
        """
        if self.ssh_settings and not self.ssh_public_access_enabled:
            _problem("only read when ssh_public_access_enabled is true", at=("ssh_settings",))
        if self.ssh_public_access_enabled and not self.ssh_settings:
            _problem("required when ssh_public_access_enabled is true ({ssh_key_value: <OpenSSH public key>})",
                     at=("ssh_settings",))
        if self.identity and self.identity.type == "none":
            _bad("none", "system_assigned | user_assigned", at=("identity", "type"))
        return self


ATTACHED_TARGETS = {
    "kubernetes": (
        ("Microsoft.ContainerService", ("managedClusters",)),
        ("Microsoft.Kubernetes", ("connectedClusters",)),
    ),
    "virtualmachine": (("Microsoft.Compute", ("virtualMachines",)),),
    "synapsespark": (("Microsoft.Synapse", ("workspaces", "bigDataPools")),),
}
"""The ARM resource types each attached compute type attaches (provider, resource type segments)."""
_ANY_ARM_ID = text(rf"{_SUB}{_RG}/providers/[A-Za-z0-9.]+(/[^/\s]+/[^/\s]+)+",
                   "the ARM id of the resource to attach; its type depends on `type` (see the cross-field rules)")
Namespace = text(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?",
                 "a Kubernetes namespace name: 1-63 lowercase letters, digits and '-', starting and ending with a "
                 "letter or digit")
InstanceTypeName = text(r"[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?",
                        "an instance type name: 1-63 lowercase letters, digits, '-' and '.'")


def _text_map(value: Any) -> dict[str, str]:
    _plain(value)
    if not isinstance(value, Mapping) or not all(
        isinstance(key, str) and isinstance(item, str) for key, item in value.items()
    ):
        _bad(value, _TEXT_MAP_ALLOWED)
    return dict(value)


_TEXT_MAP_ALLOWED = "a mapping of text keys to text values (quote numbers: cpu: \"2\")"
TextMap = Annotated[dict[str, str], BeforeValidator(_text_map), Allowed(_TEXT_MAP_ALLOWED)]


def attached_id_allowed(kind: str) -> str:
    """The ARM id shapes a `type: <kind>` entry accepts, in the words of its errors."""
    examples = [f"/subscriptions/<guid>/resourceGroups/<rg>/providers/{provider}/" + "/".join(
        f"{segment}/<name>" for segment in segments) for provider, segments in ATTACHED_TARGETS[kind]]
    return "an ARM id like " + " or ".join(examples)


def attached_id_ok(kind: str, value: str) -> bool:
    return any(
        re.fullmatch(rf"{_SUB}{_RG}/providers/{re.escape(provider)}" + "".join(
            rf"/{re.escape(segment)}/[^/\s]+" for segment in segments), value, re.IGNORECASE)
        for provider, segments in ATTACHED_TARGETS[kind]
    )


class InstanceTypeResourcesSpec(Model):
    requests: TextMap = {}
    """Resources a job's pod asks for, e.g. `{cpu: "1", memory: 4Gi}`."""
    limits: TextMap = {}
    """Most resources a job's pod may use, e.g. `{nvidia.com/gpu: "1"}`."""


class InstanceTypeSpec(Model):
    name: InstanceTypeName
    """Name jobs select the instance type by."""
    node_selector: TextMap = {}
    """Node labels a job's pod must match."""
    resources: InstanceTypeResourcesSpec | None = None
    """Resource requests and limits of a job's pod."""


class AttachedSshSettings(Model):
    admin_username: AdminUsername
    """Administrator account Azure ML logs in to the VM with."""
    admin_password: SecretValue | None = None
    """Its password; a Pulumi secret only."""
    ssh_private_key: SecretValue | None = None
    """Its SSH private key (the content of az ml's `ssh_private_key_file`); a Pulumi secret only."""
    ssh_port: integer(1, 65535, "a port number") = 22
    """SSH port of the VM."""

    @model_validator(mode="after")
    def _has_credential(self) -> AttachedSshSettings:
        """Cross-field rules:

        - `admin_password` or `ssh_private_key` (a Pulumi secret) is required.
        """
        if self.admin_password is None and self.ssh_private_key is None:
            _problem("required: admin_password or ssh_private_key, as a Pulumi secret: pulumi config set --secret "
                     "--path 'amlkit:attached[<index>].ssh_settings.ssh_private_key' < <key file>",
                     at=("ssh_private_key",))
        return self


_ONLY_FOR = {
    "namespace": "kubernetes",
    "default_instance_type": "kubernetes",
    "instance_types": "kubernetes",
    "ssh_settings": "virtualmachine",
}


class AttachedSpec(Model):
    """One `amlkit:attached` entry: an existing resource attached as a compute (az ml attach YAML)."""

    name: ClusterName
    """Compute name, unique among the workspace's computes."""
    type: choice("kubernetes", "virtualmachine", "synapsespark")
    """What is attached: an AKS or Arc Kubernetes cluster, a virtual machine, or a Synapse Spark pool."""
    resource_id: _ANY_ARM_ID
    """ARM id of the attached resource; it is never created or deleted by the stack."""
    namespace: Namespace | None = None
    """Kubernetes namespace the jobs run in; unset: `default`."""
    default_instance_type: InstanceTypeName | None = None
    """Instance type of jobs that name none; one of `instance_types`."""
    instance_types: list_of(InstanceTypeSpec) = []
    """Kubernetes instance types (node selector, resource requests and limits)."""
    identity: IdentitySpec | None = None
    """Managed identity of a `kubernetes` or `synapsespark` compute; unset: a system-assigned identity."""
    ssh_settings: AttachedSshSettings | None = None
    """How Azure ML logs in to a `virtualmachine` (its credentials as Pulumi secrets)."""
    local_auth_enabled: Bool = False
    """Local (key) authentication on the compute."""
    description: Description | None = None
    """Free-text description."""
    tags: Tags = {}
    """Tags of the compute, over `amlkit:tags`."""

    @model_validator(mode="after")
    def _fields_match_type(self) -> AttachedSpec:
        """Cross-field rules:

        - `resource_id` must be an ARM id of the type's resource: `kubernetes` a
          `Microsoft.ContainerService/managedClusters` or `Microsoft.Kubernetes/connectedClusters` id,
          `virtualmachine` a `Microsoft.Compute/virtualMachines` id, `synapsespark` a
          `Microsoft.Synapse/workspaces/<ws>/bigDataPools/<pool>` id.
        - `namespace`, `instance_types` and `default_instance_type` are only read for `kubernetes`;
          `default_instance_type` must be one of `instance_types`; instance type names are unique.
        - `ssh_settings` is required for (and only read for) `virtualmachine`; `identity` is not read for it.
        - `identity.type` cannot be `none` (omit `identity` for a system-assigned identity).
        """
        if not attached_id_ok(self.type, self.resource_id):
            _bad(self.resource_id, f"for type {self.type}: {attached_id_allowed(self.type)}", at=("resource_id",))
        for key, kind in _ONLY_FOR.items():
            if self.type != kind and getattr(self, key) not in (None, []):
                _problem(f"only read when type is {kind}", at=(key,))
        names = [item.name for item in self.instance_types]
        for index, name in enumerate(names):
            if name in names[:index]:
                _bad(name, "an instance type name not used before in this list", at=("instance_types", index, "name"))
        if self.default_instance_type is not None and self.default_instance_type not in names:
            _bad(self.default_instance_type, "one of instance_types[].name: " + (" | ".join(names) or "(none given)"),
                 at=("default_instance_type",))
        if self.type == "virtualmachine":
            if self.ssh_settings is None:
                _problem("required when type is virtualmachine ({admin_username, and admin_password or "
                         "ssh_private_key as a Pulumi secret})", at=("ssh_settings",))
            if self.identity is not None:
                _problem("not read when type is virtualmachine (az ml attaches a VM without an identity)",
                         at=("identity",))
        if self.identity and self.identity.type == "none":
            _bad("none", "system_assigned | user_assigned", at=("identity", "type"))
        return self


class EnvironmentSpec(Model):
    """The whole `amlkit:` namespace of a stack, plus `azure-native:location`.

    Keys are the stack config's own names (`resourceGroup`, `protectData`...); the loaders strip
    the `amlkit:` prefix. `protect_data` is resolved: given, or true when the environment is one
    of `prod_like_environments`.
    """

    location: Region
    """Azure region of the workspace and, by default, of every compute."""
    environment: EnvironmentName
    """Environment name: the `environment` tag of every resource; decides `protectData`."""
    resource_group: ResourceGroupSpec
    """The resource group of the environment."""
    tags: Tags = {}
    """Tags of every resource (an `environment` tag is always added)."""
    workspace: WorkspaceSpec
    """The workspace and its dependencies."""
    clusters: list_of(ClusterSpec) = []
    """AmlCompute clusters (az ml `type: amlcompute`)."""
    instances: list_of(InstanceSpec) = []
    """Compute instances (az ml `type: computeinstance`)."""
    attached: list_of(AttachedSpec) = []
    """Attached computes (az ml `type: kubernetes`, `virtualmachine` or `synapsespark`)."""
    protect_data: Bool | None = None
    """Protect workspace, storage and key vault from deletion; unset: true in prod-like environments."""
    prod_like_environments: list_of(EnvironmentName) = list(DEFAULT_PROD_LIKE)
    """Environment names whose data is protected by default."""

    model_config = ConfigDict(
        extra="forbid",
        arbitrary_types_allowed=True,
        use_attribute_docstrings=True,
        alias_generator=lambda name: re.sub(r"_([a-z])", lambda m: m[1].upper(), name),
        populate_by_name=False,
    )

    @classmethod
    def allowed_keys_text(cls) -> str:
        """`amlkit:environment, ..., azure-native:location`: the stack config keys amlkit reads."""
        names = [f"amlkit:{key}" for key in cls.accepted_keys() if key != "location"]
        return ", ".join([*names, "azure-native:location"])

    @model_validator(mode="after")
    def _cross_fields(self) -> EnvironmentSpec:
        """Cross-field rules:

        - Without the workspace's managed network, a cluster or instance without `network_settings.subnet`
          must say `enable_node_public_ip: true` (nodes without public IPs need a network).
        - Cluster, instance and attached compute names are unique across the three lists (case-insensitive).
        - An instance's `location` must be the stack's location.
        - `protectData` unset: true when `environment` is one of `prodLikeEnvironments`.
        """
        self._check_networks()
        self._check_unique_names()
        for index, instance in enumerate(self.instances):
            if instance.location and instance.location != self.location:
                _bad(instance.location, f"the workspace's location ({self.location}): an instance cannot "
                     "live in another region", at=("instances", index, "location"))
        if self.protect_data is None:
            self.protect_data = self.environment in self.prod_like_environments
        return self

    def _check_networks(self) -> None:
        managed = self.workspace.has_managed_network
        computes: list[tuple[str, int, ClusterSpec | InstanceSpec]] = [
            ("clusters", i, c) for i, c in enumerate(self.clusters)
        ] + [("instances", i, c) for i, c in enumerate(self.instances)]
        for group, index, compute in computes:
            has_network = managed or compute.network_settings is not None
            at = (group, index, "enable_node_public_ip")
            if facts.node_public_ip(compute.enable_node_public_ip, has_network) is not None:
                continue
            if compute.enable_node_public_ip is False:
                _bad(False, "true, or false together with network_settings.subnet or a workspace "
                     "managed_network (nodes without public IPs need a network)", at=at)
            else:
                _problem("required when there is no network_settings.subnet and no workspace managed_network: "
                         "allowed: true (nodes then get public IPs), or add network_settings.subnet", at=at)

    def _check_unique_names(self) -> None:
        seen: dict[str, str] = {}
        named = [("clusters", i, c.name) for i, c in enumerate(self.clusters)] + [
            ("instances", i, c.name) for i, c in enumerate(self.instances)
        ] + [("attached", i, c.name) for i, c in enumerate(self.attached)]
        for group, index, name in named:
            first = seen.setdefault(name.lower(), f"{group}[{index}]")
            if first != f"{group}[{index}]":
                _bad(name, f"a compute name not used elsewhere in the workspace ({first} has it)",
                     at=(group, index, "name"))


# --- validation entry point ------------------------------------------------------------------------

TOP_LEVEL_KEYS = tuple(
    field.alias or name for name, field in EnvironmentSpec.model_fields.items() if name != "location"
)
"""The keys allowed under `amlkit:` (camelCase, as in the stack file)."""


def key_path(loc: Iterable[str | int]) -> str:
    """`("clusters", 0, "max_instances")` -> `amlkit:clusters[0].max_instances`."""
    parts = list(loc)
    if not parts:
        return "amlkit"
    head, rest = parts[0], parts[1:]
    path = "azure-native:location" if head == "location" else f"amlkit:{_escaped(str(head))}"
    for part in rest:
        path += f"[{part}]" if isinstance(part, int) else f".{_escaped(str(part))}"
    return path


def _describe(error: Mapping[str, Any], secret_keys: frozenset[str]) -> tuple[str, str]:
    """(key path, problem) for one pydantic error, with values of secret keys redacted."""
    loc = tuple(error["loc"]) + tuple(error.get("ctx", {}).get("at", ()))
    secret = bool(loc) and loc[0] in secret_keys
    if error["type"] == "amlkit":
        ctx = error["ctx"]
        if "got" in ctx:
            got = "a secret value" if secret else ctx["got"]
            return key_path(loc), f"got {got}; allowed: {ctx['allowed']}"
        return key_path(loc), ctx["problem"]
    if error["type"] == "missing":
        return key_path(loc), "required key is missing"
    got = "a secret value" if secret else show(error.get("input"))
    return key_path(loc), f"got {got}; allowed: {error['msg']}"


def validate_environment(
    raw: Mapping[str, Any], file: str | None, secret_keys: Iterable[str] = ()
) -> EnvironmentSpec:
    """Validate the `amlkit:` namespace (keys without prefix, plus `location`) into an EnvironmentSpec.

    `secret_keys` names top-level keys whose values came from Pulumi secrets: their values never
    appear in messages. Raises ConfigError for the first problem.
    """
    for key, value in raw.items():
        found = find_plaintext_credential(value, key_path([key]))
        if found:
            raise ConfigError(file, found, credential_problem(found))
    try:
        return EnvironmentSpec.model_validate(dict(raw))
    except ValidationError as error:
        path, problem = _describe(error.errors()[0], frozenset(secret_keys))
        raise ConfigError(file, path, problem) from None


def merged_tags(*layers: Mapping[str, str] | None, environment: str) -> dict[str, str]:
    """Tags of one resource: later layers win; the `environment` tag is always the stack's environment."""
    tags: dict[str, str] = {}
    for layer in layers:
        tags.update(layer or {})
    tags["environment"] = environment
    return tags
