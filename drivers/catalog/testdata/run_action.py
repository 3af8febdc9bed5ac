"""Runs one action function of a bundle against the fake styrmin SDK.

Usage: run_action.py BUNDLE_DIR MODULE:FUNCTION KWARGS_JSON
Prints {"calls": [...]} or {"error": "Type: message", "calls": [...]} as JSON.
The clock is fixed so that recorded commands are stable.
"""

import importlib
import json
import sys
import time

import styrmin

time.gmtime = lambda *args: time.struct_time((2026, 1, 2, 3, 4, 5, 4, 2, 0))

bundle, target, kwargs = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]) or {}
sys.path.insert(0, bundle)
module, function = target.split(":")
result = {}
try:
    getattr(importlib.import_module(module), function)(**kwargs)
except Exception as exc:  # reported to the test, which decides whether it was expected
    result["error"] = f"{type(exc).__name__}: {exc}"
result["calls"] = styrmin.calls
print(json.dumps(result, indent=2, sort_keys=True))
