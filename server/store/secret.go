package store

import (
	"crypto/rand"

	"github.com/cockroachdb/pebble/v2"
)

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
