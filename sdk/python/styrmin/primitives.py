"""The action primitives: what an action asks Styrmin to do to its own deployment.

Each primitive is an HTTP call to the server, authenticated with the run's
action token, which only works for the deployment the action runs for.
"""

import dataclasses
import math
import re
import time
from typing import Any, Dict, List, Optional

from . import _api
from .errors import CommandsFailed, StyrminError, TaskFailed

# Seconds between two reads of a task a primitive waits for.
POLL_INTERVAL = 1.0

# How many reads of a task in a row may fail because Styrmin cannot be reached
# or answers 5xx (a restart, say) before the wait gives up.
POLL_RETRIES = 30

# Seconds the HTTP call of execute_commands waits beyond the Job's own timeout:
# the longest the server may take beyond it (action.CommandsCallLimit in Go: waiting
# for the ended Job of an earlier call to be gone, 2 min; for the cluster to end
# the Job, 2 min; its requests, 1 min; stopping the Job and answering, 30 s), and
# a minute more, so that the call never gives up before the server. A Go test
# checks it against the server's numbers.
JOB_CALL_MARGIN = 390

# Bounds of execute_commands' timeout, in seconds.
MAX_JOB_TIMEOUT = 24 * 3600

# Statuses of a task that has ended without success.
_FAILED_STATUSES = ("failed", "canceled")

# An environment variable name that a Kubernetes container accepts and a shell can read.
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclasses.dataclass(frozen=True)
class Component:
    """A component of the deployment, as declared in the driver's spec.components.

    ``name`` is the component's name, ``title`` its display title and
    ``stopped`` whether it is scaled to zero by stop_components.
    """

    name: str
    title: str
    stopped: bool


@dataclasses.dataclass(frozen=True)
class Deployment:
    """The deployment an action runs for.

    ``name``, ``namespace`` (Kubernetes namespace) and ``release`` (Helm release
    name) identify it; ``driver`` and ``driver_version`` are the driver's name and
    version in use; ``app_version`` is the deployment's application version;
    ``parameters`` maps each
    non-secret parameter's name to its value (secret parameters are left out: use
    execute_commands' secret_env to hand one to a Job); ``components`` lists the
    driver's components.
    """

    name: str
    namespace: str
    release: str
    driver: str
    driver_version: str
    app_version: str
    parameters: Dict[str, Any]
    components: List[Component]


@dataclasses.dataclass(frozen=True)
class TaskResult:
    """A task that a primitive started, once it has ended.

    ``id`` is the task's number, ``kind`` what it does (``stop``, ``start``,
    ``upgrade``), ``status`` how it ended (``succeeded``; ``failed`` and
    ``canceled`` raise TaskFailed instead), ``message`` its summary and ``result``
    its result as shown on the task's page (a dict, or None).
    """

    id: int
    kind: str
    status: str
    message: str
    result: Any


@dataclasses.dataclass(frozen=True)
class ExecResult:
    """A Job of execute_commands that succeeded.

    ``job`` is the Job's name (``<release>-job``), ``succeeded`` is always True
    (a failed Job raises CommandsFailed), ``deleted_job`` names the ended Job
    of an earlier call that was deleted first, or is ``""``, and ``output`` is
    the end of the Job's output (its last 200 lines, at most 64 KiB), redacted
    as a failed Job's tail is.
    """

    job: str
    succeeded: bool = True
    deleted_job: str = ""
    output: str = ""


def deployment() -> Deployment:
    """Return the deployment this action runs for.

    Takes no arguments. The answer is read from Styrmin on each call, so
    ``stopped`` reflects components stopped or started earlier in the action.

    Raises StyrminError when Styrmin cannot be reached or refuses the call.
    """
    answer = _api.call("GET", "deployment")
    components = [
        Component(name=c.get("name", ""), title=c.get("title", ""), stopped=bool(c.get("stopped", False)))
        for c in answer.get("components") or []
    ]
    return Deployment(
        name=answer.get("name", ""),
        namespace=answer.get("namespace", ""),
        release=answer.get("release", ""),
        driver=answer.get("driver", ""),
        driver_version=answer.get("driver_version", ""),
        app_version=answer.get("app_version", ""),
        parameters=dict(answer.get("parameters") or {}),
        components=components,
    )


