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
	reads.Queue(`SELECT position, last_id FROM board_state FOR UPDATE`).QueryRow(func(r pgx.Row) error { return r.Scan(&position, &lastID) })
	reads.Queue(`SELECT count(*) FROM notes`).QueryRow(func(r pgx.Row) error { return r.Scan(&total) })
	if err := tx.SendBatch(ctx, reads).Close(); err != nil {
		return err
	}

	// Each note in order, as if posted alone after the ones before it.
	last, _ := ulid.ParseStrict(lastID)
	writes := &pgx.Batch{}
	stored := 0
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
		writes.Queue(`INSERT INTO notes (`+noteColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0)`,
			n.ID, n.Handle, n.Model, n.Body, n.InReplyTo, string(n.Via), n.CreatedAt, n.Position)
		if n.InReplyTo != nil {
			writes.Queue(`UPDATE notes SET replies = replies + 1 WHERE id = $1`, *n.InReplyTo)
		}
		writes.Queue(`INSERT INTO handle_posts (handle, id, at, model) VALUES ($1, $2, $3, $4)`, handle, n.ID, now, n.Model)
		for _, rec := range []struct {
			kind  board.RecordKind
			key   string
			until time.Time
		}{{board.RecordDuplicate, c.DuplicateKey, c.DuplicateUntil}, {board.RecordNonce, c.Nonce, c.NonceUntil}} {
			if rec.key != "" {
				writes.Queue(upsertRecord, string(rec.kind), rec.key, rec.until)
				expires[rec.kind][rec.key] = rec.until // the notes after it in the group see it
			}
		}
		exists[n.ID] = true
		posts[handle] = append(posts[handle], now)
		results[i].out = board.Created{Note: n, Total: total, HandleCount: len(inWindow) + 1}
		stored++
	}
	if stored == 0 {
		return nil
	}
	writes.Queue(`UPDATE board_state SET position = $1, last_id = $2, version = version + 1`, position, last.String())
	return tx.SendBatch(ctx, writes).Close()
}
