"""Tests of the PostgreSQL actions, run by `styrmin driver test` against a fake Styrmin."""

import unittest

import styrmin
from styrmin import testing


def fake(**kwargs):
    """A fake deployment of this driver, its superuser app and its password a secret parameter."""
    return testing.FakeStyrmin("db", parameters={"username": "app"}, secrets=["password"], components=["primary"], **kwargs)


class BackupTest(unittest.TestCase):
    def test_dumps_on_the_server_logging_in_with_the_secret_password(self):
        f = fake(jobs=[testing.Job(output="COPY 1\nsize=2048")])
        result = f.run("actions:backup", label="nightly", database="app")
        self.assertRegex(result["name"], r"^app-nightly-[0-9]{8}T[0-9]{6}Z\.dump$")
        self.assertEqual(result["size_bytes"], 2048, "the size the Job printed")
        [job] = f.calls_of("execute_commands")
        self.assertEqual(job.args["secret_env"], {"PGPASSWORD": "password"})
        self.assertEqual(job.args["env"]["PGUSER"], "app")
        self.assertEqual(job.args["env"]["PGHOST"], "db-postgresql")
        self.assertNotIn("PGPASSWORD", job.args["env"])
        self.assertIn("pg_dump --format=custom --username=app --dbname=app", job.args["commands"][0])

    def test_a_label_that_could_break_the_command_is_refused_before_any_call(self):
        f = fake()
        with self.assertRaisesRegex(ValueError, "backup label"):
            f.run("actions:backup", label="x; rm -rf /")
        self.assertEqual(f.calls, [])

    def test_a_failed_dump_fails_the_action(self):
        f = fake(jobs=[testing.Job(succeeded=False, message="pg_dump: error: connection refused")])
        with self.assertRaisesRegex(styrmin.CommandsFailed, "connection refused"):
            f.run("actions:backup")


LISTING = "\n".join(
    [
        "backup=app-nightly-20261201T020000Z.dump|1000|2026-12-01T02:00:01Z",
        "backup=not-a-backup.txt|5|2026-12-01T03:00:00Z",
        "backup=app-nightly-20261202T020000Z.dump|1100|2026-12-02T02:00:01Z",
        "backup=app-nightly-20261203T020000Z.dump|1200|2026-12-03T02:00:01Z",
        "listed=2026-12-04T12:00:00Z",
    ]
)


