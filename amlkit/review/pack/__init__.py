"""The policy pack, driven over the analyzer gRPC protocol as the Pulumi engine drives it: one pack
process and its calls (`process`), processes reused across stacks (`pool`), the conversation for one
stack (`session`), amlkit's values as protocol messages (`wire`), the pack's answers collected
(`diagnostics`), the `--policy-pack-config` reconciliation (`config`), several packs paired with their
configs (`multi`), what a diagnostic becomes in the report (`findings`), amlkit's own pack described
without starting it (`info`) and the start-up check that "cannot tell" still reads as unknown
(`canary`)."""

__all__: list[str] = []
