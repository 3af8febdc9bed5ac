"""Runs one action function of a bundle with the real styrmin package, recording what it asks for.

Usage: run_action.py BUNDLE_DIR MODULE:FUNCTION KWARGS_JSON
Prints {"calls": [...]} or {"error": "Type: message", "calls": [...]} as JSON.

The package's one HTTP seam, styrmin._api.call, is replaced by a recorder that
answers like Styrmin's action endpoints (docs/actions.md), so the primitives
check their arguments and build their requests for real. Each primitive call is
recorded with the body it sends; styrmin.log lines are recorded too. The clock
is fixed so that recorded commands are stable.
"""

import importlib
import json
import logging
import sys
import time

import styrmin
from styrmin import _api, primitives

time.gmtime = lambda *args: time.struct_time((2026, 1, 2, 3, 4, 5, 4, 2, 0))

# What GET deployment answers: the bundles' own parameter defaults that actions read.
DEPLOYMENT = {
    "name": "demo",
    "namespace": "demo",
    "release": "demo",
    "driver": "",
    "driver_version": "1.0.0",
    "app_version": "",
    "parameters": {"username": "postgres", "database": "app"},
    "components": [],
}

calls = []
tasks = {}


def call(method, path, body=None, timeout=_api.DEFAULT_TIMEOUT):
    """Answer one request as Styrmin would, recording the primitive it comes from."""
    if (method, path) == ("GET", "deployment"):
        return DEPLOYMENT
    if method == "POST" and path in ("tasks/stop", "tasks/start"):
        calls.append({path.replace("tasks/", "") + "_components": body["components"]})
        return new_task(path)
    if (method, path) == ("POST", "tasks/upgrade"):
        calls.append({"upgrade_deployment_version": body["version"]})
        return new_task(path)
    if method == "GET" and path.startswith("tasks/"):
        return tasks[int(path.split("/")[1])]
    if (method, path) == ("POST", "jobs"):
        assert timeout == body["timeout"] + primitives.JOB_CALL_MARGIN, "the call lasts as long as the Job"
        calls.append({"execute_commands": body})
        return {"job": "demo-job", "succeeded": True, "deleted_job": ""}
    raise AssertionError(f"unexpected call {method} {path}")


def new_task(path):
    task_id = len(tasks) + 1
    tasks[task_id] = {"id": task_id, "kind": path.split("/")[1], "status": "succeeded", "message": "", "result": None}
    return {"task_id": task_id}


class Recorder(logging.Handler):
    def emit(self, record):
        calls.append({"log": record.levelname + " " + record.getMessage()})


_api.call = call
styrmin.log.addHandler(Recorder())
styrmin.log.propagate = False

bundle, target, kwargs = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]) or {}
sys.path.insert(0, bundle)
module, function = target.split(":")
result = {}
try:
    getattr(importlib.import_module(module), function)(**kwargs)
except Exception as exc:  # reported to the test, which decides whether it was expected
    result["error"] = f"{type(exc).__name__}: {exc}"
result["calls"] = calls
print(json.dumps(result, indent=2, sort_keys=True))
