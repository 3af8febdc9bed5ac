"""A client of Styrmin's REST API (/api/v1, api/openapi.yaml) for scripts.

Standard library only. Authenticate with a personal API token (``stp_...``,
from the "API tokens" page or ``styrmin token create``); it acts with its
user's role. Every operation of the API is a method of Client; answers are
frozen dataclasses mirroring the document's schemas (date-times as aware
datetimes; fields the client does not know are ignored, fields the server
leaves out take their empty value). Errors are APIError subclasses chosen by
the problem's ``code``.

The result classes live in this module (``styrmin.client.Deployment`` is
the API's deployment; ``styrmin.Deployment`` is the action's own).
"""

import dataclasses
import datetime as _dt
import http.client
import json
import re
import email.utils
import random
import socket
import ssl
import sys
import time
import typing
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Generic, Iterator, List, Optional, Tuple, TypeVar, Union

from . import errors
from .errors import StyrminError, TaskFailed

# Where the API lives on a Styrmin server.
API_PREFIX = "/api/v1"

# Seconds a single HTTP call may take.
DEFAULT_TIMEOUT = 60

# How long wait() waits for a task by default, and between two reads, in seconds.
DEFAULT_WAIT = 1800
DEFAULT_POLL = 2.0

# How often a call is tried again after a 429, a 503 or a dropped
# connection, and the first and the longest wait between two tries, in
# seconds (a Retry-After longer than the longest is cut to it).
DEFAULT_RETRIES = 4
DEFAULT_BACKOFF = 0.5
DEFAULT_MAX_BACKOFF = 30.0

# Statuses that say "not now": the server did nothing, so any call may be tried again.
_RETRY_STATUSES = (429, 503)

# Methods that may be sent again after a connection dropped mid-call: the
# server may have done a POST or a PATCH already, and doing it twice is not the same.
_IDEMPOTENT = ("GET", "HEAD", "PUT", "DELETE")

# A connection that dropped mid-call (a server restarting, a proxy timing
# out); a refused connection or a certificate error is no such thing.
_DROPPED = (ConnectionResetError, ConnectionAbortedError, BrokenPipeError, http.client.RemoteDisconnected, http.client.IncompleteRead)

# How much of an answer that is not Styrmin's JSON is quoted in an error.
_QUOTE_LIMIT = 200

# Statuses of a task that ended without success.
_FAILED_STATUSES = ("failed", "canceled")

T = TypeVar("T")


# --- errors -------------------------------------------------------------------


class APIError(StyrminError):
    """Styrmin refused a call: its answer's problem details (RFC 9457).

    ``status`` is the HTTP status, ``code`` the error code the pages use
    (``not_found``, ``forbidden``, ``invalid``, ``conflict``, ...), ``title``
    the status's heading, ``detail`` what went wrong and what to do (also
    ``str(error)``) and ``fields`` a message per input field for invalid input
    (parameters are ``param.<name>``, prompts ``prompt.<action>.<name>``).
    """

    def __init__(self, status, code, detail, title="", fields=None, type="about:blank"):
        super().__init__(detail, status)
        self.code = code
        self.title = title
        self.detail = detail
        self.fields = dict(fields or {})
        self.type = type

    def __repr__(self):
        return f"{type(self).__name__}(status={self.status!r}, code={self.code!r}, detail={self.detail!r}, fields={self.fields!r})"


class Invalid(APIError):
    """The request's input is invalid (400, code ``invalid``); ``fields`` says which and why."""


class Unauthorized(APIError):
    """No token, or one that is unknown, revoked or expired (401, code ``unauthorized``)."""


class Forbidden(APIError):
    """The token's user lacks the role the operation needs (403, code ``forbidden``)."""


class NotFound(APIError):
    """No such driver, version, deployment, task, user or token (404, code ``not_found``)."""


class Conflict(APIError, errors.Conflict):
    """The state refuses the change (409, code ``conflict``): a busy deployment, a taken name, a failed dry run.

    It is also a ``styrmin.Conflict``, the primitives' conflict.
    """


class Throttled(APIError):
    """Too many requests (429, code ``throttled``); try again later."""


class Unavailable(APIError):
    """Styrmin cannot do it now, e.g. the cluster is unreachable (503, code ``unavailable``)."""


class ServerError(APIError):
    """Styrmin failed (500, code ``internal``); its log says why."""


class ConnectionFailed(APIError):
    """Styrmin could not be reached, or did not answer in time.

    ``status`` is None and ``code`` is ``"connection_failed"``; ``str(error)``
    says which URL failed and why. ``except APIError`` catches it too.
    """

    def __init__(self, detail):
        super().__init__(None, "connection_failed", detail, title="Connection failed")


# The earlier name of ConnectionFailed.
NetworkError = ConnectionFailed


# Exception classes by problem code, and by HTTP status for answers without one.
_BY_CODE = {
    "invalid": Invalid,
    "unauthorized": Unauthorized,
    "forbidden": Forbidden,
    "not_found": NotFound,
    "conflict": Conflict,
    "throttled": Throttled,
    "unavailable": Unavailable,
    "internal": ServerError,
}
_CODE_BY_STATUS = {
    400: "invalid",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    409: "conflict",
    413: "invalid",
    422: "invalid",
    429: "throttled",
    500: "internal",
    502: "unavailable",
    503: "unavailable",
    504: "unavailable",
}


# --- results ------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class AuditActor:
    """Who made an audited request: ``via`` is session, api-token, action-token, command-line or none;
    ``role`` the role at the time; ``address`` is empty for anyone but admins; ``token_id`` is
    the id (never the secret) of the API token the user came with, None for other credentials."""

    name: str
    via: str
    role: str
    address: str
    user_id: Optional[int] = None
    token_id: Optional[int] = None


@dataclasses.dataclass(frozen=True)
class AuditTarget:
    """What an audited request was about: ``kind`` (deployment, driver, user, token, session,
    policy, settings, webhook) and ``name``."""

    kind: str
    name: str


@dataclasses.dataclass(frozen=True)
class AuditEntry:
    """An entry of the audit log: ``outcome`` is allowed, refused or failed (``reason`` says why)."""

    id: int
    at: _dt.datetime
    actor: AuditActor
    action: str
    target: AuditTarget
    outcome: str
    reason: str
    detail: Dict[str, str]
    request_id: str = ""
    """The id of the request that made the change (its X-Request-Id); empty for the command line."""


