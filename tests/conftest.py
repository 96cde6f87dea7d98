"""Suite-wide settings.

The review date is fixed (`AMLKIT_REVIEW_DATE`), so no outcome depends on the day the suite runs:
waiver expiry and VM series retirement are judged as of REVIEW_DATE, in this process and in every
child it starts (the runner, the policy pack, the CLI in a subprocess inherit the environment).
"""

from __future__ import annotations

import os

from amlkit.policies.framework import REVIEW_DATE_ENV

REVIEW_DATE = "2026-11-24"


def pytest_configure(config) -> None:  # noqa: ARG001 - pytest's hook signature
    os.environ[REVIEW_DATE_ENV] = REVIEW_DATE
