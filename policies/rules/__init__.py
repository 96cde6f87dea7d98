"""One module per rule, each named after the rule and exposing `RULE`."""
