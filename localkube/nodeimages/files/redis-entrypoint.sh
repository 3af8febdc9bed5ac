#!/bin/sh
# The entrypoint of styrmin.local/redis, the local cluster's stand-in for the
# official redis image: arguments starting with "-" or ending in .conf go to
# redis-server; started as root, it gives /data (the working folder) to redis
# (999) and runs as redis.
set -e

if [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then
	set -- redis-server "$@"
fi
if [ "$1" = 'redis-server' ] && [ "$(id -u)" = '0' ]; then
	find . \! -user redis -exec chown redis '{}' +
	exec setpriv --reuid=redis --regid=redis --init-groups "$0" "$@"
fi
umask 0077
exec "$@"
