"""Offline preview and policy review: run a Pulumi Python program under mocks, drive the policy pack over the
analyzer protocol as the engine does, and report.

The package follows a stack's way through it (docs/architecture.md draws it):

- `engine` (`review`) and `audit` (`audit`, deployed states, no program) orchestrate, told how by
  `options.ReviewOptions`; `project` reads Pulumi.yaml and the stack files;
- `proc/`: the fork server every program and pack child is started from, and the children's lifetimes;
- `run/`: the program under mocks in its child (`runner`), and the parent's side of it (`client`);
- `pack/`: the policy packs over the analyzer gRPC protocol, their configs, and what their answers become;
- `plan/`: plans against a deployed state or a git revision;
- `report/`: the formats, reading only `model`.

Shared by all: `model` (what a review produces, in report order), `secrets` (the wire sentinels, scrubbing),
`urns` (every URN the review builds or reads).
"""
