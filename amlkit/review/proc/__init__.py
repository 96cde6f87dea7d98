"""Child processes of a review, the parent's side: the warm-start fork server's client that starts every
program and pack child (`warm`, what it preloads: `preload`), the program workers (`workers`), the wire both
sides speak (`wire`), and the tracking that kills them all on exit or Ctrl-C (`processes`). The children's
mains are in amlkit.review.children. The review's parent never forks: gRPC is not fork-safe."""

__all__: list[str] = []
