package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"twofold/server/store/postgres/pgtest"
)

// Two API servers, two processes, on one PostgreSQL database are one board: a note posted on one is listed by the
// other at once, a challenge of one is good on the other (both sign with the key the database keeps) and is spent
// once across both, and the limits hold across both.
func TestTwoServersOneDatabase(t *testing.T) {
	url := pgtest.Start(t).NewDatabase(t)
	var servers [2]*process
	for i := range servers {
		servers[i] = startProcess(t, t.TempDir(), "STORE_URL="+url, "RATE_POSTS=1000", "CHALLENGE_SECRET=")
		t.Cleanup(servers[i].kill)
	}
	a, b := newClient(t, servers[0].base), newClient(t, servers[1].base)
	if l := b.list(""); l.Total != 5 {
		t.Fatalf("the genesis notes, seeded once for both: %d", l.Total)
	}
	r := a.post("Shared2026", "Posted on the first server.", nil, nil)
	if r.status != 201 {
		t.Fatalf("post on a: %d %s", r.status, r.raw)
	}
	var p posted
	r.data(t, &p)
	// b cached its first page; a's note reaches it within a second (the version is read at most every 250 ms).
	posted := time.Now()
	for {
		l := b.list("")
		if l.Total == 6 && l.Notes[0].ID == p.Note.ID {
			t.Logf("a's note was on b's listing after %v", time.Since(posted).Round(time.Millisecond))
			break
		}
		if time.Since(posted) > time.Second {
			t.Fatalf("b does not list a's note after a second: %+v", l.Notes[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A challenge issued by a, answered on b: both sign with the key the database keeps.
	ch := a.challenge(nil)
	if r := b.post("Other2026", "Solved on a, posted on b.", map[string]any{"challenge": ch}, nil); r.status != 201 {
		t.Fatalf("a's challenge on b: %d %s", r.status, r.raw)
	}
	if r := a.post("Third2026", "The same challenge again.", map[string]any{"challenge": ch}, nil); r.env.Code != "CHALLENGE_USED" {
		t.Fatalf("a challenge spent on b, used on a: %d %s", r.status, r.raw)
	}
	// One challenge sent twenty times at once, half to each server: one note is stored, the rest are refused.
	ch = a.challenge(nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	spent := map[string]int{}
	for i := range 20 {
		c := []*client{a, b}[i%2]
		wg.Go(func() {
			r := c.post(fmt.Sprintf("Racer%04d", i), fmt.Sprintf("Racing for one challenge, entry %d.", i), map[string]any{"challenge": ch},
				map[string]string{"X-Forwarded-For": fmt.Sprintf("10.8.0.%d", i+1)})
			mu.Lock()
			defer mu.Unlock()
			spent[fmt.Sprint(r.status, " ", r.env.Code)]++
		})
	}
	wg.Wait()
	if spent["201 "] != 1 || spent["403 CHALLENGE_USED"] != 19 {
		t.Fatalf("one challenge posted twenty times at once over two servers: %v, want one 201 and 19 CHALLENGE_USED", spent)
	}
	// Fifty posts of one handle at once, half on each server, each from its own address: exactly five are stored.
	// Then fifty of one body under fifty handles: exactly one.
	concurrently := func(handle, body func(int) string, allowed string) int {
		var wg sync.WaitGroup
		var mu sync.Mutex
		stored := 0
		for i := range 50 {
			c := a
			if i%2 == 1 {
				c = b
			}
			wg.Go(func() {
				r := c.post(handle(i), body(i), nil, map[string]string{"X-Forwarded-For": fmt.Sprintf("10.7.%d.%d", len(allowed), i+1)})
				mu.Lock()
				defer mu.Unlock()
				if r.status == 201 {
					stored++
				} else if r.env.Code != allowed {
					t.Errorf("post %d: %d %s", i, r.status, r.raw)
				}
			})
		}
		wg.Wait()
		return stored
	}
	if n := concurrently(func(int) string { return "Busy2026" }, func(i int) string { return fmt.Sprintf("Busy note number %d.", i) }, "HANDLE_RATE_LIMIT"); n != 5 {
		t.Fatalf("%d notes of one handle stored across two servers, want 5", n)
	}
	if n := concurrently(func(i int) string { return fmt.Sprintf("Same%04d", i) }, func(int) string { return "One body, fifty posters." }, "DUPLICATE_NOTE"); n != 1 {
		t.Fatalf("%d notes of one body stored across two servers, want 1", n)
	}
	// Replies counted across servers: one reply on each.
	for i, c := range []*client{a, b} {
		if r := c.post(fmt.Sprintf("Replier%d", len(c.base)%97), fmt.Sprintf("A reply from server %d of two.", i+1), map[string]any{"in_reply_to": p.Note.ID},
			map[string]string{"X-Forwarded-For": "10.9.9." + fmt.Sprint(len(c.base)%200)}); r.status != 201 {
			t.Fatalf("reply: %d %s", r.status, r.raw)
		}
	}
	var th thread
	a.do("GET", "/api/collusion/notes/"+p.Note.ID, nil, nil).data(t, &th)
	if th.Note.Replies != 2 || len(th.Replies) != 2 {
		t.Fatalf("a note with a reply from each server counts %d replies and lists %d", th.Note.Replies, len(th.Replies))
	}
	notes := a.list("?limit=200").Notes
	for i, n := range notes {
		if n.Position != len(notes)-i {
			t.Fatalf("positions are not unique and gapless across servers: %d at %d of %d", n.Position, i, len(notes))
		}
	}
}

// The database goes away while the board is in use, and comes back: the board answers 503 STORE_UNAVAILABLE
// meanwhile, the rest of the site serves, nothing acknowledged is lost, and the board recovers by itself. A server
// started while the database is down connects when it is up.
func TestDatabaseGoesAndComes(t *testing.T) {
	pg := pgtest.Start(t)
	url := pg.NewDatabase(t)
	env := map[string]string{"STORE_URL": url, "TRUSTED_PROXIES": "127.0.0.1/32", "RATE_POSTS": "1000000", "RATE_CHALLENGES": "1000000", "RATE_READS": "1000000"}
	c := newClient(t, startServer(t, env))
	var mu sync.Mutex
	var acked []string
	answers := map[string]int{}
	post := func(i int) reply {
		return c.post(fmt.Sprintf("Fault%04d", i), fmt.Sprintf("Note %d while the database comes and goes.", i), nil,
			map[string]string{"X-Forwarded-For": fmt.Sprintf("10.6.%d.%d", i/250, i%250+1)})
	}
	// Four posters post all the while the database stops and starts again: each answer is a 201 (and that note
	// must be there at the end) or a 503 STORE_UNAVAILABLE, never anything else.
	stop := make(chan struct{})
	var posters sync.WaitGroup
	for w := range 4 {
		posters.Go(func() {
			for i := w * 10000; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				r := post(i)
				mu.Lock()
				answers[fmt.Sprint(r.status, " ", r.env.Code)]++
				if r.status == 201 {
					var p posted
					r.data(t, &p)
					acked = append(acked, p.Note.ID)
				} else if r.status != 503 || r.env.Code != "STORE_UNAVAILABLE" {
					t.Errorf("a post while the database comes and goes: %d %s", r.status, r.raw)
				}
				mu.Unlock()
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	pg.Down(t)
	defer func() { // whatever happens, the next tests find the server up
		if t.Failed() {
			pg.Up(t)
		}
	}()
	if r := c.do("GET", "/api/collusion/notes", nil, nil); r.status != 503 || r.env.Code != "STORE_UNAVAILABLE" {
		t.Fatalf("listing while the database is down: %d %s", r.status, r.raw)
	}
	// The challenge needs no database (its key is in memory), but the post does.
	if r := post(50); r.status != 503 || r.env.Code != "STORE_UNAVAILABLE" {
		t.Fatalf("post while the database is down: %d %s", r.status, r.raw)
	}
	if a := do(t, nil, "GET", strings.TrimSuffix(c.base, "/")+"/about/"); a.status != 200 {
		t.Fatalf("the site while the database is down: %d", a.status)
	}
	// A server that starts now connects once the database is up.
	late := newClient(t, startServer(t, env))
	if r := late.do("GET", "/api/collusion/notes", nil, nil); r.status != 503 {
		t.Fatalf("a server started without its database: %d %s", r.status, r.raw)
	}
	pg.Up(t)
	for _, cl := range []*client{c, late} {
		deadline := time.Now().Add(30 * time.Second)
		for {
			if r := cl.do("GET", "/api/collusion/notes", nil, nil); r.status == 200 {
				break
			} else if time.Now().After(deadline) {
				t.Fatalf("the board did not come back: %d %s", r.status, r.raw)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	time.Sleep(300 * time.Millisecond) // the posters store notes again
	close(stop)
	posters.Wait()
	t.Logf("answers to the posters: %v", answers)
	if answers["201 "] == 0 || answers["503 STORE_UNAVAILABLE"] == 0 {
		t.Fatalf("the posters saw %v: want notes stored and 503s while the database was down", answers)
	}
	for _, cl := range []*client{c, late} {
		have := map[string]bool{}
		for before := ""; ; {
			l := cl.list("?limit=200" + before)
			for _, n := range l.Notes {
				have[n.ID] = true
			}
			if l.NextCursor == nil {
				break
			}
			before = "&before=" + *l.NextCursor
		}
		for _, id := range acked {
			if !have[id] {
				t.Fatalf("acknowledged note %s lost", id)
			}
		}
	}
	if r := post(99999); r.status != 201 {
		t.Fatalf("after the database came back: %d %s", r.status, r.raw)
	}
}

// export and import move a board between stores, both ways, with ids, times, positions, via and reply counts.
func TestExportImportRoundTrip(t *testing.T) {
	pebbleDir := t.TempDir()
	m, base := openMain(t, map[string]string{"DATA_DIR": pebbleDir, "TRUSTED_PROXIES": "127.0.0.1/32"}, nil)
	c := newClient(t, base)
	r := c.post("Export2026", "A note to move.", nil, nil)
	var parent posted
	r.data(t, &parent)
	if r := c.post("Reply2026", "A reply to move.", map[string]any{"in_reply_to": parent.Note.ID}, nil); r.status != 201 {
		t.Fatal(string(r.raw))
	}
	before := c.list("?limit=200")
	http.DefaultClient.CloseIdleConnections()
	m.Close()

	run := func(env map[string]string, cmd string, in string) string {
		t.Helper()
		var out, errOut strings.Builder
		lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
		if code := command(context.Background(), []string{cmd}, lookup, strings.NewReader(in), &out, &errOut); code != 0 {
			t.Fatalf("%s: %d %s", cmd, code, errOut.String())
		}
		return out.String()
	}
	fromPebble := run(map[string]string{"DATA_DIR": pebbleDir}, "export", "")
	if n := strings.Count(fromPebble, "\n"); n != before.Total {
		t.Fatalf("exported %d lines of %d notes", n, before.Total)
	}
	pg := map[string]string{"STORE_URL": pgtest.Start(t).NewDatabase(t)}
	run(pg, "import", fromPebble)
	run(pg, "import", fromPebble) // again: nothing changes
	if fromPostgres := run(pg, "export", ""); fromPostgres != fromPebble {
		t.Fatalf("Pebble → PostgreSQL → export differs:\n%s\nvs\n%s", fromPostgres, fromPebble)
	}
	back := map[string]string{"DATA_DIR": t.TempDir()}
	run(back, "import", run(pg, "export", ""))
	if again := run(back, "export", ""); again != fromPebble {
		t.Fatalf("PostgreSQL → Pebble → export differs")
	}
	// The moved board goes on where the old one stopped.
	after := newClient(t, startServer(t, map[string]string{"STORE_URL": pg["STORE_URL"], "TRUSTED_PROXIES": "127.0.0.1/32"}))
	r = after.post("After2026", "The first note on the new store.", nil, nil)
	var p posted
	r.data(t, &p)
	if r.status != 201 || p.Position != before.Notes[0].Position+1 || p.Note.ID <= before.Notes[0].ID {
		t.Fatalf("after the move: %d %+v", r.status, p)
	}
}
