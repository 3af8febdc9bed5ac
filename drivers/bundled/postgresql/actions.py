"""Actions of the PostgreSQL driver.

Styrmin runs each function in its own Python process with this bundle on the
import path; prompts arrive as keyword arguments. SQL runs through psql in a
short-lived Job in the deployment's namespace (execute_commands).

Passwords: actions that log in do so as the deployment's superuser (the
`username` parameter, read with styrmin.deployment()) and hand its password to
their Job with execute_commands' secret_env, which maps PGPASSWORD to the
deployment's secret parameter `password`. The Job's container reads it through a
Kubernetes Secret reference, so neither the action nor the Job's spec ever holds
it, and it is never part of a command line or a log line.
"""

import calendar
import os
import re
import time

import styrmin

# psql and pg_isready from the newest supported major version work against
# every older server this driver supports (14 to 17).
CLIENT_IMAGE = "postgres:17.2"

# The component the chart's StatefulSet belongs to (see driver.styrmin.yml).
SERVER_COMPONENT = "primary"

# On the server's volume, next to (not inside) the data directory, so backups
# survive restarts and upgrades of the server pod.
BACKUP_DIR = "/var/lib/postgresql/data/backups"

# The parameters naming the superuser and holding its password (see
# driver.styrmin.yml). The password is a secret parameter, handed to Jobs that
# log in as PGPASSWORD.
USERNAME_PARAMETER = "username"
PASSWORD_PARAMETER = "password"
SECRET_ENV = {"PGPASSWORD": PASSWORD_PARAMETER}

NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")
LABEL_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*$")
# A backup's file name, as _dump writes it: <database>-<label>-<UTC time>.dump.
BACKUP_PATTERN = re.compile(r"^[a-z][a-z0-9_]*-[a-z0-9][a-z0-9-]*-[0-9]{8}T[0-9]{6}Z\.dump$")
TABLE_PATTERN = re.compile(r"^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$")


def _server_host() -> str:
    """Return the in-cluster name of the server's Service, named as the chart names it."""
    release = os.environ.get("STYRMIN_RELEASE", "")
    if not release:
        raise RuntimeError(
            "STYRMIN_RELEASE is not set: run this action through Styrmin, "
            "which sets it to the deployment's Helm release name"
        )
    # Mirrors the chart's "postgresql.fullname": <release>-postgresql, at most 40 characters.
    return f"{release}-postgresql"[:40].rstrip("-")


def _require(pattern: re.Pattern, value: str, what: str) -> str:
    """Return value if it matches pattern, else raise an error naming the prompt."""
    if not pattern.match(value):
        raise ValueError(f"{what} {value!r} does not match {pattern.pattern}")
    return value


def _psql(sql: str, quiet: bool = False) -> str:
    """Return a psql command line that runs sql and stops at the first error.

    quiet prints rows only: unaligned, without headers or row counts.
    """
    quoted = sql.replace("'", "'\\''")
    flags = " -At" if quiet else ""
    return f"psql -X -v ON_ERROR_STOP=1 --no-psqlrc{flags} -c '{quoted}'"


def _superuser() -> str:
    """Return the deployment's superuser name: the role whose password SECRET_ENV hands over."""
    return _require(NAME_PATTERN, str(styrmin.deployment().parameters.get(USERNAME_PARAMETER, "")), "superuser name")


def _connection(database: str, username: str) -> dict:
    """Return the libpq environment of a Job that logs in, but the password (see SECRET_ENV)."""
    return {
        "PGHOST": _server_host(),
        "PGPORT": "5432",
        "PGDATABASE": database,
        "PGUSER": username,
        "PGCONNECT_TIMEOUT": "10",
        "PGAPPNAME": "styrmin-action",
    }


def wait_ready() -> None:
    """Wait up to five minutes until the new server accepts connections.

    pg_isready needs no password: it only asks whether the server is accepting
    connections.
    """
    host = _server_host()
    styrmin.log.info("Waiting for %s:5432 to accept connections", host)
    script = (
        f"for attempt in $(seq 1 60); do "
        f"  pg_isready -h {host} -p 5432 -t 5 && exit 0; sleep 5; "
        f"done; echo '{host} did not accept connections within 5 minutes' >&2; exit 1"
    )
    styrmin.execute_commands([script], image=CLIENT_IMAGE, timeout=360)
    styrmin.log.info("%s accepts connections", host)


