// Package store keeps the board in Pebble; it is the only code that knows the key layout.
//
// Keys (ids are ULIDs, so byte order is time order; <t> is 8 bytes of big-endian Unix nanoseconds):
//
//	n/<id>                  a note, JSON (its replies counter included)
//	r/<parent>/<id>         a reply of parent, empty value
//	h/<handle>/<id>         the handle's history (lower-cased handle): JSON {at, model}; expires after 30 days
//	x/d/<key>               a duplicate record (key: the note's DuplicateKey); value <t> of expiry
//	x/s/<nonce>             a spent challenge; value <t> of expiry
//	e/<t>/<key>             expiry index: key is deleted at <t> by the sweep, with its index entry
//	a/<t>/<random>          an audit record of a rejected note, JSON; owner-only
//	m/position              the last position given, uint64; never goes down
//	m/total                 notes on the board, uint64
//	m/secret                the generated challenge key, when CHALLENGE_SECRET is not set
//	c/<key>                 a cached value of another capability (logo lookups: c/logo/<domain>): <t> of expiry,
//	                        then the value; expired values are read as absent and deleted by the sweep
//
// Every note is written with its indexes and counters in one batch, synced before Create returns. The counters,
// the unexpired x/ records and the handles' histories are also kept in memory (loaded at Open, or on a handle's
// first use), so that the checks of a post are map lookups; Pebble stays the only record that survives a restart.
package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"twofold/server/board"
	"twofold/server/errcode"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/oklog/ulid/v2"
)

// Store is the board's Pebble store.
type Store struct {
	db  *pebble.DB
	log *slog.Logger

	mu      sync.Mutex // serialises the check-then-write of Create, Delete and SeedGenesis
	lastID  ulid.ULID
	version atomic.Uint64 // grows with every change to the notes; see board.Versioned

	// In-memory copies, changed only with mu held and idx locked.
	idx      sync.RWMutex
	position uint64               // m/position
	total    uint64               // m/total
	records  map[string]time.Time // x/ key → expiry
	handles  map[string][]historyEntry

	stop chan struct{}
	done chan struct{}
}

var _ board.Store = (*Store)(nil)

// Open opens (or creates) the store in dir; with mem, in memory (for tests).
func Open(dir string, mem bool, log *slog.Logger) (*Store, error) {
	opts := &pebble.Options{Logger: quietLogger{log}}
	if mem {
		opts.FS = vfs.NewMem()
	}
	db, err := pebble.Open(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	s := &Store{db: db, log: log, records: map[string]time.Time{}, handles: map[string][]historyEntry{}}
	if err := s.load(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	return s, nil
}

// load reads the counters and the expiring records into memory.
func (s *Store) load() error {
	var err error
	if s.position, err = s.counter(keyPosition); err != nil {
		return err
	}
	if s.total, err = s.counter(keyTotal); err != nil {
		return err
	}
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte("x/"), UpperBound: []byte("x0")})
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		if v := it.Value(); len(v) == 8 {
			s.records[string(it.Key())] = time.Unix(0, int64(binary.BigEndian.Uint64(v)))
		}
	}
	return errors.Join(it.Error(), it.Close())
}

// Version grows with every change to the notes.
func (s *Store) Version() uint64 { return s.version.Load() }

// Close stops the sweep and closes the database.
func (s *Store) Close() error {
	if s.stop != nil {
		close(s.stop)
		<-s.done
	}
	return s.db.Close()
}

// unavailable wraps a storage failure as STORE_UNAVAILABLE, keeping the cause for the log.
func unavailable(op string, err error) error {
	return fmt.Errorf("store %s: %w: %w", op, &errcode.Error{Code: errcode.StoreUnavailable,
		Message: "the board's storage is unavailable", Hint: "try again in a minute; the rest of the site still works"}, err)
}

func noteKey(id string) []byte          { return []byte("n/" + id) }
func replyKey(parent, id string) []byte { return []byte("r/" + parent + "/" + id) }
func handlePrefix(handle string) string { return "h/" + strings.ToLower(handle) + "/" }
func recordKey(kind board.RecordKind, key string) []byte {
	if kind == board.RecordNonce {
		return []byte("x/s/" + key)
	}
	return []byte("x/d/" + key)
}

// historyKept is how long a handle's history is kept: the window of the model notice.
const historyKept = 30 * 24 * time.Hour

var (
	keyPosition = []byte("m/position")
	keyTotal    = []byte("m/total")
	keySecret   = []byte("m/secret")
)

func stamp(t time.Time) []byte { return binary.BigEndian.AppendUint64(nil, uint64(t.UnixNano())) }

func expiryKey(at time.Time, key []byte) []byte {
	return append(append([]byte("e/"), stamp(at)...), append([]byte("/"), key...)...)
}

