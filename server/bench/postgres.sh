#!/usr/bin/env bash
# make bench-board STORE=postgres: the board on PostgreSQL beside the board on Pebble, same run, same machine, on
# 127.0.0.1, bounded in time. Starts Debian's PostgreSQL (installed when missing) in a temporary folder, as the
# postgres user when run as root, with synchronous_commit=on. Prints a markdown table; BENCHMARKS.md records a run.
#  (a) anchor: pgbench's simple-update TPS (-N, 32 clients, 10 s) on the same server;
#  (b) POST of 10,000 notes with 32 clients on distinct handles and addresses, RUNS times, each on a fresh database
#      (and a fresh Pebble folder): median stored notes per second;
#  (c) GET /api/collusion/notes?limit=50 of a board of 10,000 notes, wrk 2 threads, 64 connections, 10 s: req/s of
#      the PostgreSQL-backed server against the Pebble-backed one.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-3}
need=()
command -v wrk >/dev/null || need+=(wrk)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
if [ ${#need[@]} -gt 0 ]; then apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null; fi
bin=$(dirname "$(ls -d /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")

work=$(mktemp -d /tmp/twofold-bench-pg.XXXXXX)
chmod 755 "$work"
as=()
if [ "$(id -u)" = 0 ]; then chown postgres "$work"; as=(runuser -u postgres --); fi
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  "${as[@]}" "$bin/pg_ctl" -D "$work/pg" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
port=8490
"${as[@]}" "$bin/initdb" -D "$work/pg" -U twofold -A trust -E UTF8 >/dev/null
"${as[@]}" "$bin/pg_ctl" -D "$work/pg" -l "$work/pg.log" -w start \
  -o "-p $port -k $work -c listen_addresses=127.0.0.1 -c synchronous_commit=on -c max_connections=200 -c shared_buffers=256MB" >/dev/null
psql() { "$bin/psql" -h 127.0.0.1 -p "$port" -U twofold -X -q "$@"; }
fresh_db() { # NAME: an empty database
  psql -d postgres -c "CREATE DATABASE $1" >/dev/null; echo "postgres://twofold@127.0.0.1:$port/$1?sslmode=disable"; }

go build -o "$work/server" ./server
go build -o "$work/bench" ./server/bench
start_server() { # STORE_URL (empty: Pebble in a fresh folder)
  [ -n "$server_pid" ] && { kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; }
  rm -rf "$work/data"
  STORE_URL=$1 ADDR=127.0.0.1:8480 PUBLIC_DIR= DATA_DIR="$work/data" TRUSTED_PROXIES=127.0.0.1/32 LOG_LEVEL=warn \
    RATE_POSTS=1000000000 RATE_CHALLENGES=1000000000 RATE_READS=1000000000 "$work/server" 2>"$work/server.log" &
  server_pid=$!
  for _ in $(seq 100); do
    kill -0 "$server_pid" 2>/dev/null || break
    curl -sf -o /dev/null http://127.0.0.1:8480/api/collusion/challenge && return
    sleep 0.1
  done
  echo "the server did not start"; cat "$work/server.log"; exit 1
}
. server/bench/lib.sh
wrk_rps() { wrk -t2 -c64 -d10s "$1" | awk '/Requests\/sec/ {print $2} /Non-2xx/ {print "non-2xx answers: " $0 > "/dev/stderr"; exit 1}'; }

# (a) the anchor
psql -d postgres -c "CREATE DATABASE pgbench" >/dev/null
"$bin/pgbench" -h 127.0.0.1 -p "$port" -U twofold -i -s 10 -q pgbench >/dev/null 2>&1
anchor=$("$bin/pgbench" -h 127.0.0.1 -p "$port" -U twofold -N -c 32 -j 2 -T 10 pgbench 2>/dev/null | awk '/^tps/ {print int($3)}')
echo "  pgbench simple-update, 32 clients: $anchor TPS" >&2

# (b) posting, then (c) listing the board the last run left
declare -A posts rps
for store in postgres pebble; do
  for run in $(seq "$RUNS"); do
    url=; [ "$store" = postgres ] && url=$(fresh_db "bench_$run")
    start_server "$url"
    line=$("$work/bench" -base http://127.0.0.1:8480 -notes 10000 -clients 32)
    echo "  $store: $line" >&2
    posts[$store]+="$(echo "$line" | sed -E 's/.*: ([0-9]+) stored notes\/s.*/\1/') "
  done
  sleep 5
  for _ in $(seq "$RUNS"); do
    r=$(wrk_rps 'http://127.0.0.1:8480/api/collusion/notes?limit=50'); rps[$store]+="$r "
    echo "  $store listing: $r req/s" >&2
  done
done

ratio=$(awk -v p="$(echo "${rps[postgres]}" | median)" -v b="$(echo "${rps[pebble]}" | median)" 'BEGIN {printf "%.2f×", p/b}')
echo "Board on PostgreSQL $("$bin/postgres" --version | awk '{print $3}'), $(date -u +%Y-%m-%d), $(nproc) CPUs, $(go env GOVERSION), synchronous_commit=on; median of $RUNS runs (lowest–highest)"
echo
echo "| figure | PostgreSQL | Pebble | anchor | target |"
echo "|---|---:|---:|---:|---|"
echo "| POST, 32 clients: stored notes/s (anchor: pgbench simple-update TPS, 32 clients) | $(stat "${posts[postgres]}" %.0f) | $(stat "${posts[pebble]}" %.0f) | $anchor | ≥ 2,000 |"
echo "| GET listing, 50 of 10,000 notes: req/s (PostgreSQL ÷ Pebble $ratio) | $(stat "${rps[postgres]}" %.0f) | $(stat "${rps[pebble]}" %.0f) | | ≥ 0.8× Pebble |"
