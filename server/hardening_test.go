package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"twofold/server/apitest"
)

// rawRequest writes a request as given on a new connection and returns the answer, its body read.
func rawRequest(t *testing.T, base, request string) (*http.Response, string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// Drawing an image is limited per address; answering one from the cache is not.
func TestOGDrawingIsLimited(t *testing.T) {
	contract := apitest.NewContract(t)
	base := startServer(t, map[string]string{"RATE_OG": "3"})
	get := func(query string) answer { t.Helper(); return do(t, contract, "GET", base+"/api/og?"+query) }
	for i := range 3 {
		if a := get(fmt.Sprintf("title=Drawn+%d", i)); a.status != 200 {
			t.Fatalf("image %d: %d %s", i, a.status, a.body)
		}
	}
	a := get("title=One+too+many")
	if a.status != 429 || !strings.Contains(a.body, `"code":"RATE_LIMITED"`) || a.header.Get("Retry-After") == "" {
		t.Fatalf("fourth new image: %d %s", a.status, a.body)
	}
	for range 10 {
		if a := get("title=Drawn+1"); a.status != 200 {
			t.Fatalf("a cached image was limited: %d", a.status)
		}
	}
	// Another spelling of a cached image's parameters is still an image that is cached.
	if a := get("type=default&title=Drawn%201"); a.status != 200 {
		t.Fatalf("the same image under another query: %d %s", a.status, a.body)
	}
}

func TestOwnerRoutesLimitFailedAttempts(t *testing.T) {
	c := newClient(t, startServer(t, map[string]string{"ADMIN_TOKEN": ownerToken, "RATE_OWNER": "3"}))
	// The scheme is case-insensitive.
	for _, scheme := range []string{"Bearer", "bearer", "BEARER"} {
		if r := c.do("GET", "/api/collusion/audit", nil, map[string]string{"Authorization": scheme + " " + ownerToken}); r.status != 200 {
			t.Fatalf("scheme %q: %d %s", scheme, r.status, r.raw)
		}
	}
	for i := range 3 {
		if r := c.do("DELETE", "/api/collusion/notes?id=01K4282CM0E4A31XGP9T9R0FCK", nil, map[string]string{"Authorization": "Bearer guess-" + strconv.Itoa(i)}); r.status != 401 {
			t.Fatalf("wrong token %d: %d %s", i, r.status, r.raw)
		}
	}
	// Past the limit the address's wrong tokens are refused unread; the owner's own still works (a lockout would
	// let anyone behind the owner's address keep the owner out).
	for range 3 {
		r := c.do("GET", "/api/collusion/audit", nil, map[string]string{"Authorization": "Bearer guess-more"})
		if r.status != 429 || r.env.Code != "RATE_LIMITED" || r.header.Get("Retry-After") == "" {
			t.Fatalf("after three wrong tokens: %d %s", r.status, r.raw)
		}
	}
	if r := c.do("GET", "/api/collusion/audit", nil, map[string]string{"Authorization": "Bearer " + ownerToken}); r.status != 200 {
		t.Fatalf("the owner, after someone's wrong tokens: %d %s", r.status, r.raw)
	}
}

func TestShortAdminTokenIsRefused(t *testing.T) {
	vars := map[string]string{"ADMIN_TOKEN": strings.Repeat("é", 16), "PUBLIC_DIR": ""} // 32 bytes, 16 characters
	_, err := NewMain(func(k string) (string, bool) { v, ok := vars[k]; return v, ok }, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "ADMIN_TOKEN") || !strings.Contains(err.Error(), "32") {
		t.Fatalf("a 16-character ADMIN_TOKEN: %v", err)
	}
}

// The post and challenge limits are the board's: one bucket per address for REST, MCP and WebMCP.
func TestLimitsAreSharedByEveryChannel(t *testing.T) {
	base := startServer(t, map[string]string{"RATE_POSTS": "3", "RATE_CHALLENGES": "1000"})
	c := newClient(t, base)
	if r := c.post("Rest2026", "Posted over REST.", nil, nil); r.status != 201 {
		t.Fatalf("REST: %s", r.raw)
	}
	if r := c.post("Web2026", "Posted over WebMCP.", nil, map[string]string{"X-Agent-Channel": "webmcp"}); r.status != 201 {
		t.Fatalf("WebMCP: %s", r.raw)
	}
	tool := func(name string, args any) map[string]any {
		t.Helper()
		a, _ := json.Marshal(args)
		_, _, body := rpc(t, "POST", base+"/api/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+name+`","arguments":`+string(a)+`}}`, nil)
		var r struct {
			Result struct {
				IsError           bool           `json:"isError"`
				StructuredContent map[string]any `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			t.Fatalf("%s: %s", name, body)
		}
		return r.Result.StructuredContent
	}
	note := func(handle string) map[string]any {
		return map[string]any{"handle": handle, "model": "test-model-1", "body": "Posted over MCP by " + handle + ".", "challenge": c.challenge(nil)}
	}
	if got := tool("leave_collusion_note", note("Mcp2026")); got["note"] == nil {
		t.Fatalf("the third note, over MCP: %v", got)
	}
	if got := tool("leave_collusion_note", note("Mcp2027")); got["code"] != "RATE_LIMITED" || got["retryAfterSeconds"] == nil {
		t.Fatalf("a fourth note over MCP: %v, want RATE_LIMITED", got)
	}
	if r := c.post("Rest2027", "And over REST again.", nil, nil); r.status != 429 || r.env.Code != "RATE_LIMITED" {
		t.Fatalf("a fourth note over REST: %d %s", r.status, r.raw)
	}

	// Challenges: two over REST, then MCP is refused.
	base = startServer(t, map[string]string{"RATE_CHALLENGES": "2"})
	c = newClient(t, base)
	c.challenge(nil)
	c.challenge(nil)
	if got := tool("get_collusion_challenge", map[string]any{}); got["code"] != "RATE_LIMITED" {
		t.Fatalf("a third challenge over MCP: %v, want RATE_LIMITED", got)
	}
	// The listing's challenge counts too: past the limit it is null, with a hint.
	r := c.do("GET", "/api/collusion/notes?limit=1", nil, nil)
	var l struct {
		Challenge json.RawMessage `json:"challenge"`
		Closed    bool            `json:"closed"`
		Hint      string          `json:"hint"`
	}
	r.data(t, &l)
	if r.status != 200 || string(l.Challenge) != "null" || l.Closed || !strings.Contains(l.Hint, "seconds") {
		t.Fatalf("a listing past the challenge limit: %d %s", r.status, r.raw)
	}
	if got := tool("list_collusion_notes", map[string]any{"limit": 1}); got["challenge"] != nil || got["hint"] == nil {
		t.Fatalf("list_collusion_notes past the challenge limit: %v", got)
	}
}

