package postgres

import (
	"context"
	"errors"
	"strings"
	"time"

	"twofold/server/board"
	"twofold/server/store"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"
)

// Notes are written in groups: every Create of this server waits in one queue, and one goroutine (commits) writes
// what is waiting in a single transaction, checking each note in order against the database and against the notes
// before it in the same group. The board's one counter row (board_state: positions are gapless) makes posts
// serial however they are written; a group pays for its lock, its round trips and its synced commit once, instead
// of once per note. The transaction is SERIALIZABLE like every other, so the limits hold across servers as before:
// two groups on two servers that read what the other wrote cannot both commit, and the one made to retry checks
// every note of its group again.

// maxGroup is the most notes one transaction writes.
const maxGroup = 64

// groupTimeout bounds one group's transaction, retries included.
const groupTimeout = 30 * time.Second

var errClosed = errors.New("the store is closed")

type creation struct {
	c     board.Creation
	reply chan createdOrNot
}

type createdOrNot struct {
	out board.Created
	err error
}

// Create stores a note with its records and counters, after checking under the board's lock that none of the
// board's limits refuses it; see board.Store. It waits for the group its note is written in.
func (s *Store) Create(ctx context.Context, c board.Creation) (board.Created, error) {
	req := creation{c: c, reply: make(chan createdOrNot, 1)}
	select {
	case s.queue <- req:
	case <-s.quit:
		return board.Created{}, unavailable("create", errClosed)
	case <-ctx.Done():
		return board.Created{}, unavailable("create", ctx.Err())
	}
	// Once queued, the note may be written: wait for the answer whatever ctx does, so that a note stored is never
	// answered as failed. The group's own timeout bounds the wait.
	r := <-req.reply
	return r.out, r.err
}

// commits writes the queued notes, a group at a time, until quit is closed.
func (s *Store) commits() {
	defer close(s.committed)
	for {
		var group []creation
		select {
		case r := <-s.queue:
			group = append(group, r)
		case <-s.quit:
			return
		}
	gather:
		for len(group) < maxGroup {
			select {
			case r := <-s.queue:
				group = append(group, r)
			default:
				break gather
			}
		}
		results := s.createGroup(group)
		s.wrote()
		for i, r := range group {
			r.reply <- results[i]
		}
	}
}

// createGroup writes a group of notes in one transaction and returns each note's outcome, in order.
func (s *Store) createGroup(group []creation) []createdOrNot {
	ctx, cancel := context.WithTimeout(context.Background(), groupTimeout)
	defer cancel()
	var results []createdOrNot
	err := s.tx(ctx, func(tx pgx.Tx) error {
		results = make([]createdOrNot, len(group)) // a retry checks every note again
		return checkAndWrite(ctx, tx, group, results)
	})
	if err != nil {
		for i := range results {
			results[i] = createdOrNot{err: err}
		}
		if results == nil {
			results = make([]createdOrNot, len(group))
			for i := range results {
				results[i] = createdOrNot{err: err}
			}
		}
	}
	return results
}

