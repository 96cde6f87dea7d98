"""The lookups file: strict loading (file, key path, bad value, what is allowed) and matching."""

from __future__ import annotations

from pathlib import Path

import pytest

from amlkit.errors import ConfigError
from amlkit.review.run.lookups import FILE_NAME, Lookups, load_lookups

SUBNET = "azure-native:network:getSubnet"
ARGS = {"resourceGroupName": "rg-net", "virtualNetworkName": "vnet", "subnetName": "snet"}
GOOD = f"""\
version: 1
invokes:
  - function: {SUBNET}
    args: {{resourceGroupName: rg-net, virtualNetworkName: vnet, subnetName: snet}}
    result: {{addressPrefix: 10.0.1.0/24}}
stack_references:
  - stack: acme/shared/prod
    outputs: {{location: westeurope, maxNodes: 4}}
"""


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / FILE_NAME).write_text(text, encoding="utf-8")
    return tmp_path


def test_no_file_means_no_pins(tmp_path):
    assert load_lookups(tmp_path) is None


def test_an_empty_file_pins_nothing(tmp_path):
    assert load_lookups(write(tmp_path, "")) == Lookups()


def test_a_valid_file_loads_and_matches_by_token_and_exact_args(tmp_path):
    lookups = load_lookups(write(tmp_path, GOOD))
    assert lookups == Lookups(
        invokes=[{"function": SUBNET, "args": ARGS, "result": {"addressPrefix": "10.0.1.0/24"}}],
        stack_references={"acme/shared/prod": {"location": "westeurope", "maxNodes": 4}},
    )
    assert lookups.invoke_result(SUBNET, dict(reversed(ARGS.items()))) == {"addressPrefix": "10.0.1.0/24"}
    assert lookups.invoke_result(SUBNET, {**ARGS, "expand": "ipConfigurations"}) is None
    assert lookups.invoke_result("azure-native:network:getVirtualNetwork", ARGS) is None
    assert lookups.stack_outputs("acme/shared/prod") == {"location": "westeurope", "maxNodes": 4}
    assert lookups.stack_outputs("acme/shared/dev") is None
    assert Lookups.from_json(lookups.to_json()) == lookups


def test_lookups_of_other_providers_pin_by_full_token(tmp_path):
    text = ("version: 1\ninvokes:\n"
            "  - function: azuread:index/getUser:getUser\n    args: {userPrincipalName: jdoe@example.com}\n"
            "    result: {objectId: 22222222-2222-2222-2222-222222222222, displayName: J Doe}\n"
            "  - function: azure:core/getClientConfig:getClientConfig\n    args: {}\n"
            "    result: {tenantId: 33333333-3333-3333-3333-333333333333}\n")
    lookups = load_lookups(write(tmp_path, text))
    assert lookups.invoke_result("azuread:index/getUser:getUser", {"userPrincipalName": "jdoe@example.com"}) == {
        "objectId": "22222222-2222-2222-2222-222222222222", "displayName": "J Doe"}
    assert lookups.invoke_result("azure:core/getClientConfig:getClientConfig", {}) == {
        "tenantId": "33333333-3333-3333-3333-333333333333"}


