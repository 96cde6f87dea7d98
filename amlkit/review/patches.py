"""`amlkit.review.patches`, a documented import path: a re-export of `amlkit.review.run.patches` (nothing else lives
here; new code imports the module itself)."""

from amlkit.review.run.patches import *  # noqa: F403 - the re-export is the point
from amlkit.review.run.patches import __all__ as __all__