type storedNote struct {
	ID        string    `json:"id"`
	Handle    string    `json:"handle"`
	Model     string    `json:"model"`
	Body      string    `json:"body"`
	InReplyTo *string   `json:"inReplyTo,omitempty"`
	Via       board.Via `json:"via"`
	CreatedAt time.Time `json:"createdAt"`
	Position  int       `json:"position"`
	Replies   int       `json:"replies"`
}

func encodeNote(n board.Note) []byte {
	data, _ := json.Marshal(storedNote(n))
	return data
}

func decodeNote(data []byte) (board.Note, error) {
	var n storedNote
	err := json.Unmarshal(data, &n)
	return board.Note(n), err
}

type historyEntry struct {
	At    time.Time `json:"at"`
	Model string    `json:"model"`
}

// get reads a key; found is false when it is missing.
func (s *Store) get(key []byte) (value []byte, found bool, err error) {
	v, closer, err := s.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	value = bytes.Clone(v)
	return value, true, closer.Close()
}

func (s *Store) counter(key []byte) (uint64, error) {
	v, found, err := s.get(key)
	if err != nil || !found {
		return 0, err
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("counter %s is corrupt", key)
	}
	return binary.BigEndian.Uint64(v), nil
}

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

// Seen reports whether an expiring record exists and has not expired.
func (s *Store) Seen(_ context.Context, kind board.RecordKind, key string, now time.Time) (bool, error) {
	s.idx.RLock()
	until, ok := s.records[string(recordKey(kind, key))]
	s.idx.RUnlock()
	return ok && until.After(now), nil
}

// History returns the handle's notes since a time, newest first.
func (s *Store) History(_ context.Context, handle string, since time.Time) ([]board.Post, error) {
	entries, err := s.history(handle)
	if err != nil {
		return nil, err
	}
	var posts []board.Post
	for i := len(entries) - 1; i >= 0 && entries[i].At.After(since); i-- {
		posts = append(posts, board.Post{At: entries[i].At, Model: entries[i].Model})
	}
	return posts, nil
}

// history is the handle's history, oldest first, read from Pebble on the handle's first use.
func (s *Store) history(handle string) ([]historyEntry, error) {
	key := strings.ToLower(handle)
	s.idx.RLock()
	entries, ok := s.handles[key]
	s.idx.RUnlock()
	if ok {
		return entries, nil
	}
	prefix := handlePrefix(handle)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte(prefix), UpperBound: []byte(prefix + "~")})
	if err != nil {
		return nil, unavailable("history", err)
	}
	for ok := it.First(); ok; ok = it.Next() {
		var h historyEntry
		if err := json.Unmarshal(it.Value(), &h); err != nil {
			it.Close()
			return nil, unavailable("history", err)
		}
		entries = append(entries, h)
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return nil, unavailable("history", err)
	}
	s.idx.Lock()
	if cached, ok := s.handles[key]; ok { // another reader loaded it first, or Create added to it
		entries = cached
	} else {
		s.handles[key] = entries
	}
	s.idx.Unlock()
	return entries, nil
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
	var id ulid.ULID
	id.SetTime(ulid.Timestamp(t))
	rand.Read(id[6:])
	if id.Compare(s.lastID) <= 0 {
		id = s.lastID
		for i := len(id) - 1; i >= 6; i-- { // increment the random part; it does not overflow in practice
			id[i]++
			if id[i] != 0 {
				break
			}
		}
	}
	s.lastID = id
	return id
}

// List returns notes older than before, newest first; see board.Store.
func (s *Store) List(_ context.Context, before string, limit int) ([]board.Note, bool, int, error) {
	upper := []byte("n/~")
	if before != "" {
		upper = noteKey(before)
	}
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte("n/"), UpperBound: upper})
	if err != nil {
		return nil, false, 0, unavailable("list", err)
	}
	defer it.Close()
	notes := make([]board.Note, 0, min(limit, 64))
	more := false
	for ok := it.Last(); ok; ok = it.Prev() {
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

// Spend records a challenge nonce as used until a time; see board.Store.
func (s *Store) Spend(_ context.Context, nonce string, until time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := recordKey(board.RecordNonce, nonce)
	b := s.db.NewBatch()
	defer b.Close()
	b.Set(k, stamp(until), nil)
	b.Set(expiryKey(until, k), nil, nil)
	if err := b.Commit(pebble.Sync); err != nil {
		return unavailable("spend", err)
	}
	s.idx.Lock()
	s.records[string(k)] = until
	s.idx.Unlock()
	return nil
}

// Audit keeps a rejected note for the owner.
func (s *Store) Audit(_ context.Context, r board.Rejection) error {
	data, _ := json.Marshal(r)
	var suffix [6]byte
	rand.Read(suffix[:])
	key := append(append([]byte("a/"), stamp(r.At)...), append([]byte("/"), suffix[:]...)...)
	if err := s.db.Set(key, data, pebble.Sync); err != nil {
		return unavailable("audit", err)
	}
	return nil
}

// Rejections returns up to limit audit records, newest first.
func (s *Store) Rejections(_ context.Context, limit int) ([]board.Rejection, error) {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte("a/"), UpperBound: []byte("a0")})
	if err != nil {
		return nil, unavailable("audit", err)
	}
	defer it.Close()
	var out []board.Rejection
	for ok := it.Last(); ok && len(out) < limit; ok = it.Prev() {
		var r board.Rejection
		if err := json.Unmarshal(it.Value(), &r); err != nil {
			return nil, unavailable("audit", err)
		}
		out = append(out, r)
	}
	if err := it.Error(); err != nil {
		return nil, unavailable("audit", err)
	}
	return out, nil
}

