package postgres_test

import (
	"context"
	"os"
	"testing"

	"twofold/server/board"
	"twofold/server/store/postgres"
	"twofold/server/store/postgres/pgtest"
	"twofold/server/store/storetest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// PostgreSQL keeps the contract every store keeps; a restart is a new connection pool on the same database.
func TestPostgresKeepsTheContract(t *testing.T) {
	server := pgtest.Start(t)
	var url string
	var open *postgres.Store
	connect := func(t *testing.T, fresh bool) board.Store {
		if open != nil {
			open.Close()
		}
		if fresh {
			url = server.NewDatabase(t)
		}
		s, err := postgres.Open(context.Background(), url)
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
		Open:   func(t *testing.T) board.Store { return connect(t, true) },
		Reopen: func(t *testing.T) board.Store { return connect(t, false) },
	})
}
