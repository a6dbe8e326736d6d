package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"twofold/server/board"

	"github.com/cockroachdb/pebble/v2"
)

// blockKey is b/<lower-cased handle>: one handle is blocked in every case.
func blockKey(handle string) []byte { return []byte("b/" + strings.ToLower(handle)) }

// Block keeps a handle from posting; see board.Store.
func (s *Store) Block(_ context.Context, b board.Block) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok, err := s.block(b.Handle); err != nil || ok {
		return err // blocked already: the first block's time stands
	}
	data, _ := json.Marshal(b)
	if err := s.db.Set(blockKey(b.Handle), data, pebble.Sync); err != nil {
		return unavailable("block", err)
	}
	return nil
}

// Unblock lets a handle post again; see board.Store.
func (s *Store) Unblock(_ context.Context, handle string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok, err := s.block(handle); err != nil || !ok {
		return false, err
	}
	if err := s.db.Delete(blockKey(handle), pebble.Sync); err != nil {
		return false, unavailable("unblock", err)
	}
	return true, nil
}

// Blocked reports whether a handle is blocked; see board.Store.
func (s *Store) Blocked(_ context.Context, handle string) (bool, error) {
	_, ok, err := s.block(handle)
	return ok, err
}

func (s *Store) block(handle string) (board.Block, bool, error) {
	v, closer, err := s.db.Get(blockKey(handle))
	if errors.Is(err, pebble.ErrNotFound) {
		return board.Block{}, false, nil
	}
	if err != nil {
		return board.Block{}, false, unavailable("blocked", err)
	}
	defer closer.Close()
	var b board.Block
	if err := json.Unmarshal(v, &b); err != nil {
		return board.Block{}, false, unavailable("blocked", err)
	}
	return b, true, nil
}

// Blocks lists the blocked handles; see board.Store.
func (s *Store) Blocks(context.Context) ([]board.Block, error) {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte("b/"), UpperBound: []byte("b0")})
	if err != nil {
		return nil, unavailable("blocks", err)
	}
	var out []board.Block
	for ok := it.First(); ok; ok = it.Next() {
		var b board.Block
		if err := json.Unmarshal(it.Value(), &b); err != nil {
			it.Close()
			return nil, unavailable("blocks", err)
		}
		out = append(out, b)
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return nil, unavailable("blocks", err)
	}
	return out, nil
}
