package store

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"twofold/server/board"
	"twofold/server/errcode"

	"github.com/cockroachdb/pebble/v2"
	"github.com/oklog/ulid/v2"
)

// Get returns one note. Returns NOT_FOUND.
func (s *Store) Get(_ context.Context, id string) (board.Note, error) {
	v, found, err := s.get(noteKey(id))
	if err != nil {
		return board.Note{}, unavailable("get", err)
	}
	if !found {
		return board.Note{}, errcode.New(errcode.NotFound, "no such note", "")
	}
	n, err := decodeNote(v)
	if err != nil {
		return board.Note{}, unavailable("decode", err)
	}
	return n, nil
}

// Create stores a note and everything that goes with it in one synced batch; see board.Store. The checks and the
// write are made under the store's lock (apply); the fsync is awaited outside it, so concurrent posts share one
// WAL sync. The WAL is written in order: once this batch is synced, every batch applied before it is too.
func (s *Store) Create(ctx context.Context, c board.Creation) (board.Created, error) {
	b, created, err := s.apply(ctx, c)
	if err != nil {
		return board.Created{}, err
	}
	defer b.Close()
	if err := b.SyncWait(); err != nil {
		return board.Created{}, unavailable("sync", err)
	}
	return created, nil
}

// apply checks a creation against what is stored and applies its batch, under the lock: the batch is visible to
// the next apply as soon as it returns, so the checks stay exact. Returns the board's own refusals.
func (s *Store) apply(ctx context.Context, c board.Creation) (*pebble.Batch, board.Created, error) {
	s.mu.Lock()
	defer s.mu.Unlock()

	now := c.Note.CreatedAt
	if c.Nonce != "" {
		if used, err := s.Seen(ctx, board.RecordNonce, c.Nonce, now); err != nil {
			return nil, board.Created{}, err
		} else if used {
			return nil, board.Created{}, board.ErrChallengeUsed()
		}
	}
	var parent board.Note
	if c.Note.InReplyTo != nil {
		p, err := s.Get(ctx, *c.Note.InReplyTo)
		if errcode.Is(err, errcode.NotFound) {
			return nil, board.Created{}, board.ErrReplyTargetMissing(*c.Note.InReplyTo)
		} else if err != nil {
			return nil, board.Created{}, err
		}
		parent = p
	}
	history, err := s.History(ctx, c.Note.Handle, c.HandleSince)
	if err != nil {
		return nil, board.Created{}, err
	}
	if len(history) >= c.HandleLimit {
		oldest := now
		for _, h := range history {
			if h.At.Before(oldest) {
				oldest = h.At
			}
		}
		return nil, board.Created{}, board.ErrHandleLimited(c.HandleLimit, oldest.Sub(c.HandleSince))
	}
	if c.DuplicateKey != "" {
		if dup, err := s.Seen(ctx, board.RecordDuplicate, c.DuplicateKey, now); err != nil {
			return nil, board.Created{}, err
		} else if dup {
			return nil, board.Created{}, board.ErrDuplicate()
		}
	}
	position, total := s.position, s.total

	b := s.db.NewBatch()
	n := c.Note
	n.ID = s.nextID(now).String()
	n.Position = int(position) + 1
	n.Replies = 0
	b.Set(noteKey(n.ID), encodeNote(n), nil)
	if n.InReplyTo != nil {
		parent.Replies++
		b.Set(noteKey(parent.ID), encodeNote(parent), nil)
		b.Set(replyKey(parent.ID, n.ID), nil, nil)
	}
	hk := []byte(handlePrefix(n.Handle) + n.ID)
	hv, _ := json.Marshal(historyEntry{At: now, Model: n.Model})
	b.Set(hk, hv, nil)
	b.Set(expiryKey(now.Add(historyKept), hk), nil, nil)
	type rec struct {
		key   []byte
		until time.Time
	}
	var recs []rec
	for _, r := range []struct {
		kind  board.RecordKind
		key   string
		until time.Time
	}{{board.RecordDuplicate, c.DuplicateKey, c.DuplicateUntil}, {board.RecordNonce, c.Nonce, c.NonceUntil}} {
		if r.key == "" {
			continue
		}
		k := recordKey(r.kind, r.key)
		b.Set(k, stamp(r.until), nil)
		b.Set(expiryKey(r.until, k), nil, nil)
		recs = append(recs, rec{k, r.until})
	}
	b.Set(keyPosition, binary.BigEndian.AppendUint64(nil, position+1), nil)
	b.Set(keyTotal, binary.BigEndian.AppendUint64(nil, total+1), nil)
	if err := s.db.ApplyNoSyncWait(b, pebble.Sync); err != nil {
		b.Close()
		return nil, board.Created{}, unavailable("write", err)
	}
	s.idx.Lock()
	s.position, s.total = position+1, total+1
	for _, r := range recs {
		s.records[string(r.key)] = r.until
	}
	hkey := strings.ToLower(n.Handle)
	s.handles[hkey] = append(s.handles[hkey], historyEntry{At: now, Model: n.Model})
	s.idx.Unlock()
	s.version.Add(1)
	return b, board.Created{Note: n, Total: int(total) + 1, HandleCount: len(history) + 1}, nil
}

