"""styrmin.Client against a real, running Styrmin server.

Environment (all four required, else every test skips; some but not all is an error):

    STYRMIN_TEST_URL              the server's base URL, e.g. http://127.0.0.1:8080
    STYRMIN_TEST_TOKEN_READONLY   a personal API token (stp_...) of a read-only user
    STYRMIN_TEST_TOKEN_OPERATOR   a personal API token of an operator
    STYRMIN_TEST_TOKEN_ADMIN      a personal API token of an admin

Optional:

    STYRMIN_TEST_DRIVER           the driver to install (default: hello-web).
    STYRMIN_TEST_DRIVER_VERSION   its version to install (default: its newest). That version
                                  must install, upgrade and delete successfully with its
                                  default parameters on the server's cluster (hooks included).
    STYRMIN_TEST_TIMEOUT          seconds each task may take (default 600)

The tests install one deployment named ``pyclient-<random>`` (namespace the
same), upgrade it without changes and delete it; they create and revoke one API
token of the admin. Nothing else on the server changes. Run from sdk/python:

    python3 -B -m unittest -v tests.test_client_live
"""

import os
import secrets
import unittest

import styrmin
from styrmin import client as api

_REQUIRED = ("STYRMIN_TEST_URL", "STYRMIN_TEST_TOKEN_READONLY", "STYRMIN_TEST_TOKEN_OPERATOR", "STYRMIN_TEST_TOKEN_ADMIN")
_SET = [name for name in _REQUIRED if os.environ.get(name)]


