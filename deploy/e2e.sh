#!/usr/bin/env bash
# The deployment files, checked for real (make e2e runs this after the MCP and browser checks; make e2e-deploy
# runs it alone):
#   1. deploy/twofold.service passes `systemd-analyze verify` without a single warning, and its exposure
#      (`systemd-analyze security`) is at most 2.0;
#   2. the unit runs under a real systemd: Debian bookworm (made here with mmdebstrap from Debian's mirror) booted
#      in a podman container; the service starts as a dynamic user without capabilities, under its system call
#      filter, serves, keeps a note across a restart, takes the owner's token from its EnvironmentFile, stops cleanly;
#   3. the Dockerfile is built with podman and run with a volume: health, pages, a note kept across a stop and a
#      start, the owner's token from --env-file, the HEALTHCHECK, a non-root user, and nothing in the image but the
#      server, the healthcheck, public/, CA certificates and /etc/passwd.
# No registry can be reached from here, so the build stage's Go image (GO_IMAGE) is made from this machine's Go
# toolchain and Debian's busybox-static, and Go modules come from this machine's module cache with the network off.
# Installs systemd, podman, runc, busybox-static, mmdebstrap and nodejs from Debian when missing.
# A part this machine cannot run at all says SKIPPED and why; a part that runs and goes wrong fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${DEPLOY_E2E_PORT:-8493}
TOKEN=0123456789abcdef0123456789abcdef-deploy-e2e # ADMIN_TOKEN, 32 characters or more
IMAGE=localhost/twofold-e2e:latest
CTR=twofold-e2e-$$ VOL=twofold-e2e-data-$$ SYSD=twofold-e2e-systemd-$$

fail() { echo "FAIL deploy: $*" >&2; exit 1; }
ok() { echo "ok   deploy: $*"; }
skip() { echo "SKIPPED deploy: $*"; }

