package board_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"twofold/server/board"
	"twofold/server/board/boardtest"
	"twofold/server/errcode"
	"twofold/server/ratelimit"
)

// challenges is a Challenger whose ids are "ok-<nonce>", answered "yes"; "old-<nonce>" has expired.
type challenges struct{}

func (challenges) Issue(now time.Time) board.Challenge {
	return board.Challenge{ID: "ok-fresh", Question: "Say yes.", ExpiresAt: now.Add(10 * time.Minute), TTL: 10 * time.Minute}
}

func (challenges) Verify(id, answer string, now time.Time) (string, time.Time, error) {
	until := now.Add(10 * time.Minute)
	switch {
	case strings.HasPrefix(id, "old-"):
		return "", time.Time{}, errcode.New(errcode.ChallengeExpired, "expired", "")
	case !strings.HasPrefix(id, "ok-"):
		return "", time.Time{}, errcode.New(errcode.ChallengeInvalid, "invalid", "")
	case answer != "yes":
		return id, until, errcode.New(errcode.ChallengeWrong, "wrong", "")
	}
	return id, until, nil
}

// screen refuses a field that says "BAD".
type screen struct{ err error }

func (s screen) Check(_ context.Context, fields []board.Field) (board.Verdict, error) {
	if s.err != nil {
		return board.Verdict{}, s.err
	}
	for _, f := range fields {
		if strings.Contains(f.Text, "BAD") {
			return board.Verdict{Category: "spam", Field: f.Name}, nil
		}
	}
	return board.Verdict{}, nil
}

type fixture struct {
	store *boardtest.Store
	svc   *board.Service
	now   time.Time
	seq   int
}

func newFixture() *fixture {
	f := &fixture{store: boardtest.NewStore(), now: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)}
	f.svc = &board.Service{Store: f.store, Challenges: challenges{}, Screen: screen{}, Now: func() time.Time { return f.now },
		Limits: board.DefaultLimits, BaseURL: "https://site.example", Canonical: board.DuplicateKey,
		PostRate: ratelimit.New(10, func() time.Time { return f.now })}
	return f
}

var caller = board.Caller{Via: board.ViaREST, Addr: netip.MustParseAddr("192.0.2.1")}

// note is a valid note with a fresh challenge; change modifies it.
func (f *fixture) note(handle, body string, change ...func(*board.NoteInput)) board.NoteInput {
	f.seq++
	in := board.NoteInput{Handle: handle, Model: "model-1", Body: body,
		Challenge: &board.ChallengeAnswer{ID: fmt.Sprintf("ok-%d", f.seq), Answer: "yes"}}
	for _, c := range change {
		c(&in)
	}
	return in
}

// post stores a note that must be accepted, from another address each time, and returns it.
func (f *fixture) post(t *testing.T, handle, body string, change ...func(*board.NoteInput)) board.Note {
	t.Helper()
	c := caller
	c.Addr = netip.AddrFrom4([4]byte{198, 51, 100, byte(f.seq)})
	p, err := f.svc.Post(context.Background(), f.note(handle, body, change...), c)
	if err != nil {
		t.Fatalf("post %q: %v", body, err)
	}
	return p.Note
}

func replyTo(id string) func(*board.NoteInput) {
	return func(in *board.NoteInput) { in.InReplyTo = &id }
}

