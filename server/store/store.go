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
//	b/<handle>              a blocked handle (lower-cased), JSON {handle, at}; owner-only
//	m/position              the last position given, uint64; never goes down
//	m/total                 notes on the board, uint64
//	m/secret                the generated challenge key, when CHALLENGE_SECRET is not set
//	c/<key>                 a cached value of another capability (logo lookups: c/logo/<domain>): <t> of expiry,
//	                        then the value; expired values are read as absent and deleted by the sweep
//
// The files of the package follow what it keeps: store.go (opening, keys, encoding), notes.go (notes, replies,
// positions and counters), records.go (duplicate records, spent nonces, handles' histories), audit.go (rejected
// notes), blocks.go (blocked handles), secret.go (the challenge key), cache.go (other capabilities' cache), sweep.go (expiry), opening.go (the
// store while it is being opened) and unavailable.go (the store that could not be opened).
//
// Every note is written with its indexes and counters in one batch, synced before Create returns. The counters,
// the unexpired x/ records and the handles' histories are also kept in memory (loaded at Open, or on a handle's
// first use), so that the checks of a post are map lookups; Pebble stays the only record that survives a restart.
package store

import (
	"bytes"
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
	dir string // "" in memory
	fs  vfs.FS

	mu      sync.Mutex // serialises the check-then-write of Create, Delete and SeedGenesis
	lastID  ulid.ULID
	version atomic.Uint64 // grows with every change to the notes; see board.Versioned

	// In-memory copies, changed only with mu held and idx locked.
	idx      sync.RWMutex
	position uint64               // m/position
	total    uint64               // m/total
	records  map[string]time.Time // x/ key → expiry
	handles  map[string][]historyEntry

	sweeper func() // stops the sweep; nil until StartSweep
}

var _ Backend = (*Store)(nil)

// Open opens (or creates) the store in the folder dir.
func Open(dir string, log *slog.Logger) (*Store, error) { return open(dir, nil, log) }

// OpenInMemory opens an empty store that lives in memory only (for tests and tools).
func OpenInMemory(log *slog.Logger) (*Store, error) { return open("", vfs.NewMem(), log) }

func open(dir string, fs vfs.FS, log *slog.Logger) (*Store, error) {
	if fs == nil {
		fs = vfs.Default
	}
	opts := &pebble.Options{Logger: quietLogger{log}, FS: fs}
	db, err := pebble.Open(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	if names, err := fs.List(dir); err == nil && dir != "" {
		for _, n := range names {
			if strings.HasPrefix(n, backupPrefix) {
				removeAllIn(fs, fs.PathJoin(dir, n)) // a backup cut short by a crash
			}
		}
	}
	s := &Store{db: db, log: log, dir: dir, fs: fs, records: map[string]time.Time{}, handles: map[string][]historyEntry{}}
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
func (s *Store) Version() (uint64, bool) { return s.version.Load(), true }

// Close stops the sweep and closes the database.
func (s *Store) Close() error {
	if s.sweeper != nil {
		s.sweeper()
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
