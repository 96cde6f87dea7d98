"""Hypothesis strategies for fuzzing stack files: raw YAML text, sample-stack mutations, bad field values.

Paths are tuples from the document root, e.g. `("config", "amlkit:clusters", 0, "max_instances")`;
`expected_key_path` turns one into the key path amlkit's messages use (`amlkit:clusters[0].max_instances`).
The field tables say which leaves of the sample stacks are numbers, durations, sizes and ids, and what
Azure accepts there; `tests/test_fuzz_stackfile.py` checks the tables cover every such leaf.
"""

from __future__ import annotations

import copy
import functools
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from amlkit.errors import ConfigError
from amlkit.schema import EnvironmentSpec
from amlkit.stackfile import dump_yaml, load_stack_file
from amlkit.vmsizes import all_sizes

STACKS = Path(__file__).resolve().parent.parent / "stacks"
SAMPLE_STACKS = ("dev", "staging", "prod")
SUB = "00000000-0000-0000-0000-000000000000"

Path_ = tuple[str | int, ...]


# --- documents and paths ---------------------------------------------------------------------------


@functools.cache
def _sample(stack: str) -> dict[str, Any]:
    return yaml.safe_load((STACKS / f"Pulumi.{stack}.yaml").read_text(encoding="utf-8"))


def arm(provider: str, kind: str, name: str, rg: str = "rg-x") -> str:
    """A well-formed ARM id (`kind` may hold several segments: `virtualNetworks/v/subnets`)."""
    return f"/subscriptions/{SUB}/resourceGroups/{rg}/providers/{provider}/{kind}/{name}"


def _full_prod() -> dict[str, Any]:
    """prod with every optional workspace id set: each one is then a mutation target."""
    document = copy.deepcopy(_sample("prod"))
    workspace = document["config"]["amlkit:workspace"]
    workspace.update({
        "storage_account": arm("Microsoft.Storage", "storageAccounts", "stmlprod"),
        "key_vault": arm("Microsoft.KeyVault", "vaults", "kv-ml-prod"),
        "application_insights": arm("Microsoft.Insights", "components", "appi-ml-prod"),
        "log_analytics_workspace": arm("Microsoft.OperationalInsights", "workspaces", "log-ml-prod"),
        "container_registry": arm("Microsoft.ContainerRegistry", "registries", "crmlprod"),
        "customer_managed_key": {
            "key_vault": arm("Microsoft.KeyVault", "vaults", "kv-cmk-prod"),
            "key_uri": "https://kv-cmk-prod.vault.azure.net/keys/mlw-prod-cmk",
        },
    })
    return document


def _hub_project() -> dict[str, Any]:
    """dev as a project workspace under a hub: `hub_id` is then a mutation target."""
    document = copy.deepcopy(_sample("dev"))
    workspace = document["config"]["amlkit:workspace"]
    workspace.update({"kind": "project",
                      "hub_id": arm("Microsoft.MachineLearningServices", "workspaces", "hub-ml")})
    return document


_BUILDERS = {**{stack: functools.partial(_sample, stack) for stack in SAMPLE_STACKS},
             "prod-full": _full_prod, "dev-project": _hub_project}
BASES = tuple(_BUILDERS)
"""Valid base documents: the three sample stacks plus two variants that set the optional ids."""


def base_document(name: str) -> dict[str, Any]:
    """A fresh (deep-copied) valid base document."""
    return copy.deepcopy(_BUILDERS[name]())


