"""`amlkit.review.packinfo`, a documented import path: a re-export of `amlkit.review.pack.info` (nothing else lives
here; new code imports the module itself)."""

from amlkit.review.pack.info import *  # noqa: F403 - the re-export is the point
from amlkit.review.pack.info import __all__ as __all__
