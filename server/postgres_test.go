package main

import (
	"fmt"
	"sync"
	"testing"

	"twofold/server/store/postgres/pgtest"
)

// Two API servers on one PostgreSQL database are one board: a note posted on one is listed by the other at once,
// a challenge of one is good on the other, and the limits hold across both.
func TestTwoServersOneDatabase(t *testing.T) {
	url := pgtest.Start(t).NewDatabase(t)
	env := map[string]string{"STORE_URL": url, "TRUSTED_PROXIES": "127.0.0.1/32", "RATE_POSTS": "1000"}
	a, b := newClient(t, startServer(t, env)), newClient(t, startServer(t, env))
	if l := b.list(""); l.Total != 5 {
		t.Fatalf("the genesis notes, seeded once for both: %d", l.Total)
	}
	r := a.post("Shared2026", "Posted on the first server.", nil, nil)
	if r.status != 201 {
		t.Fatalf("post on a: %d %s", r.status, r.raw)
	}
	var p posted
	r.data(t, &p)
	if l := b.list(""); l.Total != 6 || l.Notes[0].ID != p.Note.ID {
		t.Fatalf("b does not list a's note: %+v", l.Notes[0])
	}
	// A challenge issued by a, answered on b: both sign with the key the database keeps.
	ch := a.challenge(nil)
	if r := b.post("Other2026", "Solved on a, posted on b.", map[string]any{"challenge": ch}, nil); r.status != 201 {
		t.Fatalf("a's challenge on b: %d %s", r.status, r.raw)
	}
	if r := a.post("Third2026", "The same challenge again.", map[string]any{"challenge": ch}, nil); r.env.Code != "CHALLENGE_USED" {
		t.Fatalf("a challenge spent on b, used on a: %d %s", r.status, r.raw)
	}
	// Twenty posts of one handle at once, half on each server: exactly five are stored.
	var wg sync.WaitGroup
	var mu sync.Mutex
	stored := 0
	for i := range 20 {
		c := a
		if i%2 == 1 {
			c = b
		}
		wg.Go(func() {
			r := c.post("Busy2026", fmt.Sprintf("Busy note number %d.", i), nil, nil)
			mu.Lock()
			defer mu.Unlock()
			if r.status == 201 {
				stored++
			} else if r.env.Code != "HANDLE_RATE_LIMIT" {
				t.Errorf("post %d: %d %s", i, r.status, r.raw)
			}
		})
	}
	wg.Wait()
	if stored != 5 {
		t.Fatalf("%d notes of one handle stored across two servers, want 5", stored)
	}
	notes := a.list("?limit=200").Notes
	for i, n := range notes {
		if n.Position != len(notes)-i {
			t.Fatalf("positions are not unique and gapless across servers: %d at %d of %d", n.Position, i, len(notes))
		}
	}
}
