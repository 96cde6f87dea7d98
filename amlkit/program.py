"""The Pulumi program behind the project's `__main__.py`: the selected stack's environment.

`run()` reads the stack's `amlkit:` config (`amlkit.stackfile.spec_from_pulumi_config`), validates
it, declares `amlkit.components.environment.Environment` and exports its outputs. A config problem
is raised as `StackConfigError`: a `ConfigError` (the review engine maps it to exit 2) that is also
a `pulumi.RunError`, so `pulumi preview/up` print it as one line instead of a traceback.
"""

from __future__ import annotations

import pulumi

from amlkit.errors import ConfigError
from amlkit.schema import EnvironmentSpec

__all__ = ["StackConfigError", "build", "run"]


class StackConfigError(ConfigError, pulumi.RunError):
    """A ConfigError raised inside the Pulumi program: one clear line, no traceback."""

    @classmethod
    def from_error(cls, error: ConfigError) -> StackConfigError:
        """The same error; a component argument error keeps its component, arg, allowed and closest."""
        made = cls(error.file, error.key_path, error.problem, error.value)
        if error.file and error.line is not None and error.column is not None:
            made.at(error.file, error.line, error.column)
        for name in ("component", "arg", "allowed", "closest", "line", "column"):
            if hasattr(error, name):
                setattr(made, name, getattr(error, name))
        return made


def build(spec: EnvironmentSpec) -> None:
    """Declare the environment for a validated spec and export its outputs."""
    from amlkit.components.environment import Environment

    environment = Environment(spec.environment, {"spec": spec})
    for key, value in environment.outputs().items():
        pulumi.export(key, value)
    pulumi.export("environment", spec.environment)
    pulumi.export("location", spec.location)


def run() -> None:
    """The program: read and validate the stack config, then build. Raises StackConfigError."""
    from amlkit.stackfile import spec_from_pulumi_config

    try:
        spec = spec_from_pulumi_config()
        build(spec)
    except StackConfigError:
        raise
    except ConfigError as error:
        raise StackConfigError.from_error(error) from None
