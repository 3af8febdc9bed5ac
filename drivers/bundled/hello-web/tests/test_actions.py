"""Tests of the Hello Web actions, run by `styrmin driver test` against a fake Styrmin."""

import unittest

import styrmin
from styrmin import testing


class SmokeTestTest(unittest.TestCase):
    def test_fetches_the_site_through_its_service_in_a_job(self):
        fake = testing.FakeStyrmin("shop", release="shop", components=["web"])
        fake.run("actions:smoke_test")
        [job] = fake.calls_of("execute_commands")
        self.assertEqual(job.args["image"], "busybox:1.36")
        self.assertIn("http://shop-hello-web:80/", job.args["commands"][0])

    def test_a_site_that_never_answers_fails_the_check(self):
        fake = testing.FakeStyrmin(jobs=[testing.Job(succeeded=False, message="The Job demo-job failed: exit status 1")])
        with self.assertRaisesRegex(styrmin.CommandsFailed, "exit status 1"):
            fake.run("actions:smoke_test")


class FetchPageTest(unittest.TestCase):
    def test_fetches_the_given_path(self):
        fake = testing.FakeStyrmin("shop")
        fake.run("actions:fetch_page", path="/about.html")
        self.assertIn("http://shop-hello-web:80/about.html", fake.calls_of("execute_commands")[0].args["commands"][0])

    def test_a_path_with_a_shell_character_is_refused_before_any_job(self):
        fake = testing.FakeStyrmin()
        with self.assertRaisesRegex(ValueError, "must start with /"):
            fake.run("actions:fetch_page", path="/$(reboot)")
        self.assertEqual(fake.calls, [])


class RestartTest(unittest.TestCase):
    def test_stops_then_starts_the_web_component(self):
        fake = testing.FakeStyrmin(components=["web"])
        fake.run("actions:restart")
        self.assertEqual(
            [(c.primitive, c.args["components"]) for c in fake.calls],
            [("stop_components", ["web"]), ("start_components", ["web"])],
        )
        self.assertFalse(fake.stopped["web"])

    def test_a_failed_stop_does_not_start_again(self):
        fake = testing.FakeStyrmin(components=["web"], tasks=[testing.Task(status="failed", message="pods did not go")])
        with self.assertRaisesRegex(styrmin.TaskFailed, "pods did not go"):
            fake.run("actions:restart")
        self.assertEqual([c.primitive for c in fake.calls], ["stop_components"])


if __name__ == "__main__":
    unittest.main()
