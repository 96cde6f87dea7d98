"""amlkit.review.run.provider_modules: an azure-native module loaded member by member holds, for every name, the very
object the module loaded whole holds, and imports only the files of the names used."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# Run in a fresh interpreter: which modules are loaded, and how, is the point of each case.
_PROBE = """
import json, sys
import pulumi
mode, modules, order = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
if mode == "member":
    from amlkit.review.run import provider_modules
    provider_modules.install()
import pulumi_azure_native as azure
out = {}
for name in modules:
    module = getattr(azure, name)
    kind = type(module).__name__
    if mode == "member":
        names = list((provider_modules._index(module) or ({},))[0])
    else:
        getattr(module, "_load_it_", None)
        names = [key for key in vars(module) if not key.startswith("__")]
    names.sort(reverse=order == "reverse")
    def describe(value):
        return f"{getattr(value, '__module__', None) or getattr(value, '__name__', None)}:" + \\
            f"{getattr(value, '__qualname__', type(value).__name__)}"
    out[name] = {"kind": kind, "names": {key: describe(getattr(module, key)) for key in names}}
print(json.dumps(out))
"""

_STAR = """
import json, sys
import pulumi
if sys.argv[1] == "member":
    from amlkit.review.run import provider_modules
    provider_modules.install()
namespace = {}
exec("from pulumi_azure_native.resources import *", namespace)
module = sys.modules["pulumi_azure_native.resources"]
print(json.dumps({"kind": type(module).__name__, "names": sorted(key for key in namespace if key != "__builtins__")}))
"""


def _run(code: str, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _public(names: dict[str, str]) -> dict[str, str]:
    """The whole module's names less the generated boilerplate every one of them binds (loaded on use: see below)."""
    return {key: value for key, value in names.items() if key not in ("_builtins", "_utilities", "typing")}


@pytest.mark.parametrize("order", ["forward", "reverse"])
def test_every_name_of_a_module_loaded_by_member_is_the_object_of_the_whole_module(order):
    member = _run(_PROBE, "member", "resources,keyvault", order)
    whole = _run(_PROBE, "whole", "resources,keyvault", order)
    for name in ("resources", "keyvault"):
        assert member[name]["kind"] == "MemberModule"
        assert whole[name]["kind"] == "_LazyModule"
        assert member[name]["names"] == _public(whole[name]["names"])
        # a function shares its file's name: the function, as `from .get_x import *` binds it over the submodule
        assert member[name]["names"][f"get_{'resource_group' if name == 'resources' else 'vault'}"].endswith(
            ":get_resource_group" if name == "resources" else ":get_vault")


@pytest.mark.slow
def test_the_sample_programs_modules_loaded_by_member_are_the_whole_modules():
    modules = "machinelearningservices,monitor,authorization,storage,operationalinsights,applicationinsights"
    member = _run(_PROBE, "member", modules, "forward")
    whole = _run(_PROBE, "whole", modules, "forward")
    for name in modules.split(","):
        assert member[name]["names"] == _public(whole[name]["names"]), name


def test_a_star_import_loads_the_module_whole_and_binds_what_the_whole_module_binds():
    member = _run(_STAR, "member")
    whole = _run(_STAR, "whole")
    assert member["names"] == whole["names"]
    assert "ResourceGroup" in member["names"]
    assert member["kind"] == "module"  # an ordinary module once loaded whole


_USE = """
import json, sys
import pulumi
from amlkit.review.run import provider_modules
provider_modules.install()
from pulumi_azure_native import machinelearningservices as ml, config
cls = ml.Compute
prefix = "pulumi_azure_native.machinelearningservices."
loaded = sorted(n.rsplit(".", 1)[1] for n in sys.modules if n.startswith(prefix))
errors = []
for name in ("NoSuchThing", "_utilities"):
    try:
        getattr(ml, name)
        errors.append(None)
    except AttributeError as error:
        errors.append(str(error))
print(json.dumps({"loaded": loaded, "class": cls.__module__, "errors": errors, "kind": type(ml).__name__,
                  "files": len([n for n in sys.modules if n.startswith(prefix)])}))
"""


def test_a_name_imports_only_its_file_and_a_name_no_file_exports_loads_the_module_whole():
    found = _run(_USE)
    assert found["loaded"] == ["_enums", "_inputs", "compute", "outputs"]
    assert found["class"] == "pulumi_azure_native.machinelearningservices.compute"
    # no such name: the whole module is loaded, then its own AttributeError; `_utilities` is bound by the whole module
    assert found["errors"] == ["module 'pulumi_azure_native.machinelearningservices' has no attribute 'NoSuchThing'",
                               None]
    assert found["kind"] == "module"
    assert found["files"] > 100


def test_a_module_of_another_shape_loads_whole_as_before():
    code = ("import pulumi\nfrom amlkit.review.run import provider_modules\nprovider_modules.install()\n"
            "from pulumi_azure_native import config\nimport json\n"
            "value = config.location\n"
            "print(json.dumps([type(config).__name__, value]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert json.loads(done.stdout) == ["_ExportableConfig", None], done.stderr


def test_an_unverified_guard_leaves_pulumis_lazy_modules():
    code = ("import dataclasses, pulumi\nfrom amlkit import patches\n"
            "patches.PATCHES['provider-modules'] = dataclasses.replace(patches.PATCHES['provider-modules'], "
            "verified=frozenset())\n"
            "from amlkit.review.run import provider_modules\nprovider_modules.install()\n"
            "from pulumi_azure_native import resources\nprint(type(resources).__name__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "_LazyModule", done.stderr
