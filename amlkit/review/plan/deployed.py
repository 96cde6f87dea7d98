"""Which deployed resource a registration is, and whether the engine answers it from the state: what
both sides of a plan ask. The parent's plan (`amlkit.review.plan.diff`) and the runner child answering
deployed resources with their state outputs (`amlkit.review.run.statemocks`) use the same rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from amlkit.review.plan.state import StateResource
from amlkit.review.urns import alias_urns, urn_owner

__all__ = ["find_deployed"]


def find_deployed(record: Mapping[str, Any], deployed: Mapping[str, StateResource], stack_urn: str,
                  taken: Iterable[str] = ()) -> StateResource | None:
    """The deployed resource of a registration: same URN, else the first of its aliases' URNs that is
    deployed and not in `taken` (as the engine's step generator matches a renamed or retyped resource).

    The two sides of a plan call it differently, on purpose. The parent (`diff.make_plan`) knows every
    registration and passes as `taken` the URNs registered and the deployed URNs already claimed, so
    a deployed resource is matched at most once. The child (`run.statemocks`) answers each registration
    as it is made and cannot know the later ones, so it passes nothing. They pick different resources
    only when an alias names a URN another registration has, or two aliases name the same deployed
    resource: the engine refuses both (pulumi/pulumi `pkg/resource/deploy/step_generator.go`,
    `generateSteps`: a duplicate resource alias is an error), so no plan the engine accepts differs."""
    if record["urn"] in deployed:
        return deployed[record["urn"]]
    project, stack = urn_owner(stack_urn)
    for urn in alias_urns(record, stack, project):
        if urn in deployed and urn not in taken:
            return deployed[urn]
    return None