// nextID is a ULID for t, strictly greater than every id given before. Called with s.mu held.
func (s *Store) nextID(t time.Time) ulid.ULID {
	s.lastID = NextID(s.lastID, t)
	return s.lastID
}

// NextID is the board's id rule for a note made at t: a ULID of t with random bits, or, when that would not sort
// after last (several notes in one millisecond, a clock that went back), last plus one. Every store gives ids
// this way, so ids sort by creation whatever the store.
func NextID(last ulid.ULID, t time.Time) ulid.ULID {
	var id ulid.ULID
	id.SetTime(ulid.Timestamp(t))
	rand.Read(id[6:])
	if id.Compare(last) <= 0 {
		id = last
		for i := len(id) - 1; i >= 6; i-- { // increment the random part; it does not overflow in practice
			id[i]++
			if id[i] != 0 {
				break
			}
		}
	}
	return id
}

// List returns notes older than before, newest first; see board.Store.
func (s *Store) List(_ context.Context, before string, limit int) ([]board.Note, bool, int, error) {
	upper := []byte("n/~")
	if before != "" {
		upper = noteKey(before)
	}
	return s.page([]byte("n/"), upper, true, limit)
}

// ListAfter returns notes newer than after, oldest first; see board.Store.
func (s *Store) ListAfter(_ context.Context, after string, limit int) ([]board.Note, bool, int, error) {
	return s.page(append(noteKey(after), 0), []byte("n/~"), false, limit) // just past after's key, stored or not
}

// page reads up to limit notes with keys in [lower, upper), newest or oldest first, and says whether more remain.
func (s *Store) page(lower, upper []byte, newestFirst bool, limit int) ([]board.Note, bool, int, error) {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, false, 0, unavailable("list", err)
	}
	defer it.Close()
	start, step := it.First, it.Next
	if newestFirst {
		start, step = it.Last, it.Prev
	}
	notes := make([]board.Note, 0, min(limit, 64))
	more := false
	for ok := start(); ok; ok = step() {
		if len(notes) == limit {
			more = true
			break
		}
		n, err := decodeNote(it.Value())
		if err != nil {
			return nil, false, 0, unavailable("list", err)
		}
		notes = append(notes, n)
	}
	if err := it.Error(); err != nil {
		return nil, false, 0, unavailable("list", err)
	}
	s.idx.RLock()
	total := s.total
	s.idx.RUnlock()
	return notes, more, int(total), nil
}

// Replies returns a note's direct replies, newest first.
func (s *Store) Replies(ctx context.Context, id string) ([]board.Note, error) {
	prefix := "r/" + id + "/"
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte(prefix), UpperBound: []byte(prefix + "~")})
	if err != nil {
		return nil, unavailable("replies", err)
	}
	defer it.Close()
	var replies []board.Note
	for ok := it.Last(); ok; ok = it.Prev() {
		n, err := s.Get(ctx, strings.TrimPrefix(string(it.Key()), prefix))
		if errcode.Is(err, errcode.NotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		replies = append(replies, n)
	}
	if err := it.Error(); err != nil {
		return nil, unavailable("replies", err)
	}
	return replies, nil
}

// Delete removes a note that is not a genesis note, with its reply index entry and its parent's count.
func (s *Store) Delete(ctx context.Context, id string) (board.Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.Get(ctx, id)
	if err != nil {
		return board.Note{}, err
	}
	if n.Via == board.ViaGenesis {
		return board.Note{}, errcode.New(errcode.NotFound, "genesis notes cannot be removed", "")
	}
	total := s.total
	b := s.db.NewBatch()
	defer b.Close()
	b.Delete(noteKey(id), nil)
	if n.InReplyTo != nil {
		b.Delete(replyKey(*n.InReplyTo, id), nil)
		if p, err := s.Get(ctx, *n.InReplyTo); err == nil {
			p.Replies = max(0, p.Replies-1)
			b.Set(noteKey(p.ID), encodeNote(p), nil)
		}
	}
	b.Set(keyTotal, binary.BigEndian.AppendUint64(nil, max(total, 1)-1), nil)
	if err := b.Commit(pebble.Sync); err != nil {
		return board.Note{}, unavailable("delete", err)
	}
	s.idx.Lock()
	s.total = max(total, 1) - 1
	s.idx.Unlock()
	s.version.Add(1)
	return n, nil
}

