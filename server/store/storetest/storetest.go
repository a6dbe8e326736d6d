// Package storetest is the contract every board.Store must keep: one suite, run against Pebble and the in-memory
// store today, and against any store that comes next (a SQL one shared by several servers).
package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"twofold/server/board"
	"twofold/server/errcode"
)

// Opener opens the store under test. Open gives an empty store; Reopen, when not nil, closes the store Open
// returned last and opens the same data again (a restart).
type Opener struct {
	Open   func(t *testing.T) board.Store
	Reopen func(t *testing.T) board.Store
}

var start = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func creation(handle, body string, at time.Time) board.Creation {
	return board.Creation{
		Note:         board.Note{Handle: handle, Model: "model-1", Body: body, Via: board.ViaREST, CreatedAt: at},
		DuplicateKey: body, DuplicateUntil: at.Add(24 * time.Hour),
		Nonce: "nonce-" + handle + "-" + body, NonceUntil: at.Add(10 * time.Minute),
		HandleLimit: 5, HandleSince: at.Add(-time.Hour),
	}
}

func create(t *testing.T, s board.Store, c board.Creation) board.Note {
	t.Helper()
	got, err := s.Create(context.Background(), c)
	if err != nil {
		t.Fatalf("create %q: %v", c.Note.Body, err)
	}
	return got.Note
}

