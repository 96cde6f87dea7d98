"""The mains of a review's child processes, above everything they run: the warm-start fork server
(`fork_server`, started as `python -P -m amlkit.review.children.fork_server` by amlkit.review.proc.warm) and
the program worker it forks (`worker`, whose parent's side is amlkit.review.proc.workers). Both speak the fork
server's wire (amlkit.review.proc.wire) and start the runner (amlkit.review.run.runner)."""

__all__: list[str] = []
