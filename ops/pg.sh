#!/usr/bin/env bash
# Throwaway PostgreSQL 15 cluster from the Debian binaries on this machine.
#   eval "$(ops/pg.sh start)"   # prints export lines (LEDGER_POSTGRES_DSN: the service role;
#                               #   LEDGER_POSTGRES_OWNER_DSN: for `ledger migrate`; PG_SUPERUSER_DSN; PG_TMP)
#   eval "$(ops/pg.sh replica)" # after start: a streaming replica of it (hot standby, read-only), prints
#                               #   LEDGER_POSTGRES_REPLICA_DSN (the service role), PG_REPLICA_SUPERUSER_DSN
#   ops/pg.sh stop              # stops the cluster (and its replica) and removes its directory
# Runs the server as the 'postgres' user (the binaries refuse root), on a
# private port and socket directory, with fsync left on (honest benchmarks).
#   PG_FLUSH_DELAY_US=2000 ops/pg.sh start  # the same on a simulated slower disk (benchmarks only)
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
  # PG_FLUSH_DELAY_US (benchmarks only): a slower disk, every flush waits that much more (ops/slow_flush.c).
  preload=()
  if [ -n "${PG_FLUSH_DELAY_US:-}" ]; then
    cc -shared -fPIC -O2 -o "$dir/slow_flush.so" "$(dirname "$0")/slow_flush.c" -ldl
    chmod 755 "$dir/slow_flush.so"
    preload=(env "LD_PRELOAD=$dir/slow_flush.so" "PG_FLUSH_DELAY_US=$PG_FLUSH_DELAY_US")
  fi
  as_pg "${preload[@]}" "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=256MB \
        -c wal_level=replica -c max_wal_senders=4" start >/dev/null \
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
replica)
  # A streaming replica of the cluster `start` made (PG_TMP, PGPORT_TMP): a base backup over the replication
  # protocol (initdb -A trust lets local replication connections in), -R writes primary_conninfo and
  # standby.signal, -X stream copies the WAL written meanwhile, -c fast takes its checkpoint at once (a spread
  # one kept CI waiting minutes on an idle new cluster). It lives in $PG_TMP/replica, so `stop` of the
  # primary's directory stops it too. Hot standby (the default) serves read-only queries; with its feedback
  # the primary's vacuum keeps the rows a replica query still reads (the views are rewritten all the time), so
  # a long read (an export) is not cancelled for a conflict with recovery. PG_REPLICA_OPTS: more server options.
  dir=${2:-${PG_TMP:?run ops/pg.sh start first (PG_TMP)}}
  primary_port=${PGPORT_TMP:?run ops/pg.sh start first (PGPORT_TMP)}
  port=${PGPORT_REPLICA:-$(( primary_port + 1 ))}
  rdir=$dir/replica
  as_pg mkdir -p "$rdir"
  chmod 755 "$rdir"
  as_pg "$PGBIN/pg_basebackup" -h "$dir" -p "$primary_port" -U postgres -D "$rdir/data" -R -X stream -c fast \
    >"$rdir/basebackup.log" 2>&1 || { cat "$rdir/basebackup.log" >&2; exit 1; }
  # A hot standby refuses to start with fewer connections or WAL senders than its primary: take the primary's.
  settings=$(psql -h "$dir" -p "$primary_port" -U postgres -d postgres -qAt \
    -c "SELECT string_agg('-c ' || name || '=' || setting, ' ') FROM pg_settings
        WHERE name IN ('max_connections', 'max_wal_senders', 'max_worker_processes', 'max_prepared_transactions',
                       'max_locks_per_transaction')")
  as_pg "$PGBIN/pg_ctl" -D "$rdir/data" -l "$rdir/server.log" -w -t 60 \
    -o "-p $port -k $rdir -c listen_addresses=127.0.0.1 -c hot_standby=on -c hot_standby_feedback=on $settings \
        -c shared_buffers=128MB ${PG_REPLICA_OPTS:-}" start >/dev/null \
    || { cat "$rdir/server.log" >&2; exit 1; }
  echo "export PG_REPLICA_TMP=$rdir"
  echo "export LEDGER_POSTGRES_REPLICA_DSN='host=$rdir port=$port user=ledger_service dbname=ledger'"
  echo "export PG_REPLICA_SUPERUSER_DSN='host=$rdir port=$port user=postgres dbname=ledger'"
  ;;
stop)
  dir=${2:-${PG_TMP:-}}
  [ -n "$dir" ] && [ -d "$dir" ] || exit 0
  if [ -d "$dir/replica/data" ]; then
    as_pg "$PGBIN/pg_ctl" -D "$dir/replica/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  as_pg "$PGBIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
  ;;
*) echo "usage: $0 start|replica|stop [dir]" >&2; exit 2 ;;
esac