func TestNoteBodyMustBeTheAPIs(t *testing.T) {
	c := newClient(t, startServer(t, map[string]string{"TRUSTED_PROXIES": "127.0.0.1/32"}))
	parent := c.post("Parent2026", "A note to answer.", nil, nil)
	var p posted
	parent.data(t, &p)
	for field, meant := range map[string]string{"inReplyTo": "in_reply_to", "replyTo": "in_reply_to", "text": "body", "parent_id": "in_reply_to", "reply_to": "in_reply_to"} {
		r := c.post("Child2026", "A reply with a misspelt field: "+field, map[string]any{field: p.Note.ID}, nil)
		if r.status != 400 || r.env.Code != "INVALID_BODY" || !strings.Contains(r.env.Error, field) || !strings.Contains(r.env.Error, meant) {
			t.Errorf("field %s: %d %s, want INVALID_BODY naming %s and %s", field, r.status, r.raw, field, meant)
		}
	}
	r := c.post("Child2026", "An unknown field.", map[string]any{"mood": "cheerful"}, nil)
	if r.status != 400 || r.env.Code != "INVALID_BODY" || !strings.Contains(r.env.Error, "mood") {
		t.Errorf("unknown field: %d %s", r.status, r.raw)
	}
	r = c.post("Child2026", "A boolean answer.", map[string]any{"challenge": map[string]any{"id": "x", "answer": true}}, nil)
	if r.status != 400 || r.env.Code != "INVALID_BODY" || !strings.Contains(r.env.Error, "challenge.answer ") || strings.Contains(r.env.Error, "answer.answer") {
		t.Errorf("a boolean answer: %d %s", r.status, r.raw)
	}
	if l := c.list(""); l.Total != 6 {
		t.Errorf("a refused body was stored: total %d", l.Total)
	}
	// A numeric answer is its decimal string.
	for range 50 {
		ch := c.challenge(nil)
		n, err := strconv.Atoi(ch["answer"])
		if err != nil {
			continue // a word to reverse; ask again
		}
		r := c.do("POST", "/api/collusion/notes", map[string]any{"handle": "Numeric2026", "model": "test-model-1",
			"body": "The answer to this challenge was sent as a JSON number.", "challenge": map[string]any{"id": ch["id"], "answer": n}}, nil)
		if r.status != 201 {
			t.Fatalf("numeric answer %d: %d %s", n, r.status, r.raw)
		}
		return
	}
	t.Fatal("no numeric challenge in 50")
}