@unittest.skipUnless(_SET, "set " + ", ".join(_REQUIRED) + " to test the client against a running Styrmin")
class LiveTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        missing = [name for name in _REQUIRED if name not in _SET]
        if missing:
            raise RuntimeError(f"{', '.join(missing)} not set, but {', '.join(_SET)} are: set all four")
        url = os.environ["STYRMIN_TEST_URL"]
        cls.url = url
        cls.readonly = styrmin.Client(url, os.environ["STYRMIN_TEST_TOKEN_READONLY"])
        cls.operator = styrmin.Client(url, os.environ["STYRMIN_TEST_TOKEN_OPERATOR"])
        cls.admin = styrmin.Client(url, os.environ["STYRMIN_TEST_TOKEN_ADMIN"])
        cls.timeout = float(os.environ.get("STYRMIN_TEST_TIMEOUT") or 600)
        cls.driver_name = os.environ.get("STYRMIN_TEST_DRIVER") or "hello-web"
        cls.driver_version = os.environ.get("STYRMIN_TEST_DRIVER_VERSION") or ""

    def newest_version(self):
        """Return the version of the test driver to install (STYRMIN_TEST_DRIVER_VERSION, else its newest)."""
        return self.driver_version or self.readonly.driver(self.driver_name).versions[0]

    def test_me_tells_each_token_role(self):
        roles = {c.me().role: c.me().username for c in (self.readonly, self.operator, self.admin)}
        self.assertEqual({"read-only", "operator", "admin"}, set(roles))
        for username in roles.values():
            self.assertTrue(username)

    def test_read_only_lists_drivers_and_deployments(self):
        drivers = self.readonly.drivers()
        self.assertIn(self.driver_name, [d.name for d in drivers])
        self.assertTrue(all(isinstance(d, api.DriverSummary) for d in drivers))

        first = self.readonly.list_drivers(limit=1)
        self.assertEqual(1, len(first.items))
        self.assertEqual(drivers[0].name, first.items[0].name)
        if len(drivers) > 1:
            self.assertTrue(first.next_cursor, "a page of one of several drivers has a next cursor")
        self.assertEqual([d.name for d in drivers], [d.name for d in self.readonly.iter_drivers(limit=1)], "pages of one follow the cursor")

        summary = next(d for d in drivers if d.name == self.driver_name)
        driver = self.readonly.driver(self.driver_name)
        self.assertEqual(summary.version, driver.versions[0])
        self.assertEqual(summary.versions, len(driver.versions))
        version = self.readonly.driver_version(self.driver_name, driver.versions[0])
        self.assertEqual((self.driver_name, driver.versions[0]), (version.name, version.version))
        self.assertIsNotNone(version.created_at.tzinfo)
        self.assertIsInstance(version.spec, dict)

        live = self.readonly.deployments()
        every = self.readonly.deployments(include_deleted=True)
        self.assertTrue(all(isinstance(d, api.DeploymentSummary) and d.deleted_at is None for d in live))
        self.assertEqual([d.name for d in live], [d.name for d in every if d.deleted_at is None], "live ones first, then deleted ones")

    def test_not_found(self):
        with self.assertRaises(styrmin.NotFound) as caught:
            self.readonly.deployment("pyclient-no-such-deployment")
        self.assertEqual((404, "not_found"), (caught.exception.status, caught.exception.code))
        self.assertTrue(str(caught.exception))
        with self.assertRaises(styrmin.NotFound):
            self.readonly.driver("pyclient-no-such-driver")

    def test_read_only_token_may_not_change_anything(self):
        with self.assertRaises(styrmin.Forbidden) as caught:
            self.readonly.install(self.driver_name, self.newest_version(), new_name())
        self.assertEqual((403, "forbidden"), (caught.exception.status, caught.exception.code))
        self.assertTrue(str(caught.exception))
        with self.assertRaises(styrmin.Forbidden):
            self.operator.users()

    def test_a_bad_parameter_is_invalid_and_names_its_field(self):
        name = new_name()
        with self.assertRaises(styrmin.Invalid) as caught:
            self.operator.install(self.driver_name, self.newest_version(), name, parameters={"pyclient_no_such_parameter": "x"})
        err = caught.exception
        self.assertEqual((400, "invalid"), (err.status, err.code))
        self.assertIn("param.pyclient_no_such_parameter", err.fields, f"fields: {err.fields}")
        with self.assertRaises(styrmin.NotFound):
            self.readonly.deployment(name)

    def test_admin_lists_users_and_manages_its_tokens(self):
        usernames = [u.username for u in self.admin.users()]
        for c in (self.readonly, self.operator, self.admin):
            self.assertIn(c.me().username, usernames)

        me = self.admin.me()
        created = self.admin.create_token("pyclient live test " + secrets.token_hex(3))
        self.assertTrue(created.token.startswith("stp_"))
        self.assertEqual(me.username, created.username)
        self.assertIn(created.id, [t.id for t in self.admin.tokens()])
        self.assertEqual(me.username, styrmin.Client(self.url, created.token).me().username)
        self.admin.revoke_token(created.id)
        with self.assertRaises(styrmin.Unauthorized):
            styrmin.Client(self.url, created.token).me()

    def test_operator_installs_reviews_upgrades_and_deletes(self):
        name = new_name()
        version = self.newest_version()
        self.addCleanup(self.delete_if_live, name)

        installing = self.operator.install(self.driver_name, version, name)
        self.assertEqual(("install", name), (installing.kind, installing.deployment))
        installed = self.operator.wait(installing, timeout=self.timeout, poll=0.5)
        self.assertEqual("succeeded", installed.status, installed.message)
        self.assertIn(installed.id, [t.id for t in self.readonly.tasks(deployment=name)])
        seen = self.readonly.task(installed.id)
        self.assertIsInstance(seen, api.Task)
        self.assertTrue(seen.steps, "an install task has steps")
        for step in seen.steps:
            self.assertIsInstance(step, api.Step)
            self.assertTrue(step.title and step.status, step)
            self.assertIsNotNone(step.started_at.tzinfo)

        d = self.readonly.deployment(name)
        self.assertEqual((self.driver_name, version, name), (d.driver, d.driver_version, d.namespace))
        self.assertEqual(1, len(d.revisions))
        self.assertIn(name, [s.name for s in self.readonly.deployments()])

        review = self.operator.review_upgrade(name)
        self.assertIsInstance(review, api.UpgradeReview)
        self.assertEqual((version, version), (review.from_driver_version, review.driver_version))
        self.assertEqual(d.app_version, review.from_app_version)
        self.assertEqual("", review.dry_run_error)
        self.assertTrue(all(c.change == "unchanged" for c in review.changes), review.changes)
        self.assertEqual(1, len(self.readonly.deployment(name).revisions), "a dry run changes nothing")

        upgraded = self.operator.wait(self.operator.upgrade(name), timeout=self.timeout, poll=0.5)
        self.assertEqual(("upgrade", "succeeded"), (upgraded.kind, upgraded.status))
        self.assertEqual(2, len(self.readonly.deployment(name).revisions))

        deleted = self.operator.wait(self.operator.delete(name), timeout=self.timeout, poll=0.5)
        self.assertEqual(("delete", "succeeded"), (deleted.kind, deleted.status))
        self.assertNotIn(name, [s.name for s in self.readonly.deployments()])
        gone = [s for s in self.readonly.deployments(include_deleted=True) if s.name == name]
        self.assertEqual(1, len(gone))
        self.assertIsNotNone(gone[0].deleted_at)

    def delete_if_live(self, name):
        """Delete the deployment when a failed test left it installed."""
        try:
            if self.operator.deployment(name).deleted_at is None:
                self.operator.wait(self.operator.delete(name), timeout=self.timeout, raise_on_failure=False)
        except styrmin.StyrminError:
            pass


def new_name():
    """Return a fresh deployment name."""
    return "pyclient-" + secrets.token_hex(3)


if __name__ == "__main__":
    unittest.main()
