"""Test driver actions without a cluster, as Juju's ops.testing tests charms.

``FakeStyrmin`` stands in for the action primitives' endpoints: it runs an
action function with prompts, answers its primitive calls from a deployment
and a script of outcomes the test gives, and records every call, so that a
test asserts on what the action asked Styrmin to do::

    import unittest
    import styrmin
    from styrmin import testing

    class RestartTest(unittest.TestCase):
        def test_restart_stops_then_starts_the_web_component(self):
            fake = testing.FakeStyrmin(components=["web"])
            fake.run("actions:restart")
            self.assertEqual(
                [(c.primitive, c.args["components"]) for c in fake.calls],
                [("stop_components", ["web"]), ("start_components", ["web"])],
            )

        def test_a_failed_job_fails_the_smoke_test(self):
            fake = testing.FakeStyrmin(jobs=[testing.Job(succeeded=False, message="wget: 404")])
            with self.assertRaises(styrmin.CommandsFailed):
                fake.run("actions:smoke_test")

The primitives check their arguments as they do in a real run (a bad image or
timeout raises before any call is recorded); the fake refuses what Styrmin
refuses (an unknown component, an unknown secret parameter in secret_env) with
the same exceptions. ``styrmin driver test PATH`` runs a driver's tests with
this package on the import path.
"""

import dataclasses
import logging
import os
from typing import Any, Dict, Iterable, List, Optional
from unittest import mock

from . import _api, run
from .errors import StyrminError

# The primitives a Call names.
PRIMITIVES = ("deployment", "stop_components", "start_components", "upgrade_deployment_version", "execute_commands")

# The request of each primitive: (method, path) -> primitive name.
_ROUTES = {
    ("GET", "deployment"): "deployment",
    ("POST", "tasks/stop"): "stop_components",
    ("POST", "tasks/start"): "start_components",
    ("POST", "tasks/upgrade"): "upgrade_deployment_version",
    ("POST", "jobs"): "execute_commands",
}


@dataclasses.dataclass(frozen=True)
class Call:
    """One primitive call an action made.

    ``primitive`` is its name (one of PRIMITIVES); ``args`` is what it sent
    Styrmin, after the primitive's own checks: for execute_commands
    ``commands``, ``image``, ``env``, ``secret_env`` and ``timeout``; for
    stop_components and start_components ``components`` (``[]`` for all); for
    upgrade_deployment_version ``version`` and, when given, ``prompts``;
    nothing for deployment.
    """

    primitive: str
    args: Dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Job:
    """How one Job of execute_commands ends, as the test scripts it.

    ``succeeded`` False makes the call raise CommandsFailed with ``message``;
    a Job that succeeded answers with ``output``, what its commands printed
    (ExecResult.output).
    """

    succeeded: bool = True
    message: str = ""
    tail_lines: int = 0
    output: str = ""


@dataclasses.dataclass(frozen=True)
class Task:
    """How one task of stop_components, start_components or upgrade_deployment_version ends.

    ``status`` is ``succeeded``, ``failed`` or ``canceled`` (the last two make
    the call raise TaskFailed with ``message``); ``result`` is the task's result.
    """

    status: str = "succeeded"
    message: str = ""
    result: Any = None


