"""Plans against a deployed state (`--state`) or the program at a git revision (`--base`): the state
file (`state`), what a plan is made against (`baseline`) and the steps `pulumi up` would take (`diff`)."""

__all__: list[str] = []
