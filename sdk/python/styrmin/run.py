"""The action runner: ``python3 -m styrmin.run``.

Started by Styrmin's executor in a copy of the bundle (the working directory)
with the environment and the protocol of docs/actions.md:

- STYRMIN_ACTION_FUNCTION names the function, ``module:function``;
- standard input holds the prompt values as one JSON object, passed as keyword
  arguments;
- standard output carries one JSON object per line: ``log`` lines (every
  ``logging`` record; ``print`` gives INFO, sys.stderr WARNING), then either
  the ``result`` line (exit status 0) or the ``exception`` line (exit status 1);
- exit status 2 when the function cannot be started.
"""

import asyncio
import dataclasses
import importlib
import inspect
import io
import json
import logging
import os
import signal
import sys
import threading
import time
import traceback

# The logger of the runner's own lines.
RUNNER_LOGGER = "styrmin.run"

# The longest line of the protocol, its newline included (actions.MaxLineBytes
# in Go, checked by a Go test): the executor cuts longer lines, which then no
# longer parse. The runner cuts a longer record's text instead, keeping the line whole.
MAX_LINE_BYTES = 16 << 10

# What ends a message that was cut, and starts a traceback that was.
MESSAGE_CUT = " …(line cut)"
TRACEBACK_CUT = "…(traceback cut)\n"

# Exit statuses (docs/actions.md).
EXIT_RETURNED = 0
EXIT_EXCEPTION = 1
EXIT_NOT_STARTED = 2

# The standard levels a record's level is reported as; others round down to one of them.
_LEVELS = [
    (logging.CRITICAL, "CRITICAL"),
    (logging.ERROR, "ERROR"),
    (logging.WARNING, "WARNING"),
    (logging.INFO, "INFO"),
]


class NotStarted(Exception):
    """The runner could not start the action's function; the message says why."""


class _Stopped(BaseException):
    """Raised in the main thread when the process receives SIGTERM."""


class Protocol:
    """Writes the JSON lines of the protocol to the real standard output, one whole line at a time."""

    def __init__(self, stream):
        self._stream = stream
        self._lock = threading.Lock()

    def write(self, obj):
        """Write obj as one JSON line and flush it; a log or exception line too long for the protocol has its text cut."""
        line = _encode(obj)
        if len(line) > MAX_LINE_BYTES and obj.get("t") in ("log", "exception"):
            line = _encode(fit(obj))
        with self._lock:
            self._stream.write(line.encode("ascii"))
            self._stream.flush()

    def log(self, level, msg, logger, created):
        """Write a log line."""
        self.write({"t": "log", "level": level, "msg": msg, "logger": logger, "time": round(created, 6)})


class ProtocolHandler(logging.Handler):
    """A logging handler that writes every record as a protocol log line."""

    def __init__(self, protocol):
        super().__init__(logging.NOTSET)
        self._protocol = protocol

    def emit(self, record):
        try:
            try:
                msg = record.getMessage()
            except Exception:  # bad %-arguments: keep the record rather than lose it
                msg = f"{record.msg!r} % {record.args!r}"
            if record.exc_info and record.exc_info[0] is not None:
                msg = msg + "\n" + "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
            elif record.exc_text:
                msg = msg + "\n" + record.exc_text
            if record.stack_info:
                msg = msg + "\n" + record.stack_info
            self._protocol.log(level_name(record.levelno), msg, record.name, record.created)
        except Exception:
            self.handleError(record)


class LineLog(io.TextIOBase):
    """A text stream whose every line becomes a log line of one level (print, sys.stderr).

    Line-buffered: a line is written when its newline arrives; close() writes a
    partial last line. Blank lines are dropped.
    """

    def __init__(self, protocol, level, logger, fd):
        super().__init__()
        self._protocol = protocol
        self._level = level
        self._logger = logger
        self._fd = fd
        self._partial = ""
        self._lock = threading.Lock()

    @property
    def encoding(self):
        return "utf-8"

    @property
    def errors(self):
        return "strict"

    def writable(self):
        return True

    def isatty(self):
        return False

    def fileno(self):
        # Child processes given this stream write to the real descriptor, which
        # the executor also reads: a line there that is not a protocol line is
        # an INFO line, whichever of the two descriptors it came through.
        return self._fd

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        with self._lock:
            lines = (self._partial + text).split("\n")
            self._partial = lines.pop()
        for line in lines:
            self._emit(line)
        return len(text)

    def flush(self):
        pass  # line-buffered: partial lines wait for their newline or for close()

    def close(self):
        with self._lock:
            rest, self._partial = self._partial, ""
        self._emit(rest)
        super().close()

    def _emit(self, line):
        line = line.rstrip("\r")
        if line.strip():
            self._protocol.log(self._level, line, self._logger, time.time())