@dataclasses.dataclass(frozen=True)
class User:
    """A Styrmin user: ``role`` is ``read-only``, ``operator`` or ``admin``."""

    id: int
    username: str
    role: str
    disabled: bool
    created_at: _dt.datetime


@dataclasses.dataclass(frozen=True)
class APIToken:
    """A personal API token, without its secret; ``expires_at`` and ``last_used_at`` may be None."""

    id: int
    name: str
    username: str
    created_at: _dt.datetime
    expires_at: Optional[_dt.datetime] = None
    last_used_at: Optional[_dt.datetime] = None


@dataclasses.dataclass(frozen=True)
class CreatedAPIToken(APIToken):
    """A new API token with its secret ``token`` (``stp_...``), which Styrmin shows only this once."""

    token: str = dataclasses.field(default="", repr=False)


@dataclasses.dataclass(frozen=True)
class WebhookAttempt:
    """One try at sending a delivery: the receiver's ``status_code`` (None when no answer came) or ``error``."""

    attempt: int
    error: str
    duration_ms: int
    attempted_at: _dt.datetime
    status_code: Optional[int] = None


@dataclasses.dataclass(frozen=True)
class WebhookDelivery:
    """One event sent to a webhook, as its last attempt left it: ``status`` is ``pending``, ``delivered`` or ``failed``;
    ``attempt_log`` is every attempt, oldest first (in a webhook's log)."""

    id: int
    task_id: int
    event: str
    status: str
    attempts: int
    error: str
    created_at: _dt.datetime
    status_code: Optional[int] = None
    duration_ms: Optional[int] = None
    redelivery_of: Optional[int] = None
    attempted_at: Optional[_dt.datetime] = None
    attempt_log: List[WebhookAttempt] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class Webhook:
    """A URL subscribed to task events, never with its secret; empty ``deployments`` or ``kinds`` mean every one.

    ``team`` is the team whose deployments it hears of (and whose admins manage it); None for a global webhook.
    """

    id: int
    url: str
    events: List[str]
    deployments: List[str]
    kinds: List[str]
    format: str
    created_by: str
    created_at: _dt.datetime
    team: Optional[str] = None
    deliveries: List[WebhookDelivery] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class DriverSummary:
    """A driver of the catalogue: ``version`` is its newest version, ``versions`` how many it has."""

    name: str
    version: str
    title: str
    summary: str
    labels: Dict[str, str]
    versions: int


@dataclasses.dataclass(frozen=True)
class Driver:
    """A driver with its ``versions``, newest first."""

    name: str
    title: str
    summary: str
    versions: List[str]


@dataclasses.dataclass(frozen=True)
class DriverPermissionItem:
    """One cluster-scoped kind or RBAC grant of a driver version's chart, as a sentence.

    ``beyond_defaults`` is an item the chart does not create with its default
    values, which an admin approved for other values.
    """

    text: str
    approved: bool
    beyond_defaults: bool = False


@dataclasses.dataclass(frozen=True)
class DriverPermissions:
    """What a driver version's chart creates beyond its release's namespace, and its approval.

    ``items`` are sentences; ``needs`` and ``approved`` are the same items as
    permission sets (dicts with ``kinds``, ``rules``, ``aggregations``,
    ``bindings``, ``outside`` and ``pod_security``, the API's PermissionSet);
    ``approved`` is None until an admin approves. ``render_error`` says why
    the chart did not render with its default values.
    """

    items: List[DriverPermissionItem]
    needs: Dict[str, Any]
    approved: Optional[Dict[str, Any]] = None
    render_error: str = ""
    approved_by: str = ""
    approved_at: Optional[_dt.datetime] = None

    @property
    def pending(self) -> List[str]:
        """The sentences of the items not approved."""
        return [i.text for i in self.items if not i.approved]


@dataclasses.dataclass(frozen=True)
class DriverVersion:
    """One version of a driver; ``spec`` is its parsed driver.styrmin.yml (a dict)."""

    name: str
    version: str
    digest: str
    created_at: _dt.datetime
    created_by: str
    readme: str
    spec: Dict[str, Any]
    permissions: Optional[DriverPermissions] = None


@dataclasses.dataclass(frozen=True)
class ComponentState:
    """A component's state: ``stopped``, and live readiness such as ``2/2`` (empty when unknown)."""

    stopped: bool
    ready: str = ""


@dataclasses.dataclass(frozen=True)
class Revision:
    """A Helm revision of a deployment."""

    revision: int
    status: str
    driver_version: str
    app_version: str
    updated_at: _dt.datetime
    description: str = ""


@dataclasses.dataclass(frozen=True)
class TaskSummary:
    """A task in brief (a deployment's last task)."""

    id: int
    kind: str
    status: str
    by: str
    created_at: _dt.datetime


@dataclasses.dataclass(frozen=True)
class DeploymentSummary:
    """A deployment as the list shows it; ``busy`` says a task holds it, ``deleted_at`` when it was deleted."""

    name: str
    namespace: str
    driver: str
    driver_version: str
    app_version: str
    status: str
    busy: bool
    created_by: str
    created_at: _dt.datetime
    updated_at: _dt.datetime
    deleted_at: Optional[_dt.datetime] = None
    last_task: Optional[TaskSummary] = None


@dataclasses.dataclass(frozen=True)
class Deployment(DeploymentSummary):
    """A deployment with its non-secret ``parameters``, the names of the secrets that have a value
    (``secrets_set``), its ``components`` by name, its Helm ``revisions`` (newest first) and, when the
    cluster could not be read, ``cluster_error``; ``release_missing`` says when Helm has no release
    of it any more (uninstalled outside Styrmin, or the cluster replaced) and what to do."""

    parameters: Dict[str, Any] = dataclasses.field(default_factory=dict)
    secrets_set: List[str] = dataclasses.field(default_factory=list)
    components: Dict[str, ComponentState] = dataclasses.field(default_factory=dict)
    revisions: List[Revision] = dataclasses.field(default_factory=list)
    cluster_error: str = ""
    release_missing: str = ""


@dataclasses.dataclass(frozen=True)
class PromptValue:
    """What a prompt of an upgrade's hook action will run with: ``value`` as text, empty for a secret, whose ``set`` says whether it was given."""

    action: str
    hook: str
    name: str
    title: str
    value: str
    secret: bool
    set: bool


@dataclasses.dataclass(frozen=True)
class ParameterChange:
    """How an upgrade changes a parameter: ``change`` is added, removed, changed or unchanged.

    ``from_`` and ``to`` are the values as text (JSON ``from`` and ``to``); both are empty for a secret.
    """

    name: str
    title: str
    change: str
    secret: bool
    from_: str = dataclasses.field(metadata={"json": "from"})
    to: str