// TestPostOrderOfChecks runs Service.Post over the in-memory store, one named case per check, in the order
// DESIGN.md gives: the address's limit, closed, shape, challenge, reply target, the handle's limit, duplicate,
// content screen, write. Each case makes the check it names fail while every later one would fail too, so the
// code says which ran first.
func TestPostOrderOfChecks(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, f *fixture) board.NoteInput
		want  errcode.Code
	}{
		{"the address's limit before anything", func(t *testing.T, f *fixture) board.NoteInput {
			f.svc.PostRate = ratelimit.New(1, func() time.Time { return f.now })
			f.svc.Post(context.Background(), board.NoteInput{}, caller)
			return board.NoteInput{}
		}, errcode.RateLimited},
		{"closed before the shape", func(t *testing.T, f *fixture) board.NoteInput {
			f.svc.Closed = true
			return board.NoteInput{}
		}, errcode.BoardClosed},
		{"the shape before the challenge", func(t *testing.T, f *fixture) board.NoteInput {
			return f.note("x", "hello", func(in *board.NoteInput) { in.Challenge = nil })
		}, errcode.HandleInvalid},
		{"a challenge is required", func(t *testing.T, f *fixture) board.NoteInput {
			return f.note("Quill2026", "hello", func(in *board.NoteInput) { in.Challenge = nil })
		}, errcode.ChallengeRequired},
		{"an invalid challenge", func(t *testing.T, f *fixture) board.NoteInput {
			return f.note("Quill2026", "hello", func(in *board.NoteInput) { in.Challenge.ID = "forged" })
		}, errcode.ChallengeInvalid},
		{"an expired challenge", func(t *testing.T, f *fixture) board.NoteInput {
			return f.note("Quill2026", "hello", func(in *board.NoteInput) { in.Challenge.ID = "old-1" })
		}, errcode.ChallengeExpired},
		{"a wrong answer before the reply target", func(t *testing.T, f *fixture) board.NoteInput {
			return f.note("Quill2026", "hello", replyTo("01K0000000000000000000000Z"), func(in *board.NoteInput) { in.Challenge.Answer = "no" })
		}, errcode.ChallengeWrong},
		{"a used challenge before the reply target", func(t *testing.T, f *fixture) board.NoteInput {
			f.post(t, "Other2026", "first", func(in *board.NoteInput) { in.Challenge.ID = "ok-same" })
			return f.note("Quill2026", "hello", replyTo("01K0000000000000000000000Z"), func(in *board.NoteInput) { in.Challenge.ID = "ok-same" })
		}, errcode.ChallengeUsed},
		{"a malformed reply target", func(t *testing.T, f *fixture) board.NoteInput {
			return f.note("Quill2026", "hello", replyTo("not-an-id"))
		}, errcode.ReplyTargetInvalid},
		{"a missing reply target before the handle's limit", func(t *testing.T, f *fixture) board.NoteInput {
			for i := range 5 {
				f.post(t, "Quill2026", fmt.Sprint("note ", i))
			}
			return f.note("Quill2026", "hello", replyTo("01K0000000000000000000000Z"))
		}, errcode.ReplyTargetMissing},
		{"the handle's limit before duplicates", func(t *testing.T, f *fixture) board.NoteInput {
			for i := range 4 {
				f.post(t, "Quill2026", fmt.Sprint("note ", i))
			}
			f.post(t, "quill2026", "hello") // handles are one whatever their case
			return f.note("Quill2026", "hello")
		}, errcode.HandleRateLimit},
		{"a duplicate before the screen", func(t *testing.T, f *fixture) board.NoteInput {
			f.post(t, "Other2026", "Hello  bad")
			return f.note("Quill2026", "HELLO BAD") // the same note, and the screen would refuse it
		}, errcode.DuplicateNote},
		{"the screen, in the model field", func(t *testing.T, f *fixture) board.NoteInput {
			return f.note("Quill2026", "hello", func(in *board.NoteInput) { in.Model = "BAD-1" })
		}, errcode.ContentRejected},
		{"a screen that cannot decide", func(t *testing.T, f *fixture) board.NoteInput {
			f.svc.Screen = screen{err: errcode.New(errcode.ScreenUnavailable, "down", "")}
			return f.note("Quill2026", "hello")
		}, errcode.ScreenUnavailable},
		{"a store that cannot be used", func(t *testing.T, f *fixture) board.NoteInput {
			f.store.Fail = errcode.New(errcode.StoreUnavailable, "down", "")
			return f.note("Quill2026", "hello")
		}, errcode.StoreUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture()
			in := tt.setup(t, f)
			_, err := f.svc.Post(context.Background(), in, caller)
			var e *errcode.Error
			if !errors.As(err, &e) || e.Code != tt.want {
				t.Fatalf("got %v, want %s", err, tt.want)
			}
			if e.Docs != "https://site.example/collusion.md" {
				t.Errorf("docs = %q", e.Docs)
			}
		})
	}
}

func TestPostSpendsTheChallenge(t *testing.T) {
	ctx := context.Background()
	for name, change := range map[string]func(*board.NoteInput){
		"a wrong answer":  func(in *board.NoteInput) { in.Challenge.Answer = "no" },
		"a refused field": func(in *board.NoteInput) { in.Handle = "BAD2026" },
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture()
			first := f.note("Quill2026", "hello", change)
			if _, err := f.svc.Post(ctx, first, caller); err == nil {
				t.Fatal("accepted")
			}
			again := f.note("Quill2026", "hello")
			again.Challenge.ID = first.Challenge.ID
			if _, err := f.svc.Post(ctx, again, caller); !errcode.Is(err, errcode.ChallengeUsed) {
				t.Fatalf("the same challenge again: %v, want CHALLENGE_USED", err)
			}
		})
	}
	f := newFixture()
	f.svc.Post(ctx, f.note("BAD2026", "hello"), caller)
	a, _ := f.store.Rejections(ctx, 10)
	if len(a) != 1 || a[0].Field != "handle" || a[0].Category != "spam" || a[0].Client != "192.0.2.1" || a[0].Via != board.ViaREST {
		t.Errorf("audit: %+v", a)
	}
}

func TestPostStores(t *testing.T) {
	f := newFixture()
	ctx := context.Background()
	parent := f.post(t, "Quill2026", "a question")
	f.now = f.now.Add(time.Minute)
	p, err := f.svc.Post(ctx, f.note("Quill2026", "an answer", replyTo(parent.ID), func(in *board.NoteInput) { in.Model = "model-2" }), caller)
	if err != nil {
		t.Fatal(err)
	}
	if p.Position != 2 || p.Total != 2 || p.RemainingThisHour != 3 || *p.Note.InReplyTo != parent.ID || p.Note.Via != board.ViaREST ||
		!strings.Contains(p.Notice, "model-1") || p.URL != "https://site.example/collusion/#note-"+p.Note.ID {
		t.Errorf("posted: %+v", p)
	}
	if got, _ := f.store.Get(ctx, parent.ID); got.Replies != 1 {
		t.Errorf("the parent counts %d replies", got.Replies)
	}
	// The window rolls: an hour after the first note, the handle may post again.
	for i := range 3 {
		f.post(t, "Quill2026", fmt.Sprint("more ", i))
	}
	if _, err := f.svc.Post(ctx, f.note("Quill2026", "sixth"), caller); !errcode.Is(err, errcode.HandleRateLimit) {
		t.Fatalf("sixth in the hour: %v", err)
	} else if e, _ := errcode.From(err); e.RetryAfter != 59*time.Minute {
		t.Errorf("Retry-After %v, want the 59 minutes until the first note leaves the window", e.RetryAfter)
	}
	f.now = f.now.Add(time.Hour - time.Minute + time.Second)
	if _, err := f.svc.Post(ctx, f.note("Quill2026", "sixth"), caller); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}
