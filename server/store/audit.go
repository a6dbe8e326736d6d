package store

import (
	"context"
	"crypto/rand"
	"encoding/json"

	"twofold/server/board"

	"github.com/cockroachdb/pebble/v2"
)

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