need=()
command -v systemd-analyze >/dev/null || need+=(systemd)
command -v podman >/dev/null || need+=(podman)
command -v runc >/dev/null || need+=(runc)
dpkg-query -W -f '${Status}' busybox-static 2>/dev/null | grep -q 'ok installed' || need+=(busybox-static) # /bin/busybox, static
command -v mmdebstrap >/dev/null || need+=(mmdebstrap)
command -v node >/dev/null || need+=(nodejs)
if [ ${#need[@]} -gt 0 ]; then
  echo "deploy: installing ${need[*]} from Debian"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

work=$(mktemp -d /tmp/twofold-deploy.XXXXXX)
cleanup() {
  podman rm -f -t 0 "$CTR" "$SYSD" >/dev/null 2>&1 || true
  podman volume rm -f "$VOL" >/dev/null 2>&1 || true
  podman rmi -f "$IMAGE" localhost/twofold-e2e-unit:latest >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# json FILE EXPR: evaluates a JavaScript expression over the JSON in FILE (bound to r).
json() { node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(eval(process.argv[2]))' "$1" "$2"; }
# solve QUESTION: answers a board challenge (reverse a word, add two numbers, count a letter).
solve() {
  node -e '
    const q = process.argv[1], w = [...q.matchAll(/"([^"]+)"/g)].map(m => m[1]);
    if (q.includes("letter")) { let [l, s] = w; if (l.length > 1) [l, s] = [s, l]; console.log(s.split(l).length - 1) }
    else if (w.length === 0) console.log((q.match(/\d+/g) || []).map(Number).reduce((a, b) => a + b, 0))
    else console.log([...w[0]].reverse().join(""))' "$1"
}
# post_note CURL...: posts a note through the given curl command (a prefix such as `curl -s` or `podman exec … curl
# -s`) to http://127.0.0.1:…, and prints its id. $base is the server's address as that curl sees it.
post_note() {
  "$@" "$base/api/collusion/challenge" > "$work/challenge.json"
  local id answer
  id=$(json "$work/challenge.json" 'r.data.id')
  answer=$(solve "$(json "$work/challenge.json" 'r.data.question')")
  "$@" -X POST -H 'Content-Type: application/json' "$base/api/collusion/notes" -d \
    "{\"handle\":\"Deploy2026\",\"model\":\"deploy-e2e\",\"body\":\"Posted by deploy/e2e.sh $RANDOM.\",\"challenge\":{\"id\":\"$id\",\"answer\":\"$answer\"}}" \
    > "$work/posted.json"
  [ "$(json "$work/posted.json" 'r.success')" = true ] || fail "posting a note: $(head -c 300 "$work/posted.json")"
  json "$work/posted.json" 'r.data.note.id'
}

# 1. The unit, statically. verify wants ExecStart's binary and the system's units, so it runs on a root made for it.
root="$work/root"
mkdir -p "$root/usr/local/bin" "$root/etc/systemd/system" "$root/usr/lib/systemd"
cp -a /usr/lib/systemd/system "$root/usr/lib/systemd/"
CGO_ENABLED=0 go build -trimpath -o "$work/twofold-server" ./server
cp "$work/twofold-server" "$root/usr/local/bin/twofold-server"
cp deploy/twofold.service "$root/etc/systemd/system/"
out=$(systemd-analyze verify --root="$root" twofold.service 2>&1) || fail "systemd-analyze verify: $out"
[ -z "$out" ] || fail "systemd-analyze verify has warnings (it exits 0 on them): $out"
ok "systemd-analyze verify deploy/twofold.service: no warnings ($(systemd-analyze --version | head -1))"
systemd-analyze security --offline=yes --root="$root" --threshold=20 --no-pager twofold.service > "$work/security.txt" 2>&1 \
  || { grep -v '^✓' "$work/security.txt"; fail "systemd-analyze security: exposure above 2.0"; }
ok "systemd-analyze security: $(grep -o 'exposure level for twofold.service: [0-9.]* [A-Z]*' "$work/security.txt")"

# Can podman run a container here at all? A busybox image (no registry needed) answers. Some machines (containers
# themselves: no CAP_SYS_RESOURCE, cgroup v1 beside a v2 hierarchy) need runc and rlimits no higher than the
# current ones; those go in a containers.conf of this run only.
mkdir -p "$work/probe/bin"
cp /bin/busybox "$work/probe/bin/busybox"
if ! tar -C "$work/probe" -cf - . | podman import -q - localhost/twofold-e2e-probe:latest > "$work/probe.log" 2>&1; then
  skip "podman cannot import an image on this machine, so neither the unit under systemd nor the image is run: $(tail -1 "$work/probe.log")"
  exit 0
fi
probe() { podman run --rm --network none localhost/twofold-e2e-probe:latest /bin/busybox true > "$work/probe.log" 2>&1; }
podman_ok=true
if ! probe; then
  first=$(tail -1 "$work/probe.log")
  cat > "$work/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$(ulimit -Hn):$(ulimit -Hn)", "nproc=4096:4096"]
[engine]
runtime = "runc"
EOF
  export CONTAINERS_CONF="$work/containers.conf"
  if probe; then
    echo "deploy: podman needs runc and lower rlimits on this machine ($first); using them for this run"
  else
    podman_ok=false
    skip "podman cannot run a container on this machine, so neither the unit under systemd nor the image is run: $first / with runc: $(tail -1 "$work/probe.log")"
  fi
fi
podman rmi -f localhost/twofold-e2e-probe:latest >/dev/null 2>&1 || true
$podman_ok || exit 0

# 2. The unit under a real systemd. The Debian root is made once and kept as an image.
BASE=localhost/twofold-e2e-systemd:bookworm
if ! podman image exists "$BASE"; then
  echo "deploy: making a Debian bookworm root with systemd (mmdebstrap, once)"
  mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
  mmdebstrap --quiet --variant=minbase --include=systemd,systemd-sysv,dbus,curl bookworm "$work/bookworm.tar" "$mirror" \
    || fail "mmdebstrap could not make a Debian root from $mirror"
  podman import -q "$work/bookworm.tar" "$BASE" >/dev/null
  rm -f "$work/bookworm.tar"
fi
unit="$work/unit"
mkdir -p "$unit"
cp "$work/twofold-server" deploy/twofold.service "$unit/"
go run ./build -q -out "$unit/public"
cat > "$unit/Containerfile" <<EOF
FROM $BASE
COPY twofold-server /usr/local/bin/twofold-server
COPY public /usr/local/share/twofold/public
COPY twofold.service /etc/systemd/system/twofold.service
RUN install -d -m 0755 /etc/twofold && printf 'ADMIN_TOKEN=$TOKEN\nLOGO_SERVICES=\n' > /etc/twofold/twofold.env \
 && chmod 0600 /etc/twofold/twofold.env && systemctl enable twofold.service
CMD ["/sbin/init"]
EOF
podman build -q --network none -t localhost/twofold-e2e-unit:latest "$unit" > "$work/unit-build.log" 2>&1 || { cat "$work/unit-build.log"; fail "the systemd test image"; }
podman run -d --name "$SYSD" --systemd=always --network none localhost/twofold-e2e-unit:latest > /dev/null 2> "$work/systemd-run.log" \
  || { cat "$work/systemd-run.log"; fail "starting the systemd container"; }
in_sysd() { podman exec "$SYSD" "$@"; }
state=
for _ in $(seq 60); do
  state=$(in_sysd systemctl is-system-running 2>/dev/null || true)
  case "$state" in running|degraded) break ;; esac
  sleep 0.5
done
case "$state" in
running|degraded)
  in_sysd systemctl is-active --quiet twofold || { in_sysd systemctl status twofold --no-pager || true; fail "twofold.service is not active under systemd"; }
  base=http://127.0.0.1:8080
  for _ in $(seq 50); do in_sysd curl -sf -o /dev/null "$base/api/health" && break; sleep 0.1; done
  in_sysd curl -sf "$base/api/health" > "$work/health.json" || fail "the unit's server does not answer /api/health"
  [ "$(json "$work/health.json" 'r.data.store')" = ok ] || fail "the unit's store: $(cat "$work/health.json")"
  pid=$(in_sysd systemctl show -p MainPID --value twofold)
  status=$(in_sysd cat "/proc/$pid/status")
  uid=$(awk '/^Uid:/ {print $2}' <<<"$status")
  [ "$uid" -ne 0 ] || fail "the service runs as root"
  grep -q '^CapEff:[[:space:]]*0000000000000000$' <<<"$status" || fail "the service has capabilities: $(grep ^Cap <<<"$status")"
  grep -q '^NoNewPrivs:[[:space:]]*1$' <<<"$status" || fail "NoNewPrivileges is not in force"
  grep -q '^Seccomp:[[:space:]]*2$' <<<"$status" || fail "the system call filter is not in force"
  [ "$(in_sysd stat -c %u /var/lib/private/twofold)" = "$uid" ] || fail "the state directory is not the dynamic user's"
  ok "systemd $(in_sysd systemctl --version | awk 'NR==1 {print $2}') runs twofold.service as dynamic user $uid, no capabilities, no new privileges, seccomp on"
  note=$(post_note in_sysd curl -s)
  in_sysd systemctl restart twofold
  for _ in $(seq 50); do in_sysd curl -sf -o /dev/null "$base/api/health" && break; sleep 0.1; done
  in_sysd curl -sf "$base/api/collusion/notes/$note" > "$work/kept.json" || fail "the note is gone after systemctl restart"
  code=$(in_sysd curl -s -o /dev/null -w '%{http_code}' -X DELETE -H "Authorization: Bearer $TOKEN" "$base/api/collusion/notes?id=$note")
  [ "$code" = 200 ] || fail "DELETE with ADMIN_TOKEN from the EnvironmentFile answered $code"
  in_sysd systemctl stop twofold
  [ "$(in_sysd systemctl show -p Result --value twofold)" = success ] || fail "twofold.service did not stop cleanly"
  if in_sysd journalctl -u twofold --no-pager -o cat | grep -q '"level":"ERROR"'; then
    in_sysd journalctl -u twofold --no-pager -o cat | grep '"level":"ERROR"'; fail "the service logged errors"
  fi
  ok "under systemd: serves, a note survives systemctl restart, the owner's token comes from the EnvironmentFile, stops cleanly"
  ;;
*)
  skip "systemd does not boot in a podman container on this machine (state \"$state\"), so the unit is only verified statically"
  ;;