INVOKE = f"  - function: {SUBNET}\n    args: {{subnetName: snet}}\n"
ERROR_CASES = [
    ("not-yaml", "version: [1\n", "", "cannot be read as YAML"),
    ("not-a-mapping", "- 1\n", "", "must be a mapping with keys version, invokes, stack_references, stacks, got [1]"),
    ("unknown-top-key", "version: 1\ninvoke: []\n", "invoke",
     "unknown key (did you mean 'invokes'?); allowed: version, invokes, stack_references, stacks"),
    ("missing-version", "invokes: []\n", "version", "must be 1, got None"),
    ("wrong-version", "version: 2\n", "version", "must be 1, got 2"),
    ("invokes-not-a-list", "version: 1\ninvokes: {}\n", "invokes", "must be a list, got {}"),
    ("misspelt-invoke-key", f"version: 1\ninvokes:\n{INVOKE}    results: {{}}\n", "invokes[0].results",
     "unknown key (did you mean 'result'?); allowed: function, args, result"),
    ("missing-result", f"version: 1\ninvokes:\n{INVOKE}", "invokes[0].result", "is required"),
    ("not-a-token", "version: 1\ninvokes:\n  - {function: getSubnet, args: {}, result: {}}\n",
     "invokes[0].function", "'getSubnet' is not a function token (like azure-native:network:getSubnet, "
     "azure:core/getClientConfig:getClientConfig or azuread:index/getUser:getUser)"),
    ("no-such-function", "version: 1\ninvokes:\n  - {function: 'azure-native:network:getSubnett', args: {}, "
     "result: {}}\n", "invokes[0].function", "'azure-native:network:getSubnett': no installed provider SDK has "
     "such a function (install the provider the program uses)"),
    ("no-such-provider", "version: 1\ninvokes:\n  - {function: 'acme:index/getThing:getThing', args: {}, "
     "result: {}}\n", "invokes[0].function", "'acme:index/getThing:getThing': no installed provider SDK has "
     "such a function (install the provider the program uses)"),
    ("classic-credentials-function", "version: 1\ninvokes:\n  - {function: 'azure:storage/listAccountKeys:"
     "listAccountKeys', args: {}, result: {}}\n", "invokes[0].function",
     "'azure:storage/listAccountKeys:listAccountKeys' returns keys or credentials; a lookups file never holds "
     "credentials"),
    ("azuread-credential-field", "version: 1\ninvokes:\n  - {function: 'azuread:index/getUser:getUser', args: "
     "{userPrincipalName: a@b.c}, result: {password: x}}\n", "invokes[0].result.password",
     "looks like a credential; a lookups file never holds credentials"),
    ("credentials-function", "version: 1\ninvokes:\n  - {function: 'azure-native:storage:listStorageAccountKeys', "
     "args: {}, result: {}}\n", "invokes[0].function",
     "'azure-native:storage:listStorageAccountKeys' returns keys or credentials; a lookups file never holds "
     "credentials"),
    ("args-not-a-mapping", f"version: 1\ninvokes:\n  - {{function: '{SUBNET}', args: [a], result: {{}}}}\n",
     "invokes[0].args", "must be a mapping of argument names to values, got ['a']"),
    ("misspelt-result-field", f"version: 1\ninvokes:\n{INVOKE}    result: {{adressPrefix: 10.0.0.0/24}}\n",
     "invokes[0].result.adressPrefix", f"not a field of {SUBNET}'s result (did you mean 'addressPrefix'?)"),
    ("string-field-not-a-string", f"version: 1\ninvokes:\n{INVOKE}    result: {{addressPrefix: 10}}\n",
     "invokes[0].result.addressPrefix", "must be a string, got 10"),
    ("duplicate-invoke", f"version: 1\ninvokes:\n{INVOKE}    result: {{}}\n{INVOKE}    result: {{}}\n",
     "invokes[1]", "pins the same function and args as an earlier entry"),
    ("missing-stack", "version: 1\nstack_references:\n  - outputs: {}\n", "stack_references[0].stack", "is required"),
    ("empty-stack", "version: 1\nstack_references:\n  - {stack: '', outputs: {}}\n", "stack_references[0].stack",
     "must be a non-empty string, got ''"),
    ("outputs-not-a-mapping", "version: 1\nstack_references:\n  - {stack: a/b/c, outputs: [x]}\n",
     "stack_references[0].outputs", "must be a mapping of names to values, got ['x']"),
    ("credential-output", "version: 1\nstack_references:\n  - {stack: a/b/c, outputs: {storagePrimaryKey: x}}\n",
     "stack_references[0].outputs.storagePrimaryKey",
     "looks like a credential; a lookups file never holds credentials"),
    ("duplicate-stack", "version: 1\nstack_references:\n  - {stack: a/b/c, outputs: {}}\n"
     "  - {stack: a/b/c, outputs: {}}\n", "stack_references[1].stack", "stack 'a/b/c' is pinned by an earlier entry"),
]


@pytest.mark.parametrize(("text", "key_path", "problem"), [c[1:] for c in ERROR_CASES],
                         ids=[c[0] for c in ERROR_CASES])
def test_a_bad_file_is_a_config_error_naming_file_key_and_problem(tmp_path, text, key_path, problem):
    with pytest.raises(ConfigError) as raised:
        load_lookups(write(tmp_path, text))
    error = raised.value
    assert (error.file, error.key_path) == (str(tmp_path / FILE_NAME), key_path)
    if key_path == "" and problem == "cannot be read as YAML":
        assert error.problem.startswith("cannot be read as YAML: ")
    else:
        assert error.problem == problem
    assert error.exit_code == 2
