#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on loopback for the Postgres store's tests.
#   source .ci/postgres.sh start   -> exports BATON_PG_URL
#   .ci/postgres.sh stop <dir>
# Installs Debian's postgresql when its binaries are missing. The server refuses to run as
# root, so the cluster belongs to the postgres user (created by the package).
set -uo pipefail

pg_bin() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do [ -x "$dir/initdb" ] && { echo "$dir"; return 0; }; done
  return 1
}

start() {
  local bin dir port=${BATON_PG_PORT:-}
  if [ -z "$port" ]; then
    # The first free port from 54329 up (a connection that succeeds means taken).
    for port in $(seq 54329 54399); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break; done
  fi
  if ! bin=$(pg_bin); then
    echo "[postgres] installing Debian's postgresql" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null) >&2 || return 1
    bin=$(pg_bin) || return 1
  fi
  dir=$(mktemp -d /tmp/baton-pg.XXXXXX)
  local run=()
  if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; run=(runuser -u postgres --); fi
  "${run[@]}" "$bin/initdb" -D "$dir/data" -U baton --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; rm -rf "$dir"; return 1; }
  "${run[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" start >&2 || { cat "$dir/server.log" >&2; rm -rf "$dir"; return 1; }
  export BATON_PG_URL="postgres://baton@127.0.0.1:$port/postgres"
  export BATON_PG_DIR="$dir"
  echo "[postgres] $("$bin/postgres" --version) on 127.0.0.1:$port ($dir)" >&2
}

stop() {
  local bin dir=${1:-${BATON_PG_DIR:-}}
  [ -n "$dir" ] && [ -d "$dir/data" ] || return 0
  bin=$(pg_bin) || return 0
  local run=()
  [ "$(id -u)" = 0 ] && run=(runuser -u postgres --)
  "${run[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  *) echo "usage: source .ci/postgres.sh start | .ci/postgres.sh stop <dir>" >&2 ;;
esac
