#!/usr/bin/env bash
# make bench-board: the board's two benchmarks, on 127.0.0.1, bounded in time. Installs wrk and nginx (Debian's
# packages) when missing. Prints a markdown table; BENCHMARKS.md records a run.
#  (a) GET /api/collusion/notes?limit=50 from a store of POST_NOTES notes, against nginx serving the same bytes as a
#      static file: wrk, 2 threads, 64 connections, 10 s, RUNS times each, alternating; medians.
#  (b) POST of POST_NOTES (20,000) notes with synced writes from 32 clients on distinct handles and addresses,
#      POST_RUNS (5) times on a fresh store each; median stored notes per second. Each run is paired with one
#      against the same server built with -tags benchnoscreen (the content screen off): the screen's cost is the
#      drop from that one, per pair, and its median over the pairs. Pairs of one machine's minute differ by ten
#      points and more (the two cores are shared), so the posting runs are more than the listing's.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-3}
POST_NOTES=${POST_NOTES:-20000} # per posting run: 10,000 take under a second, and pairs of them differ by ±8 points
POST_RUNS=${POST_RUNS:-5}
need=()
command -v wrk >/dev/null || need+=(wrk)
command -v nginx >/dev/null || need+=(nginx-light)
if [ ${#need[@]} -gt 0 ]; then apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null; fi

work=$(mktemp -d /tmp/twofold-bench-board.XXXXXX)
chmod 755 "$work" # nginx workers read the page from here
server_pid=; nginx_conf=$work/nginx.conf
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  [ -f "$work/nginx.pid" ] && nginx -c "$nginx_conf" -s stop 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/server" ./server
go build -o "$work/bench" ./server/bench
go build -tags benchnoscreen -o "$work/server-noscreen" ./server
start_server() { # [keep|fresh] [binary]: keep the data folder or start on a fresh one; the server by default
  [ -n "$server_pid" ] && { kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; }
  [ "${1:-}" = keep ] || rm -rf "$work/data"
  local bin=${2:-$work/server}
  BENCH_NOSCREEN=1 ADDR=127.0.0.1:8480 PUBLIC_DIR= DATA_DIR="$work/data" TRUSTED_PROXIES=127.0.0.1/32 LOG_LEVEL=warn GOMAXPROCS=${GOMAXPROCS:-2} \
    RATE_POSTS=1000000000 RATE_CHALLENGES=1000000000 RATE_READS=1000000000 "$bin" 2>"$work/server.log" &
  server_pid=$!
  for _ in $(seq 50); do
    kill -0 "$server_pid" 2>/dev/null || break # it exited: the port is taken, or the configuration is wrong
    curl -sf -o /dev/null http://127.0.0.1:8480/api/collusion/challenge && return
    sleep 0.1
  done
  echo "the server did not start (is something else on 127.0.0.1:8480?)"; cat "$work/server.log"; exit 1
}
. server/bench/lib.sh

post_run() { # binary: one posting run on a fresh store; sets rate to its stored notes/s
  start_server fresh "$1"
  local line
  line=$("$work/bench" -base http://127.0.0.1:8480 -notes "$POST_NOTES" -clients 32)
  echo "  $(basename "$1"): $line" >&2
  rate=$(echo "$line" | sed -E 's/.*: ([0-9]+) stored notes\/s.*/\1/')
}
posts=() bare=() cost=()
for i in $(seq "$POST_RUNS"); do
  # Which server posts first alternates, so that a machine warming up or slowing down favours neither; the real
  # one serves the reads below, from the store of the last run.
  if [ $((i % 2)) = 1 ]; then
    post_run "$work/server-noscreen"; b=$rate
    post_run "$work/server"; p=$rate
  else
    post_run "$work/server"; p=$rate
    post_run "$work/server-noscreen"; b=$rate
  fi
  bare+=("$b") posts+=("$p") cost+=("$(awk -v p="$p" -v b="$b" 'BEGIN {printf "%.1f", 100 * (1 - p / b)}')")
done

# The posts leave Pebble flushing and compacting for a while; reads are measured once it has settled.
sleep "${SETTLE:-15}"
mkdir -p "$work/root"
curl -sf 'http://127.0.0.1:8480/api/collusion/notes?limit=50' > "$work/root/notes.json"
cat > "$nginx_conf" <<NGINX
worker_processes 2;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off; sendfile on; tcp_nopush on; keepalive_requests 1000000;
  types { application/json json; }
  server { listen 127.0.0.1:8481; root $work/root; }
}
NGINX
nginx -c "$nginx_conf"
echo 'function delay() return 2 end' > "$work/paced.lua" # 64 connections pausing 2 ms: about 20,000 req/s
wrk_run() { # URL [wrk options]: prints "requests/s p99-ms"
  local url=$1; shift
  wrk -t2 -c64 -d10s --latency "$@" "$url" | awk '
    /Requests\/sec/ {rps=$2}
    $1=="99%" {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else if (v ~ /s$/) {sub(/s/,"",v); v*=1000}; p99=v}
    /Non-2xx/ {print "non-2xx answers: " $0 > "/dev/stderr"; exit 1}
    END {print rps, p99}'
}
# Saturated runs measure capacity; a paced run (each connection pausing 2 ms) measures the latency a client sees
# at about 20,000 req/s, without wrk's own descheduling in it. The server and wrk share the machine's two cores. With both cores the server serves the most requests, but
# wrk's threads are then descheduled now and then, which wrk counts as latency; with GOMAXPROCS=1 the server
# leaves wrk a core. Both are measured.
declare -A rps p99
for mode in 2 1; do
  GOMAXPROCS=$mode start_server keep
  for _ in $(seq "$RUNS"); do
    read -r r p < <(wrk_run 'http://127.0.0.1:8480/api/collusion/notes?limit=50'); rps[$mode]+="$r "; p99[$mode]+="$p "
    read -r r p < <(wrk_run 'http://127.0.0.1:8481/notes.json'); rps[n$mode]+="$r "; p99[n$mode]+="$p "
    read -r pr pp < <(wrk_run 'http://127.0.0.1:8480/api/collusion/notes?limit=50' -s "$work/paced.lua"); rps[p$mode]+="$pr "; p99[p$mode]+="$pp "
    echo "  listing (GOMAXPROCS=$mode): twofold $(echo ${rps[$mode]} | awk '{print $NF}') req/s, p99 $(echo ${p99[$mode]} | awk '{print $NF}') ms; nginx $r req/s, p99 $p ms" >&2
  done
done
med() { echo "$1" | median; }
bytes=$(wc -c < "$work/root/notes.json")

echo "Board benchmark, $(date -u +%Y-%m-%d), $(nproc) CPUs, $(go env GOVERSION), nginx $(nginx -v 2>&1 | sed 's/.*\///'), wrk $(wrk -v 2>&1 | head -1 | awk '{print $2}'); median of $RUNS runs, $POST_RUNS for posting (lowest–highest)"
echo
echo "| figure | twofold | anchor | ratio | target |"
echo "|---|---:|---:|---:|---|"
for mode in 2 1; do
  ratio=$(awk -v o="$(med "${rps[$mode]}")" -v n="$(med "${rps[n$mode]}")" 'BEGIN {printf "%.2f×", o/n}')
  echo "| GET listing, 50 of $POST_NOTES notes ($bytes bytes), $mode core(s): req/s (anchor nginx, same bytes) | $(stat "${rps[$mode]}" %.0f) | $(stat "${rps[n$mode]}" %.0f) | $ratio | ≥ 0.5× |"
  echo "| GET listing, $mode core(s): p99 ms, saturated | $(stat "${p99[$mode]}" %.2f) | $(stat "${p99[n$mode]}" %.2f) | | |"
  echo "| GET listing, $mode core(s): p99 ms, paced at $(stat "${rps[p$mode]}" %.0f) req/s | $(stat "${p99[p$mode]}" %.2f) | | | < 10 ms |"
done
echo "| POST, synced, 32 clients: stored notes/s (anchor: Pebble alone, about 37,000 synced writes/s, issue 3) | $(stat "${posts[*]}" %.0f) | | | ≥ 5,000 |"
echo "| POST, synced, 32 clients: stored notes/s with the content screen off (-tags benchnoscreen); the screen's cost, % per pair | $(stat "${bare[*]}" %.0f) | | $(stat "${cost[*]}" %.1f)% | ≤ 20% |"
