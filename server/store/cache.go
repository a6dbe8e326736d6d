package store

import (
	"encoding/binary"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

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