class FakeStyrmin:
    """A fake of the action primitives' endpoints for one deployment, recording every call.

    ``deployment``, ``namespace``, ``release``, ``driver``, ``driver_version``,
    ``app_version`` and ``parameters`` are what styrmin.deployment() answers
    (namespace and release default to the deployment's name); ``components``
    names the driver's components; ``secrets`` names its secret parameters,
    which secret_env may refer to. ``jobs`` and ``tasks`` script the outcomes of
    execute_commands and of the task primitives, in call order; once a script
    is used up, every further Job or task succeeds.
    """

    def __init__(
        self,
        deployment: str = "demo",
        *,
        namespace: str = "",
        release: str = "",
        driver: str = "",
        driver_version: str = "",
        app_version: str = "",
        parameters: Optional[Dict[str, Any]] = None,
        components: Iterable[str] = (),
        secrets: Iterable[str] = (),
        jobs: Optional[List[Job]] = None,
        tasks: Optional[List[Task]] = None,
    ):
        self.deployment = deployment
        self.namespace = namespace or deployment
        self.release = release or deployment
        self.driver = driver
        self.driver_version = driver_version
        self.app_version = app_version
        self.parameters = dict(parameters or {})
        self.stopped = {name: False for name in components}
        self.secrets = set(secrets)
        self.jobs = list(jobs or [])
        self.tasks = list(tasks or [])
        # Every primitive call, in order.
        self.calls: List[Call] = []
        # Every log record of the last run, as (level name, message).
        self.logs: List[tuple] = []
        self._task_results: Dict[int, Dict[str, Any]] = {}
        self._prompts: Dict[str, Any] = {}

    def calls_of(self, primitive: str) -> List[Call]:
        """Return the recorded calls of one primitive, in order."""
        if primitive not in PRIMITIVES:
            raise ValueError(f"{primitive!r} is not a primitive; use one of {', '.join(PRIMITIVES)}")
        return [c for c in self.calls if c.primitive == primitive]

    def run(self, target: str, **prompts: Any) -> Any:
        """Run the action function target (``module:function``) with prompts as keyword arguments.

        Returns what the function returns; its exceptions propagate. Raises
        ValueError when target cannot be loaded or does not take the prompts,
        as a real run would refuse to start it.
        """
        try:
            function = run.load_function(target)
            run.check_arguments(function, target, prompts)
        except run.NotStarted as err:
            raise ValueError(str(err)) from None
        self._prompts = prompts
        self.logs = []
        capture = _Capture(self.logs)
        root = logging.getLogger()
        root.addHandler(capture)
        environment = {
            "STYRMIN_DEPLOYMENT": self.deployment,
            "STYRMIN_NAMESPACE": self.namespace,
            "STYRMIN_RELEASE": self.release,
            "STYRMIN_ACTION_FUNCTION": target,
        }
        try:
            with mock.patch.dict(os.environ, environment), mock.patch.object(_api, "call", self._call):
                return run.call(function, prompts)
        finally:
            root.removeHandler(capture)

    def _call(self, method, path, body=None, timeout=_api.DEFAULT_TIMEOUT):
        """Answer one primitive request as Styrmin would."""
        if method == "GET" and path.startswith("tasks/"):
            return self._task_results[int(path.removeprefix("tasks/"))]
        primitive = _ROUTES.get((method, path))
        if primitive is None:
            raise StyrminError(f"{method} {_api.API_PREFIX}{path}: no such primitive endpoint", 404)
        self.calls.append(Call(primitive, dict(body or {})))
        if primitive == "deployment":
            return self._deployment()
        if primitive == "execute_commands":
            return self._job(body)
        return self._task(primitive, body)

    def _deployment(self) -> Dict[str, Any]:
        return {
            "name": self.deployment,
            "namespace": self.namespace,
            "release": self.release,
            "driver": self.driver,
            "driver_version": self.driver_version,
            "app_version": self.app_version,
            "parameters": dict(self.parameters),
            "components": [{"name": n, "title": n, "stopped": s} for n, s in self.stopped.items()],
        }

    def _job(self, body) -> Dict[str, Any]:
        for name, ref in body["secret_env"].items():
            known = ref[len("prompt."):] in self._prompts if ref.startswith("prompt.") else ref in self.secrets
            if not known:
                raise StyrminError(f"secret_env.{name}: {ref!r} is not a secret parameter of the deployment nor a secret prompt of the action", 400)
        job = self.jobs.pop(0) if self.jobs else Job()
        answer = {"job": f"{self.release}-job", "succeeded": job.succeeded, "message": job.message, "tail_lines": job.tail_lines}
        if job.succeeded:
            answer["output"] = job.output
        return answer

    def _task(self, primitive, body) -> Dict[str, Any]:
        names = body.get("components")
        if names is not None:
            unknown = [n for n in names if n not in self.stopped]
            if unknown:
                raise StyrminError(f"components: unknown component {', '.join(unknown)}; the driver has {', '.join(self.stopped) or 'none'}", 400)
        task = self.tasks.pop(0) if self.tasks else Task()
        if task.status == "succeeded" and primitive != "upgrade_deployment_version":
            for name in names or list(self.stopped):
                self.stopped[name] = primitive == "stop_components"
        task_id = len(self._task_results) + 1
        kind = {"stop_components": "stop", "start_components": "start"}.get(primitive, "upgrade")
        self._task_results[task_id] = {"id": task_id, "kind": kind, "status": task.status, "message": task.message, "result": task.result}
        return {"task_id": task_id}


class _Capture(logging.Handler):
    """Appends every record to a list as (level name, message)."""

    def __init__(self, records):
        super().__init__(logging.DEBUG)
        self._records = records

    def emit(self, record):
        self._records.append((record.levelname, record.getMessage()))
