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
	storetest.Run(t, storetest.Restartable(func(t *testing.T, fresh bool) storetest.Closer {
		if fresh {
			dir = t.TempDir()
		}
		s, err := store.Open(dir, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}))
}

// The board's own tests run on the in-memory store: it keeps the same contract.
func TestInMemoryStoreKeepsTheContract(t *testing.T) {
	storetest.Run(t, storetest.Opener{Open: func(*testing.T) board.Store { return boardtest.NewStore() }})
}
