"""The pod runtime's entrypoint (styrmin.pod) against a local fake of the action endpoints."""

import base64
import io
import json
import os
import tempfile
import unittest
from contextlib import redirect_stdout
from unittest import mock

from styrmin import pod
from styrmin.errors import StyrminError

from .test_primitives import TOKEN, FakeStyrmin


def b64(text):
    return base64.b64encode(text.encode()).decode()


class PodTest(unittest.TestCase):
    def setUp(self):
        self.fake = FakeStyrmin()
        self.addCleanup(self.fake.close)
        work = tempfile.TemporaryDirectory()
        self.addCleanup(work.cleanup)
        env = mock.patch.dict(
            os.environ,
            {
                "STYRMIN_API_URL": self.fake.url,
                "STYRMIN_ACTION_TOKEN": TOKEN,
                "STYRMIN_ACTION_FUNCTION": "pkg.actions:add",
                "TMPDIR": work.name,
            },
        )
        env.start()
        self.addCleanup(env.stop)
        tempfile.tempdir = None  # read TMPDIR again
        self.addCleanup(setattr, tempfile, "tempdir", None)

    def test_fetches_the_run_then_runs_the_action_with_its_prompts(self):
        module = "def add(a, b):\n    print('adding')\n    return a + b\n"
        self.fake.answer("GET run", (200, {"files": {"pkg/__init__.py": "", "pkg/actions.py": b64(module)}, "prompts": {"a": 2, "b": 3}}))
        fd, path = tempfile.mkstemp()
        os.close(fd)
        self.addCleanup(os.remove, path)
        # The runner is a child process: its output goes to file descriptor 1.
        saved = os.dup(1)
        try:
            with open(path, "wb") as out:
                os.dup2(out.fileno(), 1)
                code = pod.main()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        with open(path, encoding="utf-8") as f:
            lines = [json.loads(line) for line in f if line.startswith("{")]
        self.assertEqual(0, code)
        self.assertEqual(f"Bearer {TOKEN}", self.fake.requests[0]["auth"])
        self.assertIn({"t": "result", "value": 5}, lines)
        self.assertIn("adding", [line.get("msg") for line in lines])

    def test_a_run_that_cannot_be_fetched_does_not_start(self):
        self.fake.answer("GET run", (401, {"error": "This action token is unknown, or its run has ended."}))
        out = io.StringIO()
        with redirect_stdout(out):
            code = pod.main()
        self.assertEqual(pod.EXIT_NOT_STARTED, code)
        line = json.loads(out.getvalue())
        self.assertEqual("ERROR", line["level"])
        self.assertEqual("the action did not start: This action token is unknown, or its run has ended.", line["msg"])

    def test_a_bundle_path_outside_the_bundle_is_refused(self):
        with tempfile.TemporaryDirectory() as root:
            for name in ("../escape.py", "/etc/passwd", "a/../../escape.py"):
                with self.subTest(name=name), self.assertRaises(StyrminError):
                    pod.write_bundle(root, {name: b"x"})
            self.assertEqual([], os.listdir(root))
