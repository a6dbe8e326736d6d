package postgres_test

import (
	"context"
	"os"
	"testing"

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
	storetest.Run(t, storetest.Restartable(func(t *testing.T, fresh bool) storetest.Closer {
		if fresh {
			url = server.NewDatabase(t)
		}
		s, err := postgres.Open(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}))
}
