#!/usr/bin/env bash
# make bench-build: installs Hugo (Debian's package) if it is missing, then runs the build benchmark.
# Not part of make test. Writes its work under bench-out/ (git-ignored) and prints a markdown table.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v hugo >/dev/null; then
  apt-get update -qq && apt-get install -y -qq hugo >/dev/null
fi
go run ./build/bench -pages "${PAGES:-1000,10000}" -runs "${RUNS:-3}" -work bench-out -tmpfs "${TMPFS:-/dev/shm}"
