// Package boardtest holds an in-memory board.Store for tests of the board's rules: a map and a mutex, with the
// semantics every store must have (server/store/storetest checks it against the same contract as Pebble).
package boardtest

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"twofold/server/board"
	"twofold/server/errcode"
	"twofold/server/store"

	"github.com/oklog/ulid/v2"
)

// Store is an in-memory board.Store. The zero value is not ready; use NewStore.
type Store struct {
	mu       sync.Mutex
	notes    map[string]board.Note
	position int
	records  map[string]time.Time // kind + "\x00" + key: until
	history  map[string][]board.Post
	audit    []board.Rejection
	blocks   map[string]board.Block // by lower-cased handle
	lastID   ulid.ULID
	version  uint64

	// Fail, when set, is returned by every call: a store that cannot be used.
	Fail error
}

var _ board.Store = (*Store)(nil)

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{notes: map[string]board.Note{}, records: map[string]time.Time{}, history: map[string][]board.Post{}, blocks: map[string]board.Block{}}
}

func recordKey(kind board.RecordKind, key string) string { return string(kind) + "\x00" + key }

// Version grows with every change to the notes (board.Versioned).
func (s *Store) Version() (uint64, bool) { s.mu.Lock(); defer s.mu.Unlock(); return s.version, true }

func (s *Store) Create(_ context.Context, c board.Creation) (board.Created, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return board.Created{}, s.Fail
	}
	now := c.Note.CreatedAt
	if c.Nonce != "" && s.seen(board.RecordNonce, c.Nonce, now) {
		return board.Created{}, board.ErrChallengeUsed()
	}
	if c.Note.InReplyTo != nil {
		if _, ok := s.notes[*c.Note.InReplyTo]; !ok {
			return board.Created{}, board.ErrReplyTargetMissing(*c.Note.InReplyTo)
		}
	}
	recent := s.since(c.Note.Handle, c.HandleSince)
	if len(recent) >= c.HandleLimit {
		oldest := now
		for _, p := range recent {
			if p.At.Before(oldest) {
				oldest = p.At
			}
		}
		return board.Created{}, board.ErrHandleLimited(c.HandleLimit, oldest.Sub(c.HandleSince))
	}
	if c.DuplicateKey != "" && s.seen(board.RecordDuplicate, c.DuplicateKey, now) {
		return board.Created{}, board.ErrDuplicate()
	}
	n := c.Note
	n.ID = s.nextID(now).String()
	s.position++
	n.Position, n.Replies = s.position, 0
	s.notes[n.ID] = n
	if n.InReplyTo != nil {
		p := s.notes[*n.InReplyTo]
		p.Replies++
		s.notes[p.ID] = p
	}
	key := strings.ToLower(n.Handle)
	s.history[key] = append(s.history[key], board.Post{At: now, Model: n.Model})
	if c.DuplicateKey != "" {
		s.records[recordKey(board.RecordDuplicate, c.DuplicateKey)] = c.DuplicateUntil
	}
	if c.Nonce != "" {
		s.records[recordKey(board.RecordNonce, c.Nonce)] = c.NonceUntil
	}
	s.version++
	return board.Created{Note: n, Total: len(s.notes), HandleCount: len(recent) + 1}, nil
}

// nextID is a ULID for t, strictly greater than every id given before: the store's rule.
func (s *Store) nextID(t time.Time) ulid.ULID {
	s.lastID = store.NextID(s.lastID, t)
	return s.lastID
}

func (s *Store) seen(kind board.RecordKind, key string, now time.Time) bool {
	until, ok := s.records[recordKey(kind, key)]
	return ok && now.Before(until)
}

// since is the handle's posts after a time, newest first.
func (s *Store) since(handle string, t time.Time) []board.Post {
	var out []board.Post
	for _, p := range s.history[strings.ToLower(handle)] {
		if p.At.After(t) {
			out = append(out, p)
		}
	}
	slices.Reverse(out)
	return out
}

func (s *Store) Get(_ context.Context, id string) (board.Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return board.Note{}, s.Fail
	}
	n, ok := s.notes[id]
	if !ok {
		return board.Note{}, errcode.New(errcode.NotFound, "no such note", "")
	}
	return n, nil
}

// sorted is every note, newest first.
func (s *Store) sorted() []board.Note {
	out := make([]board.Note, 0, len(s.notes))
	for _, n := range s.notes {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b board.Note) int { return cmp.Compare(b.ID, a.ID) })
	return out
}

