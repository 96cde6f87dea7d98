"""Entry point the Pulumi engine runs (`python -m pulumi.policy <engine> <this dir>`).

It only builds the PolicyPack: the constructor serves the analyzer protocol and blocks forever.
"""

from pulumi_policy import EnforcementLevel, PolicyPack

from amlkit.policies import ALL_RULES
from amlkit.policies.pack import (
    PACK_NAME,
    apply_rule_baselines,
    baseline_policy,
    build_policies,
    convert_each_request_once,
)
from amlkit.policies.secret_reads import record_secrets

convert_each_request_once()
# findings built from secret inputs say [secret] (amlkit.policies.secret_reads); the baseline policy's
# description tells the review whether that hook is active, else the review scrubs this pack's text too
by_value = record_secrets()
apply_rule_baselines(ALL_RULES)

PolicyPack(
    name=PACK_NAME,
    policies=[*build_policies(ALL_RULES), baseline_policy(by_value)],
    enforcement_level=EnforcementLevel.ADVISORY,
    description="Guardrails for Azure Machine Learning: cost, security, network, identity and locks.",
    provider="azure",
    tags=["azure", "machine-learning"],
)