def leaves(value: Any, path: Path_ = ()) -> Iterator[tuple[Path_, Any]]:
    """Every (path, scalar) under `value`."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, (*path, index))
    else:
        yield path, value


def mappings(value: Any, path: Path_ = ()) -> Iterator[Path_]:
    """Every path under `value` that holds a mapping."""
    if isinstance(value, dict):
        yield path
        for key, item in value.items():
            yield from mappings(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from mappings(item, (*path, index))


def get_at(document: Any, path: Path_) -> Any:
    for part in path:
        document = document[part]
    return document


def set_at(document: Any, path: Path_, value: Any) -> dict[str, Any]:
    """A copy of `document` with `value` at `path`."""
    changed = copy.deepcopy(document)
    get_at(changed, path[:-1])[path[-1]] = value
    return changed


def expected_key_path(path: Path_) -> str:
    """`("config", "amlkit:clusters", 0, "size")` -> `amlkit:clusters[0].size`."""
    assert path[0] == "config", path
    text = str(path[1])
    for part in path[2:]:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text


def dump(document: Any) -> str:
    """YAML text, keys in document order; shared sub-objects become anchors and aliases."""
    return dump_yaml(document, sort_keys=False, width=10_000)


# --- the fields Azure constrains -------------------------------------------------------------------

NODE_LIMIT = 65_000
INTEGER_RANGES: dict[str, tuple[int, int | None]] = {
    "min_instances": (0, NODE_LIMIT),
    "max_instances": (1, NODE_LIMIT),
    "idle_time_before_scale_down": (0, None),  # seconds
    "idle_time_before_shutdown_minutes": (15, 4320),
    "interval": (1, None),
    "hours": (0, 23),  # list items
    "minutes": (0, 59),  # list items
}
"""Integer fields (durations included) by key name, with the range Azure accepts."""

SIZE_KEYS = frozenset({"size"})
GUID_KEYS = frozenset({"object_id", "tenant_id"})
ARM_ID_TYPES: dict[str, tuple[str, str]] = {
    "custom_subnet": ("Microsoft.Network", "virtualNetworks/vnet-x/subnets"),
    "subnet": ("Microsoft.Network", "virtualNetworks/vnet-x/subnets"),
    "resource_id": ("Microsoft.ManagedIdentity", "userAssignedIdentities"),
    "primary_user_assigned_identity": ("Microsoft.ManagedIdentity", "userAssignedIdentities"),
    "storage_account": ("Microsoft.Storage", "storageAccounts"),
    "key_vault": ("Microsoft.KeyVault", "vaults"),
    "application_insights": ("Microsoft.Insights", "components"),
    "log_analytics_workspace": ("Microsoft.OperationalInsights", "workspaces"),
    "container_registry": ("Microsoft.ContainerRegistry", "registries"),
    "hub_id": ("Microsoft.MachineLearningServices", "workspaces"),
    "subnet_resource_id": ("Microsoft.Network", "virtualNetworks/vnet-x/subnets"),
    "private_dns_zone_resource_ids": ("Microsoft.Network", "privateDnsZones"),
}
"""ARM id fields by key name: (provider, resource type path)."""

CROSS_REFERENCED_IDS = frozenset({"resource_id", "primary_user_assigned_identity"})
"""Ids that must name each other: changing one alone to another valid id makes the stack invalid."""


def field_name(path: Path_) -> str:
    """The schema field a leaf belongs to: its key, or the list's key for list items."""
    return str(path[-2] if isinstance(path[-1], int) else path[-1])


def field_kind(path: Path_, value: Any) -> str | None:
    """integer | size | guid | arm_id | None for a leaf of a base document."""
    name = field_name(path)
    if name in INTEGER_RANGES:
        return "integer"
    if name in SIZE_KEYS:
        return "size"
    if name in GUID_KEYS:
        return "guid"
    if name in ARM_ID_TYPES and isinstance(value, str):
        return "arm_id"
    return None


def constrained_fields(document: dict[str, Any]) -> list[tuple[Path_, str]]:
    """(path, kind) of every integer, size, GUID and ARM-id leaf of a base document's config."""
    return [(path, kind) for path, value in leaves(document)
            if path[0] == "config" and (kind := field_kind(path, value)) is not None]


# --- values ----------------------------------------------------------------------------------------

_SAFE_KEY = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=4)
"""Short keys: never a credential-like name (the shortest, `token`, has five letters)."""
_SAFE_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="="), max_size=30)
"""Any text without `=` (so never `AccountKey=...`, which the credential scan would report first)."""

_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), _SAFE_TEXT)
_FRACTIONS = st.one_of(
    st.integers(-10**6, 10**6).map(lambda whole: whole + 0.5),
    st.sampled_from((math.nan, math.inf, -math.inf, 1e-300, -0.25)),
)
"""Numbers that are not whole: halves, NaN, infinities, tiny fractions."""
_NON_BOOL_NON_STRINGS = st.one_of(
    st.integers(), st.floats(allow_nan=True),
    st.lists(_SCALARS, max_size=3), st.dictionaries(_SAFE_KEY, _SCALARS, max_size=3),
)
_NON_STRINGS = st.one_of(st.booleans(), _NON_BOOL_NON_STRINGS)


