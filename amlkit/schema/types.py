"""Scalar types of the environment schema: secrets, messages, validated text/ids/numbers, the base Model."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, NoReturn

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationInfo, model_validator
from pydantic_core import PydanticCustomError

from amlkit import azure_facts as facts
from amlkit import regions
from amlkit.suggest import VM_SIZE_ALLOWED, did_you_mean, size_problem, unknown_key

__all__ = [
    "AdminUsername", "Allowed", "AppInsightsId", "Bool", "ClusterName", "ComputeName", "ContainerRegistry",
    "DEFAULT_PROD_LIKE", "DNS_ZONE_GROUP_DEFAULT", "Description", "EnvironmentName", "ExtraRegionName", "Guid",
    "IdentityId", "InstanceName", "KeyUri", "KeyVaultId", "LogAnalyticsId", "Model", "PRIVATE_ENDPOINT_KEY",
    "PRIVATE_ENDPOINT_KEY_ALLOWED", "PrivateDnsZoneId", "PrivateEndpointName", "REGIONS_CONTEXT", "RG_PATH", "Region",
    "RegistryId", "ResourceGroupName", "SECRET_PATHS", "SUB_PATH", "Secret", "SecretValue", "SshPublicKey",
    "StorageAccountId", "SubnetId", "Tags", "TimeZone", "VmSize", "WorkspaceId", "WorkspaceName", "arm_id", "choice",
    "credential_problem", "fail", "find_plaintext_credential", "integer", "is_credential_key", "list_of", "map_of",
    "one_line", "refuse_secret", "reject", "show", "text",
]

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
    return one_line(str(value))


def one_line(text: str) -> str:
    """One line: control characters and line breaks escaped."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def reject(value: Any, allowed: str, at: tuple[str | int, ...] = (), hint: str = "") -> NoReturn:
    """Fail with `got <value>; allowed: <allowed>` (optionally at a sub-key of the current location); `hint` is
    a `; did you mean 'x'?` (`amlkit.suggest.did_you_mean`), shown after what is allowed."""
    raise PydanticCustomError("amlkit", "got {got}; allowed: {allowed}{hint}",
                              {"got": show(value), "allowed": allowed, "at": at, "hint": hint})


def fail(text: str, at: tuple[str | int, ...] = ()) -> NoReturn:
    """Fail with `text` as the problem (optionally at a sub-key of the current location)."""
    raise PydanticCustomError("amlkit", "{problem}", {"problem": text, "at": at})


def refuse_secret(value: Any) -> None:
    """Fail when `value` is a secret: amlkit reads secrets only at SECRET_PATHS."""
    if isinstance(value, Secret):
        fail(
            "holds a secret, which amlkit does not read here (offline it cannot be decrypted); allowed: a "
            f"plain value (secrets are read only at {', '.join(SECRET_PATHS)})"
        )


