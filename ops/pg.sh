#!/usr/bin/env bash
# Throwaway PostgreSQL 15 cluster from the Debian binaries on this machine.
#   eval "$(ops/pg.sh start)"   # prints export lines (LEDGER_POSTGRES_DSN: the service role;
#                               #   LEDGER_POSTGRES_OWNER_DSN: for `ledger migrate`; PG_SUPERUSER_DSN; PG_TMP)
#   ops/pg.sh stop              # stops the cluster and removes its directory
# Runs the server as the 'postgres' user (the binaries refuse root), on a
# private port and socket directory, with fsync left on (honest benchmarks).
set -euo pipefail
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
cmd=${1:-start}

as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

case "$cmd" in
start)
  port=${PGPORT_TMP:-$(( 20000 + RANDOM % 20000 ))}
  dir=$(mktemp -d /tmp/ledger-pg.XXXXXX)
  chmod 755 "$dir"
  [ "$(id -u)" = 0 ] && chown postgres "$dir"
  as_pg "$PGBIN/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  as_pg "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=256MB" start >/dev/null \
    || { cat "$dir/server.log" >&2; exit 1; }
  # The tables' owner (`ledger migrate`) and the service's role, which owns nothing and may only append to
  # the history (ledger/store/roles.py); neither is a superuser. The owner owns the database (and so its
  # public schema); PostgreSQL 15 lets no other role create there.
  psql -h "$dir" -p "$port" -U postgres -qAt -v ON_ERROR_STOP=1 \
    -c "CREATE ROLE ledger_owner LOGIN NOSUPERUSER" -c "CREATE ROLE ledger_service LOGIN NOSUPERUSER" \
    -c "CREATE DATABASE ledger OWNER ledger_owner" >/dev/null
  echo "export PG_TMP=$dir"
  echo "export PGPORT_TMP=$port"
  echo "export LEDGER_POSTGRES_DSN='host=$dir port=$port user=ledger_service dbname=ledger'"
  echo "export LEDGER_POSTGRES_OWNER_DSN='host=$dir port=$port user=ledger_owner dbname=ledger'"
  echo "export PG_SUPERUSER_DSN='host=$dir port=$port user=postgres dbname=ledger'"
  ;;
stop)
  dir=${2:-${PG_TMP:-}}
  [ -n "$dir" ] && [ -d "$dir" ] || exit 0
  as_pg "$PGBIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
  ;;
*) echo "usage: $0 start|stop [dir]" >&2; exit 2 ;;
esac
