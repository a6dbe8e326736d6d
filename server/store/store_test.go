package store

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"twofold/server/board"
	"twofold/server/errcode"
)

var ctx = context.Background()

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

func create(t *testing.T, s *Store, handle, body string, at time.Time, reply *string) board.Note {
	t.Helper()
	c, err := s.Create(ctx, board.Creation{
		Note:         board.Note{Handle: handle, Model: "m-1", Body: body, Via: board.ViaREST, CreatedAt: at, InReplyTo: reply},
		DuplicateKey: board.DuplicateKey(body), DuplicateUntil: at.Add(24 * time.Hour),
		Nonce: "nonce-" + body, NonceUntil: at.Add(10 * time.Minute),
		HandleLimit: 5, HandleSince: at.Add(-time.Hour),
	})
	if err != nil {
		t.Fatalf("create %q: %v", body, err)
	}
	return c.Note
}

func TestCreateListReplies(t *testing.T) {
	s, err := OpenInMemory(quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	a := create(t, s, "Alpha2026", "first", at, nil)
	b := create(t, s, "Beta2026", "second", at, &a.ID) // same millisecond: ids must still increase
	c := create(t, s, "Alpha2026", "third", at.Add(time.Second), &a.ID)
	if !(a.ID < b.ID && b.ID < c.ID) || a.Position != 1 || c.Position != 3 || !board.ValidID(a.ID) {
		t.Fatalf("ids %s %s %s, positions %d %d", a.ID, b.ID, c.ID, a.Position, c.Position)
	}
	notes, more, total, err := s.List(ctx, "", 2)
	if err != nil || len(notes) != 2 || !more || total != 3 || notes[0].ID != c.ID {
		t.Fatalf("list: %v %v %d %v", notes, more, total, err)
	}
	notes, more, _, _ = s.List(ctx, notes[1].ID, 2)
	if len(notes) != 1 || more || notes[0].ID != a.ID || notes[0].Replies != 2 {
		t.Fatalf("second page: %+v %v", notes, more)
	}
	replies, err := s.Replies(ctx, a.ID)
	if err != nil || len(replies) != 2 || replies[0].ID != c.ID {
		t.Fatalf("replies: %+v %v", replies, err)
	}
	for name, c := range map[string]board.Creation{
		"nonce":     {Note: board.Note{Handle: "Gamma2026", Body: "x", CreatedAt: at}, Nonce: "nonce-first", HandleLimit: 5},
		"duplicate": {Note: board.Note{Handle: "Gamma2026", Body: "x", CreatedAt: at}, DuplicateKey: "FIRST ", HandleLimit: 5},
		"handle":    {Note: board.Note{Handle: "alpha2026", Body: "y", CreatedAt: at}, HandleLimit: 2, HandleSince: at.Add(-time.Hour)},
	} {
		if name == "duplicate" {
			c.DuplicateKey = board.DuplicateKey("FIRST ")
		}
		_, err := s.Create(ctx, c)
		want := map[string]errcode.Code{"nonce": errcode.ChallengeUsed, "duplicate": errcode.DuplicateNote, "handle": errcode.HandleRateLimit}[name]
		if !errcode.Is(err, want) {
			t.Errorf("%s: %v, want %s", name, err, want)
		}
	}
	missing := "01K4282CM0E4A31XGP9T9R0FCZ"
	if _, err := s.Create(ctx, board.Creation{Note: board.Note{Handle: "Gamma2026", Body: "z", CreatedAt: at, InReplyTo: &missing}, HandleLimit: 5}); !errcode.Is(err, errcode.ReplyTargetMissing) {
		t.Errorf("reply to a missing note: %v", err)
	}
}

// What the store keeps in memory must come back from disk after a restart.
func TestReopen(t *testing.T) {
	dir := t.TempDir()
	at := time.Now().UTC()
	s, err := Open(dir, quiet())
	if err != nil {
		t.Fatal(err)
	}
	create(t, s, "Alpha2026", "one", at, nil)
	two := create(t, s, "Alpha2026", "two", at.Add(time.Millisecond), nil)
	v, _ := s.Version()
	if _, err := s.Delete(ctx, two.ID); err != nil {
		t.Fatal(err)
	}
	if after, _ := s.Version(); after <= v {
		t.Error("Delete did not move the version")
	}
	key, _ := s.Secret()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(dir, quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if dup, _ := s.Seen(ctx, board.RecordDuplicate, board.DuplicateKey("two"), at); !dup {
		t.Error("duplicate record lost on restart")
	}
	if used, _ := s.Seen(ctx, board.RecordNonce, "nonce-one", at); !used {
		t.Error("spent challenge forgotten on restart")
	}
	if h, _ := s.History(ctx, "ALPHA2026", at.Add(-time.Hour)); len(h) != 2 {
		t.Errorf("history after restart: %d posts, want 2 (a removed note still counted)", len(h))
	}
	three := create(t, s, "Beta2026", "three", at.Add(2*time.Millisecond), nil)
	if three.Position != 3 {
		t.Errorf("position after restart %d, want 3: positions are never reused", three.Position)
	}
	if _, _, total, _ := s.List(ctx, "", 10); total != 2 {
		t.Errorf("total after restart %d, want 2", total)
	}
	if again, _ := s.Secret(); string(again) != string(key) {
		t.Error("the challenge key changed on restart")
	}
}

func TestSweepForgetsExpired(t *testing.T) {
	s, err := OpenInMemory(quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Now().UTC()
	create(t, s, "Alpha2026", "old news", at, nil)
	if n, err := s.Sweep(at.Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("sweep after an hour: %d %v; want the spent challenge only", n, err)
	}
	if used, _ := s.Seen(ctx, board.RecordNonce, "nonce-old news", at); used {
		t.Error("an expired challenge record survived the sweep")
	}
	if dup, _ := s.Seen(ctx, board.RecordDuplicate, "old news", at.Add(time.Hour)); !dup {
		t.Error("the duplicate record went before its day was out")
	}
	if n, _ := s.Sweep(at.Add(31 * 24 * time.Hour)); n != 2 {
		t.Errorf("sweep after a month removed %d records, want the duplicate and the history entry", n)
	}
	if h, _ := s.History(ctx, "Alpha2026", at.Add(-time.Hour)); len(h) != 0 {
		t.Errorf("history after a month: %v", h)
	}
}

func TestGenesisIsIdempotentAndPermanent(t *testing.T) {
	s, err := OpenInMemory(quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, b := "01K4282CM0E4A31XGP9T9R0FCK", "01K428W0Y09MQMPSMCZH4EC1CX"
	notes := []board.Note{
		{ID: a, Handle: "Lantern2025", Model: "m", Body: "first", CreatedAt: time.Unix(1756717200, 0).UTC()},
		{ID: b, Handle: "Quill0901", Model: "m", Body: "reply", InReplyTo: &a, CreatedAt: time.Unix(1756718040, 0).UTC()},
	}
	for range 2 {
		if err := s.SeedGenesis(ctx, notes); err != nil {
			t.Fatal(err)
		}
	}
	got, _, total, _ := s.List(ctx, "", 10)
	if total != 2 || got[1].Replies != 1 || got[0].Via != board.ViaGenesis || got[0].Position != 2 {
		t.Fatalf("genesis: %d notes, %+v", total, got)
	}
	if _, err := s.Delete(ctx, a); !errcode.Is(err, errcode.NotFound) {
		t.Errorf("deleting a genesis note: %v", err)
	}
	later := create(t, s, "Alpha2026", "after genesis", time.Now().UTC(), nil)
	if later.ID <= b || later.Position != 3 {
		t.Errorf("a note after genesis: %+v", later)
	}
}
