#!/usr/bin/env bash
# make bench-mcp: tools/list and tools/call get_collusion_challenge on 127.0.0.1 with wrk (2 threads,
# 64 connections, 10 s, RUNS times, alternating), against a minimal server made with the official go-sdk
# (stateless, JSON responses, one tool; server/bench/sdkserver), in the same run. Medians; a markdown table.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-3}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
work=$(mktemp -d /tmp/twofold-bench-mcp.XXXXXX)
ours=; anchor=
trap '[ -n "$ours" ] && kill "$ours" 2>/dev/null; [ -n "$anchor" ] && kill "$anchor" 2>/dev/null; rm -rf "$work"' EXIT
go build -o "$work/server" ./server
go build -o "$work/sdkserver" ./server/bench/sdkserver
for m in list call; do
  body='{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
  [ $m = call ] && body='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_collusion_challenge","arguments":{}}}'
  cat > "$work/$m.lua" <<LUA
wrk.method = "POST"
wrk.body = '$body'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-06-18"
LUA
  cp "$work/$m.lua" "$work/$m-paced.lua"
  # A 1 ms pause on 104 connections offers about 45,000 tools/list a second, a 2 ms pause on 64 about 22,000
  # tools/call (each cycle is the pause plus the answer's time).
  delay=1; [ $m = call ] && delay=2
  echo "function delay() return $delay end" >> "$work/$m-paced.lua"
done
wait_for() { for _ in $(seq 50); do curl -s -o /dev/null -X POST "$1" && return; sleep 0.1; done; echo "no server at $1"; exit 1; }
start_ours() {
  [ -n "$ours" ] && { kill "$ours"; wait "$ours" 2>/dev/null || true; }
  GOMAXPROCS=$1 ADDR=127.0.0.1:8483 PUBLIC_DIR= DATA_DIR="$work/data" RATE_MCP=1000000000 LOG_LEVEL=warn "$work/server" 2>"$work/server.log" &
  ours=$!; wait_for http://127.0.0.1:8483/api/mcp
}
"$work/sdkserver" -addr 127.0.0.1:8482 2>"$work/sdk.log" & anchor=$!
wait_for http://127.0.0.1:8482/
wrk_run() {
  local conns=64; [ "$2" = list-paced ] && conns=104
  wrk -t2 -c$conns -d10s --latency -s "$work/$2.lua" "$1" | awk '
    /Requests\/sec/ {rps=$2}
    $1=="99%" {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else if (v ~ /s$/) {sub(/s/,"",v); v*=1000}; p99=v}
    /Non-2xx/ {bad=1}
    END {if (bad) {print "non-2xx answers" > "/dev/stderr"; exit 1}; print rps, p99}'
}
. server/bench/lib.sh
declare -A rps p99
for procs in 2 1; do
  start_ours "$procs"
  for _ in $(seq "$RUNS"); do
    for m in list call; do
      read -r r p < <(wrk_run http://127.0.0.1:8483/api/mcp $m); rps[$m$procs]+="$r "; p99[$m$procs]+="$p "
      read -r r p < <(wrk_run http://127.0.0.1:8482/ $m); rps[sdk$m$procs]+="$r "; p99[sdk$m$procs]+="$p "
      echo "  $m (GOMAXPROCS=$procs): twofold $(echo ${rps[$m$procs]} | awk '{print $NF}') req/s p99 $(echo ${p99[$m$procs]} | awk '{print $NF}') ms; go-sdk $r req/s p99 $p ms" >&2
      read -r r p < <(wrk_run http://127.0.0.1:8483/api/mcp $m-paced); rps[paced$m$procs]+="$r "; p99[paced$m$procs]+="$p "
      echo "  $m paced (GOMAXPROCS=$procs): twofold $r req/s p99 $p ms" >&2
    done
  done
done
echo "MCP benchmark, $(date -u +%Y-%m-%d), $(nproc) CPUs, $(go env GOVERSION), go-sdk $(go list -m -f '{{.Version}}' github.com/modelcontextprotocol/go-sdk); median of $RUNS runs (lowest–highest)"
echo
echo "| figure | twofold | go-sdk anchor | ratio | target |"
echo "|---|---:|---:|---:|---|"
for procs in 2 1; do
  for m in list call; do
    name="tools/list"; target="≥ 40,000"
    [ $m = call ] && { name="tools/call get_collusion_challenge"; target="≥ 20,000"; }
    o=$(echo "${rps[$m$procs]}" | median); a=$(echo "${rps[sdk$m$procs]}" | median)
    echo "| $name, $procs core(s): req/s, saturated | $(stat "${rps[$m$procs]}" %.0f) | $(stat "${rps[sdk$m$procs]}" %.0f) | $(awk -v o="$o" -v a="$a" 'BEGIN {printf "%.1f×", o/a}') | $target |"
    echo "| $name, $procs core(s): p99 ms, saturated | $(stat "${p99[$m$procs]}" %.2f) | $(stat "${p99[sdk$m$procs]}" %.2f) | | |"
    echo "| $name, $procs core(s): p99 ms, paced at $(stat "${rps[paced$m$procs]}" %.0f) req/s | $(stat "${p99[paced$m$procs]}" %.2f) | | | < 10 ms |"
  done
done
