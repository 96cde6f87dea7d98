"""Issue 19: an unanswered lookup names the function and the program line that called it, in every
format: a plain lookup of another provider (azuread), an `_output` one (the classic azure provider), an
azure-native one, and one called inside an apply callback (the callback's line)."""

from __future__ import annotations

import json

import pytest

from amlkit.review.engine import review
from amlkit.review.report import json as report_json
from amlkit.review.report import markdown as report_markdown
from amlkit.review.report import sarif as report_sarif
from amlkit.review.report import table as report_table
from tests.review.helpers import FIXTURES, line_in

PROGRAM = FIXTURES / "lookup_lines"


def line_of(text: str) -> int:
    return line_in(PROGRAM / "__main__.py", text)


# (function and args as every format shows them, the program line that called it), in the reports' order
LOOKUPS = [
    ('azure-native:network:getSubnet(resourceGroupName="rg-net", subnetName="snet", virtualNetworkName="vnet")',
     line_of("subnet = network.get_subnet(")),
    # called in an apply callback: the callback's line; its resource group derives from an unanswered lookup
    ('azure-native:network:getVirtualNetwork(resourceGroupName="<unknown>", virtualNetworkName="v")',
     line_of("lambda location: network.get_virtual_network_output(")),
    ('azure:core/getResourceGroup:getResourceGroup(name="rg-shared")',
     line_of("shared = azure.core.get_resource_group_output(")),
    ('azuread:index/getUser:getUser(userPrincipalName="jdoe@example.com")',
     line_of("owner = azuread.get_user(")),
]


@pytest.fixture(scope="module")
def result():
    return review(PROGRAM)


def test_the_lines_are_the_programs_own():
    assert [line for _, line in LOOKUPS] == [11, 13, 10, 9]


def test_table_names_each_lookups_program_line(result):
    assert result.stacks[0].error is None
    assert result.exit_code() == 0
    table = report_table.render(result).plain
    assert (
        "    Lookups not answered offline (what the program derived from them is unknown):\n"
        + "".join(f"        - {text} (at __main__.py:{line})\n" for text, line in LOOKUPS)
        + "    0 mandatory, 0 advisory, 0 waived, 0 unknown\n"
    ) in table


def test_json_carries_each_lookups_file_and_line(result):
    lookups = json.loads(report_json.render(result))["stacks"][0]["lookups"]
    assert lookups == [
        {"token": "azure-native:network:getSubnet",
         "args": {"resourceGroupName": "rg-net", "subnetName": "snet", "virtualNetworkName": "vnet"},
         "file": "__main__.py", "line": LOOKUPS[0][1]},
        {"token": "azure-native:network:getVirtualNetwork",
         "args": {"resourceGroupName": "<unknown>", "virtualNetworkName": "v"},
         "file": "__main__.py", "line": LOOKUPS[1][1]},
        {"token": "azure:core/getResourceGroup:getResourceGroup", "args": {"name": "rg-shared"},
         "file": "__main__.py", "line": LOOKUPS[2][1]},
        {"token": "azuread:index/getUser:getUser", "args": {"userPrincipalName": "jdoe@example.com"},
         "file": "__main__.py", "line": LOOKUPS[3][1]},
    ]


def test_markdown_names_each_lookups_program_line(result):
    markdown = report_markdown.render(result)
    assert (
        "❔ **Lookups not answered offline** (what the program derived from them is unknown):\n\n"
        + "\n".join(f"- `{text} (at __main__.py:{line})`" for text, line in LOOKUPS)
    ) in markdown


def test_sarif_notes_name_each_lookups_program_line(result):
    notes = report_sarif.to_sarif(result, PROGRAM)["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert [(n["level"], n["descriptor"]["id"], n["message"]["text"], n["properties"]["file"], n["properties"]["line"])
            for n in notes] == [
        ("note", "amlkit-lookup-unanswered", "stack dev: lookup not answered offline, what the program derived from it "
         f"is unknown: {text} (at __main__.py:{line})", "__main__.py", line)
        for text, line in LOOKUPS
    ]
