#!/bin/bash
# The entrypoint of styrmin.local/postgres, the local cluster's stand-in for
# the official postgres image, honouring that image's documented interface:
# POSTGRES_PASSWORD, POSTGRES_USER (default postgres), POSTGRES_DB (default
# the user), POSTGRES_INITDB_ARGS, POSTGRES_HOST_AUTH_METHOD (default
# scram-sha-256), PGDATA, and /docker-entrypoint-initdb.d/*.sql, *.sql.gz and
# *.sh run once on first initialization. Arguments starting with "-" go to
# postgres. Started as root, it prepares PGDATA and runs as postgres (999).
set -Eeo pipefail

if [ "${1:0:1}" = '-' ]; then
	set -- postgres "$@"
fi
if [ "$1" != 'postgres' ]; then
	exec "$@"
fi

export PGDATA="${PGDATA:-/var/lib/postgresql/data}"

if [ "$(id -u)" = '0' ]; then
	mkdir -p "$PGDATA"
	# The volume may be a host folder that nobody chowned: the parent of
	# PGDATA holds the backups the driver writes as postgres.
	parent="$(dirname "$PGDATA")"
	if [ "$parent" != / ]; then
		chown postgres:postgres "$parent"
	fi
	find "$PGDATA" \! -user postgres -exec chown postgres:postgres '{}' +
	chmod 00700 "$PGDATA"
	mkdir -p /var/run/postgresql
	chown postgres:postgres /var/run/postgresql
	chmod 03775 /var/run/postgresql
	exec setpriv --reuid=postgres --regid=postgres --init-groups "$BASH_SOURCE" "$@"
fi

if [ ! -s "$PGDATA/PG_VERSION" ]; then
	: "${POSTGRES_USER:=postgres}"
	: "${POSTGRES_DB:=$POSTGRES_USER}"
	: "${POSTGRES_HOST_AUTH_METHOD:=scram-sha-256}"
	if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$POSTGRES_HOST_AUTH_METHOD" != trust ]; then
		echo 'error: the database is uninitialized and the superuser password is not set:' >&2
		echo '       set POSTGRES_PASSWORD (or POSTGRES_HOST_AUTH_METHOD=trust to allow logins without one)' >&2
		exit 1
	fi
	mkdir -p "$PGDATA"
	chmod 00700 "$PGDATA"
	# shellcheck disable=SC2086 # POSTGRES_INITDB_ARGS holds several arguments
	initdb --username="$POSTGRES_USER" --pwfile=<(printf '%s\n' "${POSTGRES_PASSWORD:-}") $POSTGRES_INITDB_ARGS
	echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
	printf '\nhost all all all %s\n' "$POSTGRES_HOST_AUTH_METHOD" >> "$PGDATA/pg_hba.conf"

	pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p 5432" -w start
	psql=(psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --no-psqlrc)
	if [ "$POSTGRES_DB" != postgres ]; then
		"${psql[@]}" --dbname postgres --set db="$POSTGRES_DB" <<-'SQL'
			CREATE DATABASE :"db" ;
		SQL
	fi
	for f in /docker-entrypoint-initdb.d/*; do
		case "$f" in
			*.sh)
				if [ -x "$f" ]; then
					echo "$0: running $f"; "$f"
				else
					echo "$0: sourcing $f"; . "$f"
				fi
				;;
			*.sql) echo "$0: running $f"; "${psql[@]}" --dbname "$POSTGRES_DB" -f "$f" ;;
			*.sql.gz) echo "$0: running $f"; gunzip -c "$f" | "${psql[@]}" --dbname "$POSTGRES_DB" ;;
			*) [ -e "$f" ] && echo "$0: ignoring $f" ;;
		esac
	done
	pg_ctl -D "$PGDATA" -m fast -w stop
	echo 'PostgreSQL init process complete; ready for start up.'
fi

exec "$@"
