package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// Sweep deletes everything that expired before now, and returns how many keys: the records of the expiry index
// (with their index entries) and the cached values whose stamp has passed.
func (s *Store) Sweep(now time.Time) (int, error) {
	cached, err := s.expire([]byte("c/"), []byte("c0"), func(k, v []byte) [][]byte {
		if len(v) < 8 || int64(binary.BigEndian.Uint64(v)) <= now.UnixNano() {
			return [][]byte{k}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	// e/<t>/<key>: every entry before now names a key that expired; both go.
	records, err := s.expire([]byte("e/"), expiryKey(now, nil), func(k, _ []byte) [][]byte { return [][]byte{k[2+8+1:], k} })
	if err != nil || records == 0 {
		return cached, err
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
	return cached + records, nil
}

// expire is the one sweeping loop: it reads the keys in [lower, upper), deletes the keys expired picks for each
// (none, when it has not expired) in one unsynced batch, and returns how many entries it expired.
func (s *Store) expire(lower, upper []byte, expired func(key, value []byte) [][]byte) (int, error) {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return 0, err
	}
	b := s.db.NewBatch()
	defer b.Close()
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		keys := expired(it.Key(), it.Value())
		for _, k := range keys {
			b.Delete(bytes.Clone(k), nil)
		}
		if len(keys) > 0 {
			n++
		}
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil || n == 0 {
		return 0, err
	}
	return n, b.Commit(pebble.NoSync)
}

// StartSweep runs Sweep every interval until Close.
func (s *Store) StartSweep(interval time.Duration, now func() time.Time) {
	s.sweeper = Every(interval, func() {
		if n, err := s.Sweep(now()); err != nil {
			s.log.Warn("sweep", "err", err)
		} else if n > 0 {
			s.log.Debug("sweep", "expired", n)
		}
	})
}

// Every runs f every interval in the background until the returned stop is called; stop waits for a run in
// progress. Every store sweeps with it.
func Every(interval time.Duration, f func()) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				f()
			}
		}
	}()
	return func() { close(quit); <-done }
}
