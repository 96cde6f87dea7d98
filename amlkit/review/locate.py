"""`amlkit.review.locate`, a documented import path: a re-export of `amlkit.review.report.locate` (nothing else lives
here; new code imports the module itself)."""

from amlkit.review.report.locate import *  # noqa: F403 - the re-export is the point
from amlkit.review.report.locate import __all__ as __all__