def bad_integer(low: int, high: int | None) -> st.SearchStrategy[Any]:
    """Values an integer field in [low, high] must refuse: out of range, fractions, text, other types."""
    out_of_range = [st.integers(max_value=low - 1)]
    if high is not None:
        out_of_range.append(st.integers(min_value=high + 1))
    return st.one_of(
        *out_of_range,
        _FRACTIONS,
        st.booleans(),
        _SAFE_TEXT,
        st.integers(min_value=low, max_value=high).map(str),  # a number written as text
        st.lists(_SCALARS, max_size=3),
        st.dictionaries(_SAFE_KEY, _SCALARS, max_size=3),
    )


def _not_a_size_name(text: str) -> bool:
    # Size names are ASCII letters, digits, '_' and '-' compared case-insensitively.
    return not re.fullmatch(r"[a-z0-9_-]+", text.casefold())


BAD_SIZE = st.one_of(_NON_STRINGS, _SAFE_TEXT.filter(_not_a_size_name))
BAD_GUID = st.one_of(
    _NON_STRINGS,
    _SAFE_TEXT.filter(lambda text: not re.fullmatch(r"[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", text)),
    st.just("00000000-0000-0000-0000-00000000000"),  # one digit short
    st.just("{00000000-0000-0000-0000-000000000000}"),
)
SIZE_NAMES = tuple(size.name for size in all_sizes())


def bad_arm_id(key: str) -> st.SearchStrategy[Any]:
    """Values an ARM id field must refuse: non-strings, plain names, other resource types, broken ids."""
    provider, kind = ARM_ID_TYPES[key]
    good = arm(provider, kind, "name-1")
    others = sorted({arm(p, k, "name-1") for p, k in ARM_ID_TYPES.values() if p != provider})
    broken = [
        good.replace(f"/subscriptions/{SUB}", "/subscriptions/not-a-guid"),
        good.replace("/subscriptions/", "/subscription/"),
        good.removeprefix("/"),
        good + "/extra",
        good.replace("name-1", "name 1"),
        good.replace("/resourceGroups/rg-x", "/resourceGroups/"),
        good.rsplit("/", 1)[0],
        "name-1",
        "",
    ]
    non_strings = _NON_BOOL_NON_STRINGS if key == "container_registry" else _NON_STRINGS  # true/false are valid
    return st.one_of(non_strings, st.sampled_from(others + broken),
                     _SAFE_TEXT.filter(lambda text: not text.startswith("/subscriptions/")))


def bad_value(path: Path_, kind: str) -> st.SearchStrategy[Any]:
    """Values Azure could never accept at a constrained field."""
    name = field_name(path)
    if kind == "integer":
        return bad_integer(*INTEGER_RANGES[name])
    if kind == "size":
        return BAD_SIZE
    if kind == "guid":
        return BAD_GUID
    return bad_arm_id(name)


# --- credentials -----------------------------------------------------------------------------------

CREDENTIAL_SUFFIXES = ("password", "passwd", "secret", "connection_string", "connectionString", "account_key",
                       "accountKey", "access_key", "api_key", "apiKey", "sas_token", "private_key",
                       "client_secret", "clientSecret", "token")
CREDENTIAL_KEYS = st.builds(
    lambda prefix, suffix, upper: (prefix + suffix).upper() if upper else prefix + suffix,
    st.sampled_from(("", "admin_", "db_", "storage", "x_", "sp-")), st.sampled_from(CREDENTIAL_SUFFIXES),
    st.booleans(),
)
CANARIES = st.text(alphabet="0123456789abcdef", min_size=8, max_size=16).map(lambda tail: f"CANARY-{tail}")


# --- raw stack-file text ---------------------------------------------------------------------------

_YAML_TOKENS = (
    "config:", "amlkit:clusters:", "amlkit:workspace:", "azure-native:location:", "name:", "size:",
    "max_instances:", "- ", "&a", "&b", "*a", "*b", "<<:", "{", "}", "[", "]", ",", "?", ":", "|", ">", "'", '"',
    "#", "---", "...", "%YAML 1.1", "%TAG ! tag:x,2000:", "!!binary", "!!set", "!!omap", "!!python/object:os.system",
    "!!str", "!!int", "!!float", "!custom", "~", "null", "true", "yes", "on", "NO", ".inf", "-.inf", ".nan",
    "0x1F", "0o17", "0b101", "1_000", "1e400", "-0", "190:20:30", "2026-01-05", "2026-01-05T08:00:00Z",
    "Standard_DS3_v2", "westeurope", "{secure: v1:abc}", "é", "日本", "🙂", "\u200b", "\ufeff", "\\", "\\u0041",
)
_SEPARATORS = (" ", "  ", "\n", "\n  ", "\n    ", "\n- ", ": ", ", ", "\t")

