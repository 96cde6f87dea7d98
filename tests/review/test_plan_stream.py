"""amlkit.review.plan.stream: a state read resource by resource gives what load_state gives, errors included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amlkit.errors import ConfigError
from amlkit.review.plan import stream
from amlkit.review.plan.state import load_state
from amlkit.review.plan.stream import StateStream, peek_owner
from tests.review import auditstates as states
from tests.review.statefiles import MANIFEST
from tests.review.test_plan_state import BAD, resources


def _export(listed: list[dict], **top: object) -> dict:
    return {"version": 3, "deployment": {"manifest": MANIFEST, "secrets_providers": {"type": "passphrase"},
                                         "resources": listed}, **top}


GOOD = [
    pytest.param(lambda: json.dumps(_export(states.resources()), indent=4), id="indented-audit-state"),
    pytest.param(lambda: json.dumps(_export(states.resources())), id="one-line"),
    pytest.param(lambda: json.dumps(_export([])), id="no-resources"),
    pytest.param(lambda: json.dumps({"deployment": _export(resources())["deployment"], "version": 3}),
                 id="version-after-deployment"),
    pytest.param(lambda: json.dumps({"version": 3, "deployment": {"resources": resources(), "manifest": MANIFEST,
                                                                  "pending_operations": []}, "extra": [1.5, None]}),
                 id="resources-before-manifest"),
]


@pytest.mark.parametrize("chunk", [7, stream.CHUNK], ids=["7-character-chunks", "default-chunks"])
@pytest.mark.parametrize("text", GOOD)
def test_the_resources_are_load_states(tmp_path, monkeypatch, text, chunk):
    monkeypatch.setattr(stream, "CHUNK", chunk)
    path = tmp_path / "state.json"
    path.write_text(text(), encoding="utf-8")
    expected = load_state(path)
    streamed = StateStream(path)
    assert list(streamed.resources()) == list(expected.resources)
    assert (streamed.project, streamed.stack, streamed.secrets_provider, streamed.read) == (
        expected.project, expected.stack, expected.secrets_provider, len(expected.resources))
    assert streamed.fraction() == 1.0
    assert peek_owner(path) == (expected.project, expected.stack)


@pytest.mark.parametrize("chunk", [7, stream.CHUNK], ids=["7-character-chunks", "default-chunks"])
@pytest.mark.parametrize(("text", "message"), BAD)
def test_a_bad_file_is_load_states_error(tmp_path, monkeypatch, text, message, chunk):
    monkeypatch.setattr(stream, "CHUNK", chunk)
    monkeypatch.chdir(tmp_path)
    Path("state.json").write_text(text(), encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        list(StateStream(Path("state.json")).resources())
    assert str(caught.value) == message


def test_a_key_given_twice_is_an_error_not_the_last_one(tmp_path):
    """json.loads keeps the last `resources`: an audit of such a file would judge half of it in silence."""
    path = tmp_path / "state.json"
    one = json.dumps(resources())
    path.write_text(f'{{"version": 3, "deployment": {{"manifest": {json.dumps(MANIFEST)}, "resources": {one}, '
                    f'"resources": []}}}}', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        list(StateStream(path).resources())
    assert str(caught.value) == (f"{path}: deployment.resources: given twice (a JSON parser would silently keep the "
                                 "last one); expected the output of `pulumi stack export`")


def test_the_owner_is_read_from_the_first_resource_only(tmp_path):
    path = tmp_path / "state.json"
    path.write_text(json.dumps(_export(resources("prod", "acme")))[:-60], encoding="utf-8")  # truncated later on
    assert peek_owner(path) == ("acme", "prod")


def test_a_long_key_given_twice_is_named_cut_to_80_characters(tmp_path):
    """A state file's error quotes at most 80 characters of what is in it (#32)."""
    key = "k" * 300
    path = tmp_path / "state.json"
    path.write_text(f'{{"version": 3, "deployment": {{"manifest": {json.dumps(MANIFEST)}, "{key}": 1, "{key}": 2, '
                    '"resources": []}}', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        list(StateStream(path).resources())
    assert str(caught.value) == (f"{path}: deployment.{'k' * 38}...{'k' * 39}: given twice (a JSON parser would "
                                 "silently keep the last one); expected the output of `pulumi stack export`")