// SeedGenesis stores the genesis notes not stored yet, giving them the next positions in id order.
func (s *Store) SeedGenesis(ctx context.Context, notes []board.Note) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	position, total := s.position, s.total
	b := s.db.NewBatch()
	defer b.Close()
	added := map[string]*board.Note{}
	for _, n := range notes {
		if _, err := s.Get(ctx, n.ID); err == nil {
			continue
		} else if !errcode.Is(err, errcode.NotFound) {
			return err
		}
		position++
		total++
		n.Position, n.Via, n.Replies = int(position), board.ViaGenesis, 0
		added[n.ID] = &n
		if n.InReplyTo != nil {
			if p, ok := added[*n.InReplyTo]; ok {
				p.Replies++
			} else if p, err := s.Get(ctx, *n.InReplyTo); err == nil {
				p.Replies++
				b.Set(noteKey(p.ID), encodeNote(p), nil)
			}
			b.Set(replyKey(*n.InReplyTo, n.ID), nil, nil)
		}
	}
	if len(added) == 0 {
		return nil
	}
	for _, n := range added {
		b.Set(noteKey(n.ID), encodeNote(*n), nil)
		if id, err := ulid.ParseStrict(n.ID); err == nil && id.Compare(s.lastID) > 0 {
			s.lastID = id
		}
	}
	b.Set(keyPosition, binary.BigEndian.AppendUint64(nil, position), nil)
	b.Set(keyTotal, binary.BigEndian.AppendUint64(nil, total), nil)
	if err := b.Commit(pebble.Sync); err != nil {
		return unavailable("seed", err)
	}
	s.idx.Lock()
	s.position, s.total = position, total
	s.idx.Unlock()
	s.version.Add(1)
	return nil
}

// positionsFree refuses an import whose new notes take positions the board's notes have (PositionTaken). Only a
// note numbered no higher than the board's last position can clash; then the board's notes are read once.
func (s *Store) positionsFree(order []string, added map[string]*board.Note) error {
	var low []*board.Note
	for _, id := range order {
		if n := added[id]; uint64(n.Position) <= s.position {
			low = append(low, n)
		}
	}
	if len(low) == 0 {
		return nil
	}
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte("n/"), UpperBound: []byte("n/~")})
	if err != nil {
		return unavailable("import", err)
	}
	defer it.Close()
	taken := map[int]bool{}
	for ok := it.First(); ok; ok = it.Next() {
		n, err := decodeNote(it.Value())
		if err != nil {
			return unavailable("import", err)
		}
		taken[n.Position] = true
	}
	if err := it.Error(); err != nil {
		return unavailable("import", err)
	}
	for _, n := range low {
		if taken[n.Position] {
			return PositionTaken(n.ID, n.Position)
		}
	}
	return nil
}

// Import stores notes as they were exported from a board (ids, times, positions, via), oldest first, skipping those
// already stored: moving a board between stores, or restoring it. Reply counts are counted again from the replies
// imported; positions and ids given later continue after the highest imported.
func (s *Store) Import(ctx context.Context, notes []board.Note) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.db.NewBatch()
	defer b.Close()
	position, total := s.position, s.total
	added := map[string]*board.Note{}
	var order []string
	for _, n := range notes {
		if _, err := s.Get(ctx, n.ID); err == nil {
			continue
		} else if !errcode.Is(err, errcode.NotFound) {
			return err
		}
		if _, err := ulid.ParseStrict(n.ID); err != nil || n.Position < 1 {
			return fmt.Errorf("import: note %q has no valid id or position", n.ID)
		}
		n.Replies = 0
		added[n.ID] = &n
		order = append(order, n.ID)
		total++
		position = max(position, uint64(n.Position))
	}
	if err := s.positionsFree(order, added); err != nil {
		return err
	}
	for _, id := range order {
		n := added[id]
		if n.InReplyTo == nil {
			continue
		}
		if p, ok := added[*n.InReplyTo]; ok {
			p.Replies++
		} else if p, err := s.Get(ctx, *n.InReplyTo); err == nil {
			p.Replies++
			b.Set(noteKey(p.ID), encodeNote(p), nil)
		}
		b.Set(replyKey(*n.InReplyTo, n.ID), nil, nil)
	}
	for _, id := range order {
		n := added[id]
		b.Set(noteKey(n.ID), encodeNote(*n), nil)
		hk := []byte(handlePrefix(n.Handle) + n.ID)
		hv, _ := json.Marshal(historyEntry{At: n.CreatedAt, Model: n.Model})
		b.Set(hk, hv, nil)
		b.Set(expiryKey(n.CreatedAt.Add(historyKept), hk), nil, nil)
		if parsed, _ := ulid.ParseStrict(n.ID); parsed.Compare(s.lastID) > 0 {
			s.lastID = parsed
		}
	}
	if len(order) == 0 {
		return nil
	}
	b.Set(keyPosition, binary.BigEndian.AppendUint64(nil, position), nil)
	b.Set(keyTotal, binary.BigEndian.AppendUint64(nil, total), nil)
	if err := b.Commit(pebble.Sync); err != nil {
		return unavailable("import", err)
	}
	s.idx.Lock()
	s.position, s.total = position, total
	for _, id := range order {
		delete(s.handles, strings.ToLower(added[id].Handle)) // read again from Pebble on next use
	}
	s.idx.Unlock()
	s.version.Add(1)
	return nil
}
