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


def _psql(sql: str) -> str:
    """Return a psql command line that runs sql and stops at the first error."""
    quoted = sql.replace("'", "'\\''")
    return f"psql -X -v ON_ERROR_STOP=1 --no-psqlrc -c '{quoted}'"


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


def backup(label: str = "pre-upgrade", database: str = "app") -> None:
    """Dump one database with pg_dump into the server's volume, then list the backups.

    The dump runs on the database server itself (COPY ... TO PROGRAM, which only a
    superuser may use), so it is written by the pg_dump of the server's own
    version to BACKUP_DIR on the server's persistent volume, where it outlives
    the upgrade. A failure raises, and a blocking pre-upgrade hook then stops the
    upgrade before anything changes.
    """
    _require(LABEL_PATTERN, label, "backup label")
    _require(NAME_PATTERN, database, "database")
    username = _superuser()

    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    dump = f"{BACKUP_DIR}/{database}-{label}-{stamp}.dump"
    styrmin.log.info("Backing up database %s to %s on the server's volume", database, dump)
    # Runs as the postgres OS user in the server pod; pg_dump logs in over the
    # local socket, which the postgres image trusts.
    program = f"mkdir -p {BACKUP_DIR} && pg_dump --format=custom --username={username} --dbname={database} --file={dump}"
    listing = (
        f"SELECT name, pg_size_pretty((pg_stat_file('{BACKUP_DIR}/' || name)).size) AS size "
        f"FROM pg_ls_dir('{BACKUP_DIR}') AS name ORDER BY name"
    )
    styrmin.execute_commands(
        [
            _psql(f"COPY (SELECT 1) TO PROGRAM '{program}'"),
            _psql(f"SELECT pg_size_pretty((pg_stat_file('{dump}')).size) AS dump_size"),
            _psql(listing),
        ],
        image=CLIENT_IMAGE,
        env=_connection(database, username),
        secret_env=SECRET_ENV,
        timeout=1800,
    )
    styrmin.log.info("Backup %s written; earlier backups stay in %s until you delete them", dump, BACKUP_DIR)


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
