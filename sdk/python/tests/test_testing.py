"""styrmin.testing: an action run against the fake records its calls and answers as Styrmin would."""

import os
import sys
import tempfile
import textwrap
import unittest

import styrmin
from styrmin import testing

ACTIONS = textwrap.dedent(
    """
    import os
    import styrmin

    def restart(component="web"):
        styrmin.log.info("restarting %s of %s", component, os.environ["STYRMIN_RELEASE"])
        styrmin.stop_components([component])
        stopped = styrmin.deployment().components[0].stopped
        styrmin.start_components(component)
        return stopped

    def backup(label):
        styrmin.execute_commands(["pg_dump > /tmp/" + label], image="postgres:17", secret_env={"PGPASSWORD": "password"})
        styrmin.execute_commands("echo done", image="busybox")

    def bad_image():
        styrmin.execute_commands(["true"], image="has space")
    """
)


class FakeStyrminTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        with open(os.path.join(cls.dir.name, "fake_actions.py"), "w") as f:
            f.write(ACTIONS)
        sys.path.insert(0, cls.dir.name)

    @classmethod
    def tearDownClass(cls):
        sys.path.remove(cls.dir.name)
        cls.dir.cleanup()

    def test_records_each_primitive_call_in_order_and_tracks_stopped_components(self):
        fake = testing.FakeStyrmin("shop", components=["web"])
        self.assertTrue(fake.run("fake_actions:restart"))
        self.assertEqual(
            [(c.primitive, c.args.get("components")) for c in fake.calls],
            [("stop_components", ["web"]), ("deployment", None), ("start_components", ["web"])],
        )
        self.assertFalse(fake.stopped["web"])
        self.assertIn(("INFO", "restarting web of shop"), fake.logs)

    def test_an_unknown_component_is_refused_as_styrmin_refuses_it(self):
        fake = testing.FakeStyrmin(components=["web"])
        with self.assertRaisesRegex(styrmin.StyrminError, "unknown component db") as caught:
            fake.run("fake_actions:restart", component="db")
        self.assertEqual(caught.exception.status, 400)

    def test_scripted_jobs_end_in_order_then_succeed(self):
        fake = testing.FakeStyrmin(secrets=["password"], jobs=[testing.Job(), testing.Job(succeeded=False, message="exit 3")])
        with self.assertRaisesRegex(styrmin.CommandsFailed, "exit 3"):
            fake.run("fake_actions:backup", label="nightly")
        first, second = fake.calls_of("execute_commands")
        self.assertEqual(first.args["secret_env"], {"PGPASSWORD": "password"})
        self.assertEqual(second.args["commands"], ["echo done"])
        fake.run("fake_actions:backup", label="again")

    def test_secret_env_naming_no_secret_parameter_is_refused(self):
        fake = testing.FakeStyrmin()
        with self.assertRaisesRegex(styrmin.StyrminError, "not a secret parameter"):
            fake.run("fake_actions:backup", label="x")

    def test_the_primitives_own_checks_run_before_any_call(self):
        fake = testing.FakeStyrmin()
        with self.assertRaisesRegex(ValueError, "without spaces"):
            fake.run("fake_actions:bad_image")
        self.assertEqual(fake.calls, [])

    def test_a_failed_task_raises_task_failed_and_leaves_components_as_they_were(self):
        fake = testing.FakeStyrmin(components=["web"], tasks=[testing.Task(status="failed", message="stuck")])
        with self.assertRaisesRegex(styrmin.TaskFailed, "stuck"):
            fake.run("fake_actions:restart")
        self.assertFalse(fake.stopped["web"])

    def test_a_missing_function_or_wrong_prompts_are_refused_as_a_run_would(self):
        fake = testing.FakeStyrmin()
        with self.assertRaisesRegex(ValueError, "has no function nope"):
            fake.run("fake_actions:nope")
        with self.assertRaisesRegex(ValueError, "does not take the prompts"):
            fake.run("fake_actions:backup", lable="typo")
        with self.assertRaisesRegex(ValueError, "is not a primitive"):
            fake.calls_of("stop")


if __name__ == "__main__":
    unittest.main()
