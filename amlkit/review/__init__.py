"""Offline preview and policy review: run a Pulumi Python program under mocks, drive the policy pack over the
analyzer protocol as the engine does, and report.

The embedding API is this package's `__all__` (docs/embedding.md states what is stable):

    from amlkit.review import ReviewOptions, review
    result = review(Path("platform"), ["dev"], ReviewOptions(jobs=1))
    for stack in result.ordered_stacks(): ...

`review` runs the stacks' programs, `audit` audits `pulumi stack export` files (no program runs); both return a
frozen `Review` of `StackReview`s. The names load on first use, so importing the package stays cheap.

The package follows a stack's way through it (docs/architecture.md draws it):

- `engine` (`review`) and `state_audit` (`audit`, deployed states, no program) orchestrate, told how by
  `options.ReviewOptions`; `project` reads Pulumi.yaml and the stack files;
- `proc/`: the fork server every program and pack child is started from, and the children's lifetimes;
- `run/`: the program under mocks in its child (`runner`), and the parent's side of it (`client`);
- `pack/`: the policy packs over the analyzer gRPC protocol, their configs, and what their answers become;
- `plan/`: plans against a deployed state or a git revision;
- `report/`: the formats, reading only `model`.

Shared by all: `model` (what a review produces, in report order), `secrets` (the wire sentinels, scrubbing),
`urns` (every URN the review builds or reads).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from amlkit.review.engine import review
    from amlkit.review.model import (
        ErrorKind,
        Level,
        Lookup,
        PackInfo,
        PolicyInfo,
        Remediation,
        ResourceRecord,
        Review,
        Severity,
        StackReview,
        Unknown,
        Violation,
    )
    from amlkit.review.options import ReviewOptions
    from amlkit.review.plan.diff import Plan
    from amlkit.review.state_audit import audit

__all__ = [
    "ErrorKind", "Level", "Lookup", "PackInfo", "Plan", "PolicyInfo", "Remediation", "ResourceRecord", "Review",
    "ReviewOptions", "Severity", "StackReview", "Unknown", "Violation", "audit", "review",
]

# name -> the module defining it; the engine and the audit load grpc and the SDKs, so nothing loads before use
_HOMES = {
    "review": "engine", "audit": "state_audit", "ReviewOptions": "options", "Plan": "plan.diff",
    **dict.fromkeys(("ErrorKind", "Level", "Lookup", "PackInfo", "PolicyInfo", "Remediation", "ResourceRecord",
                     "Review", "Severity", "StackReview", "Unknown", "Violation"), "model"),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