yaml_soup = st.lists(st.tuples(st.sampled_from(_YAML_TOKENS), st.sampled_from(_SEPARATORS)), max_size=40).map(
    lambda parts: "".join(token + separator for token, separator in parts))
"""Token salad from YAML syntax and stack-file vocabulary."""

json_like = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
              st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20)),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12),
                                  st.integers(), st.booleans()), children, max_size=4),
    ),
    max_leaves=25,
)
"""Any YAML-representable value: unicode text, huge and negative numbers, NaN, nesting."""

_CONFIG_KEYS = st.one_of(
    st.sampled_from(("azure-native:location", "amlkit:environment", "amlkit:resourceGroup", "amlkit:tags",
                     "amlkit:workspace", "amlkit:clusters", "amlkit:instances", "amlkit:protectData",
                     "amlkit:prodLikeEnvironments", "workspace", "clusters", "other:key", "amlkit:")),
    st.text(max_size=12),
)
random_config = st.dictionaries(_CONFIG_KEYS, json_like, max_size=6).map(lambda config: dump({"config": config}))
"""A `config:` mapping of known and unknown keys with arbitrary values."""


@st.composite
def mutated_sample(draw: st.DrawFn) -> str:
    """A base document with one leaf replaced, one mapping key deleted or renamed, or a subtree shared."""
    document = base_document(draw(st.sampled_from(BASES)))
    paths = [path for path, _ in leaves(document)]
    path = draw(st.sampled_from(paths))
    action = draw(st.sampled_from(("replace", "delete", "rename", "alias")))
    parent = get_at(document, path[:-1])
    if action == "replace":
        parent[path[-1]] = draw(json_like)
    elif action == "delete":
        del parent[path[-1]]
    elif action == "rename" and isinstance(path[-1], str):
        parent[draw(st.text(max_size=20))] = parent.pop(path[-1])
    elif action == "alias":
        # the same object in two places: the dump writes an anchor and an alias
        outside = [other for other in mappings(document) if path[: len(other)] != other]  # no cycles
        other = draw(st.sampled_from(outside))
        shared = get_at(document, other)
        parent[path[-1]] = shared
    return dump(document)


@st.composite
def duplicated_key(draw: st.DrawFn) -> str:
    """A sample stack with one of its lines repeated right below itself (a duplicate key or list item)."""
    lines = dump(base_document(draw(st.sampled_from(BASES)))).splitlines()
    index = draw(st.integers(0, len(lines) - 1))
    return "\n".join([*lines[: index + 1], lines[index], *lines[index + 1:]]) + "\n"


_RAW_SCALARS = (
    "~", "null", "NULL", "''", "Yes", "Off", "y", "n", "+.inf", "-.nan", ".NaN", "0.", ".5", "-0", "+12", "12e03",
    "1e400", "0x_1F", "0o17", "0b1_0", "1_000", "190:20:30", "1:2:3:4", "2026-01-05", "2026-01-05 08:00:00 +01:00",
    "!!int 12", "!!int x", "!!int ''", "!!float .5", "!!float x", "!!bool yes", "!!bool maybe", "!!timestamp x",
    "!<tag:yaml.org,2002:int> x", "!!null ''", "!!str 12", "!!binary aGVsbG8=", "!!binary ###", "!!set {a, b}",
    "!!omap [a: 1]", "!!pairs [a: 1]", "!!omap x", "!!map [a]", "!!seq {a: 1}", "!custom x", "!!python/name:os.system",
    "*undefined", "&x 5", "'unterminated", '"\\x"', '"\\ud800"', '"\\u0000"', "[1, 2", "{a: }", "{a, a}", "? x",
    "- a", "|", ">-", "<<", "'=\u00e9\u65e5'", "\u200b", "%x", "@x", "`x",
)
"""Scalars YAML treats specially: implicit types, explicit tags, bad escapes, broken flow collections."""


