"""Adding a rule is two files and `make docs` (CONTRIBUTING.md, "Adding a rule").

In a temporary copy of the repository (its tracked files), a throwaway rule is added exactly as the
walkthrough says: `policies/rules/<rule>.py`, `tests/policies/test_<rule>.py`, then `make docs`
(`tools/gen_docs.py --write`). Then, with no other file edited:
- the docs check passes and the only changed or new files are the two written and the generated pages;
- the rule's tests pass (`make test-rule`: its unit cases, its example through the real engine and the
  analyzer protocol, its docs page), and so do the tests that pin the pack's rules as a whole: refs,
  `PUBLIC`, the catalogue, the baseline of each release, the config files, the docs.

The throwaway rule is on by default (advisory) and fires on no fixture program: a rule that fires on a
documented program changes that program's documented findings, which their tests pin on purpose.

The copy imports its own `amlkit`: the editable install's finder (which maps `amlkit`, `amlkit.policies`
and `amlkit.components` to this checkout) is pointed at the copy by a `sitecustomize` on PYTHONPATH, in the
test process and in every process it starts (the fork server, programs, packs).
"""

from __future__ import annotations

import filecmp
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from amlkit.policies import ALL_RULES

ROOT = Path(__file__).resolve().parent.parent
NAME = "aml-compute-instance-name-length"
MODULE = NAME.replace("-", "_")

SITECUSTOMIZE = """\
import os, sys
root = os.environ["AMLKIT_COPY"]
for module in list(sys.modules.values()):
    if getattr(module, "__name__", "").startswith("__editable___amlkit") and hasattr(module, "MAPPING"):
        module.MAPPING.update({"amlkit": root + "/amlkit", "amlkit.components": root + "/components",
                               "amlkit.policies": root + "/policies"})
"""


def next_ref() -> str:
    return f"AMLK-{max(int(rule.ref.split('-')[1]) for rule in ALL_RULES) + 1:04d}"


def rule_module(ref: str) -> str:
    from amlkit import __version__

    return f'''"""{NAME}: compute instance names are 3 to 24 characters (thrown away after the test).

Facts: Azure ML refuses a compute instance whose name is not 3 to 24 characters long
(MicrosoftDocs/azure-ai-docs, articles/machine-learning/how-to-create-compute-instance.md).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.policies.azure import is_type
from amlkit.policies.framework import Finding, ResourceInput, Rule, must


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    properties = resource.props.get("properties") or {{}}
    instance = properties.get("computeType") == "ComputeInstance"
    if not instance or not is_type(resource.type, "machinelearningservices:Compute"):
        return
    name = str(resource.props.get("computeName") or resource.name)
    if not 3 <= len(name) <= 24:
        yield Finding(must(f"Compute instance '{{resource.name}}'", "have a computeName of 3 to 24 characters",
                           f"{{len(name)}} characters"))


RULE = Rule(
    name="{NAME}",
    ref="{ref}",
    since="{__version__}",
    display_name="Compute instance name length",
    group="compute",
    description="Compute instances must have a computeName of 3 to 24 characters (Azure refuses others).",
    severity="low",
    level="advisory",
    tags=("reliability",),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-create-compute-instance",
    remediation="Give the compute instance a name of 3 to 24 characters.",
    check=check,
)
'''


def rule_test_module(ref: str) -> str:
    return f'''import pytest

from amlkit.policies.rules.{MODULE} import RULE
from tests.policies.compute_fixtures import instance_props
from tests.policies.examples import Example
from tests.policies.helpers import Public, changed, cluster_props, messages

PUBLIC = Public("{ref}", "{NAME}", level="advisory", kind="resource")

LONG = "ci-" + "x" * 22
CASES = [
    ("happy-path", instance_props(), []),
    ("name-too-long", changed(instance_props(), "computeName", LONG),
     ["Compute instance 'cpu-cluster' must have a computeName of 3 to 24 characters; found 25 characters."]),
    ("cluster-not-checked", changed(cluster_props(), "computeName", LONG), []),
]

EXAMPLE = Example.of_cases(CASES, fails="name-too-long", passes="happy-path")


@pytest.mark.parametrize(("props", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_{MODULE}(props, expected):
    assert messages(RULE, props) == expected
'''


def tracked_copy(target: Path) -> None:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in listed.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)


def changed_files(copy: Path) -> set[str]:
    """Files of the copy that differ from this checkout or are new there (caches and bytecode aside)."""
    found = set()
    for path in copy.rglob("*"):
        relative = path.relative_to(copy)
        if path.is_dir() or {"__pycache__", ".pytest_cache", ".mypy_cache"} & set(relative.parts):
            continue
        original = ROOT / relative
        if not original.is_file() or not filecmp.cmp(path, original, shallow=False):
            found.add(relative.as_posix())
    return found


@pytest.mark.slow
def test_a_new_rule_is_its_module_its_test_and_make_docs(tmp_path: Path) -> None:
    copy, site = tmp_path / "repo", tmp_path / "site"
    copy.mkdir()
    site.mkdir()
    tracked_copy(copy)
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    ref = next_ref()
    (copy / "policies" / "rules" / f"{MODULE}.py").write_text(rule_module(ref), encoding="utf-8")
    (copy / "tests" / "policies" / f"test_{MODULE}.py").write_text(rule_test_module(ref), encoding="utf-8")
    env = {**os.environ, "AMLKIT_COPY": str(copy),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, *args], cwd=copy, env=env, capture_output=True, text=True,
                              timeout=900, check=False)

    where = run("-c", "import amlkit.policies.rules, amlkit; print(amlkit.policies.rules.__path__[0])")
    assert where.stdout.strip() == str(copy / "policies" / "rules"), where.stderr
    docs = run("tools/gen_docs.py", "--write")  # what `make docs` runs
    assert docs.returncode == 0, docs.stdout + docs.stderr
    assert changed_files(copy) == {f"policies/rules/{MODULE}.py", f"tests/policies/test_{MODULE}.py",
                                   f"docs/rules/{NAME}.md", "docs/rules/README.md"}
    # make test-rule, over the folders that hold a rule's tests (the whole suite collects the same ones, slower)
    own = run("-m", "pytest", "-q", "-p", "no:cacheprovider", f"--rule={NAME}", "tests/policies", "tests/review")
    assert own.returncode == 0, own.stdout[-3000:] + own.stderr[-2000:]
    assert re.search(r"^(\d+) passed, \d+ deselected", own.stdout.splitlines()[-1])  # its cases, pack checks, engine
    whole = run("-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow", "tests/policies/test_pack.py",
                "tests/policies/test_catalogue.py", "tests/policies/test_config_files.py",
                "tests/policies/test_rule_baseline.py", "tests/test_docs.py", "tests/test_docs_config_examples.py",
                "tests/tools/test_rules.py")
    assert whole.returncode == 0, whole.stdout[-3000:] + whole.stderr[-2000:]
