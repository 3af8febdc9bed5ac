"""The runner's protocol (docs/actions.md), by running python3 -m styrmin.run on small bundles."""

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

SDK = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

BUNDLE = '''
import logging
import os
import subprocess
import sys
import warnings

import styrmin

log = logging.getLogger("actions")


def levels():
    log.debug("hidden: the root logger is at INFO")
    styrmin.log.debug("shown: styrmin.log is at DEBUG")
    log.info("info %s", 1)
    log.warning("warning")
    log.error("error")
    log.critical("critical")
    log.log(25, "between INFO and WARNING")


def printing():
    print("first line")
    print()
    print("two", "words", end="")
    print(" and more")
    sys.stderr.write("to stderr\\n")
    print("partial at exit", end="")
    warnings.warn("careful")


def child():
    subprocess.run(["sh", "-c", "echo raw from a child"], stdout=sys.stdout, check=True)


def prompts(label, count=1, flag=False, items=None):
    return {"label": label, "count": count, "flag": flag, "items": items}


async def coroutine(label):
    import asyncio
    await asyncio.sleep(0)
    log.info("awaited")
    return label


def returns_object():
    return object()


def returns_task():
    return styrmin.TaskResult(id=3, kind="stop", status="succeeded", message="", result={"ok": True})


def returns_nothing():
    print("done")


def crash():
    log.info("about to fail")
    print("half a line", end="")
    raise ValueError("bad label")


def crash_after_error():
    log.error("backup failed: disk full")
    raise RuntimeError("second")


def long_records():
    log.error("x" * 40000)
    log.warning("\u00e9\U0001F600" * 10000)
    raise ValueError("y" * 50000)


def crash_styrmin():
    raise styrmin.Conflict("the Job demo-job is still running", 409)


def exits(code):
    sys.exit(code)


def sleeps():
    print("sleeping", flush=True)
    import time
    time.sleep(60)


def env():
    return {k: os.environ.get(k) for k in ("STYRMIN_ACTION", "STYRMIN_ACTION_FUNCTION")}


not_a_function = 3
'''

BROKEN = "import no_such_dependency_anywhere\n\ndef f():\n    pass\n"
RAISES_ON_IMPORT = "raise ZeroDivisionError('at import')\n"


def run(function, stdin="{}", env=None, bundle=None):
    """Run the runner on the test bundle; return (exit status, decoded lines, raw stdout, stderr)."""
    cmd_env = {k: v for k, v in os.environ.items() if not k.startswith("STYRMIN_")}
    cmd_env.update({"PYTHONPATH": SDK, "STYRMIN_ACTION_FUNCTION": function, "PYTHONDONTWRITEBYTECODE": "1"})
    cmd_env.update(env or {})
    proc = subprocess.run(
        [sys.executable, "-m", "styrmin.run"],
        input=stdin.encode(),
        capture_output=True,
        cwd=bundle or RunnerTest.bundle,
        env=cmd_env,
        timeout=60,
    )
    lines = [json.loads(line) for line in proc.stdout.decode().splitlines() if line.startswith("{")]
    return proc.returncode, lines, proc.stdout.decode(), proc.stderr.decode()


def logs(lines, level=None):
    """Return the messages of the log lines (of one level)."""
    return [l["msg"] for l in lines if l["t"] == "log" and (level is None or l["level"] == level)]


class RunnerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        cls.bundle = cls._tmp.name
        for name, text in (("actions.py", BUNDLE), ("broken.py", BROKEN), ("raises.py", RAISES_ON_IMPORT)):
            with open(os.path.join(cls.bundle, name), "w") as f:
                f.write(textwrap.dedent(text))

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def test_every_line_is_a_protocol_object(self):
        code, lines, out, _ = run("actions:levels")
        self.assertEqual(0, code)
        for line in out.splitlines():
            obj = json.loads(line)
            self.assertIn(obj["t"], ("log", "result"))
        for line in lines[:-1]:
            self.assertEqual({"t", "level", "msg", "logger", "time"}, set(line))
            self.assertIsInstance(line["time"], float)
            self.assertLess(abs(line["time"] - time.time()), 120)

    def test_logging_records_keep_their_level(self):
        _, lines, _, _ = run("actions:levels")
        got = [(l["level"], l["msg"], l["logger"]) for l in lines if l["t"] == "log"]
        self.assertEqual(
            [
                ("DEBUG", "shown: styrmin.log is at DEBUG", "styrmin.action"),
                ("INFO", "info 1", "actions"),
                ("WARNING", "warning", "actions"),
                ("ERROR", "error", "actions"),
                ("CRITICAL", "critical", "actions"),
                ("INFO", "between INFO and WARNING", "actions"),
            ],
            got,
        )

    def test_a_record_too_long_for_a_line_is_cut_and_keeps_its_level(self):
        from styrmin.run import MAX_LINE_BYTES, MESSAGE_CUT, TRACEBACK_CUT

        code, lines, out, _ = run("actions:long_records")
        self.assertEqual(1, code)
        for line in out.encode().splitlines(keepends=True):
            self.assertLessEqual(len(line), MAX_LINE_BYTES)
        error, warning, exception = lines
        self.assertEqual(("log", "ERROR"), (error["t"], error["level"]))
        self.assertRegex(error["msg"], "^x{16000,}" + re.escape(MESSAGE_CUT) + "$")
        self.assertEqual("WARNING", warning["level"])
        self.assertTrue(warning["msg"].startswith("\u00e9\U0001F600" * 100), "cut between characters, not inside one")
        self.assertTrue(warning["msg"].endswith(MESSAGE_CUT))
        self.assertEqual("exception", exception["t"])
        self.assertRegex(exception["msg"], "^ValueError: y{1000,}" + re.escape(MESSAGE_CUT) + "$")
        self.assertLessEqual(len(exception["msg"]), MAX_LINE_BYTES // 4 + len(MESSAGE_CUT))
        self.assertTrue(exception["traceback"].startswith(TRACEBACK_CUT), "the traceback keeps its end")
        self.assertTrue(exception["traceback"].endswith("yyyy"))

    def test_print_is_info_and_stderr_is_warning_line_by_line(self):
        code, lines, _, stderr = run("actions:printing")
        self.assertEqual(0, code)
        self.assertEqual(["first line", "two words and more", "partial at exit"], logs(lines, "INFO"))
        warnings = logs(lines, "WARNING")
        self.assertEqual("to stderr", warnings[0])
        self.assertIn("careful", warnings[1])
        self.assertEqual("", stderr)
        self.assertEqual({"t": "result", "value": None}, lines[-1])

    def test_child_processes_write_to_the_real_stdout(self):
        code, lines, out, _ = run("actions:child")
        self.assertEqual(0, code)
        self.assertIn("raw from a child\n", out)
        self.assertEqual({"t": "result", "value": None}, lines[-1])

    def test_prompts_are_keyword_arguments(self):
        stdin = json.dumps({"label": "pre-upgrade", "count": 3, "flag": True, "items": ["a", "b"]})
        code, lines, _, _ = run("actions:prompts", stdin)
        self.assertEqual(0, code)
        self.assertEqual(
            {"t": "result", "value": {"label": "pre-upgrade", "count": 3, "flag": True, "items": ["a", "b"]}}, lines[-1]
        )

    def test_coroutine_functions_are_run(self):
        code, lines, _, _ = run("actions:coroutine", '{"label": "x"}')
        self.assertEqual(0, code)
        self.assertEqual(["awaited"], logs(lines))
        self.assertEqual({"t": "result", "value": "x"}, lines[-1])

    def test_result_that_is_not_json_is_its_repr(self):
        code, lines, _, _ = run("actions:returns_object")
        self.assertEqual(0, code)
        self.assertRegex(lines[-1]["value"], r"^<object object at 0x[0-9a-f]+>$")

    def test_result_of_a_primitive_is_json(self):
        _, lines, _, _ = run("actions:returns_task")
        self.assertEqual(
            {"id": 3, "kind": "stop", "status": "succeeded", "message": "", "result": {"ok": True}}, lines[-1]["value"]
        )

    def test_nothing_returned_is_null(self):
        code, lines, _, _ = run("actions:returns_nothing")
        self.assertEqual(0, code)
        self.assertEqual(["done"], logs(lines))
        self.assertEqual({"t": "result", "value": None}, lines[-1])

    def test_exception_line_and_exit_1(self):
        code, lines, _, _ = run("actions:crash")
        self.assertEqual(1, code)
        self.assertEqual(["about to fail", "half a line"], logs(lines))
        last = lines[-1]
        self.assertEqual("exception", last["t"])
        self.assertEqual("ValueError: bad label", last["msg"])
        self.assertTrue(last["traceback"].startswith("Traceback (most recent call last):"))
        self.assertIn('actions.py", line', last["traceback"])
        self.assertNotIn("run.py", last["traceback"], "the runner's own frame is left out")
        self.assertTrue(last["traceback"].endswith("ValueError: bad label"))
        self.assertFalse(any(l["t"] == "result" for l in lines))

    def test_the_runner_logs_no_error_for_the_exception(self):
        _, lines, _, _ = run("actions:crash")
        self.assertEqual([], logs(lines, "ERROR"))
        _, lines, _, _ = run("actions:crash_after_error")
        self.assertEqual(["backup failed: disk full"], logs(lines, "ERROR"), "the action's own ERROR line stays first and only")
        self.assertEqual("RuntimeError: second", lines[-1]["msg"])

    def test_exceptions_of_the_package_read_styrmin(self):
        code, lines, _, _ = run("actions:crash_styrmin")
        self.assertEqual(1, code)
        self.assertEqual("styrmin.Conflict: the Job demo-job is still running", lines[-1]["msg"])

    def test_sys_exit(self):
        code, lines, _, _ = run("actions:exits", '{"code": 0}')
        self.assertEqual((0, "result"), (code, lines[-1]["t"]))
        code, lines, _, _ = run("actions:exits", '{"code": 4}')
        self.assertEqual((1, "SystemExit: 4"), (code, lines[-1]["msg"]))

    def test_environment_is_left_as_it_is(self):
        _, lines, _, _ = run("actions:env", env={"STYRMIN_ACTION": "backup"})
        self.assertEqual({"STYRMIN_ACTION": "backup", "STYRMIN_ACTION_FUNCTION": "actions:env"}, lines[-1]["value"])

    def test_exit_2_when_the_function_cannot_start(self):
        tests = [
            ("no colon", "actions", "{}", "must be module:function"),
            ("empty", "", "{}", "must be module:function"),
            ("no module", "nowhere:f", "{}", "module nowhere not found in the bundle"),
            ("missing dependency", "broken:f", "{}", "cannot import module broken: ModuleNotFoundError"),
            ("module raises", "raises:f", "{}", "cannot import module raises: ZeroDivisionError: at import"),
            ("no function", "actions:nope", "{}", "module actions has no function nope"),
            ("not callable", "actions:not_a_function", "{}", "is a int, not a function"),
            ("stdin not JSON", "actions:levels", "label=x", "standard input is not JSON"),
            ("stdin empty", "actions:levels", "", "standard input is not JSON"),
            ("stdin a list", "actions:levels", "[1]", "standard input is a JSON list"),
            ("unknown prompt", "actions:prompts", '{"label": "x", "other": 1}', "does not take the prompts"),
            ("missing prompt", "actions:prompts", "{}", "does not take the prompts"),
        ]
        for name, function, stdin, want in tests:
            with self.subTest(name):
                code, lines, _, _ = run(function, stdin)
                self.assertEqual(2, code)
                errors = logs(lines, "ERROR")
                self.assertEqual(1, len(errors), lines)
                self.assertIn(want, errors[0])
                self.assertFalse(any(l["t"] in ("result", "exception") for l in lines))

    def test_sigterm_ends_the_action_promptly(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith("STYRMIN_")}
        env.update({"PYTHONPATH": SDK, "STYRMIN_ACTION_FUNCTION": "actions:sleeps"})
        proc = subprocess.Popen(
            [sys.executable, "-m", "styrmin.run"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=self.bundle, env=env
        )
        proc.stdin.write(b"{}")
        proc.stdin.close()
        first = json.loads(proc.stdout.readline())
        self.assertEqual("sleeping", first["msg"])
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=10)
        rest = proc.stdout.read().decode()
        proc.stdout.close()
        self.assertLess(time.monotonic() - started, 5)
        self.assertEqual(128 + signal.SIGTERM, code)
        self.assertNotIn('"t": "result"', rest)
        self.assertNotIn('"t": "exception"', rest)


if __name__ == "__main__":
    unittest.main()