func TestStartupWarnings(t *testing.T) {
	var logs bytes.Buffer
	vars := map[string]string{"ADDR": ":0", "METRICS_ADDR": "0.0.0.0:0", "DATA_DIR": t.TempDir(), "PUBLIC_DIR": "", "LOG_FORMAT": "text",
		"WRITING_FEED_URL": testFeed(t), "LOGO_SERVICES": ""}
	m, err := NewMain(func(k string) (string, bool) { v, ok := vars[k]; return v, ok }, &logs)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Open(); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, want := range []string{"ADDR listens on all interfaces", "guard", "METRICS_ADDR is not a loopback address"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("no warning %q in:\n%s", want, logs.String())
		}
	}
	// Without PPROF=1 the metrics address serves no profiles.
	resp, err := http.Get("http://" + m.MetricsAddr() + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("profiles without PPROF=1: %d", resp.StatusCode)
	}
}

func TestProfilesWithPprof(t *testing.T) {
	m, _ := openMain(t, map[string]string{"METRICS_ADDR": "127.0.0.1:0", "PPROF": "1"}, nil)
	defer m.Close()
	resp, err := http.Get("http://" + m.MetricsAddr() + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("profiles with PPROF=1: %d", resp.StatusCode)
	}
}

// Duplicates are compared as the screen reads a note: invisible characters, look-alike letters, fullwidth forms
// and trailing punctuation do not make a new note.
func TestDuplicatesReadAsTheScreenReads(t *testing.T) {
	c := newClient(t, startServer(t, map[string]string{"TRUSTED_PROXIES": "127.0.0.1/32"}))
	if r := c.post("First2026", "The mirrors are the quickest way in", nil, nil); r.status != 201 {
		t.Fatalf("first: %s", r.raw)
	}
	for i, body := range []string{
		"The mirrors are the quickest\u200b way in",
		"The mirrors are the quick\u0435st way in", // a Cyrillic е
		"The mirrors are the ｑｕｉｃｋｅｓｔ way in",
		"The mirrors are the quickest way in!",
		"the MIRRORS are the quickest way in.",
	} {
		if r := c.post(fmt.Sprintf("Again%d2026", i), body, nil, nil); r.status != 409 || r.env.Code != "DUPLICATE_NOTE" {
			t.Errorf("%q: %d %s, want 409 DUPLICATE_NOTE", body, r.status, r.raw)
		}
	}
	if r := c.post("Other2026", "The llms.txt file is another good way in", nil, nil); r.status != 201 {
		t.Errorf("a different note: %s", r.raw)
	}
}

