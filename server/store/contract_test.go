package store_test

import (
	"log/slog"
	"testing"

	"twofold/server/board"
	"twofold/server/board/boardtest"
	"twofold/server/store"
	"twofold/server/store/storetest"
)

func TestPebbleKeepsTheContract(t *testing.T) {
	var dir string
	var open *store.Store
	reopen := func(t *testing.T, fresh bool) board.Store {
		if open != nil {
			open.Close()
		}
		if fresh {
			dir = t.TempDir()
		}
		s, err := store.Open(dir, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		open = s
		t.Cleanup(func() {
			if open == s {
				s.Close()
				open = nil
			}
		})
		return s
	}
	storetest.Run(t, storetest.Opener{
		Open:   func(t *testing.T) board.Store { return reopen(t, true) },
		Reopen: func(t *testing.T) board.Store { return reopen(t, false) },
	})
}

// The board's own tests run on the in-memory store: it keeps the same contract.
func TestInMemoryStoreKeepsTheContract(t *testing.T) {
	storetest.Run(t, storetest.Opener{Open: func(*testing.T) board.Store { return boardtest.NewStore() }})
}
