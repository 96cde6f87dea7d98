"""The Pulumi program: builds the environment described by the selected stack's `amlkit:` config."""

from amlkit.program import run

run()
