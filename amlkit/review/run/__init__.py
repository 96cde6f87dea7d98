"""The program under mocks, in its own child process per stack: the child (`runner`, `python -P -m
amlkit.review.run.runner`), the mocks that answer like Azure and record every registration (`mocks`),
the answers from a deployed state (`statemocks`), a project's pinned lookups (`lookups`), the stack's
subscription and tenant (`identity`), the supported provider versions (`providers`) and the SDK
speed-ups with their guards (`patches`)."""

__all__: list[str] = []
