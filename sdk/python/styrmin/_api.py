"""The HTTP client of the primitive endpoints (/api/action/v1/, see docs/actions.md).

Standard library only. The action token is read from the environment on each
call, sent as a bearer token and never written to a log line or an error.
"""

import json
import os
import socket
import urllib.error
import urllib.request

from .errors import Conflict, StyrminError

# The prefix of every primitive endpoint.
API_PREFIX = "/api/action/v1/"

# How long an ordinary call may take, in seconds.
DEFAULT_TIMEOUT = 60

# How much of an answer that is not Styrmin's JSON is quoted in an error.
_QUOTE_LIMIT = 200


def _environment():
    """Return (base URL, token) from the environment, or raise StyrminError."""
    url = os.environ.get("STYRMIN_API_URL", "")
    token = os.environ.get("STYRMIN_ACTION_TOKEN", "")
    missing = [name for name, value in (("STYRMIN_API_URL", url), ("STYRMIN_ACTION_TOKEN", token)) if not value]
    if missing:
        raise StyrminError(
            f"{' and '.join(missing)} not set: run this action through Styrmin "
            "(a lifecycle hook or a manual action of a deployment), which starts it with python3 -m styrmin.run"
        )
    return url.rstrip("/"), token


def call(method, path, body=None, timeout=DEFAULT_TIMEOUT):
    """Call the primitive endpoint path with an optional JSON body and return the decoded answer.

    Raises Conflict for 409, StyrminError for any other error status, for an
    answer that is not JSON and when Styrmin cannot be reached.
    """
    base, token = _environment()
    url = base + API_PREFIX + path
    data = None
    headers = {"Authorization": "Bearer " + token, "Accept": "application/json"}
    if body is not None:
        data = json.dumps(body).encode("utf-8")
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as err:
        with err:
            raise _error(err.code, err.reason, err.read()) from None
    except (urllib.error.URLError, socket.timeout, ConnectionError) as err:
        reason = getattr(err, "reason", err)
        if isinstance(reason, socket.timeout) or isinstance(err, socket.timeout):
            raise StyrminError(f"{method} {API_PREFIX}{path}: Styrmin did not answer within {timeout:g} s") from None
        raise StyrminError(f"{method} {API_PREFIX}{path}: cannot reach Styrmin at {base}: {reason}") from None
    try:
        return json.loads(raw or b"{}")
    except ValueError:
        raise StyrminError(f"{method} {API_PREFIX}{path}: Styrmin answered {status} with something that is not JSON: {_quote(raw)}") from None


def _error(status, reason, raw):
    """Return the exception for an error answer: Styrmin's {"error": ...} text when there is one."""
    try:
        message = json.loads(raw)["error"]
        if not isinstance(message, str) or not message:
            raise ValueError
    except (ValueError, KeyError, TypeError):
        message = f"Styrmin answered {status} {reason}: {_quote(raw)}".rstrip(": ")
    if status == 409:
        return Conflict(message, status)
    return StyrminError(message, status)


def _quote(raw):
    """Return the start of a raw answer, as text for an error message."""
    text = raw.decode("utf-8", "replace").strip()
    if len(text) > _QUOTE_LIMIT:
        text = text[:_QUOTE_LIMIT] + "…"
    return text
