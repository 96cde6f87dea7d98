"""Policy pack config: parsed and reconciled as the Pulumi engine does (pkg/resource/analyzer/config.go)."""

from __future__ import annotations

import json

import pytest

from amlkit.errors import ConfigError
from amlkit.policies.waivers import WAIVER_SCHEMA
from amlkit.review.pack.config import PolicyConfig, PolicySchema, load_config_file, parse_config, reconcile
from amlkit.stackfile import MAX_DEPTH

MAX_NODES = {"type": "integer", "minimum": 1, "maximum": 100, "default": 10}
POLICIES = [
    PolicySchema("mandatory-rule", "mandatory", {"maxNodes": MAX_NODES}),
    PolicySchema("advisory-rule", "advisory"),
    PolicySchema("disabled-rule", "disabled"),
]


def levels(result):
    return {name: entry.level for name, entry in result.items()}


def test_defaults_are_each_policys_level_and_schema_defaults():
    result = reconcile(POLICIES, None, None)
    assert levels(result) == {"mandatory-rule": "mandatory", "advisory-rule": "advisory",
                              "disabled-rule": "disabled"}
    assert result["mandatory-rule"].properties == {"maxNodes": 10}
    assert result["advisory-rule"].properties is None


def test_an_entry_without_a_level_keeps_a_mandatory_policy_mandatory():
    result = reconcile(POLICIES, None, parse_config({"mandatory-rule": {"maxNodes": 20}}, "f.json"))
    assert result["mandatory-rule"] == PolicyConfig("mandatory", {"maxNodes": 20})


def test_all_sets_every_level_then_entries_override():
    given = parse_config({"all": "advisory", "disabled-rule": "mandatory"}, "f.json")
    result = reconcile(POLICIES, None, given)
    assert levels(result) == {"mandatory-rule": "advisory", "advisory-rule": "advisory",
                              "disabled-rule": "mandatory", "all": "advisory"}


def test_initial_config_applies_before_the_file():
    initial = {"advisory-rule": PolicyConfig("mandatory"), "mandatory-rule": PolicyConfig("", {"maxNodes": 5})}
    given = parse_config({"advisory-rule": "disabled"}, "f.json")
    result = reconcile(POLICIES, initial, given)
    assert result["advisory-rule"].level == "disabled"
    assert result["mandatory-rule"] == PolicyConfig("mandatory", {"maxNodes": 5})


def test_object_entry_with_level_and_properties():
    given = parse_config({"mandatory-rule": {"enforcementLevel": "advisory", "maxNodes": 7}}, "f.json")
    assert reconcile(POLICIES, None, given)["mandatory-rule"] == PolicyConfig("advisory", {"maxNodes": 7})


BAD = [
    ("bad-level-string", {"advisory-rule": "blocking"}, "advisory-rule",
     "'blocking' is not an enforcement level; allowed: advisory, mandatory, remediate, disabled"),
    ("bad-level-in-object", {"advisory-rule": {"enforcementLevel": 3}}, "advisory-rule.enforcementLevel",
     "3 is not an enforcement level; allowed: advisory, mandatory, remediate, disabled"),
    ("not-string-or-object", {"advisory-rule": 3}, "advisory-rule",
     "must be an enforcement level (advisory, mandatory, remediate, disabled) or an object"),
]


