"""The Pulumi program behind the project's `__main__.py` (filled in by the components work)."""


def run() -> None:
    raise NotImplementedError("amlkit.program.run is not implemented yet")