@dataclasses.dataclass(frozen=True)
class ResourceDiff:
    """How an upgrade changes a Kubernetes resource: ``diff`` is a unified diff, Secret values redacted."""

    kind: str
    name: str
    change: str
    diff: str
    namespace: str = ""


@dataclasses.dataclass(frozen=True)
class UpgradeReview:
    """The review of an upgrade's dry run; a non-empty ``dry_run_error`` means it would be refused."""

    from_driver_version: str
    driver_version: str
    from_app_version: str
    app_version: str
    changes: List[ParameterChange]
    resources: List[ResourceDiff]
    prompts: List[PromptValue] = dataclasses.field(default_factory=list)
    dry_run_error: str = ""


@dataclasses.dataclass(frozen=True)
class DriftedField:
    """A field that differs: ``want`` is the manifest's value and ``have`` the live one, as JSON (``<secret>`` for a Secret's value, ``have`` empty when absent)."""

    path: str
    want: str
    have: str


@dataclasses.dataclass(frozen=True)
class DriftedObject:
    """An object of the release that differs from its manifest: ``change`` is ``changed`` or ``deleted``.

    At most 50 ``fields`` are listed; ``fields_left_out`` counts the others.
    """

    api_version: str
    kind: str
    name: str
    change: str
    fields: List[DriftedField]
    fields_left_out: int
    namespace: str = ""
    resource_version: str = ""


@dataclasses.dataclass(frozen=True)
class UncheckedObject:
    """An object of the release that could not be read, and why."""

    api_version: str
    kind: str
    name: str
    why: str
    namespace: str = ""


@dataclasses.dataclass(frozen=True)
class Drift:
    """How a deployment's live objects compare with its release's manifest.

    ``word`` is Synced, Drifted or Unknown (``reason`` says why); ``objects``
    differ, ``accepted`` differ exactly as an operator accepted, ``unchecked``
    could not be read; ``revision`` is the release revision compared.
    """

    word: str
    revision: int
    checked: int
    objects: List[DriftedObject]
    accepted: List[DriftedObject]
    unchecked: List[UncheckedObject]
    checked_at: _dt.datetime
    reason: str = ""

    @property
    def drifted(self) -> bool:
        """Whether an object differs and was not accepted."""
        return self.word == "Drifted"


@dataclasses.dataclass(frozen=True)
class LogLine:
    """A log line of a hook step (redacted)."""

    level: str
    message: str
    at: _dt.datetime


@dataclasses.dataclass(frozen=True)
class Step:
    """A step of a task. For a hook step: ``action``, ``mode``, ``logs``, and when it failed ``error``
    and the tail of its Job's output (``job``, ``job_tail``, ``job_tail_lines``); ``tasks`` are the
    tasks it started (linked tasks)."""

    id: int
    position: int
    kind: str
    title: str
    status: str
    message: str
    started_at: _dt.datetime
    logs: List[LogLine]
    tasks: List["Task"]
    action: str = ""
    mode: str = ""
    error: str = ""
    job: str = ""
    job_tail: str = ""
    job_tail_lines: int = 0
    deleted_job: str = ""
    detail: Dict[str, Any] = dataclasses.field(default_factory=dict)
    ended_at: Optional[_dt.datetime] = None


@dataclasses.dataclass(frozen=True)
class InstallInputs:
    """An install's inputs: its versions, namespace, parameter values (defaults filled in) and hook prompts by action."""

    driver_version: str
    app_version: str
    namespace: str
    parameters: Dict[str, Any]
    prompts: Dict[str, Dict[str, Any]]


@dataclasses.dataclass(frozen=True)
class UpgradeInputs:
    """An upgrade's inputs: the versions before and after, the parameter values after, the names of those that
    ``changed`` (secret ones included) and its hook prompts by action."""

    from_driver_version: str
    driver_version: str
    from_app_version: str
    app_version: str
    parameters: Dict[str, Any]
    changed: List[str]
    prompts: Dict[str, Dict[str, Any]]


@dataclasses.dataclass(frozen=True)
class RollbackInputs:
    """A rollback's inputs: the revision it goes back to, with that revision's versions."""

    revision: int
    driver_version: str
    app_version: str


@dataclasses.dataclass(frozen=True)
class StopInputs:
    """A stop's inputs: the components it stops (empty: all of them)."""

    components: List[str]


@dataclasses.dataclass(frozen=True)
class StartInputs:
    """A start's inputs: the components it starts (empty: all of them)."""

    components: List[str]


@dataclasses.dataclass(frozen=True)
class DeleteInputs:
    """A delete's inputs: its hook prompts by action."""

    prompts: Dict[str, Dict[str, Any]]


@dataclasses.dataclass(frozen=True)
class ActionInputs:
    """A manual action run's inputs: the action and its prompt values (defaults filled in)."""

    action: str
    prompts: Dict[str, Any]


@dataclasses.dataclass(frozen=True)
class ReconcileInputs:
    """A reconcile's inputs: none but its kind (it re-applies the release's last revision)."""


# The inputs class of each task kind (the API's TaskInputs, by its ``kind``).
TASK_INPUTS = {
    "install": InstallInputs,
    "upgrade": UpgradeInputs,
    "rollback": RollbackInputs,
    "stop": StopInputs,
    "start": StartInputs,
    "delete": DeleteInputs,
    "action": ActionInputs,
    "reconcile": ReconcileInputs,
}


@dataclasses.dataclass(frozen=True)
class Task:
    """A task: ``status`` is queued, running, succeeded, failed or canceled; ``ended`` says it is over.

    ``message`` says how it ended or why it waits, ``inputs`` what was asked (no secrets) as the API
    answered it (``typed_inputs`` reads it as its kind's class), ``result`` what it produced.
    ``inputs_unread`` says what of the stored inputs could not be read, when something could not.
    """

    id: int
    deployment: str
    kind: str
    status: str
    message: str
    inputs: Dict[str, Any]
    by: str
    created_at: _dt.datetime
    ended: bool
    steps: List[Step]
    parent_step_id: Optional[int] = None
    result: Any = None
    queue_position: int = 0
    started_at: Optional[_dt.datetime] = None
    ended_at: Optional[_dt.datetime] = None
    inputs_unread: str = ""

    @property
    def typed_inputs(self):
        """Return ``inputs`` as the class of its kind (TASK_INPUTS: InstallInputs, ...); None for a kind this
        client does not know (a newer server's)."""
        cls = TASK_INPUTS.get(self.inputs.get("kind", self.kind))
        return decode(cls, self.inputs) if cls else None

    @property
    def succeeded(self) -> bool:
        """Whether the task ended successfully."""
        return self.status == "succeeded"

    def failed_steps(self) -> List[Step]:
        """Return the steps that failed, in order."""
        return [s for s in self.steps if s.status == "failed"]