@pytest.mark.parametrize(("data", "key_path", "problem"), [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_malformed_entries_name_file_and_key(data, key_path, problem):
    with pytest.raises(ConfigError) as error:
        parse_config(data, "pack.json")
    assert (error.value.file, error.value.key_path, error.value.problem) == ("pack.json", key_path, problem)


def test_schema_violations_name_file_key_value_and_what_is_allowed():
    given = parse_config({"mandatory-rule": {"maxNodes": 500}}, "pack.json")
    with pytest.raises(ConfigError) as error:
        reconcile(POLICIES, None, given, "pack.json")
    assert error.value.key_path == "mandatory-rule.maxNodes"
    assert error.value.value == 500
    assert error.value.problem == "500 is greater than the maximum of 100; allowed: type integer; >= 1; <= 100"


def test_config_file_errors(tmp_path):
    path = tmp_path / "pack.json"
    path.write_text("{not json")
    with pytest.raises(ConfigError, match=r"pack.json: line 1: not valid JSON"):
        load_config_file(path)
    path.write_text(json.dumps(["advisory"]))
    with pytest.raises(ConfigError, match=r"the document is a JSON array; allowed: a JSON object"):
        load_config_file(path)
    path.write_text("  ")
    assert load_config_file(path) == {}


TYPOS = [
    ("misspelt-policy", {"mandatory-rul": "advisory"}, "mandatory-rul",
     "unknown policy (did you mean 'mandatory-rule'?); allowed: `all` or a policy of the pack (listed by "
     "`amlkit rules`)"),
    ("unknown-policy-nothing-close", {"zzz": "advisory"}, "zzz",
     "unknown policy; allowed: `all` or a policy of the pack (listed by `amlkit rules`)"),
    ("misspelt-setting", {"mandatory-rule": {"maxNode": 3}}, "mandatory-rule.maxNode",
     "unknown setting (did you mean 'maxNodes'?); allowed: enforcementLevel, maxNodes"),
    ("setting-of-a-policy-without-settings", {"advisory-rule": {"enforcementLevel": "mandatory", "maxNodes": 3}},
     "advisory-rule.maxNodes", "unknown setting; allowed: enforcementLevel"),
]


@pytest.mark.parametrize(("data", "key_path", "problem"), [c[1:] for c in TYPOS], ids=[c[0] for c in TYPOS])
def test_typos_are_errors_naming_file_key_and_closest_name(data, key_path, problem):
    with pytest.raises(ConfigError) as error:
        reconcile(POLICIES, None, parse_config(data, "policy-config/dev.json"), "policy-config/dev.json")
    assert (error.value.file, error.value.key_path, error.value.problem) == ("policy-config/dev.json", key_path,
                                                                            problem)
    assert error.value.exit_code == 2


def test_all_and_the_packs_initial_config_are_not_typos():
    initial = {"not-in-this-pack": PolicyConfig("advisory")}  # the pack's own initial config is not checked
    result = reconcile(POLICIES, initial, parse_config({"all": "advisory"}, "f.json"), "f.json")
    assert levels(result)["mandatory-rule"] == "advisory"


WAIVED = [PolicySchema("waived-rule", "mandatory", {"waivers": WAIVER_SCHEMA})]
BAD_WAIVERS = [  # (the entry, key path, problem, value): each a config error naming file and key, never a pack crash
    ({"resource": "gpu", "reason": "quota", "expires": "2027-02-30"}, "waived-rule.waivers[0].expires",
     "'2027-02-30' is not a date (YYYY-MM-DD)", "2027-02-30"),
    ({"resource": "gpu", "reason": "   "}, "waived-rule.waivers[0].reason", "required, a non-empty string", "   "),
    ({"resource": "gpu", "reason": "quota", "expiry": "2027-01-01"}, "waived-rule.waivers[0].expiry",
     "unknown key (did you mean 'expires'?); allowed: resource, reason, expires", None),
]


@pytest.mark.parametrize(("entry", "key_path", "problem", "value"), BAD_WAIVERS, ids=["date", "reason", "key"])
def test_a_bad_waiver_is_a_config_error_naming_file_and_key(entry, key_path, problem, value):
    with pytest.raises(ConfigError) as error:
        reconcile(WAIVED, None, parse_config({"waived-rule": {"waivers": [entry]}}, "f.json"), "f.json")
    assert (error.value.file, error.value.key_path, error.value.problem, error.value.value) == (
        "f.json", key_path, problem, value)


BAD_FILES = [  # (id, file text, key path, problem): config errors naming file and key, never an internal error
    ("huge-number", '{"mandatory-rule": {"maxNodes": ' + "9" * 5000 + "}}", "mandatory-rule.maxNodes",
     "a number of 5000 digits; allowed: at most 4300 digits"),
    ("huge-number-in-a-list", '{"a": {"w": [1, ' + "9" * 4301 + "]}}", "a.w[1]",
     "a number of 4301 digits; allowed: at most 4300 digits"),
    ("too-deep", '{"mandatory-rule": {"waivers": ' + "[" * 3000 + "]" * 3000 + "}}",
     "mandatory-rule.waivers" + "[0]" * 38, f"nested more than {MAX_DEPTH} levels deep; allowed: at most {MAX_DEPTH}"),
    ("too-deep-objects", '{"p": ' + '{"k": ' * 60 + "1" + "}" * 60 + "}", "p" + ".k" * 39,
     f"nested more than {MAX_DEPTH} levels deep; allowed: at most {MAX_DEPTH}"),
    ("not-utf8", b'{"p": "caf\xe9"}', "", "not UTF-8 text: byte 0xe9 at offset 10 (invalid continuation byte); "
     "allowed: UTF-8 text"),
    ("document-is-text", json.dumps("https://user:ghp_canary@github.com"), "",
     "the document is a JSON string; allowed: a JSON object of policy name -> level or object"),
    ("long-level", json.dumps({"p": "x" * 500}), "p", "'" + "x" * 37 + "..." + "x" * 38 + "' is not an enforcement "
     "level; allowed: advisory, mandatory, remediate, disabled"),
]


@pytest.mark.parametrize(("text", "key_path", "problem"), [c[1:] for c in BAD_FILES], ids=[c[0] for c in BAD_FILES])
def test_a_bad_config_file_is_a_config_error_naming_file_and_key(tmp_path, text, key_path, problem):
    path = tmp_path / "pack.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(ConfigError) as error:
        load_config_file(path)
    assert (error.value.file, error.value.key_path, error.value.problem) == (str(path), key_path, problem)
    assert error.value.exit_code == 2


def test_a_schema_error_quotes_at_most_a_cut_value():
    data = {"mandatory-rule": {"maxNodes": "x" * 500}}
    with pytest.raises(ConfigError) as error:
        reconcile(POLICIES, None, parse_config(data, "f.json"), "f.json")
    assert error.value.problem == ("'" + "x" * 37 + "..." + "x" * 38 + "' is not of type 'integer'; allowed: type "
                                   "integer; >= 1; <= 100")


def test_a_config_file_linking_out_of_the_project_is_refused(tmp_path):
    (tmp_path / "p" / "policy-config").mkdir(parents=True)
    (tmp_path / "passwd").write_text('{"mandatory-rule": "advisory"}')
    link = tmp_path / "p" / "policy-config" / "dev.json"
    link.symlink_to(tmp_path / "passwd")
    with pytest.raises(ConfigError) as error:
        load_config_file(link, tmp_path / "p")
    assert str(error.value) == (f"{link}: a symbolic link to {tmp_path / 'passwd'}, outside the project; allowed: a "
                                f"file inside the project ({tmp_path / 'p'})")
    assert load_config_file(tmp_path / "passwd", tmp_path / "p") == {"mandatory-rule": PolicyConfig("advisory")}
