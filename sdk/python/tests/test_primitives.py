"""The primitives against a local fake of the action endpoints (/api/action/v1/)."""

import json
import os
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from unittest import mock

import styrmin
from styrmin import _api, primitives

TOKEN = "sta_test-token-0123456789"


class FakeStyrmin:
    """A fake Styrmin server: answers from a script of (status, body) per "METHOD path", records requests."""

    def __init__(self):
        self.requests = []
        self.answers = {}
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                self._answer()

            def do_POST(self):
                self._answer()

            def log_message(self, *args):
                pass

            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                key = f"{self.command} {self.path}"
                with fake.lock:
                    fake.requests.append(
                        {
                            "key": key,
                            "auth": self.headers.get("Authorization"),
                            "type": self.headers.get("Content-Type"),
                            "body": json.loads(raw) if raw else None,
                        }
                    )
                    script = fake.answers.get(key) or [(404, {"error": f"no route {key}"})]
                    status, body = script.pop(0) if len(script) > 1 else script[0]
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def answer(self, key, *script):
        """Answer key ("POST /api/action/v1/jobs") with the (status, body) pairs in turn, the last one forever."""
        self.answers["%s /api/action/v1/%s" % tuple(key.split(" ", 1))] = list(script)

    def keys(self):
        return [r["key"] for r in self.requests]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class PrimitivesTest(unittest.TestCase):
    def setUp(self):
        self.fake = FakeStyrmin()
        self.addCleanup(self.fake.close)
        env = mock.patch.dict(os.environ, {"STYRMIN_API_URL": self.fake.url + "/", "STYRMIN_ACTION_TOKEN": TOKEN})
        env.start()
        self.addCleanup(env.stop)
        poll = mock.patch.object(primitives, "POLL_INTERVAL", 0.01)
        poll.start()
        self.addCleanup(poll.stop)

    def test_every_call_sends_the_action_token(self):
        self.fake.answer("GET deployment", (200, {"name": "demo"}))
        styrmin.deployment()
        self.assertEqual(f"Bearer {TOKEN}", self.fake.requests[0]["auth"])
        self.assertEqual("GET /api/action/v1/deployment", self.fake.requests[0]["key"])

    def test_deployment(self):
        self.fake.answer(
            "GET deployment",
            (
                200,
                {
                    "name": "demo",
                    "namespace": "team-a",
                    "release": "demo",
                    "driver": "postgresql",
                    "driver_version": "1.0.0",
                    "app_version": "16.4.0",
                    "parameters": {"database": "app", "storage_gib": 8},
                    "components": [{"name": "primary", "title": "Database server", "stopped": False}],
                },
            ),
        )
        d = styrmin.deployment()
        self.assertEqual(
            styrmin.Deployment(
                name="demo",
                namespace="team-a",
                release="demo",
                driver="postgresql",
                driver_version="1.0.0",
                app_version="16.4.0",
                parameters={"database": "app", "storage_gib": 8},
                components=[styrmin.Component(name="primary", title="Database server", stopped=False)],
            ),
            d,
        )
        with self.assertRaises(AttributeError):
            d.name = "other"  # frozen

    def test_stop_components_waits_for_its_task(self):
        self.fake.answer("POST tasks/stop", (202, {"task_id": 12}))
        running = {"id": 12, "kind": "stop", "status": "running", "message": "", "result": None}
        done = dict(running, status="succeeded", message="stopped primary", result={"primary": 0})
        self.fake.answer("GET tasks/12", (200, dict(running, status="queued")), (200, running), (200, running), (200, done))
        task = styrmin.stop_components(["primary"])
        self.assertEqual(styrmin.TaskResult(12, "stop", "succeeded", "stopped primary", {"primary": 0}), task)
        self.assertEqual(["POST /api/action/v1/tasks/stop"] + ["GET /api/action/v1/tasks/12"] * 4, self.fake.keys())
        self.assertEqual({"components": ["primary"]}, self.fake.requests[0]["body"])
        self.assertEqual("application/json", self.fake.requests[0]["type"])

    def test_waiting_rides_out_an_unreachable_server(self):
        self.fake.answer("POST tasks/stop", (202, {"task_id": 12}))
        done = {"id": 12, "kind": "stop", "status": "succeeded", "message": "", "result": None}
        self.fake.answer("GET tasks/12", (503, {"error": "restarting"}), (502, b"bad gateway"), (200, done))
        self.assertEqual("succeeded", styrmin.stop_components().status)
        with mock.patch.object(primitives, "POLL_RETRIES", 2):
            self.fake.answer("GET tasks/12", (503, {"error": "restarting"}), (503, {"error": "restarting"}), (503, {"error": "still restarting"}))
            with self.assertRaisesRegex(styrmin.StyrminError, "still restarting"):
                styrmin.stop_components()

    def test_waiting_stops_at_a_refusal(self):
        self.fake.answer("POST tasks/stop", (202, {"task_id": 12}))
        self.fake.answer("GET tasks/12", (404, {"error": "task 12 was not started by this hook step"}))
        with self.assertRaisesRegex(styrmin.StyrminError, "not started by this hook step"):
            styrmin.stop_components()
        self.assertEqual(2, len(self.fake.requests))

    def test_component_names(self):
        self.fake.answer("POST tasks/start", (202, {"task_id": 13}))
        self.fake.answer("GET tasks/13", (200, {"id": 13, "kind": "start", "status": "succeeded", "message": "", "result": None}))
        for names, want in ((None, []), ([], []), ("web", ["web"]), (("a", "b"), ["a", "b"]), ({"b", "a"}, ["a", "b"])):
            with self.subTest(names=names):
                styrmin.start_components(names)
                self.assertEqual({"components": want}, self.fake.requests[-2]["body"])
        for names, err in (([1], TypeError), (5, TypeError), ([""], ValueError)):
            with self.subTest(names=names), self.assertRaises(err):
                styrmin.start_components(names)

    def test_failed_or_canceled_task_raises_task_failed(self):
        for status in ("failed", "canceled"):
            with self.subTest(status):
                self.fake.answer("POST tasks/start", (202, {"task_id": 13}))
                self.fake.answer("GET tasks/13", (200, {"id": 13, "kind": "start", "status": status, "message": "pods never became ready", "result": {"x": 1}}))
                with self.assertRaises(styrmin.TaskFailed) as caught:
                    styrmin.start_components()
                self.assertEqual(status, caught.exception.task.status)
                self.assertEqual({"x": 1}, caught.exception.task.result)
                self.assertIn("pods never became ready", str(caught.exception))
                self.assertIsInstance(caught.exception, styrmin.StyrminError)

    def test_upgrade_deployment_version(self):
        self.fake.answer("POST tasks/upgrade", (202, {"task_id": 14}))
        self.fake.answer("GET tasks/14", (200, {"id": 14, "kind": "upgrade", "status": "succeeded", "message": "upgraded", "result": {"version": "16.5.0"}}))
        task = styrmin.upgrade_deployment_version("16.5.0")
        self.assertEqual({"version": "16.5.0"}, self.fake.requests[0]["body"])
        self.assertEqual("upgrade", task.kind)
        with self.assertRaises(TypeError):
            styrmin.upgrade_deployment_version(16)
        with self.assertRaises(ValueError):
            styrmin.upgrade_deployment_version(" ")

    def test_upgrade_deployment_version_gives_its_hook_actions_their_prompts(self):
        self.fake.answer("POST tasks/upgrade", (202, {"task_id": 15}))
        self.fake.answer("GET tasks/15", (200, {"id": 15, "kind": "upgrade", "status": "succeeded", "message": "upgraded"}))
        styrmin.upgrade_deployment_version("16.5.0", prompts={"backup": {"label": "before-16-5", "keep": 3}})
        self.assertEqual({"version": "16.5.0", "prompts": {"backup": {"label": "before-16-5", "keep": 3}}}, self.fake.requests[0]["body"])
        for bad in ({"backup": "nightly"}, ["backup"]):
            with self.subTest(prompts=bad), self.assertRaises(TypeError):
                styrmin.upgrade_deployment_version("16.5.0", prompts=bad)

    def test_a_refused_prompt_names_its_field(self):
        message = "Some values need fixing: prompt.backup.label: Backup label is required."
        self.fake.answer("POST tasks/upgrade", (400, {"error": message}))
        with self.assertRaises(styrmin.StyrminError) as caught:
            styrmin.upgrade_deployment_version("16.5.0")
        self.assertEqual(message, str(caught.exception))

    def test_upgrade_loop_is_a_conflict(self):
        self.fake.answer("POST tasks/upgrade", (409, {"error": "an upgrade action cannot upgrade its own deployment"}))
        with self.assertRaises(styrmin.Conflict) as caught:
            styrmin.upgrade_deployment_version("16.5.0")
        self.assertEqual("an upgrade action cannot upgrade its own deployment", str(caught.exception))
        self.assertEqual(409, caught.exception.status)

    def test_execute_commands_sends_the_job(self):
        self.fake.answer("POST jobs", (200, {"job": "demo-job", "succeeded": True, "deleted_job": "demo-job", "output": "1\n(1 row)"}))
        result = styrmin.execute_commands(
            ["pg_isready", "psql -c 'SELECT 1'"],
            image="postgres:17.2",
            env={"PGHOST": "demo-postgresql", "PGPORT": 5432, "VERBOSE": True},
            secret_env={"PGPASSWORD": "password", "NEW_PASSWORD": "prompt.new_password"},
            timeout=120,
        )
        self.assertEqual(styrmin.ExecResult(job="demo-job", succeeded=True, deleted_job="demo-job", output="1\n(1 row)"), result)
        self.assertEqual(
            {
                "commands": ["pg_isready", "psql -c 'SELECT 1'"],
                "image": "postgres:17.2",
                "env": {"PGHOST": "demo-postgresql", "PGPORT": "5432", "VERBOSE": "true"},
                "secret_env": {"PGPASSWORD": "password", "NEW_PASSWORD": "prompt.new_password"},
                "timeout": 120,
            },
            self.fake.requests[0]["body"],
        )

    def test_execute_commands_defaults(self):
        self.fake.answer("POST jobs", (200, {"job": "demo-job", "succeeded": True, "deleted_job": ""}))
        result = styrmin.execute_commands("echo hello", image="busybox:1.36")
        self.assertEqual("", result.deleted_job)
        self.assertEqual("", result.output, "an answer without output is a Job that printed nothing")
        self.assertEqual(
            {"commands": ["echo hello"], "image": "busybox:1.36", "env": {}, "secret_env": {}, "timeout": 600},
            self.fake.requests[0]["body"],
        )

    def test_execute_commands_waits_as_long_as_the_job(self):
        seen = []
        real = _api.urllib.request.urlopen

        def urlopen(request, timeout):
            seen.append(timeout)
            return real(request, timeout=timeout)

        self.fake.answer("POST jobs", (200, {"job": "demo-job", "succeeded": True, "deleted_job": ""}))
        with mock.patch.object(_api.urllib.request, "urlopen", urlopen):
            styrmin.execute_commands(["true"], image="busybox", timeout=1800)
            styrmin.execute_commands(["true"], image="busybox", timeout=2.5)
        self.assertEqual([1800 + primitives.JOB_CALL_MARGIN, 3 + primitives.JOB_CALL_MARGIN], seen)
        self.assertEqual(3, self.fake.requests[-1]["body"]["timeout"])

    def test_failed_job_raises_commands_failed(self):
        self.fake.answer(
            "POST jobs", (200, {"job": "demo-job", "succeeded": False, "message": "The Job demo-job failed: its commands exited with code 1.", "tail_lines": 200})
        )
        with self.assertRaises(styrmin.CommandsFailed) as caught:
            styrmin.execute_commands(["true", "false"], image="busybox")
        err = caught.exception
        self.assertEqual(("demo-job", "The Job demo-job failed: its commands exited with code 1.", 200), (err.job, err.message, err.tail_lines))
        self.assertEqual("The Job demo-job failed: its commands exited with code 1.", str(err), "Styrmin's message, which names the Job, once")

    def test_running_job_is_a_conflict(self):
        self.fake.answer("POST jobs", (409, {"error": "the Job demo-job is still running; wait for it to end"}))
        with self.assertRaises(styrmin.Conflict) as caught:
            styrmin.execute_commands(["true"], image="busybox")
        self.assertEqual("the Job demo-job is still running; wait for it to end", str(caught.exception))

    def test_execute_commands_checks_its_arguments_before_calling(self):
        tests = [
            ("no commands", dict(commands=[]), ValueError, "at least one"),
            ("commands not a list", dict(commands=5), TypeError, "list of shell command strings"),
            ("command not a string", dict(commands=["ok", 3]), TypeError, "commands[1]"),
            ("empty command", dict(commands=[" "]), ValueError, "commands[0] is empty"),
            ("no image", dict(image=""), ValueError, "image"),
            ("image with a space", dict(image="postgres 17"), ValueError, "without spaces"),
            ("image not a string", dict(image=None), TypeError, "image"),
            ("env not a dict", dict(env=["A=1"]), TypeError, "env must be a dict"),
            ("bad variable name", dict(env={"1A": "x"}), ValueError, "not a valid environment variable name"),
            ("env value a list", dict(env={"A": ["x"]}), TypeError, "env['A']"),
            ("secret_env value empty", dict(secret_env={"PGPASSWORD": ""}), ValueError, "secret parameter"),
            ("secret_env value not a name", dict(secret_env={"PGPASSWORD": 5}), TypeError, "secret_env['PGPASSWORD']"),
            ("variable in both", dict(env={"A": "1"}, secret_env={"A": "password"}), ValueError, "both env and secret_env"),
            ("timeout zero", dict(timeout=0), ValueError, "between 1 and 86400"),
            ("timeout too long", dict(timeout=86401), ValueError, "between 1 and 86400"),
            ("timeout NaN", dict(timeout=float("nan")), ValueError, "between 1 and 86400"),
            ("timeout a string", dict(timeout="10m"), TypeError, "number of seconds"),
            ("timeout a boolean", dict(timeout=True), TypeError, "number of seconds"),
        ]
        for name, change, err, want in tests:
            with self.subTest(name):
                kwargs = dict(commands=["true"], image="busybox")
                kwargs.update(change)
                commands = kwargs.pop("commands")
                with self.assertRaises(err) as caught:
                    styrmin.execute_commands(commands, **kwargs)
                self.assertIn(want, str(caught.exception))
        self.assertEqual([], self.fake.requests, "nothing is sent")
        with self.assertRaises(TypeError):
            styrmin.execute_commands(["true"], "busybox")  # image is keyword-only

    def test_a_secret_value_is_never_in_an_error(self):
        with self.assertRaises(TypeError) as caught:
            styrmin.execute_commands(["true"], image="busybox", env={"A": ["hunter2-secret"]})
        self.assertNotIn("hunter2-secret", str(caught.exception))

    def test_server_errors_raise_styrmin_error_with_the_server_text(self):
        for status in (400, 401, 403, 404, 503):
            with self.subTest(status):
                self.fake.answer("GET deployment", (status, {"error": f"problem {status}: what to do"}))
                with self.assertRaises(styrmin.StyrminError) as caught:
                    styrmin.deployment()
                self.assertEqual(f"problem {status}: what to do", str(caught.exception))
                self.assertEqual(status, caught.exception.status)
                self.assertNotIsInstance(caught.exception, styrmin.Conflict)

    def test_answer_that_is_not_styrmin_json(self):
        self.fake.answer("GET deployment", (502, b"<html>Bad Gateway</html>"))
        with self.assertRaises(styrmin.StyrminError) as caught:
            styrmin.deployment()
        self.assertIn("502", str(caught.exception))
        self.assertIn("<html>Bad Gateway</html>", str(caught.exception))
        self.fake.answer("GET deployment", (200, b"not json"))
        with self.assertRaisesRegex(styrmin.StyrminError, "not JSON"):
            styrmin.deployment()

    def test_task_id_missing(self):
        self.fake.answer("POST tasks/stop", (202, {}))
        with self.assertRaisesRegex(styrmin.StyrminError, "did not say which"):
            styrmin.stop_components()

    def test_errors_never_hold_the_token(self):
        self.fake.answer("GET deployment", (401, {"error": "the action token is not valid (revoked or expired)"}))
        with self.assertRaises(styrmin.StyrminError) as caught:
            styrmin.deployment()
        self.assertNotIn(TOKEN, str(caught.exception))
        self.assertNotIn(TOKEN, repr(caught.exception.args))


class OutsideStyrminTest(unittest.TestCase):
    def test_missing_environment(self):
        for missing in ("STYRMIN_API_URL", "STYRMIN_ACTION_TOKEN"):
            with self.subTest(missing):
                env = {"STYRMIN_API_URL": "http://127.0.0.1:1", "STYRMIN_ACTION_TOKEN": TOKEN}
                del env[missing]
                with mock.patch.dict(os.environ, env, clear=True):
                    with self.assertRaises(styrmin.StyrminError) as caught:
                        styrmin.deployment()
                self.assertIn(missing, str(caught.exception))
                self.assertIn("run this action through Styrmin", str(caught.exception))
                self.assertIsNone(caught.exception.status)

    def test_unreachable_server(self):
        with mock.patch.dict(os.environ, {"STYRMIN_API_URL": "http://127.0.0.1:1", "STYRMIN_ACTION_TOKEN": TOKEN}):
            with self.assertRaises(styrmin.StyrminError) as caught:
                styrmin.deployment()
        self.assertIn("cannot reach Styrmin at http://127.0.0.1:1", str(caught.exception))
        self.assertNotIn(TOKEN, str(caught.exception))


if __name__ == "__main__":
    unittest.main()
