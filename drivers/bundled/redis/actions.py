"""Actions of the Redis driver.

Styrmin runs each function in its own Python process with this bundle on the
import path; prompts arrive as keyword arguments. Commands that talk to Redis run
through redis-cli in a short-lived Job in the deployment's namespace
(execute_commands).

Passwords: an action that must log in hands the password to its Job with
execute_commands' secret_env, which maps REDISCLI_AUTH (read by redis-cli without
echoing it) to the deployment's secret parameter `password`. The Job's container
reads it through a Kubernetes Secret reference, so neither the action nor the
Job's spec ever holds it, and it is never part of a command line or a log line.
"""

import os

import styrmin

CLIENT_IMAGE = "redis:7.4"

# The components of driver.styrmin.yml.
PRIMARY_COMPONENT = "primary"
REPLICA_COMPONENT = "replica"

CONFIRMATION = "FLUSH"

# The secret parameter holding the password (see driver.styrmin.yml).
PASSWORD_PARAMETER = "password"


def _fullname() -> str:
    """Return the base name the chart gives the release's resources."""
    release = os.environ.get("STYRMIN_RELEASE", "")
    if not release:
        raise RuntimeError(
            "STYRMIN_RELEASE is not set: run this action through Styrmin, "
            "which sets it to the deployment's Helm release name"
        )
    # Mirrors the chart's "redis.fullname": <release>-redis, at most 40 characters.
    return f"{release}-redis"[:40].rstrip("-")


def check_servers() -> None:
    """Wait until the primary and every replica pod answer on port 6379.

    Without the password a server answers PING with NOAUTH, which is enough to
    know that it runs and listens. Replica pods are found through the replicas'
    headless Service; with zero replicas only the primary is checked.
    """
    name = _fullname()
    primary = name
    replicas = f"{name}-replica-headless"
    styrmin.log.info("Checking that %s and the pods behind %s answer", primary, replicas)
    script = (
        "set -u; "
        "answers() { "
        "  for attempt in $(seq 1 60); do "
        '    reply=$(redis-cli -h "$1" -p 6379 ping 2>&1); '
        '    case "$reply" in *PONG*|*NOAUTH*) echo "$1 answers"; return 0;; esac; '
        "    sleep 5; "
        "  done; "
        '  echo "$1 did not answer within 5 minutes: $reply" >&2; return 1; '
        "}; "
        f"answers {primary} || exit 1; "
        f"for ip in $(getent ahostsv4 {replicas} | cut -d' ' -f1 | sort -u); do "
        '  answers "$ip" || exit 1; '
        "done"
    )
    styrmin.execute_commands([script], image=CLIENT_IMAGE, timeout=540)
    styrmin.log.info("Every Redis server answers")


def flush(database: int = 0, all_databases: bool = False, confirm: str = "") -> None:
    """Delete every key of one logical database, or of all of them, on the primary.

    Replicas follow the primary, so they are flushed too. Refuses to run unless
    confirm is exactly FLUSH.
    """
    if confirm != CONFIRMATION:
        raise ValueError(f"type {CONFIRMATION} in the confirmation field to flush the cache")
    if not 0 <= int(database) <= 15:
        raise ValueError(f"logical database {database} must be between 0 and 15")

    primary = _fullname()
    command = "FLUSHALL" if all_databases else "FLUSHDB"
    scope = "every logical database" if all_databases else f"logical database {int(database)}"
    styrmin.log.info("Flushing %s on %s", scope, primary)
    script = (
        "set -eu; "
        f'echo "keys before: $(redis-cli -h {primary} -n {int(database)} DBSIZE)"; '
        f'reply=$(redis-cli -h {primary} -n {int(database)} {command}); '
        'echo "reply: $reply"; '
        'test "$reply" = OK'
    )
    styrmin.execute_commands([script], image=CLIENT_IMAGE, secret_env={"REDISCLI_AUTH": PASSWORD_PARAMETER}, timeout=240)
    styrmin.log.info("Flushed %s", scope)


def pause_replicas() -> None:
    """Scale the replica component to zero; the primary keeps serving."""
    styrmin.log.info("Stopping the %s component", REPLICA_COMPONENT)
    styrmin.stop_components([REPLICA_COMPONENT])
    styrmin.log.info("Replicas stopped; %s serves alone", PRIMARY_COMPONENT)


def resume_replicas() -> None:
    """Scale the replica component back to its remembered replica count."""
    styrmin.log.info("Starting the %s component", REPLICA_COMPONENT)
    styrmin.start_components([REPLICA_COMPONENT])
    styrmin.log.info("Replicas started; they resynchronise from the %s", PRIMARY_COMPONENT)
