"""Actions of the Redis driver.

Styrmin runs each function in its own Python process with this bundle on the
import path; prompts arrive as keyword arguments. Commands that talk to Redis run
through redis-cli in a short-lived Job in the deployment's namespace
(execute_commands).

Passwords: a Job started by execute_commands cannot read the release's Secret,
so an action that must log in takes the password as a secret prompt and hands it
to the Job as REDISCLI_AUTH, which redis-cli reads without echoing it. It never
appears on a command line or in a log line, but it is visible in the Job's spec
to whoever may read Jobs in the namespace, until the next action replaces the Job.
"""

import os

import styrmin

CLIENT_IMAGE = "redis:7.4"

# The components of driver.styrmin.yml.
PRIMARY_COMPONENT = "primary"
REPLICA_COMPONENT = "replica"

CONFIRMATION = "FLUSH"


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


def flush(database: int = 0, all_databases: bool = False, confirm: str = "", password: str = "") -> None:
    """Delete every key of one logical database, or of all of them, on the primary.

    Replicas follow the primary, so they are flushed too. Refuses to run unless
    confirm is exactly FLUSH.
    """
    if confirm != CONFIRMATION:
        raise ValueError(f"type {CONFIRMATION} in the confirmation field to flush the cache")
    if not 0 <= int(database) <= 15:
        raise ValueError(f"logical database {database} must be between 0 and 15")
    if not password:
        raise ValueError("the Redis password is required to flush the cache")

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
    styrmin.execute_commands([script], image=CLIENT_IMAGE, env={"REDISCLI_AUTH": password}, timeout=240)
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