def stop_components(names: Optional[List[str]] = None) -> TaskResult:
    """Stop components of the deployment (scale them to zero) and wait until their pods are gone.

    ``names`` lists the components to stop by name (one name may be given as a
    string); None or an empty list stops every component. Styrmin starts a
    ``stop`` task linked to the hook step running this action: the deployment
    page lists it under that step and the hook's task result includes its result.
    The call waits for that task, without a limit of its own (the action's timeout
    still applies), reading it every second; it rides out Styrmin being
    unreachable for about half a minute.

    Returns the ended task as a TaskResult.

    Raises TaskFailed when the task fails or is canceled, StyrminError when Styrmin
    refuses the call (for example an unknown component name), TypeError when names
    is not a list of strings.
    """
    return _wait(_api.call("POST", "tasks/stop", {"components": _component_names(names)}))


def start_components(names: Optional[List[str]] = None) -> TaskResult:
    """Start components of the deployment again and wait until they are started.

    ``names`` lists the components to start by name (one name may be given as a
    string); None or an empty list starts every component. Each component goes
    back to the replica count it had when it was stopped, or to its default.
    Styrmin starts a ``start`` task linked to the hook step running this action,
    as stop_components does, and the call waits for it.

    Returns the ended task as a TaskResult.

    Raises TaskFailed when the task fails or is canceled, StyrminError when Styrmin
    refuses the call, TypeError when names is not a list of strings.
    """
    return _wait(_api.call("POST", "tasks/start", {"components": _component_names(names)}))


def upgrade_deployment_version(version: str, prompts: Optional[Dict[str, Dict[str, Any]]] = None) -> TaskResult:
    """Upgrade the deployment to another application version and wait for the upgrade.

    ``version`` is the application version to upgrade to, one that the driver
    version in use supports (for example ``"16.5.0"``). ``prompts`` gives the
    upgrade's own hook actions their prompt values, as the upgrade form does:
    a dict from action name to a dict from prompt name to its value (a string,
    number or boolean; secret prompts as strings, which Styrmin seals). A prompt
    left out takes its default; a required prompt without a default must be
    given. Styrmin starts an ``upgrade`` task linked to the hook step running
    this action, which runs the upgrade's own hooks; the call waits for it.

    Returns the ended task as a TaskResult.

    Raises TaskFailed when the upgrade fails or is canceled, Conflict when this
    action itself runs in an upgrade of the same deployment (an upgrade cannot
    start another one), StyrminError when Styrmin refuses the version or a prompt
    value (its message names each field, such as ``prompt.backup.label``),
    TypeError/ValueError when version is not a non-empty string or prompts is
    not a dict of dicts.
    """
    if not isinstance(version, str):
        raise TypeError(f"version must be a string such as '16.5.0', not {type(version).__name__}")
    if not version.strip():
        raise ValueError("version must not be empty")
    body: Dict[str, Any] = {"version": version.strip()}
    if prompts:
        if not isinstance(prompts, dict) or not all(isinstance(v, dict) for v in prompts.values()):
            raise TypeError("prompts must map action names to dicts of prompt values, such as {'backup': {'label': 'nightly'}}")
        body["prompts"] = prompts
    return _wait(_api.call("POST", "tasks/upgrade", body))