def _encode(obj):
    """Return obj as one protocol line, its newline included."""
    return json.dumps(obj, ensure_ascii=True, default=_json_default, allow_nan=False) + "\n"


def fit(obj):
    """Return a log or exception line whose text is cut so that it fits MAX_LINE_BYTES.

    A log line keeps the start of its message and its level; an exception line keeps
    the start of its message (a quarter of the line at most) and the end of its traceback.
    """
    if obj["t"] == "log":
        return _cut_field(obj, "msg", MESSAGE_CUT, keep_end=False)
    if _escaped_len(obj["msg"]) > MAX_LINE_BYTES // 4:
        obj = dict(obj, msg=_cut(obj["msg"], MAX_LINE_BYTES // 4, MESSAGE_CUT, keep_end=False))
    return _cut_field(obj, "traceback", TRACEBACK_CUT, keep_end=True)


def _cut_field(obj, field, mark, keep_end):
    """Return obj with its text field cut (mark added) so that its line fits MAX_LINE_BYTES."""
    budget = MAX_LINE_BYTES - len(_encode(dict(obj, **{field: mark})))
    return dict(obj, **{field: _cut(obj[field], budget, mark, keep_end)})


def _cut(text, budget, mark, keep_end):
    """Return the start (or the end) of text that takes at most budget bytes in JSON, with mark."""
    if _escaped_len(text) <= budget:
        return text
    size, n = 0, 0
    for ch in reversed(text) if keep_end else text:
        size += _escaped_len(ch)
        if size > budget:
            break
        n += 1
    return mark + text[len(text) - n :] if keep_end else text[:n] + mark


def _escaped_len(text):
    """Return how many bytes text takes inside a JSON string of the protocol."""
    return len(json.dumps(text, ensure_ascii=True)) - 2


def level_name(levelno):
    """Return the standard level name a record's level number is reported as."""
    for number, name in _LEVELS:
        if levelno >= number:
            return name
    return "DEBUG"


def exception_line(exc):
    """Return the last line Python prints for an uncaught exc, such as "ValueError: bad label"."""
    cls = type(exc)
    name = cls.__qualname__
    if cls.__module__ not in ("builtins", "__main__"):
        name = f"{cls.__module__}.{name}"
    try:
        text = str(exc)
    except Exception:
        text = "<exception str() failed>"
    return f"{name}: {text}" if text else name


def load_function(target):
    """Import and return the function named by target ("module:function"), or raise NotStarted."""
    module_name, sep, function_name = (target or "").partition(":")
    if not sep or not module_name or not function_name:
        raise NotStarted(f"STYRMIN_ACTION_FUNCTION is {target!r}; it must be module:function, such as actions:backup")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name and (module_name == err.name or module_name.startswith(err.name + ".")):
            raise NotStarted(f"module {module_name} not found in the bundle (looked in {os.getcwd()})") from err
        raise NotStarted(f"cannot import module {module_name}: {exception_line(err)}") from err
    except Exception as err:
        raise NotStarted(f"cannot import module {module_name}: {exception_line(err)}") from err
    function = getattr(module, function_name, None)
    if function is None:
        raise NotStarted(f"module {module_name} has no function {function_name}")
    if not callable(function):
        raise NotStarted(f"{target} is a {type(function).__name__}, not a function")
    return function


def read_prompts(stream):
    """Read the prompt values (one JSON object) from stream, or raise NotStarted."""
    try:
        raw = getattr(stream, "buffer", stream).read()
    except (OSError, ValueError) as err:
        raise NotStarted(f"cannot read the prompt values from standard input: {err}") from err
    try:
        prompts = json.loads(raw)
    except ValueError as err:
        raise NotStarted(f"standard input is not JSON ({err}); it must be one JSON object of prompt values, {{}} for none") from None
    if not isinstance(prompts, dict):
        raise NotStarted(f"standard input is a JSON {type(prompts).__name__}; it must be one JSON object of prompt values, {{}} for none")
    return prompts


def check_arguments(function, target, prompts):
    """Raise NotStarted when function cannot take the prompts as keyword arguments."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return  # a builtin or similar: the call itself will tell
    try:
        signature.bind(**prompts)
    except TypeError as err:
        raise NotStarted(f"{target} does not take the prompts {sorted(prompts)}: {err}") from None


def call(function, prompts):
    """Call function with the prompts as keyword arguments; run it to its end if it is a coroutine function."""
    if inspect.iscoroutinefunction(function):
        return asyncio.run(function(**prompts))
    return function(**prompts)


def _json_default(value):
    """Make dataclasses (such as the primitives' results) JSON; anything else is not."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def _result_line(value):
    """Return the result line: the value as JSON, or its repr when it is not JSON."""
    try:
        json.dumps(value, default=_json_default, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        value = _safe_repr(value)
    return {"t": "result", "value": value}


def _safe_repr(value):
    try:
        return repr(value)
    except Exception:
        return f"<{type(value).__name__} object>"


def _setup(protocol, out_fd, err_fd):
    """Route logging, warnings, sys.stdout and sys.stderr to protocol lines; return the two streams."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    root.addHandler(ProtocolHandler(protocol))
    root.setLevel(logging.INFO)
    logging.captureWarnings(True)
    stdout = LineLog(protocol, "INFO", "stdout", out_fd)
    stderr = LineLog(protocol, "WARNING", "stderr", err_fd)
    sys.stdout, sys.stderr = stdout, stderr
    return stdout, stderr


def _on_sigterm(signum, frame):
    # A second SIGTERM while the first unwinds ends the process at once.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    raise _Stopped()


def main():
    """Run the action named by STYRMIN_ACTION_FUNCTION; return the exit status."""
    real_stdout = sys.__stdout__.buffer
    protocol = Protocol(real_stdout)
    stdout, stderr = _setup(protocol, 1, 2)
    runner = logging.getLogger(RUNNER_LOGGER)
    runner.setLevel(logging.DEBUG)
    target = os.environ.get("STYRMIN_ACTION_FUNCTION", "")
    try:
        signal.signal(signal.SIGTERM, _on_sigterm)
        if os.getcwd() not in sys.path and "" not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            prompts = read_prompts(sys.stdin)
            function = load_function(target)
            check_arguments(function, target, prompts)
        except NotStarted as err:
            runner.error("the action did not start: %s", err)
            cause = err.__cause__
            if cause is not None and not isinstance(cause, ModuleNotFoundError):
                runner.debug("".join(traceback.format_exception(type(cause), cause, cause.__traceback__)).rstrip("\n"))
            return EXIT_NOT_STARTED
        try:
            value = call(function, prompts)
        except _Stopped:
            runner.warning("the action was stopped (SIGTERM)")
            return 128 + signal.SIGTERM
        except KeyboardInterrupt:
            runner.warning("the action was interrupted")
            return 128 + signal.SIGINT
        except SystemExit as exc:
            if exc.code in (None, 0):
                value = None
            else:
                _write_exception(protocol, exc, stdout, stderr)
                return EXIT_EXCEPTION
        except BaseException as exc:
            _write_exception(protocol, exc, stdout, stderr)
            return EXIT_EXCEPTION
        stdout.close()
        stderr.close()
        protocol.write(_result_line(value))
        return EXIT_RETURNED
    except _Stopped:
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        return 128 + signal.SIGINT
    finally:
        for stream in (stdout, stderr):
            if not stream.closed:
                stream.close()
        # Whatever runs after the function (threads, atexit) writes plain lines.
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__


def _write_exception(protocol, exc, *streams):
    """Write the exception line of an uncaught exc, after the partial lines of streams."""
    for stream in streams:
        if not stream.closed:
            stream.close()
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next  # the runner's own frames say nothing about the action
    trace = "".join(traceback.format_exception(type(exc), exc, tb)).rstrip("\n")
    protocol.write({"t": "exception", "msg": exception_line(exc), "traceback": trace})


if __name__ == "__main__":
    sys.exit(main())