# --- scalar types ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Allowed:
    """Annotated metadata: what a value may be, the same words as the `allowed:` of its errors.

    Validation ignores it; `tools/docs/configuration.py` reads it for docs/configuration.md. `values` lists a
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
        refuse_secret(value)
        if isinstance(value, str) and _snake(value) in values:
            return _snake(value)
        reject(value, allowed, hint=did_you_mean(value, values))

    return Annotated[str, BeforeValidator(check), Allowed(allowed, values)]


def integer(low: int, high: int | None, what: str) -> Any:
    """An integer in [low, high]; booleans, text and fractions are refused."""
    allowed = f"{what} from {low} to {high}" if high is not None else f"{what} of at least {low}"

    def check(value: Any) -> int:
        refuse_secret(value)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            reject(value, allowed)
        if value < low or (high is not None and value > high):
            reject(value, allowed)
        return value

    return Annotated[int, BeforeValidator(check), Allowed(allowed)]


_BOOL_ALLOWED = "true or false"


def _boolean(value: Any) -> bool:
    refuse_secret(value)
    if not isinstance(value, bool):
        reject(value, _BOOL_ALLOWED)
    return value


Bool = Annotated[bool, BeforeValidator(_boolean), Allowed(_BOOL_ALLOWED)]


def text(pattern: str, allowed: str) -> Any:
    """A string matching `pattern` in full."""
    return _matching(re.compile(pattern), allowed)


def _matching(pattern: re.Pattern[str], allowed: str) -> Any:
    """A string `pattern` matches in full; any other value is refused with `allowed`."""

    def check(value: Any) -> str:
        refuse_secret(value)
        if not isinstance(value, str) or not pattern.fullmatch(value):
            reject(value, allowed)
        return value

    return Annotated[str, BeforeValidator(check), Allowed(allowed)]


Description = text(r"(?s).{0,5000}", "text of up to 5000 characters")
REGIONS_CONTEXT = "extra_regions"
"""The validation context key holding the region names a stack adds (`amlkit:extraRegions`)."""


def _region(value: Any, info: ValidationInfo) -> str:
    """A public Azure region (amlkit/data/azure_regions.yaml) or one the stack adds by `amlkit:extraRegions`."""
    refuse_secret(value)
    extra = (info.context or {}).get(REGIONS_CONTEXT, ())
    if regions.region_problem(value, extra) is not None:
        reject(value, regions.allowed_text(), hint=regions.region_hint(value, extra))
    return str(value)


Region = Annotated[str, BeforeValidator(_region), Allowed(regions.allowed_text())]
ExtraRegionName = text(regions.NAME.pattern, regions.NAME_ALLOWED)
Guid = text(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
            "a GUID, e.g. 00000000-0000-0000-0000-000000000000")
EnvironmentName = text(r"[a-z0-9][a-z0-9_-]{0,62}", "1-63 lowercase letters, digits, '-' or '_'")
WorkspaceName = text(facts.WORKSPACE_NAME.pattern, facts.WORKSPACE_NAME.allowed)
ResourceGroupName = text(r"[-\w.()]{0,89}[-\w()]", "1-90 letters, digits, '-', '_', '.', '(' or ')', "
                         "not ending with '.'")
ClusterName = text(facts.COMPUTE_NAME.pattern, facts.COMPUTE_NAME.allowed)
ComputeName = text(r"[A-Za-z][A-Za-z0-9-]{1,23}", "2-24 letters, digits and hyphens, starting with a letter (the "
                   "name of a cluster or an instance)")
PrivateEndpointName = text(facts.PRIVATE_ENDPOINT_NAME.pattern, facts.PRIVATE_ENDPOINT_NAME.allowed)
InstanceName = text(facts.INSTANCE_NAME.pattern, facts.INSTANCE_NAME.allowed)
AdminUsername = text(r"[a-z_][a-z0-9_-]{0,31}", "a Linux user name: 1-32 lowercase letters, digits, '-' or '_'")
SshPublicKey = text(r"(ssh-(rsa|ed25519|dss)|ecdsa-sha2-nistp(256|384|521)|sk-[a-z0-9@.-]+) [A-Za-z0-9+/=]+( .*)?",
                    "an OpenSSH public key line, e.g. 'ssh-ed25519 AAAA... user@host'")
KeyUri = text(r"https://[A-Za-z0-9-]{3,24}\.vault\.azure\.net/keys/[A-Za-z0-9-]{1,127}(/[0-9a-fA-F]{32})?",
              "a key identifier, e.g. https://kv-name.vault.azure.net/keys/key-name[/version]")
TimeZone = text(r"[A-Za-z][A-Za-z0-9 .()+:/_-]{0,79}", "a time zone name, e.g. UTC or W. Europe Standard Time")

SUB_PATH = r"/subscriptions/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
RG_PATH = r"/resourceGroups/[-\w.()]{1,90}"


def arm_id(provider: str, *types: str) -> Any:
    """An ARM resource id of the given provider type, e.g. arm_id("Microsoft.Network", "virtualNetworks", "subnets")."""
    segments = "".join(rf"/{re.escape(kind)}/[^/\s]+" for kind in types)
    pattern = re.compile(rf"{SUB_PATH}{RG_PATH}/providers/{re.escape(provider)}{segments}", re.IGNORECASE)
    example = f"/subscriptions/<guid>/resourceGroups/<rg>/providers/{provider}/" + "/".join(
        f"{kind}/<name>" for kind in types
    )
    return _matching(pattern, f"an ARM id like {example}")


SubnetId = arm_id("Microsoft.Network", "virtualNetworks", "subnets")
StorageAccountId = arm_id("Microsoft.Storage", "storageAccounts")
KeyVaultId = arm_id("Microsoft.KeyVault", "vaults")
AppInsightsId = arm_id("Microsoft.Insights", "components")
LogAnalyticsId = arm_id("Microsoft.OperationalInsights", "workspaces")
RegistryId = arm_id("Microsoft.ContainerRegistry", "registries")
WorkspaceId = arm_id("Microsoft.MachineLearningServices", "workspaces")
IdentityId = arm_id("Microsoft.ManagedIdentity", "userAssignedIdentities")
PrivateDnsZoneId = arm_id("Microsoft.Network", "privateDnsZones")
PRIVATE_ENDPOINT_KEY = r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}"
PRIVATE_ENDPOINT_KEY_ALLOWED = "1-32 letters, digits, '-' or '_', starting with a letter or digit"
"""A key of a workspace's `private_endpoints` (it names the endpoint's children: `<component>-pe-<key>`)."""
DNS_ZONE_GROUP_DEFAULT = "default"
"""The name of a private endpoint's DNS zone group when none is given (Azure Verified Modules' default)."""


_REGISTRY_ALLOWED = ("true (create one), false (none) or an existing registry's ARM id like "
                     "/subscriptions/<guid>/resourceGroups/<rg>/providers/Microsoft.ContainerRegistry/registries/<name>")


def _registry(value: Any) -> str | bool:
    if isinstance(value, bool):
        return value
    refuse_secret(value)
    if isinstance(value, str) and re.fullmatch(
        rf"{SUB_PATH}{RG_PATH}/providers/Microsoft\.ContainerRegistry/registries/[^/\s]+", value, re.IGNORECASE
    ):
        return value
    reject(value, _REGISTRY_ALLOWED)


ContainerRegistry = Annotated[str | bool, BeforeValidator(_registry), Allowed(_REGISTRY_ALLOWED)]


def _vm_size(value: Any) -> str:
    refuse_secret(value)
    problem = size_problem(value)
    if problem is not None:
        reject(value, problem.allowed, hint=problem.hint)
    return str(value)


VmSize = Annotated[str, BeforeValidator(_vm_size), Allowed(VM_SIZE_ALLOWED)]

_SECRET_ALLOWED = "a Pulumi secret (a `secure:` value)"


def _secret(value: Any) -> Secret:
    if not isinstance(value, Secret):
        fail(f"must be {_SECRET_ALLOWED}")
    return value


SecretValue = Annotated[Any, BeforeValidator(_secret), Allowed(_SECRET_ALLOWED)]

_TAGS_ALLOWED = "a mapping of tag names to text values"
_TAGS_COUNT = "at most 50 tags per resource"
_TAG_NAME = "a tag name of 1-512 characters without < > % & \\ ? /"
_TAG_VALUE = "text of up to 256 characters (quote numbers: \"4711\")"


def _tags(value: Any) -> dict[str, str]:
    refuse_secret(value)
    if not isinstance(value, Mapping):
        reject(value, _TAGS_ALLOWED)
    if len(value) > 50:
        reject(f"{len(value)} tags", _TAGS_COUNT)
    for key, item in value.items():
        if not isinstance(key, str) or not re.fullmatch(r"[^<>%&\\?/]{1,512}", key):
            reject(key, _TAG_NAME, at=(str(key),))
        refuse_secret(item)
        if not isinstance(item, str) or len(item) > 256:
            reject(item, _TAG_VALUE, at=(key,))
    return dict(value)


Tags = Annotated[dict[str, str], BeforeValidator(_tags),
                 Allowed(f"{_TAGS_ALLOWED}: {_TAGS_COUNT}; each {_TAG_NAME}; each value {_TAG_VALUE}")]


def list_of(item: Any, max_items: int | None = None) -> Any:
    """A list (YAML sequence), optionally capped."""

    def check(value: Any) -> list[Any]:
        refuse_secret(value)
        if not isinstance(value, list):
            reject(value, "a list")
        if max_items is not None and len(value) > max_items:
            reject(f"{len(value)} items", f"at most {max_items}")
        return value

    allowed = f"a list of at most {max_items} items" if max_items is not None else "a list"
    return Annotated[list[item], BeforeValidator(check), Allowed(allowed)]


def map_of(key: Any, item: Any, keys: str) -> Any:
    """A mapping (YAML mapping) of keys (`keys` says which) to entries, e.g. a workspace's `private_endpoints`."""

    def check(value: Any) -> dict[Any, Any]:
        refuse_secret(value)
        if not isinstance(value, dict):
            reject(value, allowed)
        return value

    allowed = f"a mapping of key ({keys}) -> entry"
    return Annotated[dict[key, item], BeforeValidator(check), Allowed(allowed)]


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

    @classmethod
    def key_problem(cls, key: str) -> str | None:
        """Why a key is refused before the unknown-key check (a key this mapping must not set), else None."""
        return None

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            refuse_secret(data)
            reject(data, f"a mapping with keys {cls.allowed_keys_text()}")
        for key in data:
            refused = cls.key_problem(str(key))
            if refused is not None:
                fail(refused, at=(str(key),))
            if key not in cls.accepted_keys():
                fail(f"{unknown_key(key, cls.accepted_keys())}; allowed keys: {cls.allowed_keys_text()}",
                     at=(str(key),))
        return data