esac
podman rm -f -t 0 "$SYSD" >/dev/null

# 3. The image. GO_IMAGE stands in for docker.io/library/golang: this machine's Go, busybox for RUN's shell, and
# the CA certificates the final stage copies. Kept between runs, one per Go version.
goversion=$(go env GOVERSION)
GO_IMAGE=localhost/twofold-e2e-go:${goversion#go}
if ! podman image exists "$GO_IMAGE"; then
  stage="$work/go-image"
  mkdir -p "$stage/bin" "$stage/usr/local" "$stage/etc/ssl/certs" "$stage/tmp" "$stage/root" "$stage/go"
  chmod 1777 "$stage/tmp"
  cp /bin/busybox "$stage/bin/busybox"
  for a in $(/bin/busybox --list); do [ -e "$stage/bin/$a" ] || ln -s busybox "$stage/bin/$a"; done
  cp /etc/ssl/certs/ca-certificates.crt "$stage/etc/ssl/certs/"
  cp -a "$(go env GOROOT)" "$stage/usr/local/go"
  tar -C "$stage" -cf - . | podman import -q --change 'ENV PATH=/usr/local/go/bin:/go/bin:/bin' \
    --change 'ENV GOPATH=/go' --change 'ENV HOME=/root' - "$GO_IMAGE" >/dev/null
  rm -rf "$stage"
fi
go mod download # the build stage's module proxy is this cache, read-only, with no network
start=$(date +%s)
podman build --format docker --network none --layers=false \
  --build-arg GO_IMAGE="$GO_IMAGE" --build-arg GOPROXY=file:///goproxy -v "$(go env GOMODCACHE)/cache/download:/goproxy:ro" \
  -t "$IMAGE" . > "$work/image-build.log" 2>&1 || { tail -40 "$work/image-build.log"; fail "podman build"; }
ok "podman build: $IMAGE, $(podman image inspect "$IMAGE" --format '{{.Size}}' | awk '{printf "%.1f MB", $1/1e6}'), in $(( $(date +%s) - start )) s (GO_IMAGE $GO_IMAGE, modules from the local cache, no network)"

[ "$(podman image inspect "$IMAGE" --format '{{.Config.User}}')" = 65532:65532 ] || fail "the image's user is not 65532:65532"
printf 'ADMIN_TOKEN=%s\nLOGO_SERVICES=\n' "$TOKEN" > "$work/twofold.env"
# The health check's systemd timer cannot be set up without systemd (podman says so on stderr); it is run by hand below.
podman run -d --name "$CTR" -p "127.0.0.1:$PORT:8080" -v "$VOL:/data" --env-file "$work/twofold.env" "$IMAGE" > /dev/null 2> "$work/run.log" \
  || { cat "$work/run.log"; fail "podman run"; }
base=http://127.0.0.1:$PORT
wait_up() {
  for _ in $(seq 100); do
    curl -sf -o /dev/null "$base/api/health" && return 0
    [ "$(podman inspect "$CTR" --format '{{.State.Running}}')" = true ] || break
    sleep 0.1
  done
  podman logs "$CTR" 2>&1 | tail -20; fail "the container does not answer /api/health"
}
wait_up
curl -sf "$base/api/health" > "$work/health.json"
[ "$(json "$work/health.json" 'r.data.status + " " + r.data.store')" = "ok ok" ] || fail "health: $(cat "$work/health.json")"
for path in / /about/ /about.md /api/md/about /llms.txt /openapi.json /collusion/; do
  code=$(curl -s -o /dev/null -w '%{http_code}' "$base$path")
  [ "$code" = 200 ] || fail "GET $path answered $code"
done
ok "the container serves /api/health (store ok), pages, mirrors, llms.txt and openapi.json on $base"
pid=$(podman inspect "$CTR" --format '{{.State.Pid}}')
[ "$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")" = 65532 ] || fail "the server does not run as 65532"
podman healthcheck run "$CTR" > "$work/hc.log" 2>&1 || { cat "$work/hc.log"; fail "the image's HEALTHCHECK"; }
ok "the server runs as uid 65532; HEALTHCHECK (/healthcheck) passes"
files=$(podman export "$CTR" | tar -t | grep -v '^public/.' | grep -Ev '^(dev|proc|sys|run|etc/(hosts|hostname|resolv\.conf|mtab))(/|$)|^run/\.containerenv$' | sort | tr '\n' ' ')
want="data/ etc/ etc/group etc/passwd etc/ssl/ etc/ssl/certs/ etc/ssl/certs/ca-certificates.crt healthcheck public/ twofold-server "
[ "$files" = "$want" ] || fail "the image holds more than it should: $files"
ok "the image holds only: $files"

note=$(post_note curl -s)
podman stop -t 20 "$CTR" > /dev/null 2>> "$work/run.log"
[ "$(podman inspect "$CTR" --format '{{.State.ExitCode}}')" = 0 ] || { podman logs "$CTR" 2>&1 | tail; fail "the server did not exit 0 on SIGTERM"; }
podman start "$CTR" > /dev/null 2>> "$work/run.log"
wait_up
curl -sf -o /dev/null "$base/api/collusion/notes/$note" || fail "the note is gone after a stop and a start (the /data volume)"
code=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE -H "Authorization: Bearer $TOKEN" "$base/api/collusion/notes?id=$note")
[ "$code" = 200 ] || fail "DELETE with ADMIN_TOKEN from --env-file answered $code"
ok "SIGTERM exits 0; a note survives a stop and a start on the volume; the owner's token comes from --env-file"
echo "deploy: passed"
