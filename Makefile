# The index of what a developer can do. Each target is a line or two; README.md says more.
GO ?= go
GOFILES_DIRS := build dev server templates site deploy

.PHONY: run dev build bin page generate test e2e e2e-deploy lint screen-model confusables og-fonts golden fuzz crash bench bench-build bench-dev bench-board bench-mcp bench-og soak clean

run: bin ## serve the whole site (pages, mirrors, API) on http://localhost:8080; Ctrl-C stops it
	@echo "building the site into public/…"
	@bin/build
	@TWOFOLD_FOREGROUND=1 exec bin/server

dev: bin ## like run, and rebuilds on every change to site/ or templates/, refreshes the server and reloads the browser
	@TWOFOLD_FOREGROUND=1 exec bin/dev

build: bin ## render site/ into public/
	@bin/build

# The programs, compiled once and run as binaries: go run would compile silently and exit 1 on Ctrl-C.
bin:
	@test -x bin/server -a -x bin/build -a -x bin/dev || echo "compiling the site builder and the server (the first time takes a minute or two)…"
	@$(GO) build -o bin/ ./build ./server ./dev

page: ## add a page: make page NAME=now TITLE="Now" writes site/pages/now.md and adds now to site.yaml's pages
	$(GO) run ./build/page -name "$$NAME" -title "$$TITLE"

generate: ## regenerate the templ components' Go code
	$(GO) tool templ generate -path templates

test: lint ## the one test command: lint, then every test with the race detector (and the screen's model check, its corpus-wide comparisons and the memory bounds without it)
	@$(PG_SKIPPED)
	$(GO) test -race -count=1 ./...
	$(GO) test -count=1 -timeout 20m -run '^TestTrainModel$$|Bounded$$|^TestWindowsFind|^TestRemoveTakesOut|^TestScannersFind' ./server/...
	@$(PG_SKIPPED)

# Says loudly that the PostgreSQL store's tests will skip (go test hides a passing package's skips).
PG_SKIPPED = ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null || \
	echo "!! PostgreSQL is not installed: the PostgreSQL store's tests are SKIPPED. Install it (bash .ci/setup, or apt-get install postgresql) and run make test again."

e2e: ## the MCP server against the MCP Inspector CLI and the official conformance suite (installs Node 22 and both); writes e2e-out/og-contact-sheet.png
	bash server/e2e/run.sh
	@mkdir -p e2e-out && OG_CONTACT_SHEET=$(CURDIR)/e2e-out/og-contact-sheet.png $(GO) test ./server/og -run '^TestScripts$$' -count=1 >/dev/null && echo "Open Graph images of every script, on one sheet: e2e-out/og-contact-sheet.png"

e2e-deploy: ## the deployment files alone (make e2e runs them too): the systemd unit verified and run under systemd, the Dockerfile built and run with podman
	bash deploy/e2e.sh

lint: ## vet, gofmt, go.mod tidy, and generated code up to date
	$(GO) vet ./...
	$(GO) vet -tags benchnoscreen ./server
	@out=$$(gofmt -l $(GOFILES_DIRS)); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	@$(GO) mod tidy -diff >/dev/null || { echo "go.mod/go.sum are not tidy: run go mod tidy"; exit 1; }
	@tmp=$$(mktemp -d) && cp templates/*.templ "$$tmp"/ && $(GO) tool templ generate -path "$$tmp" >/dev/null 2>&1 && \
	  for f in "$$tmp"/*_templ.go; do cmp -s "$$f" "templates/$$(basename "$$f")" || { echo "templates/$$(basename "$$f") is stale: run make generate"; rm -rf "$$tmp"; exit 1; }; done; rm -rf "$$tmp"

screen-model: ## retrain the content screen's classifier from server/screen/testdata/train.tsv (deterministic); commit model.bin
	$(GO) test ./server/screen -run '^TestTrainModel$$' -count=1 -timeout 30m -train

confusables: ## regenerate the screen's look-alike table from Unicode's confusables data (Debian python3-confusable-homoglyphs)
	@test -f /usr/lib/python3/dist-packages/confusable_homoglyphs/confusables.json || { apt-get update && apt-get install -y python3-confusable-homoglyphs; }
	cd server/screen && $(GO) generate -run gen_confusables

og-fonts: ## re-cut the Open Graph images' Noto fonts from Debian's packages (fonttools, brotli; reproducible); commit server/og/fonts
	@dpkg -s fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji python3-fonttools python3-pil brotli >/dev/null 2>&1 || { apt-get update && apt-get install -y fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji python3-fonttools python3-pil brotli; }
	/usr/bin/python3 server/og/fonts/subset.py
	$(GO) test ./server/og -count=1

golden: ## rewrite the build's golden files after an intended change; review the diff
	$(GO) test ./build/generate -run Golden -update

crash: ## the long crash test: 200 rounds of SIGKILL during concurrent posts (make test runs 20)
	$(GO) test ./server -run Crash -count=1 -timeout 30m -crash.rounds=200 -v

FUZZTIME ?= 20s
fuzz: ## run every fuzz target for FUZZTIME each
	@for t in server/content:FuzzParsePage server/api:FuzzDecodeNote server/board:FuzzValidID server/board:FuzzParseLimit \
	  server/challenge:FuzzVerify server/screen:FuzzLocal server/og:FuzzParseRender; do \
	  pkg=$${t%%:*}; fn=$${t##*:}; echo "== $$fn ($$pkg)"; \
	  $(GO) test ./$$pkg -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) || exit 1; done

bench: ## every benchmark (build, dev, board, MCP, OG) with its anchor, RUNS each; rewrites the tables of BENCHMARKS.md
	bash server/bench/all.sh

bench-build: ## build synthetic sites of 1,000 and 10,000 pages with twofold and Hugo, side by side
	bash build/bench/run.sh

bench-dev: ## make dev against hugo server on a synthetic site of 10,000 pages: from saving one page to its new HTML served
	go run ./build/bench -dev $${PAGES:-10000} -runs $${RUNS:-10} -work bench-out

STORE ?=
bench-board: ## the board's listing against nginx, and posting throughput (wrk, nginx); STORE=postgres: PostgreSQL beside Pebble (see BENCHMARKS.md)
	@if [ "$(STORE)" = postgres ]; then bash server/bench/postgres.sh; else bash server/bench/run.sh; fi

bench-mcp: ## MCP tools/list and tools/call against a minimal go-sdk server (wrk; see BENCHMARKS.md)
	bash server/bench/mcp.sh

soak: ## ten minutes of mixed traffic at 70% of the maximum; no 5xx, no lost note, flat memory (not in CI)
	bash server/bench/soak.sh

bench-og: ## Open Graph render against @vercel/og, and cached /api/og requests/s (Node, wrk; see BENCHMARKS.md)
	bash server/bench/og.sh

clean:
	rm -rf bin public public.building-* bench-out e2e-out soak-out
