"""Child processes of a review: the warm-start fork server that starts every program and pack child
(`warm`, `warm_server`, what it preloads: `preload`), and the tracking that kills them all on exit or
Ctrl-C (`processes`). The review's parent never forks: gRPC is not fork-safe."""

__all__: list[str] = []