@dataclasses.dataclass(frozen=True)
class TaskAccepted:
    """The answer to a change: the queued ``task`` and its API ``url``."""

    task: Task
    url: str


@dataclasses.dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list: its ``items`` and the ``next_cursor`` of the next page ("" after the last)."""

    items: List[T]
    next_cursor: str = ""


# --- decoding -----------------------------------------------------------------

_TIME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|z|[+-]\d{2}:?\d{2})?$")


def parse_time(text):
    """Return an RFC 3339 date-time (as Go writes it: ``Z``, up to 9 fraction digits) as an aware datetime.

    A time without an offset is taken as UTC; None and "" give None. Raises ValueError otherwise.
    """
    if text is None or text == "":
        return None
    m = _TIME.match(text)
    if not m:
        raise ValueError(f"not an RFC 3339 date-time: {text!r}")
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    micro = int((m.group(7) or "0")[:6].ljust(6, "0"))
    zone = m.group(8)
    tz = _dt.timezone.utc
    if zone and zone not in ("Z", "z"):
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        offset = _dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        tz = _dt.timezone(sign * offset) if offset else _dt.timezone.utc
    return _dt.datetime(year, month, day, hour, minute, second, micro, tzinfo=tz)


_HINTS = {}


def _hints(cls):
    """Return the resolved field types of a dataclass, cached."""
    hints = _HINTS.get(cls)
    if hints is None:
        hints = typing.get_type_hints(cls, vars(sys.modules[__name__]))
        _HINTS[cls] = hints
    return hints


def _zero(tp):
    """Return the empty value of a type, for a field the server left out."""
    origin = typing.get_origin(tp)
    if origin in (list, List):
        return []
    if origin in (dict, Dict):
        return {}
    return {str: "", int: 0, bool: False, float: 0.0}.get(tp)


def _audit_query(actor, action, target_kind, target, outcome, since, until, cursor, limit):
    """Return the query of GET /audit; datetimes become RFC 3339 strings."""
    def when(t):
        return t.isoformat() if isinstance(t, _dt.datetime) else t

    return {"actor": actor, "action": action, "target_kind": target_kind, "target": target, "outcome": outcome,
            "since": when(since), "until": when(until), "cursor": cursor, "limit": limit}


def decode(tp, value):
    """Return the JSON value as type tp (a result dataclass, a typing generic, datetime or a plain type).

    Unknown object keys are ignored; left-out fields take their default or empty value.
    """
    if value is None or tp is Any:
        return value
    origin = typing.get_origin(tp)
    if origin is Union:
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return decode(args[0], value) if len(args) == 1 else value
    if origin in (list, List):
        (item,) = typing.get_args(tp) or (Any,)
        return [decode(item, v) for v in _expect(list, value)]
    if origin in (dict, Dict):
        args = typing.get_args(tp) or (str, Any)
        return {k: decode(args[1], v) for k, v in _expect(dict, value).items()}
    if tp is _dt.datetime:
        return parse_time(value)
    if dataclasses.is_dataclass(tp):
        obj = _expect(dict, value)
        hints = _hints(tp)
        kwargs = {}
        for f in dataclasses.fields(tp):
            key = f.metadata.get("json", f.name)
            if key in obj:
                kwargs[f.name] = decode(hints[f.name], obj[key])
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                kwargs[f.name] = _zero(hints[f.name])
        return tp(**kwargs)
    if tp is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if tp in (str, int, bool, float) and not isinstance(value, tp):
        raise ValueError(f"expected {tp.__name__}, got {type(value).__name__} {value!r}")
    return value


def _expect(kind, value):
    """Return value when it is a kind (list or dict), else raise ValueError."""
    if not isinstance(value, kind):
        raise ValueError(f"expected a JSON {'array' if kind is list else 'object'}, got {type(value).__name__}")
    return value


# --- the client ---------------------------------------------------------------


class Client:
    """A client of the Styrmin REST API at ``url`` with a personal API token.

    ``url`` is the server's base URL (``https://styrmin.example.com``; a trailing
    ``/api/v1`` is accepted too). ``token`` is a personal API token (``stp_...``);
    the client never puts it in an error or a repr. ``timeout`` bounds each HTTP
    call, in seconds.

    A call answered 429 (throttled) or 503 (unavailable) is tried again, and
    so is a GET, PUT or DELETE whose connection dropped (a POST or PATCH is
    not: the server may have done it): at most ``retries`` more times, waiting
    ``backoff`` seconds, doubled at each try (with jitter), or what the
    answer's Retry-After says, never more than ``max_backoff`` seconds.
    ``cafile`` is a PEM bundle of the CA certificates to trust for an https
    URL (a private CA); ``ssl_context`` is a whole ``ssl.SSLContext`` instead.

    Every method raises an APIError subclass when Styrmin refuses the call
    (Unauthorized, Forbidden, NotFound, Invalid, Conflict, Throttled,
    Unavailable, ServerError) and ConnectionFailed when it cannot be reached.
    """

    def __init__(
        self,
        url: str,
        token: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        backoff: float = DEFAULT_BACKOFF,
        max_backoff: float = DEFAULT_MAX_BACKOFF,
        cafile: Optional[str] = None,
        ssl_context: Optional[ssl.SSLContext] = None,
    ) -> None:
        if not url:
            raise ValueError("Client needs the server's URL, e.g. https://styrmin.example.com")
        if not token:
            raise ValueError("Client needs a personal API token (stp_...): create one on the API tokens page")
        if retries < 0 or backoff < 0 or max_backoff < 0:
            raise ValueError("retries, backoff and max_backoff cannot be negative")
        if cafile is not None and ssl_context is not None:
            raise ValueError("give cafile or ssl_context, not both: a context has its own CA certificates")
        base = url.rstrip("/")
        if base.endswith(API_PREFIX):
            base = base[: -len(API_PREFIX)]
        self.url = base
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self._token = token
        self._context = ssl.create_default_context(cafile=cafile) if cafile is not None else ssl_context
        # time.sleep, or what a test puts in its place to record the waits.
        self._sleep = time.sleep

    def __repr__(self) -> str:
        return f"styrmin.Client({self.url!r})"

    # --- users and tokens ---

    def me(self) -> User:
        """Return the User the token belongs to (GET /me).

        Raises Unauthorized for an unknown, revoked or expired token.
        """
        return decode(User, self._call("GET", "/me"))

    def users(self) -> List[User]:
        """Return all users, by name, as a list of User (GET /users; admin).

        Raises Forbidden unless the token's user is an admin.
        """
        return decode(List[User], self._call("GET", "/users")["items"])

    def create_user(self, username, role, password) -> User:
        """Create a user and return it as a User (POST /users; admin).

        ``role`` is ``read-only``, ``operator`` or ``admin``; ``password`` has at
        least 12 characters. Raises Invalid (with ``fields``) for bad input,
        Conflict for a taken username, Forbidden unless an admin calls.
        """
        body = {"username": username, "role": role, "password": password}
        return decode(User, self._call("POST", "/users", body=body))

    def update_user(self, id, role=None, disabled=None, password=None) -> User:
        """Change a user's role, disable or enable them, or set their password; return the User (PATCH /users/{id}; admin).

        Arguments left None do not change. Raises NotFound for an unknown id,
        Invalid for bad input, Forbidden unless an admin calls.
        """
        body = _without_none({"role": role, "disabled": disabled, "password": password})
        return decode(User, self._call("PATCH", "/users/" + _segment(id), body=body))

    def tokens(self, user=None) -> List[APIToken]:
        """Return the caller's API tokens, newest first, as a list of APIToken, never their secrets (GET /tokens).

        Admins may pass another ``user``'s username; others get Forbidden.
        """
        return decode(List[APIToken], self._call("GET", "/tokens", query={"user": user})["items"])

    def create_token(self, name, expires_at=None) -> CreatedAPIToken:
        """Create an API token for the caller and return it as CreatedAPIToken, whose ``token`` is the secret (POST /tokens).

        ``expires_at`` is an aware datetime (or an RFC 3339 string); None makes a
        token that lasts until revoked. The secret is in this answer only.
        Raises Invalid for a bad name or a time in the past.
        """
        if isinstance(expires_at, _dt.datetime):
            if expires_at.tzinfo is None:
                raise ValueError("expires_at needs a time zone, e.g. datetime.now(timezone.utc) + timedelta(days=30)")
            expires_at = expires_at.isoformat()
        body = _without_none({"name": name, "expires_at": expires_at})
        return decode(CreatedAPIToken, self._call("POST", "/tokens", body=body))

    def revoke_token(self, id) -> None:
        """Revoke an API token by its id; return None (DELETE /tokens/{id}).

        Raises NotFound for an unknown token or, for non-admins, someone else's.
        """
        self._call("DELETE", "/tokens/" + _segment(id))

    # --- webhooks ---

    def webhooks(self) -> List[Webhook]:
        """Return the webhooks the caller manages, newest first, as a list of Webhook (GET /webhooks; operator).

        Operators see the webhooks filtered to deployments; admins see every one.
        """
        return decode(List[Webhook], self._call("GET", "/webhooks")["items"])

    def create_webhook(self, url, secret, events, deployments=None, kinds=None, format=None, team=None) -> Webhook:
        """Subscribe ``url`` to task ``events`` and return the Webhook (POST /webhooks; operator, or a team's admin).

        ``events`` are among ``started``, ``succeeded``, ``failed`` and
        ``canceled``; ``deployments`` and ``kinds`` filter the tasks (None:
        every one; operators must name deployments); ``format`` is ``json``
        (the default) or ``slack``; ``team`` makes a team's webhook, which
        hears of that team's deployments only (None: a global one, which a
        team's admin may not make). ``secret`` (16 characters or more) signs
        every delivery and is never shown again. Raises Invalid for bad input.
        """
        body = _without_none({"url": url, "secret": secret, "events": list(events), "deployments": deployments,
                              "kinds": kinds, "format": format, "team": team})
        return decode(Webhook, self._call("POST", "/webhooks", body=body))

    def webhook(self, id) -> Webhook:
        """Return a Webhook with its latest ``deliveries``, newest first (GET /webhooks/{id}; operator)."""
        return decode(Webhook, self._call("GET", "/webhooks/" + _segment(id)))

    def update_webhook(self, id, url=None, secret=None, events=None, deployments=None, kinds=None, format=None) -> Webhook:
        """Change the fields given of a webhook and return it (PATCH /webhooks/{id}; operator).

        Fields left None stay as they are; ``secret`` replaces the secret (never shown back);
        ``deployments=[]`` makes it a webhook for every deployment (admins only). Only the
        webhook's creator or an admin may change its ``url`` or ``secret`` (else Forbidden).
        Raises Invalid for bad input.
        """
        body = _without_none({"url": url, "secret": secret, "events": None if events is None else list(events),
                              "deployments": deployments, "kinds": kinds, "format": format})
        return decode(Webhook, self._call("PATCH", "/webhooks/" + _segment(id), body=body))

    def delete_webhook(self, id) -> None:
        """Delete a webhook and its delivery log; return None (DELETE /webhooks/{id}; operator)."""
        self._call("DELETE", "/webhooks/" + _segment(id))

    def redeliver(self, id, delivery) -> WebhookDelivery:
        """Send a webhook's delivery again, byte for byte, and return the new WebhookDelivery
        (POST /webhooks/{id}/deliveries/{delivery}/redeliver; operator)."""
        path = "/webhooks/" + _segment(id) + "/deliveries/" + _segment(delivery) + "/redeliver"
        return decode(WebhookDelivery, self._call("POST", path))

    # --- drivers ---

    def list_drivers(self, q=None, cursor=None, limit=None) -> Page[DriverSummary]:
        """Return one Page of DriverSummary, by name (GET /drivers).

        ``q`` searches names, titles, summaries and labels; ``cursor`` is the
        ``next_cursor`` of the previous page; ``limit`` (1-200) bounds the page.
        """
        return self._page(DriverSummary, "/drivers", {"q": q, "cursor": cursor, "limit": limit})

    def iter_drivers(self, q=None, limit=None) -> Iterator[DriverSummary]:
        """Iterate over every DriverSummary of the catalogue (matching ``q``), fetching pages as needed."""
        return self._iterate(DriverSummary, "/drivers", {"q": q, "limit": limit})

    def drivers(self, q=None) -> List[DriverSummary]:
        """Return every DriverSummary of the catalogue (matching ``q``) as a list, following all pages."""
        return list(self.iter_drivers(q=q))

    def driver(self, name) -> Driver:
        """Return a Driver with its versions, newest first (GET /drivers/{name}).

        Raises NotFound for an unknown driver.
        """
        return decode(Driver, self._call("GET", "/drivers/" + _segment(name)))

    def driver_version(self, name, version) -> DriverVersion:
        """Return a DriverVersion with its readme and parsed spec (GET /drivers/{name}/versions/{version}).

        Raises NotFound for an unknown driver or version.
        """
        path = f"/drivers/{_segment(name)}/versions/{_segment(version)}"
        return decode(DriverVersion, self._call("GET", path))

    def driver_permissions(self, name, version) -> DriverPermissions:
        """Return the DriverPermissions of a driver version: what its chart creates beyond its
        namespace and what an admin approved (GET /drivers/{name}/versions/{version}).

        Raises NotFound for an unknown driver or version.
        """
        return self.driver_version(name, version).permissions

    def approve_driver_permissions(self, name, version, items=None) -> DriverPermissions:
        """Approve what a driver version's chart creates beyond its namespace; return the
        DriverPermissions (POST /drivers/{name}/versions/{version}/permissions/approve; admin).

        Without ``items``, approves what the chart creates with its default values.
        ``items`` is a permission set (a dict with ``kinds``, ``rules``,
        ``aggregations``, ``bindings``, ``outside`` and ``pod_security``, as
        ``DriverPermissions.needs``), such as
        what an install or upgrade with other values was refused for; those items
        are approved in addition. Raises Forbidden for a token that is not an
        admin's, Invalid for items that name nothing.
        """
        path = f"/drivers/{_segment(name)}/versions/{_segment(version)}/permissions/approve"
        body = None if items is None else {"items": items}
        return decode(DriverPermissions, self._call("POST", path, body=body))

    def upload_driver(self, archive: bytes) -> DriverVersion:
        """Import a driver bundle archive (the bytes of a .tar.gz) and return its DriverVersion (POST /drivers; admin).

        Uploading a version the catalogue holds with the same content changes
        nothing and returns it. Raises Invalid for an archive past the limits
        or a bundle that breaks the driver contract (``str(error)`` lists every
        problem with its file and line), Conflict for a version stored with
        other content, Forbidden unless an admin calls.
        """
        if not isinstance(archive, (bytes, bytearray)):
            raise TypeError(f"expected the archive's bytes, got {type(archive).__name__}")
        return decode(DriverVersion, self._call("POST", "/drivers", raw=bytes(archive)))

    # --- deployments ---

    def list_deployments(self, include_deleted=False, cursor=None, limit=None) -> Page[DeploymentSummary]:
        """Return one Page of DeploymentSummary: live ones by name, then deleted ones (GET /deployments).

        ``include_deleted`` adds the deleted deployments; ``cursor`` and ``limit`` as for list_drivers.
        """
        query = {"include_deleted": include_deleted or None, "cursor": cursor, "limit": limit}
        return self._page(DeploymentSummary, "/deployments", query)

    def iter_deployments(self, include_deleted=False, limit=None) -> Iterator[DeploymentSummary]:
        """Iterate over every DeploymentSummary, fetching pages as needed."""
        return self._iterate(DeploymentSummary, "/deployments", {"include_deleted": include_deleted or None, "limit": limit})

    def deployments(self, include_deleted=False) -> List[DeploymentSummary]:
        """Return every DeploymentSummary as a list, following all pages."""
        return list(self.iter_deployments(include_deleted=include_deleted))

    def deployment(self, name) -> Deployment:
        """Return a Deployment with its parameters (secrets only named), components and revisions (GET /deployments/{name}).

        Raises NotFound for an unknown deployment.
        """
        return decode(Deployment, self._call("GET", "/deployments/" + _segment(name)))

    def install(self, driver, driver_version, name, namespace=None, app_version=None, parameters=None, prompts=None) -> Task:
        """Install a driver version as deployment ``name``; return the queued Task (POST /deployments; operator).

        ``namespace`` defaults to the name and ``app_version`` to the driver
        version's default; ``parameters`` maps parameter names to values
        (omitted ones take their default); ``prompts`` maps a hook action's name
        to its prompt values. Pass the Task to wait(). Raises Invalid (``fields``
        names each bad ``param.<name>`` or ``prompt.<action>.<name>``), Conflict
        for a taken name, Forbidden for a read-only token.
        """
        body = _without_none({
            "driver": driver, "driver_version": driver_version, "name": name, "namespace": namespace,
            "app_version": app_version, "parameters": parameters, "prompts": prompts,
        })
        return self._accepted("POST", "/deployments", body=body)

    def upgrade(self, name, driver_version=None, app_version=None, parameters=None, prompts=None, dry_run=False) -> Union[Task, UpgradeReview]:
        """Upgrade a deployment or change its parameters (POST /deployments/{name}/upgrade; operator).

        ``driver_version`` and ``app_version`` default to the current ones;
        ``parameters`` holds only the values to change (an omitted secret keeps
        its value). With ``dry_run=True`` nothing changes and the result is the
        UpgradeReview (parameter changes and the manifest diff of a Helm dry
        run); otherwise the upgrade is queued and the result is its Task.
        Raises Invalid for bad values, Conflict when the deployment is busy or
        the dry run fails, NotFound for an unknown deployment or version.
        """
        body = _without_none({"driver_version": driver_version, "app_version": app_version, "parameters": parameters, "prompts": prompts})
        path = f"/deployments/{_segment(name)}/upgrade"
        if dry_run:
            return decode(UpgradeReview, self._call("POST", path, query={"dry_run": True}, body=body))
        return self._accepted("POST", path, body=body)

    def review_upgrade(self, name, driver_version=None, app_version=None, parameters=None, prompts=None) -> UpgradeReview:
        """Review an upgrade without making it (POST /deployments/{name}/upgrade?dry_run=true; operator).

        Takes the arguments of ``upgrade``. Returns an UpgradeReview: the
        parameter changes, the resources a Helm dry run would change (with
        their diffs) and ``dry_run_error`` (non-empty when the upgrade would be
        refused). Raises Invalid for bad values, Conflict when the dry run
        fails, NotFound for an unknown deployment or version, Forbidden for a
        read-only token.
        """
        return self.upgrade(name, driver_version=driver_version, app_version=app_version,
                            parameters=parameters, prompts=prompts, dry_run=True)

    def rollback(self, name, revision) -> Task:
        """Roll a deployment back to an earlier Helm revision with its recorded values; return the Task (operator).

        Raises Invalid for a revision that does not exist, Conflict when the deployment is busy.
        """
        return self._accepted("POST", f"/deployments/{_segment(name)}/rollback", body={"revision": revision})

    def stop(self, name, components=None) -> Task:
        """Stop components (scale them to zero, remembering their replicas); return the Task (operator).

        ``components`` lists component names; None stops them all.
        """
        body = _without_none({"components": components})
        return self._accepted("POST", f"/deployments/{_segment(name)}/stop", body=body)

    def start(self, name, components=None) -> Task:
        """Start stopped components with the replicas they had; return the Task (operator).

        ``components`` lists component names; None starts them all.
        """
        body = _without_none({"components": components})
        return self._accepted("POST", f"/deployments/{_segment(name)}/start", body=body)

    def reconcile(self, name) -> Task:
        """Re-apply the release as it is, undoing drift (its stopped components stay stopped); return the Task (operator)."""
        return self._accepted("POST", f"/deployments/{_segment(name)}/reconcile")

    def drift(self, name) -> Drift:
        """Return how the deployment's live objects differ from its release's manifest (GET /deployments/{name}/drift).

        Read from the cluster at most 5 s ago; Secret values never appear.
        Raises NotFound for an unknown deployment.
        """
        return decode(Drift, self._call("GET", f"/deployments/{_segment(name)}/drift"))

    def accept_drift(self, name) -> Drift:
        """Accept the deployment's current differences, so that it reads Synced until an object changes again; return the Drift (operator).

        Raises Conflict when there is nothing to accept (Synced, or Unknown),
        Forbidden for a read-only token, NotFound for an unknown deployment.
        """
        return decode(Drift, self._call("POST", f"/deployments/{_segment(name)}/drift/accept"))

    def delete(self, name, prompts=None) -> Task:
        """Uninstall a deployment and delete what Styrmin created; return the Task (DELETE /deployments/{name}; operator).

        ``prompts`` maps a hook action's name to its prompt values.
        """
        body = _without_none({"prompts": prompts})
        return self._accepted("DELETE", "/deployments/" + _segment(name), body=body or None)

    def run_action(self, name, action, prompts=None) -> Task:
        """Run a manual action of the deployment's driver; return the Task (operator).

        ``prompts`` maps the action's prompt names to values (omitted ones take
        their default). Raises NotFound for an unknown action, Invalid for bad
        prompt values (``fields`` names ``prompt.<action>.<name>``).
        """
        body = _without_none({"prompts": prompts})
        return self._accepted("POST", f"/deployments/{_segment(name)}/actions/{_segment(action)}", body=body)

    # --- tasks ---

    def list_tasks(self, deployment=None, status=None, kind=None, cursor=None, limit=None) -> Page[Task]:
        """Return one Page of Task, newest first, with their steps (GET /tasks).

        Filters: ``deployment`` (a name; NotFound when unknown), ``status``
        (queued, running, succeeded, failed, canceled) and ``kind`` (install,
        upgrade, rollback, stop, start, delete, action, reconcile).
        """
        query = {"deployment": deployment, "status": status, "kind": kind, "cursor": cursor, "limit": limit}
        return self._page(Task, "/tasks", query)

    def iter_tasks(self, deployment=None, status=None, kind=None, limit=None) -> Iterator[Task]:
        """Iterate over every matching Task, newest first, fetching pages as needed (stop early on long histories)."""
        return self._iterate(Task, "/tasks", {"deployment": deployment, "status": status, "kind": kind, "limit": limit})

    def tasks(self, deployment=None, status=None, kind=None) -> List[Task]:
        """Return every matching Task, newest first, as a list, following all pages."""
        return list(self.iter_tasks(deployment=deployment, status=status, kind=kind))

    def list_audit(self, actor=None, action=None, target_kind=None, target=None, outcome=None, since=None, until=None,
                   cursor=None, limit=None) -> Page[AuditEntry]:
        """Return one Page of AuditEntry, newest first (GET /audit).

        Filters: ``actor`` (a username), ``action`` (deployment.install, or a family: deployment),
        ``target_kind`` and ``target`` (its name), ``outcome`` (allowed, refused or failed),
        ``since`` and ``until`` (datetimes, or RFC 3339 strings). Admins see every entry; other
        users only the entries about deployments.
        """
        return self._page(AuditEntry, "/audit", _audit_query(actor, action, target_kind, target, outcome, since, until, cursor, limit))

    def iter_audit(self, actor=None, action=None, target_kind=None, target=None, outcome=None, since=None, until=None, limit=None) -> Iterator[AuditEntry]:
        """Iterate over every matching AuditEntry, newest first, fetching pages as needed."""
        return self._iterate(AuditEntry, "/audit", _audit_query(actor, action, target_kind, target, outcome, since, until, None, limit))

    def task(self, id) -> Task:
        """Return a Task (an id, or a Task to read again) with its steps, hook logs, errors, Job tails and linked tasks.

        Raises NotFound for an unknown task.
        """
        return decode(Task, self._call("GET", "/tasks/" + _segment(_task_id(id))))

    def cancel_task(self, id) -> Task:
        """Cancel a queued task, or ask a running one to stop at its next step; return the Task after the request (operator).

        Raises Conflict when the task has already ended.
        """
        return decode(Task, self._call("POST", f"/tasks/{_segment(_task_id(id))}/cancel"))

    def wait(self, task_or_id, timeout=DEFAULT_WAIT, poll=DEFAULT_POLL, raise_on_failure=True) -> Task:
        """Read a task every ``poll`` seconds until it has ended; return the final Task.

        ``task_or_id`` is a Task (as install and the other changes return) or
        its id. Raises styrmin.TaskFailed, whose ``task`` is the final Task,
        when it failed or was canceled (unless ``raise_on_failure`` is False),
        and TimeoutError (with the last read as ``task``) when it has not ended
        within ``timeout`` seconds; the task keeps running then.
        """
        id = _task_id(task_or_id)
        deadline = time.monotonic() + timeout
        while True:
            task = self.task(id)
            if task.ended:
                if raise_on_failure and task.status in _FAILED_STATUSES:
                    raise TaskFailed(task)
                return task
            left = deadline - time.monotonic()
            if left <= 0:
                err = TimeoutError(f"task {id} ({task.kind}) has not ended within {timeout:g} s; it is {task.status}: {task.message or 'no message'}")
                err.task = task
                raise err
            time.sleep(min(poll, left))

    # --- HTTP ---

    def _accepted(self, method, path, body=None) -> Task:
        """Send a change that answers 202 and return its Task."""
        return decode(TaskAccepted, self._call(method, path, body=body)).task

    def _page(self, cls, path, query) -> Page[Any]:
        """Return a Page of cls from a list operation."""
        answer = self._call("GET", path, query=query)
        return Page(items=decode(List[cls], answer.get("items") or []), next_cursor=answer.get("next_cursor") or "")

    def _iterate(self, cls, path, query) -> Iterator[Any]:
        """Yield every item of a list operation, following next_cursor."""
        cursor = None
        while True:
            page = self._page(cls, path, dict(query, cursor=cursor))
            yield from page.items
            if not page.next_cursor or page.next_cursor == cursor:
                return
            cursor = page.next_cursor

    def _call(self, method, path, query=None, body=None, raw=None) -> Any:
        """Call the API with a JSON body, or raw bytes, and return its decoded JSON answer (None for an empty one); raise APIError (ConnectionFailed when unreachable)."""
        what = f"{method} {API_PREFIX}{path}"
        url = self.url + API_PREFIX + path
        query = _query(query)
        if query:
            url += "?" + query
        headers = {
            "Authorization": "Bearer " + self._token,
            "Accept": "application/json, application/problem+json",
            "User-Agent": "styrmin-python/" + _version(),
        }
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        elif raw is not None:
            data = raw
            headers["Content-Type"] = "application/octet-stream"
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        attempt = 0
        while True:
            try:
                status, raw = self._send(request, what)
                break
            except _Retry as retry:
                if attempt >= self.retries:
                    raise retry.error from None
                self._sleep(self._delay(attempt, retry.after))
                attempt += 1
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            raise APIError(status, "", f"{what}: Styrmin answered {status} with something that is not JSON: {_quote(raw)}") from None

    def _send(self, request: urllib.request.Request, what: str) -> Tuple[int, bytes]:
        """Send request once; return its status and body, or raise _Retry (for a try again) or APIError."""
        try:
            with urllib.request.urlopen(request, timeout=self.timeout, context=self._context) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as err:
            with err:
                raw = err.read()
            error = _problem(err.code, err.reason, raw)
            if err.code in _RETRY_STATUSES:
                raise _Retry(error, _retry_after(err.headers.get("Retry-After"))) from None
            raise error from None
        except (urllib.error.URLError, socket.timeout, ConnectionError, http.client.HTTPException) as err:
            reason = getattr(err, "reason", err)
            if isinstance(reason, socket.timeout) or isinstance(err, socket.timeout):
                raise ConnectionFailed(f"{what}: Styrmin at {self.url} did not answer within {self.timeout:g} s") from None
            error = ConnectionFailed(f"{what}: cannot reach Styrmin at {self.url}: {reason}")
            if isinstance(reason, _DROPPED) and request.get_method() in _IDEMPOTENT:
                raise _Retry(error, None) from None
            raise error from None

    def _delay(self, attempt: int, after: Optional[float]) -> float:
        """Return how long to wait before try attempt+2: Retry-After, else the backoff; at most max_backoff."""
        if after is None:
            after = self.backoff * (2 ** attempt) * (0.5 + random.random() / 2)
        return min(max(after, 0.0), self.max_backoff)


class _Retry(Exception):
    """A call that may be tried again: the error to raise when no try is left, and the answer's Retry-After."""

    def __init__(self, error: APIError, after: Optional[float]) -> None:
        super().__init__(str(error))
        self.error = error
        self.after = after


