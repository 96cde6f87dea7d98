"""Fixture program: what it finds of the process goes into its resource groups' names, then it leaves state
behind. A stack that saw another stack's leftovers is reported differently from a fresh process's review
(tests/review/test_proc_workers.py; kept out of tests/fixtures, whose programs the preview proof pins).

Config (namespace worker-state): `leave` - a comma-separated list of what else to leave behind: `global` (a
global of the installed `json` module), `signal` (a SIGUSR1 handler), `thread` (a thread still running),
`fail` (the program raises at the end).
"""

import json
import os
import signal
import sys
import threading
import time

import helper
import pulumi
from pulumi_azure_native import resources

helper.COUNT += 1
here = os.path.dirname(os.path.abspath(__file__))
mask = os.umask(0o077)
seen = [
    f"count-{helper.COUNT}",
    f"env-{os.environ.get('AMLKIT_FIXTURE_LEFT', 'none')}",
    f"cwd-{'program' if os.getcwd() == here else 'other'}",
    f"umask-{mask:o}",
    f"json-{getattr(json, 'amlkit_fixture', 'none')}",
    f"module-{'left' if 'amlkit_fixture_module' in sys.modules else 'none'}",
    f"argv-{len(sys.argv)}",
    f"path-{sum(1 for entry in sys.path if entry.endswith('amlkit-fixture'))}",
    f"signal-{'left' if signal.getsignal(signal.SIGUSR1) is not signal.SIG_DFL else 'default'}",
    f"thread-{'left' if any(t.name == 'amlkit-fixture' for t in threading.enumerate()) else 'none'}",
]
for item in seen:
    resources.ResourceGroup(item, resource_group_name=f"rg-{item}", location="westeurope")

leave = (pulumi.Config().get("leave") or "").split(",")
os.environ["AMLKIT_FIXTURE_LEFT"] = pulumi.get_stack()
os.chdir("/")
sys.modules["amlkit_fixture_module"] = type(sys)("amlkit_fixture_module")
sys.path.append("/nonexistent/amlkit-fixture")
sys.argv.append("left")
if "global" in leave:
    json.amlkit_fixture = pulumi.get_stack()  # type: ignore[attr-defined]
if "signal" in leave:
    signal.signal(signal.SIGUSR1, lambda *_: None)
if "thread" in leave:
    threading.Thread(target=time.sleep, args=(60,), name="amlkit-fixture", daemon=True).start()
if "fail" in leave:
    raise RuntimeError("the fixture fails on purpose")
