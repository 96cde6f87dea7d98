"""tools/docs/facts.py: the Azure facts block of docs/azure-facts.md."""

from __future__ import annotations

from pathlib import Path

from tools.docs.facts import documented_facts, facts_reference

FACTS_SOURCE = '''
# --- Paths ---
A = "a.b"
B = "a.c"
"""Where a and b sit. https://example.com/paths"""

# --- Defaults ---
C = 1
"""C omitted. https://example.com/c"""
D = C + 1
E = 2
"""E and nothing else (D, without a docstring next to it, is derived)."""
'''


def test_documented_facts_share_a_docstring_and_take_the_section_above() -> None:
    assert documented_facts(FACTS_SOURCE) == [
        ("Paths", ["A", "B"], "Where a and b sit. https://example.com/paths"),
        ("Defaults", ["C"], "C omitted. https://example.com/c"),
        ("Defaults", ["D", "E"], "E and nothing else (D, without a docstring next to it, is derived)."),
    ]


def test_every_azure_fact_is_documented_with_a_source() -> None:
    from amlkit import azure_facts

    source = Path(azure_facts.__file__).read_text(encoding="utf-8")
    documented = {name for _, names, doc in documented_facts(source) if "https://" in doc for name in names}
    derived = {"REPLACE_ON_CHANGES", "CLUSTER_IDLE_DEFAULT_ISO"}
    assert {name for name in vars(azure_facts) if name.isupper()} - derived == documented


def test_the_facts_table_shows_value_meaning_and_source() -> None:
    row = ("| `NODE_PUBLIC_IP_DEFAULT` = `true` | `enableNodePublicIp` omitted: nodes get public IPs (SDK and Azure "
           "default). | <https://learn.microsoft.com/azure/machine-learning/how-to-secure-training-vnet"
           "#compute-cluster> |")
    assert row in facts_reference().splitlines()