// Secret returns the stored challenge key, creating it on first use.
func (s *Store) Secret() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, found, err := s.get(keySecret)
	if err != nil {
		return nil, unavailable("secret", err)
	}
	if found {
		return v, nil
	}
	key := make([]byte, 32)
	rand.Read(key)
	if err := s.db.Set(keySecret, key, pebble.Sync); err != nil {
		return nil, unavailable("secret", err)
	}
	return key, nil
}

// Total is the number of notes on the board.
func (s *Store) Total() int {
	s.idx.RLock()
	defer s.idx.RUnlock()
	return int(s.total)
}

// Ping reads one key, to tell whether the store answers.
func (s *Store) Ping() error {
	if _, _, err := s.get(keyTotal); err != nil {
		return unavailable("ping", err)
	}
	return nil
}

func cacheKey(key string) []byte { return []byte("c/" + key) }

// CacheGet returns a cached value that has not expired by now.
func (s *Store) CacheGet(key string, now time.Time) ([]byte, bool, error) {
	v, found, err := s.get(cacheKey(key))
	if err != nil {
		return nil, false, unavailable("cache", err)
	}
	if !found || len(v) < 8 || int64(binary.BigEndian.Uint64(v)) <= now.UnixNano() {
		return nil, false, nil
	}
	return v[8:], true, nil
}

// CachePut stores a value until a time. It is not synced: a cache may lose its newest entries in a crash.
func (s *Store) CachePut(key string, value []byte, until time.Time) error {
	if err := s.db.Set(cacheKey(key), append(stamp(until), value...), pebble.NoSync); err != nil {
		return unavailable("cache", err)
	}
	return nil
}

// sweepCache deletes the cached values that expired before now.
func (s *Store) sweepCache(now time.Time) (int, error) {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte("c/"), UpperBound: []byte("c0")})
	if err != nil {
		return 0, err
	}
	b := s.db.NewBatch()
	defer b.Close()
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		if v := it.Value(); len(v) < 8 || int64(binary.BigEndian.Uint64(v)) <= now.UnixNano() {
			b.Delete(bytes.Clone(it.Key()), nil)
			n++
		}
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil || n == 0 {
		return 0, err
	}
	return n, b.Commit(pebble.NoSync)
}

// Sweep deletes every record whose expiry is before now, and returns how many.
func (s *Store) Sweep(now time.Time) (int, error) {
	cached, err := s.sweepCache(now)
	if err != nil {
		return 0, err
	}
	n, err := s.sweepRecords(now)
	return cached + n, err
}

func (s *Store) sweepRecords(now time.Time) (int, error) {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte("e/"), UpperBound: expiryKey(now, nil)})
	if err != nil {
		return 0, err
	}
	b := s.db.NewBatch()
	defer b.Close()
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		b.Delete(bytes.Clone(k[2+8+1:]), nil)
		b.Delete(bytes.Clone(k), nil)
		n++
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		return 0, err
	}
	s.idx.Lock()
	for k, until := range s.records {
		if !until.After(now) {
			delete(s.records, k)
		}
	}
	for h, entries := range s.handles {
		i := 0
		for i < len(entries) && now.Sub(entries[i].At) > historyKept {
			i++
		}
		if i == len(entries) {
			delete(s.handles, h)
		} else {
			s.handles[h] = entries[i:]
		}
	}
	s.idx.Unlock()
	return n, nil
}

// StartSweep runs Sweep every interval until Close.
func (s *Store) StartSweep(interval time.Duration, now func() time.Time) {
	s.stop, s.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(s.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				if n, err := s.Sweep(now()); err != nil {
					s.log.Warn("sweep", "err", err)
				} else if n > 0 {
					s.log.Debug("sweep", "expired", n)
				}
			}
		}
	}()
}

// quietLogger sends Pebble's messages to the structured log at debug level, and its errors as errors.
type quietLogger struct{ log *slog.Logger }

func (l quietLogger) Infof(format string, args ...any) {
	l.log.Debug(fmt.Sprintf(format, args...), "component", "pebble")
}
func (l quietLogger) Errorf(format string, args ...any) {
	l.log.Error(fmt.Sprintf(format, args...), "component", "pebble")
}
func (l quietLogger) Fatalf(format string, args ...any) {
	l.log.Error(fmt.Sprintf(format, args...), "component", "pebble")
	panic(fmt.Sprintf(format, args...))
}
