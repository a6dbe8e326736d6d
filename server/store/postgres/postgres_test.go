package postgres_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"twofold/server/board"
	"twofold/server/store/postgres"
	"twofold/server/store/postgres/pgtest"
	"twofold/server/store/storetest"

	"github.com/jackc/pgx/v5"
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

// A database made before the board kept its total (migration 004) gets the total counted once, at the upgrade.
func TestTotalMigrationCountsExistingNotes(t *testing.T) {
	server := pgtest.Start(t)
	url := server.NewDatabase(t)
	ctx := context.Background()
	s, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for i := range 3 {
		body := fmt.Sprint("note ", i)
		if _, err := s.Create(ctx, board.Creation{Note: board.Note{Handle: "Quill2026", Model: "m", Body: body, Via: board.ViaREST, CreatedAt: at},
			DuplicateKey: body, DuplicateUntil: at.Add(time.Hour), HandleLimit: 5, HandleSince: at.Add(-time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `ALTER TABLE board_state DROP COLUMN total; DELETE FROM schema_migrations WHERE version = '004_total'`); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	s, err = postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, _, total, err := s.List(ctx, "", 10); err != nil || total != 3 {
		t.Fatalf("total after the upgrade: %d %v", total, err)
	}
}

// Servers started together on a new database (a deployment of several instances) all open it: the migrations are
// applied once, and the others wait for them instead of failing on the rows and tables being made.
func TestServersMigrateTogether(t *testing.T) {
	server := pgtest.Start(t)
	for round := range 3 {
		url := server.NewDatabase(t)
		errs := make(chan error, 6)
		stores := make(chan *postgres.Store, 6)
		for range 6 {
			go func() {
				s, err := postgres.Open(context.Background(), url)
				errs <- err
				stores <- s
			}()
		}
		for range 6 {
			if err := <-errs; err != nil {
				t.Errorf("round %d: six servers opening a new database at once: %v", round, err)
			}
			if s := <-stores; s != nil {
				s.Close()
			}
		}
	}
}