def _dump(label: str, database: str) -> dict:
    """Dump one database with pg_dump into BACKUP_DIR on the server's volume; return its name and size.

    The dump runs on the database server itself (COPY ... TO PROGRAM, which only
    a superuser may use), so it is written by the pg_dump of the server's own
    version to the server's persistent volume, where it outlives upgrades and
    restarts. A failure raises.
    """
    _require(LABEL_PATTERN, label, "backup label")
    _require(NAME_PATTERN, database, "database")
    username = _superuser()

    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    name = f"{database}-{label}-{stamp}.dump"
    dump = f"{BACKUP_DIR}/{name}"
    styrmin.log.info("Backing up database %s to %s on the server's volume", database, dump)
    # Runs as the postgres OS user in the server pod; pg_dump logs in over the
    # local socket, which the postgres image trusts.
    program = f"mkdir -p {BACKUP_DIR} && pg_dump --format=custom --username={username} --dbname={database} --file={dump}"
    output = _sql(
        database,
        f"COPY (SELECT 1) TO PROGRAM '{program}'",
        f"SELECT 'size=' || (pg_stat_file('{dump}')).size",
        timeout=1800,
    )
    sizes = _marked(output, "size")
    if not sizes:  # the dump succeeded, but Styrmin could not read what the Job printed
        styrmin.log.warning("Backup %s written; its size is unknown (the Job's output could not be read)", name)
        return {"name": name, "size_bytes": None}
    size = int(sizes[-1])
    styrmin.log.info("Backup %s written (%d bytes)", name, size)
    return {"name": name, "size_bytes": size}


def backup(label: str = "pre-upgrade", database: str = "app") -> dict:
    """Dump the database before the upgrade (see _dump); a failure stops the upgrade.

    A blocking pre-upgrade hook: the upgrade does not start when the dump fails.
    Earlier backups stay in BACKUP_DIR until prune_backups deletes them.
    """
    return _dump(label, database)


def take_backup(label: str = "manual", database: str = "app") -> dict:
    """Dump the database now (see _dump); the result names the backup and its size.

    Its artefacts (driver.styrmin.yml) are pruned by prune_backups: a schedule
    of it that keeps the last backups runs prune_backups after each backup.
    """
    return _dump(label, database)


# How the listing writes times: UTC, to the second.
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
SQL_TIME = "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'"


def _listing(database: str) -> tuple:
    """Return the backups in BACKUP_DIR, oldest first, as dicts of name, size_bytes and modified,
    and the server's time of the listing (the clock the modification times were written by)."""
    output = _sql(
        database,
        "SELECT 'backup=' || name || '|' || (pg_stat_file(d || '/' || name)).size || '|' || "
        f"to_char((pg_stat_file(d || '/' || name)).modification AT TIME ZONE 'UTC', {SQL_TIME}) "
        f"FROM (SELECT '{BACKUP_DIR}' AS d) AS dir, pg_ls_dir('{BACKUP_DIR}', true, false) AS name "
        "ORDER BY (pg_stat_file(d || '/' || name)).modification, name",
        f"SELECT 'listed=' || to_char(now() AT TIME ZONE 'UTC', {SQL_TIME})",
        timeout=300,
    )
    listed = _marked(output, "listed")
    if not listed:
        raise RuntimeError(f"the listing of {BACKUP_DIR} succeeded, but Styrmin could not read its output; run the action again")
    found = []
    for line in _marked(output, "backup"):
        name, size, modified = line.split("|")
        if BACKUP_PATTERN.match(name):
            found.append({"name": name, "size_bytes": int(size), "modified": modified})
    return found, listed[-1]


def _backups(database: str) -> list:
    """Return the backups in BACKUP_DIR, oldest first (see _listing)."""
    return _listing(database)[0]


def list_backups(database: str = "app") -> list:
    """List the backups on the server's volume, oldest first, with their sizes and times."""
    _require(NAME_PATTERN, database, "database")
    found = _backups(database)
    for b in found:
        styrmin.log.info("%s: %d bytes, %s", b["name"], b["size_bytes"], b["modified"])
    styrmin.log.info("%d backups in %s", len(found), BACKUP_DIR)
    return found