class BackupsTest(unittest.TestCase):
    def test_list_reads_the_listing_and_leaves_out_other_files(self):
        f = fake(jobs=[testing.Job(output=LISTING)])
        listed = f.run("actions:list_backups")
        self.assertEqual([b["name"] for b in listed], ["app-nightly-20261201T020000Z.dump", "app-nightly-20261202T020000Z.dump", "app-nightly-20261203T020000Z.dump"])
        self.assertEqual(listed[0]["size_bytes"], 1000)

    def test_prune_keeping_the_last_one_deletes_all_but_the_newest(self):
        f = fake(jobs=[testing.Job(output=LISTING), testing.Job()])
        pruned = f.run("actions:prune_backups", keep_last=1)
        self.assertEqual(pruned["kept"], ["app-nightly-20261203T020000Z.dump"])
        self.assertEqual(pruned["deleted"], ["app-nightly-20261201T020000Z.dump", "app-nightly-20261202T020000Z.dump"])
        delete = f.calls_of("execute_commands")[1].args["commands"][0]
        self.assertIn("rm -f -- /var/lib/postgresql/data/backups/app-nightly-20261201T020000Z.dump /var/lib/postgresql/data/backups/app-nightly-20261202T020000Z.dump", delete)
        self.assertNotIn("not-a-backup", delete)

    def test_a_listing_whose_output_was_not_read_fails_rather_than_finding_nothing(self):
        f = fake(jobs=[testing.Job(output="")])
        with self.assertRaisesRegex(RuntimeError, "could not read its output"):
            f.run("actions:prune_backups", keep_last=1)
        self.assertEqual(len(f.calls_of("execute_commands")), 1, "nothing was deleted")

    def test_a_backup_whose_size_was_not_read_still_names_itself(self):
        f = fake(jobs=[testing.Job(output="")])
        result = f.run("actions:take_backup", label="nightly")
        self.assertIsNone(result["size_bytes"])
        self.assertRegex(result["name"], r"^app-nightly-")

    def test_prune_keeping_days_keeps_the_backups_of_the_last_days_by_the_servers_clock(self):
        f = fake(jobs=[testing.Job(output=LISTING), testing.Job()])
        pruned = f.run("actions:prune_backups", keep_last=0, keep_days=3)
        self.assertEqual(pruned["kept"], ["app-nightly-20261202T020000Z.dump", "app-nightly-20261203T020000Z.dump"], "made since 2026-12-01T12:00:00Z, three days before the listing")
        self.assertEqual(pruned["deleted"], ["app-nightly-20261201T020000Z.dump"])

    def test_prune_keeps_what_either_rule_keeps(self):
        f = fake(jobs=[testing.Job(output=LISTING), testing.Job()])
        pruned = f.run("actions:prune_backups", keep_last=2, keep_days=1)
        self.assertEqual(pruned["deleted"], ["app-nightly-20261201T020000Z.dump"], "the last two; the last day holds none")

    def test_prune_by_days_keeps_the_newest_however_old(self):
        f = fake(jobs=[testing.Job(output=LISTING), testing.Job()])
        pruned = f.run("actions:prune_backups", keep_last=0, keep_days=1)
        self.assertEqual(pruned["kept"], ["app-nightly-20261203T020000Z.dump"])

    def test_prune_deletes_nothing_when_every_backup_is_kept(self):
        f = fake(jobs=[testing.Job(output=LISTING)])
        pruned = f.run("actions:prune_backups", keep_last=7)
        self.assertEqual(pruned["deleted"], [])
        self.assertEqual(len(f.calls_of("execute_commands")), 1, "only the listing ran")

    def test_prune_needs_a_rule_and_whole_numbers(self):
        for prompts, error in [({"keep_last": 0, "keep_days": 0}, "set keep_last or keep_days"), ({"keep_last": -1}, "keep_last must be a whole number"), ({"keep_days": "2; rm -rf /"}, "keep_days must be a whole number")]:
            f = fake()
            with self.assertRaisesRegex(ValueError, error):
                f.run("actions:prune_backups", **prompts)
            self.assertEqual(f.calls, [], prompts)

    def test_restore_backs_up_first_then_restores_in_one_transaction(self):
        f = fake(jobs=[testing.Job(output=LISTING), testing.Job(output="size=900"), testing.Job()])
        result = f.run("actions:restore", backup="app-nightly-20261202T020000Z.dump")
        self.assertEqual(result["restored"], "app-nightly-20261202T020000Z.dump")
        self.assertRegex(result["pre_restore_backup"], r"^app-pre-restore-")
        listing, dump, restore = [c.args["commands"] for c in f.calls_of("execute_commands")]
        self.assertIn("pg_dump", dump[0])
        self.assertIn("pg_restore --clean --if-exists --single-transaction --exit-on-error", restore[0])

    def test_restore_refuses_a_backup_that_is_not_there_before_changing_anything(self):
        f = fake(jobs=[testing.Job(output=LISTING)])
        with self.assertRaisesRegex(ValueError, "list_backups lists them"):
            f.run("actions:restore", backup="app-nightly-20261109T020000Z.dump")
        self.assertEqual(len(f.calls_of("execute_commands")), 1, "only the listing ran")

    def test_restore_refuses_a_name_that_could_break_the_command(self):
        f = fake()
        with self.assertRaisesRegex(ValueError, "backup"):
            f.run("actions:restore", backup="x.dump; rm -rf /")
        self.assertEqual(f.calls, [])


class VacuumTest(unittest.TestCase):
    def test_full_vacuum_of_one_table_quotes_its_name(self):
        f = fake()
        f.run("actions:vacuum", table="public.orders", full=True, analyze=False)
        command = f.calls_of("execute_commands")[0].args["commands"][0]
        self.assertIn('VACUUM (VERBOSE, FULL) "public"."orders"', command)


class RestartTest(unittest.TestCase):
    def test_stops_then_starts_the_primary(self):
        f = fake()
        f.run("actions:restart")
        self.assertEqual([(c.primitive, c.args["components"]) for c in f.calls], [("stop_components", ["primary"]), ("start_components", ["primary"])])


if __name__ == "__main__":
    unittest.main()
