"""The `amlkit` command line (filled in by the review work)."""


def main() -> None:
    raise SystemExit("amlkit: not implemented yet")