@st.composite
def raw_scalar_in_sample(draw: st.DrawFn) -> str:
    """A base document's text with the value of one `key: value` line replaced by a raw YAML scalar."""
    lines = dump(base_document(draw(st.sampled_from(BASES)))).splitlines()
    valued = [i for i, line in enumerate(lines) if re.match(r"\s*(- )?[^-\s#][^:]*: \S", line)]
    index = draw(st.sampled_from(valued))
    key, _, _ = lines[index].partition(": ")
    lines[index] = f"{key}: {draw(st.sampled_from(_RAW_SCALARS))}"
    return "\n".join(lines) + "\n"


MAX_FUZZ_DEPTH = 2000
"""Nesting depth the fuzz generates (a regression test goes to 500,000, the file-size cap)."""


@st.composite
def deep_nesting(draw: st.DrawFn) -> str:
    """Flow or block nesting up to `MAX_FUZZ_DEPTH` levels, at the top, under config: or under a key."""
    depth = draw(st.integers(1, MAX_FUZZ_DEPTH))
    opening, closing = draw(st.sampled_from((("[", "]"), ("{a: ", "}"), ("[{k: ", "}]"))))
    nested = opening * depth + "x" + closing * depth if "{" in opening else opening * depth + closing * depth
    where = draw(st.sampled_from(("{}\n", "config: {}\n", "config:\n  amlkit:workspace: {}\n")))
    return where.format(nested)


long_strings = st.builds(
    lambda key_length, value_length, char: dump({"config": {
        "azure-native:location": "westeurope",
        "amlkit:workspace": {"name": "mlw-x", "description": char * value_length},
        "amlkit:resourceGroup": {"name": "rg-x", char * key_length: "v"},
    }}),
    st.integers(1, 5000), st.integers(1, 20_000), st.sampled_from(("a", "é", "日", "🙂", " ", "\\", "'")),
)
"""A very long value and a very long key (up to 20,000 characters)."""


# --- everything together -----------------------------------------------------------------------------

stack_file_bytes = st.one_of(
    st.text(max_size=200).map(lambda text: text.encode("utf-8", "surrogatepass")),
    st.binary(max_size=200),
    yaml_soup.map(str.encode),
    random_config.map(str.encode),
    mutated_sample().map(str.encode),
    duplicated_key().map(str.encode),
    raw_scalar_in_sample().map(str.encode),
    deep_nesting().map(str.encode),
    long_strings.map(str.encode),
)
"""The bytes of a stack file: garbage, unicode, token salad, arbitrary config, broken samples, nesting."""


# --- loading a fuzzed stack file ----------------------------------------------------------------------


def write(directory: Path, data: bytes | str, stack: str = "fuzz") -> Path:
    path = directory / f"Pulumi.{stack}.yaml"
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def load(path: Path) -> EnvironmentSpec | ConfigError:
    """The loader's outcome; any exception other than ConfigError propagates and fails the test."""
    try:
        spec = load_stack_file(path)
    except ConfigError as error:
        assert_clear(error, path)
        return error
    assert isinstance(spec, EnvironmentSpec)
    return spec


def assert_clear(error: ConfigError, path: Path) -> None:
    """One line: `<file>[:<line>:<column>]: [<key path>: ]<problem>`, no traceback; a key path has its position."""
    message = str(error)
    assert error.file == str(path)
    assert error.problem
    key = f"{error.key_path}: " if error.key_path else ""
    position = f":{error.line}:{error.column}" if error.line is not None else ""
    assert message == f"{path}{position}: {key}{error.problem}"
    assert error.line is not None or not error.key_path or error.key_path == "config"
    assert "\n" not in message and "Traceback" not in message


def config_error(path: Path) -> ConfigError:
    outcome = load(path)
    assert isinstance(outcome, ConfigError), f"expected a ConfigError, got a valid spec for {path.read_text()!r}"
    return outcome


def assert_secret_advice(error: ConfigError, key_path: str, canary: str) -> None:
    assert error.key_path == key_path
    assert error.problem == (
        "a plain-text credential is not allowed in stack config; store it as a Pulumi secret: "
        f"pulumi config set --secret --path '{key_path}' <value>")
    assert canary not in str(error) and canary not in repr(error.args) and canary not in repr(error.value)
