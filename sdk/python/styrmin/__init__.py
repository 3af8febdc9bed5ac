"""Write Styrmin driver actions.

An action is a function of a Python module in a driver bundle. Styrmin runs it
with ``python3 -m styrmin.run`` (see docs/actions.md), passes its prompts as
keyword arguments and stores its log lines on the hook step: use ``styrmin.log``
(or any ``logging`` logger, or ``print``). The primitives below act on the
deployment the action runs for.

Scripts reach Styrmin's REST API with ``styrmin.Client(url, token)`` and a
personal API token; its result classes live in ``styrmin.client``.
"""

import logging

from .client import (
    APIError,
    Client,
    ConnectionFailed,
    Forbidden,
    Invalid,
    NetworkError,
    NotFound,
    Page,
    ServerError,
    Throttled,
    Unauthorized,
    Unavailable,
)
from .errors import CommandsFailed, Conflict, StyrminError, TaskFailed
from .primitives import (
    Component,
    Deployment,
    ExecResult,
    TaskResult,
    deployment,
    execute_commands,
    start_components,
    stop_components,
    upgrade_deployment_version,
)

__version__ = "0.1.0"

# The logger for actions: its records reach the hook step with their level,
# DEBUG included.
log = logging.getLogger("styrmin.action")
log.setLevel(logging.DEBUG)

__all__ = [
    "log",
    "deployment",
    "stop_components",
    "start_components",
    "upgrade_deployment_version",
    "execute_commands",
    "Deployment",
    "Component",
    "TaskResult",
    "ExecResult",
    "StyrminError",
    "Conflict",
    "TaskFailed",
    "CommandsFailed",
    "Client",
    "Page",
    "APIError",
    "Invalid",
    "Unauthorized",
    "Forbidden",
    "NotFound",
    "Throttled",
    "Unavailable",
    "ServerError",
    "NetworkError",
    "ConnectionFailed",
]