def restore(backup: str, database: str = "app") -> dict:
    """Restore one backup into its database, after a backup of the database as it is now.

    The restore drops the database's objects that the backup holds and creates
    them again from it (pg_restore --clean --if-exists, in one transaction: a
    failure changes nothing). The pre-restore backup is taken first, so the
    restore itself can be undone by restoring that one.
    """
    _require(BACKUP_PATTERN, backup, "backup")
    _require(NAME_PATTERN, database, "database")
    if backup not in [b["name"] for b in _backups(database)]:
        raise ValueError(f"there is no backup {backup!r} in {BACKUP_DIR}; list_backups lists them")
    before = _dump("pre-restore", database)
    username = _superuser()
    styrmin.log.info("Restoring %s into database %s", backup, database)
    program = (
        f"pg_restore --clean --if-exists --single-transaction --exit-on-error "
        f"--username={username} --dbname={database} {BACKUP_DIR}/{backup}"
    )
    _sql(database, f"COPY (SELECT 1) TO PROGRAM '{program}'", timeout=3600)
    styrmin.log.info("Restored %s; the database as it was before is in %s", backup, before["name"])
    return {"restored": backup, "pre_restore_backup": before["name"]}


def prune_backups(keep_last: int = 7, keep_days: int = 0, database: str = "app") -> dict:
    """Delete the backups on the server's volume that no rule keeps; the newest is always kept.

    keep_last keeps the newest keep_last backups, keep_days those made in the
    last keep_days days (by the server's clock); 0 leaves a rule unset, and at
    least one must be set. A schedule of take_backup passes its retention here.
    """
    _require(NAME_PATTERN, database, "database")
    for what, value in (("keep_last", keep_last), ("keep_days", keep_days)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{what} must be a whole number of at least 0, not {value!r}")
    if keep_last == 0 and keep_days == 0:
        raise ValueError("set keep_last or keep_days (or both): with neither, every backup but the newest would go")
    found, now = _listing(database)
    since = calendar.timegm(time.strptime(now, TIME_FORMAT)) - keep_days * 86400
    newest = found[-keep_last:] if keep_last else found[-1:]
    kept = [b["name"] for b in found if b in newest or (keep_days and calendar.timegm(time.strptime(b["modified"], TIME_FORMAT)) >= since)]
    doomed = [b["name"] for b in found if b["name"] not in kept]
    if doomed:
        paths = " ".join(f"{BACKUP_DIR}/{name}" for name in doomed)
        _sql(database, f"COPY (SELECT 1) TO PROGRAM 'rm -f -- {paths}'", timeout=300)
    styrmin.log.info("Kept %d backups, deleted %d: %s", len(kept), len(doomed), ", ".join(doomed) or "none")
    return {"kept": kept, "deleted": doomed}


def _sql(database: str, *statements: str, timeout: int) -> str:
    """Run statements with psql (unaligned, tuples only) as the superuser; return the Job's output."""
    result = styrmin.execute_commands(
        [_psql(statement, quiet=True) for statement in statements],
        image=CLIENT_IMAGE,
        env=_connection(database, _superuser()),
        secret_env=SECRET_ENV,
        timeout=timeout,
    )
    return result.output


def _marked(output: str, key: str) -> list:
    """Return the values of the output's lines that start with key=, in order."""
    prefix = key + "="
    return [line[len(prefix):] for line in output.splitlines() if line.startswith(prefix)]


def vacuum(
    database: str = "app",
    table: str = "",
    full: bool = False,
    analyze: bool = True,
) -> None:
    """Run VACUUM on one table, or on every table of the database when table is empty.

    FULL rewrites the table and holds an exclusive lock while it runs; ANALYZE
    refreshes the planner's statistics afterwards.
    """
    _require(NAME_PATTERN, database, "database")
    if table:
        _require(TABLE_PATTERN, table, "table")
    username = _superuser()

    options = ["VERBOSE"]
    if full:
        options.append("FULL")
    if analyze:
        options.append("ANALYZE")
    target = ".".join(f'"{part}"' for part in table.split(".")) if table else ""
    sql = f"VACUUM ({', '.join(options)}) {target}".strip()
    styrmin.log.info("Running %s in database %s", sql, database)
    styrmin.execute_commands(
        [_psql(sql)],
        image=CLIENT_IMAGE,
        env=_connection(database, username),
        secret_env=SECRET_ENV,
        timeout=3600,
    )
    styrmin.log.info("Vacuum of %s finished", table or f"every table of {database}")


def restart() -> None:
    """Stop the database server, then start it again; clients are disconnected meanwhile."""
    styrmin.log.info("Stopping the %s component", SERVER_COMPONENT)
    styrmin.stop_components([SERVER_COMPONENT])
    styrmin.log.info("Starting the %s component again", SERVER_COMPONENT)
    styrmin.start_components([SERVER_COMPONENT])
    styrmin.log.info("The database server has restarted")
