"""`amlkit fix`: make in the stack files the changes amlkit's pack would remediate.

`plan` maps a reviewed stack's findings to stack-file edits (or to changes only printed), `yamledit` makes them
with ruamel.yaml's round trip touching nothing else, `run` ties both to the review and writes the files.
"""

__all__: list[str] = []
