"""The command line on real programs of other shapes and versions: an ML resource no view maps fails the review
(amlkit-unreviewed-resource, exit 1); a program pinned to another provider major is one error (exit 2)."""

from __future__ import annotations

import json
from importlib import metadata

from typer.testing import CliRunner

from amlkit import cli
from tests.review.helpers import FIXTURES

runner = CliRunner()
UNREVIEWED = "must be of a type and shape amlkit's rules read, or it is not reviewed at all; found "


def test_an_ml_resource_no_view_maps_fails_the_review():
    result = runner.invoke(cli.app, ["check", "-C", str(FIXTURES / "unmapped_ml"), "-f", "json"])
    assert result.exit_code == 1
    (stack,) = json.loads(result.stdout)["stacks"]
    assert sorted((v["policy"], v["level"], v["resource"], v["message"]) for v in stack["violations"]) == [
        ("amlkit-unreviewed-resource", "mandatory", "legacy", "Resource 'legacy' "
         f"(azure-native:machinelearningservices:MachineLearningCompute) {UNREVIEWED}azure-native type "
         "machinelearningservices:MachineLearningCompute, which no view maps."),
        ("amlkit-unreviewed-resource", "mandatory", "untyped", "Resource 'untyped' "
         f"(azure-native:machinelearningservices:Compute) {UNREVIEWED}no properties.computeType, and its properties "
         "say neither compute instance nor AmlCompute cluster."),
    ]


def test_a_program_pinned_to_another_provider_major_is_one_clear_error():
    project = FIXTURES / "native_1x"
    result = runner.invoke(cli.app, ["check", "-C", str(project)])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"amlkit: error: {project / 'requirements.txt'}: line 2: the program targets pulumi-azure-native<2.0.0,"
        f">=1.0.0, but the installed pulumi-azure-native is {metadata.version('pulumi-azure-native')}, and amlkit "
        "reviews programs for "
        'pulumi-azure-native >=3.29,<4 (docs/review.md, "Providers and versions")')
    assert "Traceback" not in result.output


def test_a_classic_program_without_the_extra_is_one_error_saying_what_to_install(monkeypatch):
    """pulumi-azure is the extra amlkit[classic]: without it, a program that imports it is exit 2 before anything
    runs (not `ModuleNotFoundError: No module named 'pulumi_azure'` from a failed program, exit 3)."""
    from amlkit.review.run import providers

    real = providers.installed
    monkeypatch.setattr(providers, "installed", lambda package: None if package == "pulumi-azure" else real(package))
    project = FIXTURES / "provider_twins" / "classic"
    result = runner.invoke(cli.app, ["check", "-C", str(project)])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"amlkit: error: {project / '__main__.py'}: import pulumi_azure: the program uses the classic Azure provider "
        "pulumi-azure, which is not installed: it comes with amlkit's extra, pip install 'amlkit[classic]' "
        "(pulumi-azure >=6.0,<7)\n")


def test_an_azure_native_program_needs_no_extra(monkeypatch, tmp_path):
    from amlkit.review.run import providers

    monkeypatch.setattr(providers, "installed", lambda package: None)
    (tmp_path / "__main__.py").write_text("import pulumi_azure_native as azure_native\nimport pulumi_azuread\n",
                                          encoding="utf-8")
    providers.check_classic(tmp_path)  # raises nothing: only pulumi_azure itself is the classic provider