func (s *Store) List(_ context.Context, before string, limit int) ([]board.Note, bool, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return nil, false, 0, s.Fail
	}
	var page []board.Note
	all := s.sorted()
	for _, n := range all {
		if before != "" && n.ID >= before {
			continue
		}
		if len(page) == limit {
			return page, true, len(all), nil
		}
		page = append(page, n)
	}
	return page, false, len(all), nil
}

func (s *Store) ListAfter(_ context.Context, after string, limit int) ([]board.Note, bool, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return nil, false, 0, s.Fail
	}
	all := s.sorted() // newest first
	var page []board.Note
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].ID <= after {
			continue
		}
		if len(page) == limit {
			return page, true, len(all), nil
		}
		page = append(page, all[i])
	}
	return page, false, len(all), nil
}

func (s *Store) Replies(_ context.Context, id string) ([]board.Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return nil, s.Fail
	}
	var out []board.Note
	for _, n := range s.sorted() {
		if n.InReplyTo != nil && *n.InReplyTo == id {
			out = append(out, n)
		}
	}
	return out, nil
}

func (s *Store) Delete(_ context.Context, id string) (board.Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return board.Note{}, s.Fail
	}
	n, ok := s.notes[id]
	if !ok || n.Via == board.ViaGenesis {
		return board.Note{}, errcode.New(errcode.NotFound, "no removable note", "")
	}
	delete(s.notes, id)
	if n.InReplyTo != nil {
		if p, ok := s.notes[*n.InReplyTo]; ok {
			p.Replies = max(0, p.Replies-1)
			s.notes[p.ID] = p
		}
	}
	s.version++
	return n, nil
}

func (s *Store) History(_ context.Context, handle string, since time.Time) ([]board.Post, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return nil, s.Fail
	}
	return s.since(handle, since), nil
}

func (s *Store) Seen(_ context.Context, kind board.RecordKind, key string, now time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return false, s.Fail
	}
	return s.seen(kind, key, now), nil
}

func (s *Store) Spend(_ context.Context, nonce string, until time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return s.Fail
	}
	s.records[recordKey(board.RecordNonce, nonce)] = until
	return nil
}

func (s *Store) SeedGenesis(_ context.Context, notes []board.Note) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return s.Fail
	}
	for _, n := range notes {
		if _, ok := s.notes[n.ID]; ok {
			continue
		}
		s.position++
		n.Position, n.Via, n.Replies = s.position, board.ViaGenesis, 0
		s.notes[n.ID] = n
		if n.InReplyTo != nil {
			if p, ok := s.notes[*n.InReplyTo]; ok {
				p.Replies++
				s.notes[p.ID] = p
			}
		}
		if id, err := ulid.ParseStrict(n.ID); err == nil && id.Compare(s.lastID) > 0 {
			s.lastID = id
		}
	}
	s.version++
	return nil
}

func (s *Store) Audit(_ context.Context, r board.Rejection) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return s.Fail
	}
	s.audit = append(s.audit, r)
	return nil
}

func (s *Store) Rejections(_ context.Context, limit int) ([]board.Rejection, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return nil, s.Fail
	}
	out := slices.Clone(s.audit)
	slices.Reverse(out)
	return out[:min(limit, len(out))], nil
}

func (s *Store) Block(_ context.Context, b board.Block) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return s.Fail
	}
	if _, ok := s.blocks[strings.ToLower(b.Handle)]; !ok {
		s.blocks[strings.ToLower(b.Handle)] = b
	}
	return nil
}

func (s *Store) Unblock(_ context.Context, handle string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return false, s.Fail
	}
	_, ok := s.blocks[strings.ToLower(handle)]
	delete(s.blocks, strings.ToLower(handle))
	return ok, nil
}

func (s *Store) Blocked(_ context.Context, handle string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return false, s.Fail
	}
	_, ok := s.blocks[strings.ToLower(handle)]
	return ok, nil
}

func (s *Store) Blocks(context.Context) ([]board.Block, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return nil, s.Fail
	}
	keys := slices.Sorted(maps.Keys(s.blocks))
	out := make([]board.Block, 0, len(keys))
	for _, k := range keys {
		out = append(out, s.blocks[k])
	}
	return out, nil
}
