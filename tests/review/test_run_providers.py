"""Provider versions: an installed provider outside the supported range, or a project pin the installed
version does not satisfy, is one ConfigError (exit 2) naming the package, the installed version and the range."""

from __future__ import annotations

import pytest
from packaging.version import Version

from amlkit.errors import ConfigError
from amlkit.review.run import providers

NATIVE_3 = {"pulumi-azure-native": "3.29.0", "pulumi-azure": "6.40.1"}
DOCS = 'docs/review.md, "Providers and versions"'

# (id, installed versions, requirements.txt or None, pyproject.toml or None, expected (file, key, problem) or None)
CASES = [
    ("no-pins", NATIVE_3, None, None, None),
    ("pins-accept-installed", NATIVE_3, "pulumi>=3\npulumi-azure-native>=3.0.0,<4.0.0\npulumi-azure\n", None, None),
    ("unrelated-packages-ignored", NATIVE_3, "# comment\n-r other.txt\nrequests<2\n\nnot a requirement ::\n", None,
     None),
    ("program-for-native-1x", NATIVE_3, "pulumi>=3.0.0,<4.0.0\npulumi-azure-native>=1.0.0,<2.0.0\n", None,
     ("requirements.txt", "line 2", "the program targets pulumi-azure-native<2.0.0,>=1.0.0, but the installed "
      f"pulumi-azure-native is 3.29.0, and amlkit reviews programs for pulumi-azure-native >=3.29,<4 ({DOCS})")),
    ("program-for-native-2x-underscore-name", NATIVE_3, "pulumi_azure_native==2.90.0  # pinned\n", None,
     ("requirements.txt", "line 1", "the program targets pulumi_azure_native==2.90.0, but the installed "
      f"pulumi-azure-native is 3.29.0, and amlkit reviews programs for pulumi-azure-native >=3.29,<4 ({DOCS})")),
    ("pyproject-classic-5x", NATIVE_3, None, '[project]\nname = "p"\ndependencies = ["pulumi-azure>=5,<6"]\n',
     ("pyproject.toml", "[project] dependencies", "the program targets pulumi-azure<6,>=5, but the installed "
      f"pulumi-azure is 6.40.1, and amlkit reviews programs for pulumi-azure >=6.0,<7 ({DOCS})")),
    ("installed-native-2x", {**NATIVE_3, "pulumi-azure-native": "2.90.0"}, None, None,
     (None, "pulumi-azure-native", "pulumi-azure-native 2.90.0 is installed; amlkit reviews programs for "
      f"pulumi-azure-native >=3.29,<4 ({DOCS})")),
    ("installed-classic-7x", {**NATIVE_3, "pulumi-azure": "7.0.0"}, None, None,
     (None, "pulumi-azure", f"pulumi-azure 7.0.0 is installed; amlkit reviews programs for pulumi-azure >=6.0,<7 "
      f"({DOCS})")),
    ("classic-not-installed", {"pulumi-azure-native": "3.29.0"}, "pulumi-azure>=6\n", None, None),
]


@pytest.mark.parametrize(("versions", "requirements", "pyproject", "expected"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_providers_check(tmp_path, monkeypatch, versions, requirements, pyproject, expected):
    monkeypatch.setattr(providers, "installed",
                        lambda package: Version(versions[package]) if package in versions else None)
    if requirements is not None:
        (tmp_path / "requirements.txt").write_text(requirements, encoding="utf-8")
    if pyproject is not None:
        (tmp_path / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    if expected is None:
        providers.check(tmp_path)
        return
    with pytest.raises(ConfigError) as raised:
        providers.check(tmp_path)
    file, key, problem = expected
    error = raised.value
    assert (error.file, error.key_path, error.problem) == (None if file is None else str(tmp_path / file), key,
                                                           problem)
    assert error.exit_code == 2


def test_the_supported_ranges_are_amlkits_own_dependencies_and_the_classic_extra():
    import tomllib
    from pathlib import Path

    data = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    deps = [*data["project"]["dependencies"], *data["project"]["optional-dependencies"]["classic"]]
    pinned = {dep.split(">=")[0]: ">=" + dep.split(">=")[1] for dep in deps
              if dep.split(">=")[0] in providers.SUPPORTED}
    assert pinned == providers.SUPPORTED
    classic = f"{providers.CLASSIC}{providers.SUPPORTED[providers.CLASSIC]}"
    assert data["project"]["optional-dependencies"]["classic"] == [classic]
    assert not any(dep.startswith(f"{providers.CLASSIC}>") for dep in data["project"]["dependencies"])
