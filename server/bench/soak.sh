#!/usr/bin/env bash
# make soak (not in CI): the server under mixed traffic for SOAK_DURATION (default 10m) at SOAK_LOAD (default 0.7)
# of the mix's measured maximum, on 127.0.0.1; see server/bench/soak. Samples and the summary go to soak-out/.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d /tmp/twofold-soak-build.XXXXXX)
trap 'rm -rf "$work"' EXIT
go run ./build -q -out "$work/public"
go build -o "$work/server" ./server
go build -o "$work/soak" ./server/bench/soak
"$work/soak" -server "$work/server" -public "$work/public" -duration "${SOAK_DURATION:-10m}" -load "${SOAK_LOAD:-0.7}" -out soak-out