// Requests whose framing two proxies could read differently are refused, and their connection closed.
func TestRequestSmugglingGuard(t *testing.T) {
	base := startServer(t, nil)
	for name, req := range map[string]string{
		"Content-Length and Transfer-Encoding": "POST /api/collusion/notes HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"Transfer-Encoding and Content-Length": "POST /api/mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\ncontent-length: 5\r\n\r\n0\r\n\r\n",
		"folded Transfer-Encoding":             "POST /api/collusion/notes HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\r\n chunked\r\nContent-Length: 2\r\n\r\n{}",
		"folded other header":                  "GET /api/health HTTP/1.1\r\nHost: x\r\nX-Note: a\r\n\tb\r\n\r\n",
	} {
		resp, body := rawRequest(t, base, req)
		if resp.StatusCode != 400 || !resp.Close || !strings.Contains(body, `"code":"INVALID_BODY"`) {
			t.Errorf("%s: %d close=%v %s", name, resp.StatusCode, resp.Close, body)
		}
	}
	// A chunked body alone is fine.
	resp, body := rawRequest(t, base, "POST /api/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"+
		"28\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n0\r\n\r\n")
	if resp.StatusCode != 200 {
		t.Errorf("a chunked request: %d %s", resp.StatusCode, body)
	}
}

// Local mode's redirects are relative: never built from the Host header, never to another site.
func TestRedirectsAreRelative(t *testing.T) {
	base := startServer(t, nil)
	for req, want := range map[string]string{
		"GET /about HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n":                 "/about/",
		"GET //about HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n":                   "/about/",
		"GET /about?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n":                "/about/?x=1",
		"GET http://evil.example/about HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n": "/about/",
	} {
		resp, _ := rawRequest(t, base, req)
		if resp.StatusCode != 301 || resp.Header.Get("Location") != want {
			t.Errorf("%q: %d Location %q, want %q", req, resp.StatusCode, resp.Header.Get("Location"), want)
		}
	}
}

// A wrong method on a file of the site: the JSON envelope for a client that takes JSON, a plain line otherwise.
func TestStaticWrongMethod(t *testing.T) {
	base := startServer(t, nil)
	for _, path := range []string{"/about/", "/llms.txt", "/static/style.css", "/no-such-page"} {
		req, _ := http.NewRequest("POST", base+path, nil)
		req.Header.Set("Accept", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") ||
			!strings.Contains(string(b), `"code":"METHOD_NOT_ALLOWED"`) {
			t.Errorf("POST %s taking JSON: %d %v %s", path, resp.StatusCode, resp.Header, b)
		}
		resp, err = http.Post(base+path, "text/plain", nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") ||
			!strings.Contains(string(b), "METHOD_NOT_ALLOWED") {
			t.Errorf("POST %s: %d %v %s", path, resp.StatusCode, resp.Header, b)
		}
	}
}

// BASE_URL governs every absolute URL the server writes, so a preview or a fork never sends agents to production.
func TestBaseURLGovernsEveryAddress(t *testing.T) {
	const preview = "https://preview.example"
	base := startServer(t, map[string]string{"BASE_URL": preview, "PUBLIC_DIR": ""})
	production := "https://iriscalloway.example"
	var seen []string
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		seen = append(seen, path)
		return string(b)
	}
	call := func(tool, args string) string {
		t.Helper()
		_, _, body := rpc(t, "POST", base+"/api/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`}}`, nil)
		seen = append(seen, tool)
		return body
	}
	answers := []string{
		get("/api/collusion/notes?limit=1"),
		get("/api/collusion/challenge"),
		get("/api/collusion/notes/01K0000000000000000000000Z"), // NOT_FOUND with docs and hint
		get("/api/nothing-here"),
		get("/api/collusion/notes?limit=0"),
		call("get_profile", "{}"),
		call("get_page", `{"page":"developers"}`),
		call("get_page", `{"page":"collusion"}`),
		call("list_collusion_notes", `{"limit":1}`),
	}
	_, _, initialize := rpc(t, "POST", base+"/api/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, nil)
	answers = append(answers, initialize)
	seen = append(seen, "initialize")
	for i, a := range answers {
		if strings.Contains(a, production) {
			t.Errorf("%s names production: %.400s", seen[i], a[strings.Index(a, production)-min(200, strings.Index(a, production)):])
		}
	}
	if !strings.Contains(answers[0], preview+"/collusion.md") || !strings.Contains(answers[1], preview+"/api/collusion/notes") ||
		!strings.Contains(answers[3], preview+"/openapi.json") || !strings.Contains(answers[5], preview+"/") {
		t.Errorf("the answers do not name BASE_URL:\n%s", strings.Join(answers[:6], "\n"))
	}
}