def execute_commands(
    commands,
    *,
    image: str,
    env: Optional[Dict[str, str]] = None,
    secret_env: Optional[Dict[str, str]] = None,
    timeout: int = 600,
) -> ExecResult:
    """Run shell commands in a Kubernetes Job in the deployment's namespace and wait for it.

    ``commands`` is a list of shell command strings (or one string). The Job's one
    container runs them in order as one ``sh -c`` script that starts with
    ``set -e``, each command on its own line, so they share the shell (variables,
    working folder) and the first command that fails (as ``set -e`` defines it)
    fails the Job. ``image`` (required, keyword) is the container image, which must
    provide ``sh``. ``env`` maps environment variable names to plain values, which
    the Job's spec holds: never put a secret there. ``secret_env`` maps environment
    variable names to secret values by reference: the name of one of the
    deployment's secret parameters (``secret_env={"PGPASSWORD": "password"}``), or
    ``"prompt.<name>"`` for a secret prompt of this action
    (``secret_env={"NEW_PASSWORD": "prompt.new_password"}``). Styrmin puts the
    values in a Kubernetes Secret of the Job's own, owned by the Job (so deleting
    the Job deletes it), and the container reads them from there: neither the
    Job's spec nor the action's request holds them. ``timeout`` is the Job's limit
    in seconds (1 to 86400); the Job is stopped and fails when it is reached. The
    limit never outlives the action's own timeout: Styrmin shortens it to the time
    the action has left.

    The Job is named ``<release>-job`` and labelled
    ``styrmin.io/action-job=true``; it ends at its first failed pod (no retries)
    and stays in the cluster after it ends. Its pod does not mount a
    service-account token (``automountServiceAccountToken: false``) and its
    container runs with ``allowPrivilegeEscalation: false``. A Job stopped at its
    time limit, or because the action ended, is killed 5 seconds later
    (``terminationGracePeriodSeconds: 5``). Before creating it,
    Styrmin deletes the ended Job of an earlier call (completed or failed), with
    its pods and its Secret, and records a line naming it on the hook step, once
    per step however many calls replace it; so an action may call
    execute_commands several times.

    The call is refused (Conflict), and changes nothing in the cluster (no Job or
    Secret is created, changed or deleted), when the Job of that name is still
    running (also while someone else deletes it, or while the call that created
    it has not yet read its outcome) or was not created by an action. Of two calls
    racing on one deployment, exactly one runs its Job; the other is refused.

    When the Job fails, or is stopped at its time limit, or the action ends or
    Styrmin stops waiting while it runs, the end of its output is stored on the
    hook step with a sentence saying how the Job ended; every signed-in user,
    Read-only users too, can read it, on the deployment's page (under the hook
    step of its task) and in the API (the step's ``job_tail`` in
    ``GET /api/v1/tasks`` and ``GET /api/v1/tasks/{id}``). Styrmin reads the
    pod's log while the Job runs, so the output seen so far is kept even when
    Kubernetes deletes the pod. The output is redacted
    first (the action token, the deployment's secret parameters, the run's secret
    prompts and common forms of secrets become ``<redacted>``) and cut afterwards:
    what is stored is at most the last 200 lines and at most 64 KiB (65,536
    bytes) of the redacted text, whole lines only, except a last line longer than
    that, whose end is kept (cut between characters). A line cut at the start of
    the output Styrmin keeps, and the rest of a known secret cut there, are left
    out. Redaction does not know every form of secret: never print secrets in the
    commands.

    Returns an ExecResult once the Job has succeeded, with the end of its
    output (``output``), redacted and cut as above: an action reads what its
    commands printed there (a file's size, a listing), and Styrmin stores it
    nowhere.

    Raises CommandsFailed when the Job fails or times out; Conflict when the call
    is refused as above; StyrminError when Styrmin refuses the call (for example
    an unknown secret parameter or prompt, or an action with no time left) or the
    cluster is unavailable; TypeError or ValueError, before anything is sent, for
    arguments of the wrong type or value.
    """
    body = {
        "commands": _commands(commands),
        "image": _image(image),
        "env": _env("env", env, "values"),
        "secret_env": _env("secret_env", secret_env, "secret parameter names or prompt.<secret prompt name>"),
        "timeout": _timeout(timeout),
    }
    both = sorted(set(body["env"]) & set(body["secret_env"]))
    if both:
        raise ValueError(f"{', '.join(both)} is in both env and secret_env; give each variable once")
    answer = _api.call("POST", "jobs", body, timeout=body["timeout"] + JOB_CALL_MARGIN)
    job = answer.get("job", "")
    if not answer.get("succeeded"):
        raise CommandsFailed(job, answer.get("message") or "the Job failed", int(answer.get("tail_lines") or 0))
    return ExecResult(job=job, succeeded=True, deleted_job=answer.get("deleted_job") or "", output=answer.get("output") or "")


