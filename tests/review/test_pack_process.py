"""amlkit.review.pack.process: how a pack process is started (no pack process)."""

from __future__ import annotations

import json

from amlkit.review.pack.process import MAX_ENV_VALUE, config_env


def test_config_env_keeps_what_fits():
    config = {"a:small": "1", "a:huge": "x" * (MAX_ENV_VALUE + 10), "a:mid": "y" * 1000}
    assert json.loads(config_env(config)) == {"a:small": "1", "a:mid": "y" * 1000}
    assert json.loads(config_env({"a:b": "c"})) == {"a:b": "c"}