// Run runs the contract.
func Run(t *testing.T, o Opener) {
	ctx := context.Background()

	t.Run("ids, positions and order", func(t *testing.T) {
		s := o.Open(t)
		var ids []string
		for i := range 30 {
			// Several notes in one millisecond still get increasing ids.
			n := create(t, s, creation(fmt.Sprintf("Agent%02d", i), fmt.Sprint("note ", i), start.Add(time.Duration(i/3)*time.Millisecond)))
			if n.Position != i+1 || (len(ids) > 0 && n.ID <= ids[len(ids)-1]) || !board.ValidID(n.ID) {
				t.Fatalf("note %d: id %s position %d after %v", i, n.ID, n.Position, ids)
			}
			ids = append(ids, n.ID)
		}
		notes, more, total, err := s.List(ctx, "", 10)
		if err != nil || len(notes) != 10 || !more || total != 30 || notes[0].ID != ids[29] || notes[9].ID != ids[20] {
			t.Fatalf("first page: %d notes, more %v, total %d, err %v", len(notes), more, total, err)
		}
	})

	t.Run("pages over deletions", func(t *testing.T) {
		s := o.Open(t)
		var ids []string
		for i := range 25 {
			ids = append(ids, create(t, s, creation(fmt.Sprintf("Agent%02d", i), fmt.Sprint("note ", i), start.Add(time.Duration(i)*time.Second))).ID)
		}
		for _, i := range []int{24, 15, 14, 3} {
			if _, err := s.Delete(ctx, ids[i]); err != nil {
				t.Fatal(err)
			}
		}
		seen := map[string]bool{}
		before := ""
		for {
			page, more, total, err := s.List(ctx, before, 4)
			if err != nil || total != 21 {
				t.Fatalf("page before %q: total %d, %v", before, total, err)
			}
			for _, n := range page {
				if seen[n.ID] {
					t.Fatalf("%s listed twice", n.ID)
				}
				seen[n.ID] = true
			}
			if !more {
				break
			}
			before = page[len(page)-1].ID
		}
		if len(seen) != 21 {
			t.Fatalf("visited %d notes, want 21", len(seen))
		}
		// A cursor naming a removed note continues from its place.
		page, _, _, _ := s.List(ctx, ids[15], 1)
		if len(page) != 1 || page[0].ID != ids[13] {
			t.Fatalf("from a removed note: %v", page)
		}
	})

	t.Run("after a cursor, oldest first, exact across deletions", func(t *testing.T) {
		s := o.Open(t)
		var ids []string
		for i := range 30 {
			ids = append(ids, create(t, s, creation(fmt.Sprintf("After%02d", i), fmt.Sprint("after note ", i), start.Add(time.Duration(i)*time.Second))).ID)
		}
		for _, i := range []int{5, 6, 20, 29} {
			if _, err := s.Delete(ctx, ids[i]); err != nil {
				t.Fatal(err)
			}
		}
		// From a removed note's id, pages of 7: every note newer than it, once, in order.
		var seen []string
		after := ids[5]
		for {
			page, more, total, err := s.ListAfter(ctx, after, 7)
			if err != nil || total != 26 {
				t.Fatalf("page after %s: %v, total %d", after, err, total)
			}
			for _, n := range page {
				seen = append(seen, n.ID)
			}
			if !more {
				break
			}
			after = page[len(page)-1].ID
		}
		var want []string
		for i := 7; i < 29; i++ {
			if i != 20 {
				want = append(want, ids[i])
			}
		}
		if fmt.Sprint(seen) != fmt.Sprint(want) {
			t.Fatalf("after pages:\n got %v\nwant %v", seen, want)
		}
		if page, more, _, err := s.ListAfter(ctx, ids[28], 7); err != nil || len(page) != 0 || more {
			t.Fatalf("after the newest: %v %v %v", page, more, err)
		}
	})

	t.Run("replies and counters", func(t *testing.T) {
		s := o.Open(t)
		parent := create(t, s, creation("Parent2026", "parent", start))
		var replies []board.Note
		for i := range 3 {
			c := creation(fmt.Sprintf("Child%d", i), fmt.Sprint("reply ", i), start.Add(time.Duration(i+1)*time.Second))
			c.Note.InReplyTo = &parent.ID
			replies = append(replies, create(t, s, c))
		}
		if p, _ := s.Get(ctx, parent.ID); p.Replies != 3 {
			t.Fatalf("replies = %d", p.Replies)
		}
		got, err := s.Replies(ctx, parent.ID)
		if err != nil || len(got) != 3 || got[0].ID != replies[2].ID {
			t.Fatalf("replies newest first: %v %v", got, err)
		}
		s.Delete(ctx, replies[1].ID)
		if p, _ := s.Get(ctx, parent.ID); p.Replies != 2 {
			t.Fatalf("after removing a reply: %d", p.Replies)
		}
		c := creation("Orphan2026", "orphan", start.Add(time.Minute))
		missing := "01K0000000000000000000000Z"
		c.Note.InReplyTo = &missing
		if _, err := s.Create(ctx, c); !errcode.Is(err, errcode.ReplyTargetMissing) {
			t.Fatalf("a reply to nothing: %v", err)
		}
		if _, err := s.Get(ctx, missing); !errcode.Is(err, errcode.NotFound) {
			t.Fatalf("Get of nothing: %v", err)
		}
	})

	t.Run("genesis", func(t *testing.T) {
		s := o.Open(t)
		root := "01K0000000000000000000000A"
		genesis := []board.Note{
			{ID: root, Handle: "First", Model: "m", Body: "first", CreatedAt: start.Add(-time.Hour)},
			{ID: "01K0000000000000000000000B", Handle: "Second", Model: "m", Body: "second", CreatedAt: start.Add(-time.Hour), InReplyTo: &root},
		}
		for range 2 {
			if err := s.SeedGenesis(ctx, genesis); err != nil {
				t.Fatal(err)
			}
		}
		notes, _, total, _ := s.List(ctx, "", 10)
		if total != 2 || notes[1].Replies != 1 || notes[0].Via != board.ViaGenesis || notes[1].Position != 1 {
			t.Fatalf("seeded twice: %+v", notes)
		}
		if _, err := s.Delete(ctx, root); !errcode.Is(err, errcode.NotFound) {
			t.Fatalf("removing a genesis note: %v", err)
		}
		if n := create(t, s, creation("After2026", "after", start)); n.Position != 3 || n.ID <= notes[0].ID {
			t.Fatalf("after genesis: %+v", n)
		}
	})

	t.Run("records expire", func(t *testing.T) {
		s := o.Open(t)
		create(t, s, creation("Quill2026", "hello", start))
		c := creation("Other2026", "hello", start.Add(time.Hour))
		if _, err := s.Create(ctx, c); !errcode.Is(err, errcode.DuplicateNote) {
			t.Fatalf("duplicate within the window: %v", err)
		}
		if dup, _ := s.Seen(ctx, board.RecordDuplicate, "hello", start.Add(24*time.Hour+time.Second)); dup {
			t.Fatal("the duplicate record outlived its window")
		}
		if err := s.Spend(ctx, "spent", start.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if used, _ := s.Seen(ctx, board.RecordNonce, "spent", start); !used {
			t.Fatal("a spent nonce is not seen")
		}
		if used, _ := s.Seen(ctx, board.RecordNonce, "spent", start.Add(2*time.Minute)); used {
			t.Fatal("a spent nonce outlived its expiry")
		}
		c = creation("Third2026", "new", start)
		c.Nonce = "spent"
		if _, err := s.Create(ctx, c); !errcode.Is(err, errcode.ChallengeUsed) {
			t.Fatalf("a spent nonce posted: %v", err)
		}
		h, err := s.History(ctx, "QUILL2026", start.Add(-time.Minute))
		if err != nil || len(h) != 1 || h[0].Model != "model-1" {
			t.Fatalf("history, whatever the case of the handle: %v %v", h, err)
		}
	})

	t.Run("a precheck answers as the four questions", func(t *testing.T) {
		s := o.Open(t)
		pc, ok := s.(board.Prechecker)
		if !ok {
			t.Skip("the store asks the questions one at a time (board.PrecheckEach)")
		}
		for i, at := range []time.Time{start, start.Add(time.Minute), start.Add(2 * time.Minute)} {
			c := creation("Quill2026", fmt.Sprint("note ", i), at)
			c.Note.Model = fmt.Sprint("model-", i)
			create(t, s, c)
		}
		create(t, s, creation("Other2026", "other", start))
		if err := s.Spend(ctx, "spent", start.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := s.Block(ctx, board.Block{Handle: "Mallory", At: start}); err != nil {
			t.Fatal(err)
		}
		now := start.Add(3 * time.Minute)
		for _, q := range []board.Precheck{
			{Nonce: "spent", Handle: "QUILL2026", DuplicateKey: "note 1", HistorySince: start.Add(-time.Hour), Now: now},
			{Nonce: "fresh", Handle: "quill2026", DuplicateKey: "unseen", HistorySince: start.Add(30 * time.Second), Now: now},
			{Nonce: "spent", Handle: "Quill2026", DuplicateKey: "note 0", HistorySince: start, Now: start.Add(2 * time.Hour)},
			{Nonce: "", Handle: "mallory", DuplicateKey: "other", HistorySince: start.Add(-time.Hour), Now: now},
			{Nonce: "nonce-Other2026-other", Handle: "Nobody", DuplicateKey: "note 2", HistorySince: start.Add(-time.Hour), Now: start.Add(25 * time.Hour)},
		} {
			got, err := pc.Precheck(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			want, err := board.PrecheckEach(ctx, s, q)
			if err != nil {
				t.Fatal(err)
			}
			if got.NonceUsed != want.NonceUsed || got.Blocked != want.Blocked || got.Duplicate != want.Duplicate || fmt.Sprint(got.History) != fmt.Sprint(want.History) {
				t.Errorf("%+v:\nprecheck %+v\nasked    %+v", q, got, want)
			}
		}
	})

	t.Run("limits hold under concurrency", func(t *testing.T) {
		s := o.Open(t)
		count := func(make func(i int) board.Creation) (stored int, codes map[errcode.Code]int) {
			var mu sync.Mutex
			var wg sync.WaitGroup
			codes = map[errcode.Code]int{}
			for i := range 50 {
				wg.Go(func() {
					_, err := s.Create(ctx, make(i))
					mu.Lock()
					defer mu.Unlock()
					if err == nil {
						stored++
					} else if e, internal := errcode.From(err); !internal {
						codes[e.Code]++
					}
				})
			}
			wg.Wait()
			return stored, codes
		}
		if n, codes := count(func(i int) board.Creation { return creation("Same2026", fmt.Sprint("body ", i), start) }); n != 5 || codes[errcode.HandleRateLimit] != 45 {
			t.Errorf("one handle, 50 at once: %d stored, %v", n, codes)
		}
		if n, codes := count(func(i int) board.Creation {
			c := creation(fmt.Sprintf("Agent%02d", i), "the same body", start)
			return c
		}); n != 1 || codes[errcode.DuplicateNote] != 49 {
			t.Errorf("one body, 50 at once: %d stored, %v", n, codes)
		}
		if n, codes := count(func(i int) board.Creation {
			c := creation(fmt.Sprintf("Nonce%02d", i), fmt.Sprint("nonce ", i), start)
			c.Nonce = "one challenge"
			return c
		}); n != 1 || codes[errcode.ChallengeUsed] != 49 {
			t.Errorf("one challenge, 50 at once: %d stored, %v", n, codes)
		}
		notes, _, total, _ := s.List(ctx, "", 200)
		for i, n := range notes {
			if n.Position != total-i {
				t.Fatalf("positions are not unique and gapless: %d at %d of %d", n.Position, i, total)
			}
		}
	})

	t.Run("the version moves with every change", func(t *testing.T) {
		s := o.Open(t)
		v, ok := s.(board.Versioned)
		if !ok {
			t.Skip("the store keeps no version")
		}
		version := func() uint64 {
			n, ok := v.Version()
			if !ok {
				t.Fatal("the store says it keeps no version")
			}
			return n
		}
		v0 := version()
		n := create(t, s, creation("Quill2026", "hello", start))
		v1 := version()
		if v1 <= v0 {
			t.Fatalf("Create did not move the version: %d then %d", v0, v1)
		}
		s.Delete(ctx, n.ID)
		if version() <= v1 {
			t.Fatal("Delete did not move the version")
		}
	})

	t.Run("audit", func(t *testing.T) {
		s := o.Open(t)
		for i := range 3 {
			if err := s.Audit(ctx, board.Rejection{At: start.Add(time.Duration(i) * time.Second), Body: fmt.Sprint(i), Category: "spam", Field: "body"}); err != nil {
				t.Fatal(err)
			}
		}
		r, err := s.Rejections(ctx, 2)
		if err != nil || len(r) != 2 || r[0].Body != "2" || r[1].Field != "body" {
			t.Fatalf("rejections: %+v %v", r, err)
		}
	})

	t.Run("blocked handles", func(t *testing.T) {
		s := o.Open(t)
		if ok, err := s.Blocked(ctx, "Spammer01"); err != nil || ok {
			t.Fatalf("blocked before any block: %v %v", ok, err)
		}
		for _, b := range []board.Block{{Handle: "Spammer01", At: start}, {Handle: "another-one", At: start.Add(time.Second)}, {Handle: "SPAMMER01", At: start.Add(time.Hour)}} {
			if err := s.Block(ctx, b); err != nil {
				t.Fatal(err)
			}
		}
		for _, h := range []string{"Spammer01", "spammer01", "SPAMMER01", "Another-One"} {
			if ok, err := s.Blocked(ctx, h); err != nil || !ok {
				t.Errorf("%s: blocked %v %v", h, ok, err)
			}
		}
		blocks, err := s.Blocks(ctx)
		if err != nil || len(blocks) != 2 || blocks[0].Handle != "another-one" || blocks[1].Handle != "Spammer01" || !blocks[1].At.Equal(start) {
			t.Fatalf("blocks (blocking again keeps the first): %+v %v", blocks, err)
		}
		if was, err := s.Unblock(ctx, "spammer01"); err != nil || !was {
			t.Fatalf("unblock: %v %v", was, err)
		}
		if was, err := s.Unblock(ctx, "spammer01"); err != nil || was {
			t.Fatalf("unblock again: %v %v", was, err)
		}
		if ok, _ := s.Blocked(ctx, "Spammer01"); ok {
			t.Error("still blocked after unblock")
		}
	})

	t.Run("the server's own keeping: key, cache, sweep", func(t *testing.T) {
		s, ok := o.Open(t).(keeper)
		if !ok {
			t.Skip("this store keeps only notes")
		}
		key, err := s.Secret()
		if err != nil || len(key) < 32 {
			t.Fatalf("secret: %d bytes, %v", len(key), err)
		}
		if again, err := s.Secret(); err != nil || string(again) != string(key) {
			t.Fatalf("a second Secret gave another key: %v", err)
		}
		if err := s.CachePut("logo:example.org", []byte("png bytes"), start.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := s.CachePut("logo:gone.example", []byte("old"), start.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := s.CachePut("logo:example.org", []byte("newer png bytes"), start.Add(2*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if v, found, err := s.CacheGet("logo:example.org", start); err != nil || !found || string(v) != "newer png bytes" {
			t.Fatalf("cache: %q %v %v", v, found, err)
		}
		if _, found, err := s.CacheGet("logo:example.org", start.Add(3*time.Hour)); err != nil || found {
			t.Fatalf("an expired cache entry is found: %v %v", found, err)
		}
		if _, found, _ := s.CacheGet("logo:never.example", start); found {
			t.Fatal("a key never put is found")
		}
		if err := s.Spend(ctx, "short-lived", start.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := s.Spend(ctx, "long-lived", start.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		sw, ok := s.(interface{ Sweep(time.Time) (int, error) })
		if !ok {
			return
		}
		n, err := sw.Sweep(start.Add(30 * time.Minute))
		if err != nil || n < 2 { // the short-lived nonce and the expired cache entry at least
			t.Fatalf("sweep removed %d, %v", n, err)
		}
		if used, _ := s.Seen(ctx, board.RecordNonce, "long-lived", start.Add(31*time.Minute)); !used {
			t.Fatal("the sweep removed a record that had not expired")
		}
		if _, found, _ := s.CacheGet("logo:example.org", start.Add(31*time.Minute)); !found {
			t.Fatal("the sweep removed a cache entry that had not expired")
		}
	})

	t.Run("import: into an empty board, again, never onto another board's positions", func(t *testing.T) {
		if _, ok := o.Open(t).(importer); !ok {
			t.Skip("this store does not import")
		}
		s := o.Open(t)
		parent := create(t, s, creation("Parent2026", "parent", start))
		c := creation("Child2026", "child", start.Add(time.Second))
		c.Note.InReplyTo = &parent.ID
		create(t, s, c)
		exported, _, _, err := s.List(ctx, "", 10)
		if err != nil {
			t.Fatal(err)
		}
		slices.Reverse(exported)

		other := o.Open(t) // another board, with a note of its own at position 1
		mine := create(t, other, creation("Mine2026", "mine", start))
		err = other.(importer).Import(ctx, exported)
		if !errcode.Is(err, errcode.InvalidBody) {
			t.Fatalf("import onto another board's positions: %v, want a refusal (INVALID_BODY)", err)
		}
		if notes, _, total, _ := other.List(ctx, "", 10); total != 1 || len(notes) != 1 || notes[0].ID != mine.ID {
			t.Fatalf("a refused import changed the board: %d notes, total %d", len(notes), total)
		}

		empty := o.Open(t)
		for range 2 { // a second import of the same file changes nothing
			if err := empty.(importer).Import(ctx, exported); err != nil {
				t.Fatal(err)
			}
		}
		notes, _, total, err := empty.List(ctx, "", 10)
		if err != nil || total != 2 || len(notes) != 2 || notes[1].ID != parent.ID || notes[1].Replies != 1 || notes[0].Position != 2 {
			t.Fatalf("imported: %+v, total %d, %v", notes, total, err)
		}
		if n := create(t, empty, creation("After2026", "after", start.Add(time.Minute))); n.Position != 3 {
			t.Fatalf("a note after the import has position %d, want 3", n.Position)
		}
	})

	if o.Reopen == nil {
		return
	}
	t.Run("a restart keeps everything", func(t *testing.T) {
		s := o.Open(t)
		if err := s.Block(ctx, board.Block{Handle: "Blocked2026", At: start}); err != nil {
			t.Fatal(err)
		}
		parent := create(t, s, creation("Parent2026", "parent", start))
		c := creation("Child2026", "child", start.Add(time.Second))
		c.Note.InReplyTo = &parent.ID
		child := create(t, s, c)
		s = o.Reopen(t)
		notes, _, total, err := s.List(ctx, "", 10)
		if err != nil || total != 2 || notes[0].ID != child.ID || notes[1].Replies != 1 {
			t.Fatalf("after a restart: %+v %v", notes, err)
		}
		if _, err := s.Create(ctx, creation("Other2026", "child", start.Add(time.Minute))); !errcode.Is(err, errcode.DuplicateNote) {
			t.Fatalf("the duplicate record after a restart: %v", err)
		}
		if n := create(t, s, creation("Later2026", "later", start.Add(time.Minute))); n.Position != 3 || n.ID <= child.ID {
			t.Fatalf("a note after the restart: %+v", n)
		}
		if ok, err := s.Blocked(ctx, "blocked2026"); err != nil || !ok {
			t.Fatalf("a block after the restart: %v %v", ok, err)
		}
		if k, ok := s.(keeper); ok {
			first, _ := k.Secret()
			k = o.Reopen(t).(keeper)
			if again, err := k.Secret(); err != nil || string(again) != string(first) {
				t.Fatalf("the challenge key changed with a restart: %v", err)
			}
		}
	})
}

// importer is a store that takes exported notes (store.Backend's Import).
type importer interface {
	Import(ctx context.Context, notes []board.Note) error
}

// keeper is a store that also keeps what the server needs beside the board: the challenge key and the logo cache.
type keeper interface {
	board.Store
	Secret() ([]byte, error)
	CacheGet(key string, now time.Time) ([]byte, bool, error)
	CachePut(key string, value []byte, until time.Time) error
}

// Closer is a store that can be closed, to be opened again.
type Closer interface {
	board.Store
	Close() error
}

// Restartable is the Opener of a store kept in a place that outlives it (a folder, a database): open opens it, at a
// fresh place when fresh is true, else at the last one. The store opened last is closed before the next one opens
// and when the test ends.
func Restartable(open func(t *testing.T, fresh bool) Closer) Opener {
	var last Closer
	reopen := func(t *testing.T, fresh bool) board.Store {
		if last != nil {
			last.Close()
		}
		s := open(t, fresh)
		last = s
		t.Cleanup(func() {
			if last == s {
				s.Close()
				last = nil
			}
		})
		return s
	}
	return Opener{
		Open:   func(t *testing.T) board.Store { return reopen(t, true) },
		Reopen: func(t *testing.T) board.Store { return reopen(t, false) },
	}
}