def _wait(answer) -> TaskResult:
    """Poll the task of a 202 {"task_id"} answer until it ends; return it or raise TaskFailed."""
    task_id = answer.get("task_id")
    if not isinstance(task_id, int):
        raise StyrminError(f"Styrmin started a task but did not say which: {answer!r}")
    failures = 0
    while True:
        try:
            task = _task(_api.call("GET", f"tasks/{task_id}"))
        except StyrminError as err:
            failures += 1
            if failures > POLL_RETRIES or (err.status is not None and err.status < 500):
                raise
            time.sleep(POLL_INTERVAL)
            continue
        failures = 0
        if task.status == "succeeded":
            return task
        if task.status in _FAILED_STATUSES:
            raise TaskFailed(task)
        time.sleep(POLL_INTERVAL)


def _task(answer) -> TaskResult:
    """Return the TaskResult of a GET tasks/{id} answer."""
    return TaskResult(
        id=answer.get("id", 0),
        kind=answer.get("kind", ""),
        status=answer.get("status", ""),
        message=answer.get("message") or "",
        result=answer.get("result"),
    )


def _component_names(names) -> List[str]:
    """Return names as a list of component names ([] for all), or raise TypeError/ValueError."""
    if names is None:
        return []
    if isinstance(names, str):
        names = [names]
    elif isinstance(names, (set, frozenset)):
        names = sorted(names, key=str)
    if not isinstance(names, (list, tuple)):
        raise TypeError(f"names must be a list of component names or None, not {type(names).__name__}")
    out = []
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"component names must be strings, not {type(name).__name__}: {name!r}")
        if not name:
            raise ValueError("a component name must not be empty")
        out.append(name)
    return out


def _commands(commands) -> List[str]:
    """Return commands as a non-empty list of non-empty strings, or raise TypeError/ValueError."""
    if isinstance(commands, str):
        commands = [commands]
    if not isinstance(commands, (list, tuple)):
        raise TypeError(f"commands must be a list of shell command strings, not {type(commands).__name__}")
    if not commands:
        raise ValueError("commands must hold at least one command")
    for i, command in enumerate(commands):
        if not isinstance(command, str):
            raise TypeError(f"commands[{i}] must be a string, not {type(command).__name__}")
        if not command.strip():
            raise ValueError(f"commands[{i}] is empty")
        if "\0" in command:
            raise ValueError(f"commands[{i}] holds a NUL character")
    return list(commands)


def _image(image) -> str:
    """Return image if it is a plausible image reference, or raise TypeError/ValueError."""
    if not isinstance(image, str):
        raise TypeError(f"image must be a string such as 'postgres:17.2', not {type(image).__name__}")
    if not image or image != image.strip() or any(c.isspace() for c in image):
        raise ValueError(f"image {image!r} must be an image reference such as 'postgres:17.2', without spaces")
    return image


def _env(argument, mapping, what) -> Dict[str, str]:
    """Return mapping as a dict of variable names to strings, or raise TypeError/ValueError.

    Values of env that are numbers or booleans are turned into strings; secret_env's
    values must be strings already (names of secret parameters).
    """
    if mapping is None:
        return {}
    if not isinstance(mapping, dict):
        raise TypeError(f"{argument} must be a dict of variable names to {what}, not {type(mapping).__name__}")
    out = {}
    for name, value in mapping.items():
        if not isinstance(name, str) or not _ENV_NAME.match(name):
            raise ValueError(f"{argument}: {name!r} is not a valid environment variable name (letters, digits, _; not starting with a digit)")
        if argument == "env" and isinstance(value, (bool, int, float)):
            value = str(value).lower() if isinstance(value, bool) else str(value)
        if not isinstance(value, str):
            # Only the type: the value may be a secret.
            raise TypeError(f"{argument}[{name!r}] must be a string, not {type(value).__name__}")
        if argument == "secret_env" and not value:
            raise ValueError(f"secret_env[{name!r}] must name a secret parameter of the deployment, or a secret prompt as 'prompt.<name>'")
        out[name] = value
    return out


def _timeout(timeout) -> int:
    """Return timeout as whole seconds within bounds, or raise TypeError/ValueError."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(f"timeout must be a number of seconds, not {type(timeout).__name__}")
    if timeout != timeout or not 1 <= timeout <= MAX_JOB_TIMEOUT:
        raise ValueError(f"timeout must be between 1 and {MAX_JOB_TIMEOUT} seconds, not {timeout}")
    return math.ceil(timeout)
