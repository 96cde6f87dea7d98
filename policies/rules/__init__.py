"""One module per rule, each named after the rule and exposing `RULE`."""

__all__: list[str] = []
