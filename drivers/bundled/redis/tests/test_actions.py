"""Tests of the Redis actions, run by `styrmin driver test` against a fake Styrmin."""

import unittest

from styrmin import testing


def fake():
    """A fake deployment of this driver with its two components and its secret password."""
    return testing.FakeStyrmin("cache", secrets=["password"], components=["primary", "replica"])


class FlushTest(unittest.TestCase):
    def test_flushes_one_database_authenticated_by_the_secret_password(self):
        f = fake()
        f.run("actions:flush", database=3, confirm="FLUSH")
        [job] = f.calls_of("execute_commands")
        self.assertEqual(job.args["secret_env"], {"REDISCLI_AUTH": "password"})
        self.assertIn("-n 3 FLUSHDB", job.args["commands"][0])

    def test_nothing_is_flushed_without_the_confirmation(self):
        f = fake()
        with self.assertRaisesRegex(ValueError, "type FLUSH"):
            f.run("actions:flush", all_databases=True, confirm="flush")
        self.assertEqual(f.calls, [])


class ReplicasTest(unittest.TestCase):
    def test_pause_and_resume_touch_only_the_replicas(self):
        f = fake()
        f.run("actions:pause_replicas")
        self.assertEqual(f.stopped, {"primary": False, "replica": True})
        f.run("actions:resume_replicas")
        self.assertEqual(f.stopped, {"primary": False, "replica": False})
        self.assertEqual([c.args["components"] for c in f.calls], [["replica"], ["replica"]])


if __name__ == "__main__":
    unittest.main()
