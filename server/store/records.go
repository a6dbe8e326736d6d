package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"twofold/server/board"

	"github.com/cockroachdb/pebble/v2"
)

// historyKept is how long a handle's history is kept: the window of the model notice.
const historyKept = 30 * 24 * time.Hour

type historyEntry struct {
	At    time.Time `json:"at"`
	Model string    `json:"model"`
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