func checkAndWrite(ctx context.Context, tx pgx.Tx, group []creation, results []createdOrNot) error {
	var nonces, dupKeys, parents, handles []string
	since := group[0].c.HandleSince
	for _, r := range group {
		c := r.c
		if c.Nonce != "" {
			nonces = append(nonces, c.Nonce)
		}
		if c.DuplicateKey != "" {
			dupKeys = append(dupKeys, c.DuplicateKey)
		}
		if c.Note.InReplyTo != nil {
			parents = append(parents, *c.Note.InReplyTo)
		}
		handles = append(handles, strings.ToLower(c.Note.Handle))
		if c.HandleSince.Before(since) {
			since = c.HandleSince
		}
	}
	// One round trip reads all that the checks need, and locks the counter row.
	expires := map[board.RecordKind]map[string]time.Time{board.RecordNonce: {}, board.RecordDuplicate: {}}
	exists := map[string]bool{}
	posts := map[string][]time.Time{} // a handle's posts since the earliest window start, oldest first
	var position, total int
	var lastID string
	reads := &pgx.Batch{}
	for kind, keys := range map[board.RecordKind][]string{board.RecordNonce: nonces, board.RecordDuplicate: dupKeys} {
		reads.Queue(`SELECT key, expires FROM records WHERE kind = $1 AND key = ANY($2)`, string(kind), keys).Query(func(rows pgx.Rows) error {
			var key string
			var until time.Time
			_, err := pgx.ForEachRow(rows, []any{&key, &until}, func() error { expires[kind][key] = until; return nil })
			return err
		})
	}
	reads.Queue(`SELECT id FROM notes WHERE id = ANY($1)`, parents).Query(func(rows pgx.Rows) error {
		var id string
		_, err := pgx.ForEachRow(rows, []any{&id}, func() error { exists[id] = true; return nil })
		return err
	})
	reads.Queue(`SELECT handle, at FROM handle_posts WHERE handle = ANY($1) AND at > $2 ORDER BY at`, handles, since).Query(func(rows pgx.Rows) error {
		var h string
		var at time.Time
		_, err := pgx.ForEachRow(rows, []any{&h, &at}, func() error { posts[h] = append(posts[h], at); return nil })
		return err
	})
	reads.Queue(`SELECT position, last_id, total FROM board_state FOR UPDATE`).QueryRow(func(r pgx.Row) error { return r.Scan(&position, &lastID, &total) })
	if err := tx.SendBatch(ctx, reads).Close(); err != nil {
		return err
	}

	// Each note in order, as if posted alone after the ones before it; the stored ones are written together below.
	last, _ := ulid.ParseStrict(lastID)
	var w groupWrites
	for i, r := range group {
		c := r.c
		now := c.Note.CreatedAt
		handle := strings.ToLower(c.Note.Handle)
		var inWindow []time.Time
		for _, at := range posts[handle] {
			if at.After(c.HandleSince) {
				inWindow = append(inWindow, at)
			}
		}
		switch {
		case c.Nonce != "" && expires[board.RecordNonce][c.Nonce].After(now):
			results[i].err = board.ErrChallengeUsed()
			continue
		case c.Note.InReplyTo != nil && !exists[*c.Note.InReplyTo]:
			results[i].err = board.ErrReplyTargetMissing(*c.Note.InReplyTo)
			continue
		case len(inWindow) >= c.HandleLimit:
			results[i].err = board.ErrHandleLimited(c.HandleLimit, inWindow[0].Sub(c.HandleSince))
			continue
		case c.DuplicateKey != "" && expires[board.RecordDuplicate][c.DuplicateKey].After(now):
			results[i].err = board.ErrDuplicate()
			continue
		}
		id := store.NextID(last, now)
		last, position, total = id, position+1, total+1
		n := c.Note
		n.ID, n.Position, n.Replies = id.String(), position, 0
		w.note(n, handle)
		for _, rec := range []struct {
			kind  board.RecordKind
			key   string
			until time.Time
		}{{board.RecordDuplicate, c.DuplicateKey, c.DuplicateUntil}, {board.RecordNonce, c.Nonce, c.NonceUntil}} {
			if rec.key != "" {
				w.record(rec.kind, rec.key, rec.until)
				expires[rec.kind][rec.key] = rec.until // the notes after it in the group see it
			}
		}
		exists[n.ID] = true
		posts[handle] = append(posts[handle], now)
		results[i].out = board.Created{Note: n, Total: total, HandleCount: len(inWindow) + 1}
	}
	if len(w.ids) == 0 {
		return nil
	}
	writes := w.batch()
	writes.Queue(`UPDATE board_state SET position = $1, last_id = $2, version = version + 1, total = total + $3`, position, last.String(), len(w.ids))
	return tx.SendBatch(ctx, writes).Close()
}

// groupWrites gathers a group's stored notes and records as columns, so that each table is written by one
// statement whatever the size of the group (unnest of arrays): a statement costs the database more than a row.
type groupWrites struct {
	ids, handles, models, bodies, vias, keys []string
	parents                                  []*string
	at                                       []time.Time
	positions                                []int64
	replies                                  map[string]int
	records                                  map[[2]string]time.Time
}

func (w *groupWrites) note(n board.Note, handle string) {
	w.ids, w.handles, w.models, w.bodies = append(w.ids, n.ID), append(w.handles, n.Handle), append(w.models, n.Model), append(w.bodies, n.Body)
	w.parents, w.vias, w.at, w.positions = append(w.parents, n.InReplyTo), append(w.vias, string(n.Via)), append(w.at, n.CreatedAt), append(w.positions, int64(n.Position))
	w.keys = append(w.keys, handle)
	if n.InReplyTo != nil {
		if w.replies == nil {
			w.replies = map[string]int{}
		}
		w.replies[*n.InReplyTo]++
	}
}

func (w *groupWrites) record(kind board.RecordKind, key string, until time.Time) {
	if w.records == nil {
		w.records = map[[2]string]time.Time{}
	}
	k := [2]string{string(kind), key}
	if until.After(w.records[k]) {
		w.records[k] = until
	}
}

func (w *groupWrites) batch() *pgx.Batch {
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO notes (`+noteColumns+`)
		SELECT id, handle, model, body, in_reply_to, via, created_at, position, 0
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::bigint[])
			AS t(id, handle, model, body, in_reply_to, via, created_at, position)`,
		w.ids, w.handles, w.models, w.bodies, w.parents, w.vias, w.at, w.positions)
	if len(w.replies) > 0 {
		var parents []string
		var counts []int32
		for id, n := range w.replies {
			parents, counts = append(parents, id), append(counts, int32(n))
		}
		b.Queue(`UPDATE notes SET replies = replies + u.n FROM unnest($1::text[], $2::int[]) AS u(id, n) WHERE notes.id = u.id`, parents, counts)
	}
	b.Queue(`INSERT INTO handle_posts (handle, id, at, model) SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[])`,
		w.keys, w.ids, w.at, w.models)
	if len(w.records) > 0 {
		var kinds, keys []string
		var until []time.Time
		for k, t := range w.records {
			kinds, keys, until = append(kinds, k[0]), append(keys, k[1]), append(until, t)
		}
		b.Queue(`INSERT INTO records (kind, key, expires) SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[])
			ON CONFLICT (kind, key) DO UPDATE SET expires = GREATEST(records.expires, excluded.expires)`, kinds, keys, until)
	}
	return b
}