def _retry_after(value: Optional[str]) -> Optional[float]:
    """Return the seconds a Retry-After header asks for (seconds or an HTTP date), None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.timezone.utc)
    return max((when - _dt.datetime.now(_dt.timezone.utc)).total_seconds(), 0.0)


def _problem(status, reason, raw):
    """Return the APIError for an error answer, from its problem details when it has them."""
    problem = {}
    try:
        decoded = json.loads(raw)
        if isinstance(decoded, dict):
            problem = decoded
    except ValueError:
        pass
    code = problem.get("code") if isinstance(problem.get("code"), str) else ""
    detail = problem.get("detail") if isinstance(problem.get("detail"), str) else ""
    if not detail:
        detail = f"Styrmin answered {status} {reason}: {_quote(raw)}".rstrip(": ")
    fields = problem.get("fields") if isinstance(problem.get("fields"), dict) else {}
    for p in problem.get("problems") if isinstance(problem.get("problems"), list) else []:
        if isinstance(p, dict):
            where = ":".join(str(p[k]) for k in ("file", "line", "column") if p.get(k) is not None)
            detail += f"\n  {where}: {p.get('field') + ': ' if p.get('field') else ''}{p.get('message', '')}"
    cls = _BY_CODE.get(code) or _BY_CODE.get(_CODE_BY_STATUS.get(status, ""), APIError)
    return cls(
        status,
        code or _CODE_BY_STATUS.get(status, ""),
        detail,
        title=problem.get("title") or reason or "",
        fields={str(k): str(v) for k, v in fields.items()},
        type=problem.get("type") or "about:blank",
    )


def _query(params):
    """Return the query string of params, leaving out None; booleans as true/false."""
    pairs = []
    for k, v in (params or {}).items():
        if v is None:
            continue
        pairs.append((k, ("true" if v else "false") if isinstance(v, bool) else str(v)))
    return urllib.parse.urlencode(pairs)


def _segment(value):
    """Return value as one escaped path segment."""
    return urllib.parse.quote(str(value), safe="")


def _task_id(task_or_id):
    """Return the id of a task given as an id, a Task, a TaskSummary or a TaskAccepted."""
    if isinstance(task_or_id, TaskAccepted):
        return task_or_id.task.id
    if isinstance(task_or_id, (Task, TaskSummary)):
        return task_or_id.id
    if isinstance(task_or_id, bool) or not isinstance(task_or_id, (int, str)):
        raise TypeError(f"expected a task or a task id, got {type(task_or_id).__name__}")
    return task_or_id


def _without_none(body):
    """Return body without its None values."""
    return {k: v for k, v in body.items() if v is not None}


def _quote(raw):
    """Return the start of a raw answer, as text for an error message."""
    text = raw.decode("utf-8", "replace").strip()
    if len(text) > _QUOTE_LIMIT:
        text = text[:_QUOTE_LIMIT] + "…"
    return text


def _version():
    """Return the package's version, for the User-Agent."""
    return getattr(sys.modules.get(__package__), "__version__", "0")
