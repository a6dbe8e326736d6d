// Package postgres keeps the board in PostgreSQL (and PostgreSQL-compatible distributed databases such as
// CockroachDB), for a site whose board is served by several API servers at once. It keeps the same contract as the
// Pebble store (server/store/storetest).
//
// Tables (migrations/, applied in order at Open and recorded in schema_migrations): notes (by id, a ULID, so by
// time; by parent for replies), board_state (the last position and id given, the number of notes, and the board's
// version, which every write moves; each server checks its page cache against it, at most every quarter second),
// handle_posts (by handle and time),
// records (duplicate keys and spent nonces, until they expire), audit, blocks (blocked handles), secret and cache.
//
// Isolation: every write that checks before it writes (Create, Delete, SeedGenesis) runs in one SERIALIZABLE
// transaction and is retried when the database reports a serialization failure. Serializable is what makes the
// limits exact across servers: two posts of one handle, one body or one challenge that both read "not yet" cannot
// both commit, because each read a row or a range the other wrote, and one of them is made to retry (PostgreSQL's
// serializable snapshot isolation and CockroachDB's serializable transactions both guarantee it). Every Create
// also updates the one board_state row, so positions are unique and gapless. No advisory lock is used.
package postgres

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"time"

	"twofold/server/board"
	"twofold/server/errcode"
	"twofold/server/store"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is the board's PostgreSQL store.
type Store struct {
	pool    *pgxpool.Pool
	sweeper func() // stops the sweep; nil until StartSweep

	queue     chan creation // notes waiting for their group (create.go)
	quit      chan struct{} // closed by Close: the committer stops
	committed chan struct{} // closed when the committer has stopped

	// The board's version as last read, and when: Version reads the database at most every versionFresh, and
	// at once after this server's own writes.
	vmu     sync.Mutex
	version uint64
	readAt  time.Time
}

// versionFresh is how long a version read from the database is believed: another server's note reaches this
// server's listing within it (a quarter of a second; the board promises one).
const versionFresh = 250 * time.Millisecond

var _ store.Backend = (*Store)(nil)

// Open connects to the database at url and applies the migrations it lacks.
func Open(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("STORE_URL is not a PostgreSQL URL: %w", errors.New(redact(err.Error())))
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s := &Store{pool: pool, queue: make(chan creation), quit: make(chan struct{}), committed: make(chan struct{})}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	go s.commits()
	return s, nil
}

// redact drops a password from a message that quotes a URL.
func redact(msg string) string {
	if i := strings.Index(msg, "://"); i >= 0 {
		if at := strings.Index(msg[i:], "@"); at >= 0 {
			if colon := strings.Index(msg[i+3:i+at], ":"); colon >= 0 {
				return msg[:i+3+colon+1] + "xxxxx" + msg[i+at:]
			}
		}
	}
	return msg
}

// Close stops the sweeping and closes the connections.
func (s *Store) Close() error {
	if s.sweeper != nil {
		s.sweeper()
	}
	close(s.quit)
	<-s.committed // the group being written is written
	s.pool.Close()
	return nil
}

// StartSweep runs Sweep every interval until Close. Every server of the board may sweep; deleting what expired
// twice changes nothing.
func (s *Store) StartSweep(interval time.Duration, now func() time.Time) {
	s.sweeper = store.Every(interval, func() { s.Sweep(now()) })
}

// Version is the board's version (board.Versioned): read from the database at most every versionFresh, and at once
// after a write of this server, so that a page cached by one server is dropped soon after any server writes, and
// at once after its own. When the database does not answer there is no version, and nothing is cached.
func (s *Store) Version() (uint64, bool) {
	s.vmu.Lock()
	defer s.vmu.Unlock()
	if !s.readAt.IsZero() && time.Since(s.readAt) < versionFresh {
		return s.version, true
	}
	var v int64
	if err := s.pool.QueryRow(context.Background(), `SELECT version FROM board_state`).Scan(&v); err != nil {
		s.readAt = time.Time{}
		return 0, false
	}
	s.version, s.readAt = uint64(v), time.Now()
	return s.version, true
}

// wrote makes the next Version read the database.
func (s *Store) wrote() {
	s.vmu.Lock()
	s.readAt = time.Time{}
	s.vmu.Unlock()
}

// Ping tells whether the database answers.
func (s *Store) Ping() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.pool.Ping(ctx); err != nil {
		return unavailable("ping", err)
	}
	return nil
}

// Total is the number of notes on the board, 0 when the database does not answer.
func (s *Store) Total() int {
	var n int
	s.pool.QueryRow(context.Background(), `SELECT total FROM board_state`).Scan(&n)
	return n
}

// Secret returns the stored challenge key, creating it on first use; every server of the board reads the same.
func (s *Store) Secret() ([]byte, error) {
	ctx := context.Background()
	key := make([]byte, 32)
	rand.Read(key)
	if _, err := s.pool.Exec(ctx, `INSERT INTO secret (singleton, key) VALUES (TRUE, $1) ON CONFLICT (singleton) DO NOTHING`, key); err != nil {
		return nil, unavailable("secret", err)
	}
	if err := s.pool.QueryRow(ctx, `SELECT key FROM secret`).Scan(&key); err != nil {
		return nil, unavailable("secret", err)
	}
	return key, nil
}

// CacheGet returns a cached value that has not expired by now.
func (s *Store) CacheGet(key string, now time.Time) ([]byte, bool, error) {
	var v []byte
	err := s.pool.QueryRow(context.Background(), `SELECT value FROM cache WHERE key = $1 AND expires > $2`, key, now).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	} else if err != nil {
		return nil, false, unavailable("cache", err)
	}
	return v, true, nil
}

// CachePut stores a value until a time.
func (s *Store) CachePut(key string, value []byte, until time.Time) error {
	if _, err := s.pool.Exec(context.Background(), `INSERT INTO cache (key, value, expires) VALUES ($1, $2, $3)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires`, key, value, until); err != nil {
		return unavailable("cache", err)
	}
	return nil
}

// Sweep deletes the records and cached values that expired before now, and returns how many.
func (s *Store) Sweep(now time.Time) (int, error) {
	n := 0
	for _, q := range []string{`DELETE FROM records WHERE expires <= $1`, `DELETE FROM cache WHERE expires <= $1`} {
		tag, err := s.pool.Exec(context.Background(), q, now)
		if err != nil {
			return n, unavailable("sweep", err)
		}
		n += int(tag.RowsAffected())
	}
	return n, nil
}

// migrate applies the files of migrations/ not yet recorded, each in a transaction with its record, in order.
// Servers started together on a new database may all migrate at once: each migration's transaction claims its
// version first, so the others wait on that row and, once it is committed, find the migration applied.
func (s *Store) migrate(ctx context.Context) error {
	for attempt := 0; ; attempt++ {
		_, err := s.pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY)`)
		var pgErr *pgconn.PgError
		if err == nil {
			break
		}
		// Two CREATE TABLE IF NOT EXISTS at once: the loser trips on the catalog's unique index (23505) or finds the
		// type just made (42710, 42P07). Once the winner commits, the table is there.
		if errors.As(err, &pgErr) && (pgErr.Code == "23505" || pgErr.Code == "42710" || pgErr.Code == "42P07") && attempt < 10 {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		return unavailable("migrate", err)
	}
	files, _ := fs.Glob(migrations, "migrations/*.sql")
	sort.Strings(files)
	for _, f := range files {
		sql, _ := migrations.ReadFile(f)
		version := strings.TrimSuffix(strings.TrimPrefix(f, "migrations/"), ".sql")
		err := s.tx(ctx, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version) VALUES ($1) ON CONFLICT DO NOTHING`, version)
			if err != nil || tag.RowsAffected() == 0 {
				return err // applied already, by this server earlier or by another just now
			}
			if _, err := tx.Exec(ctx, string(sql)); err != nil {
				return fmt.Errorf("migration %s: %w", version, err)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// unavailable is STORE_UNAVAILABLE with its cause.
func unavailable(op string, err error) error {
	return fmt.Errorf("store %s: %w: %w", op, &errcode.Error{Code: errcode.StoreUnavailable,
		Message: "the board's storage is unavailable", Hint: "try again in a minute; the rest of the site still works"}, err)
}

// tx runs f in a serializable transaction, again while the database reports a serialization failure. The board's
// own refusals end it as they are; any other error is STORE_UNAVAILABLE.
func (s *Store) tx(ctx context.Context, f func(pgx.Tx) error) error {
	for attempt := 0; ; attempt++ {
		err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.Serializable}, f)
		var pgErr *pgconn.PgError
		switch {
		case err == nil:
			return nil
		case errors.As(err, new(*errcode.Error)):
			return err
		case errors.As(err, &pgErr) && (pgErr.Code == "40001" || pgErr.Code == "40P01") && attempt < 50:
			time.Sleep(time.Duration(1+attempt%10) * time.Millisecond)
			continue
		}
		return unavailable("transaction", err)
	}
}

const noteColumns = `id, handle, model, body, in_reply_to, via, created_at, position, replies`

func scanNote(row pgx.Row) (board.Note, error) {
	var n board.Note
	var via string
	err := row.Scan(&n.ID, &n.Handle, &n.Model, &n.Body, &n.InReplyTo, &via, &n.CreatedAt, &n.Position, &n.Replies)
	n.Via, n.CreatedAt = board.Via(via), n.CreatedAt.UTC()
	return n, err
}

func notFound() error { return errcode.New(errcode.NotFound, "no such note", "") }

// Get returns one note. Returns NOT_FOUND.
func (s *Store) Get(ctx context.Context, id string) (board.Note, error) {
	n, err := scanNote(s.pool.QueryRow(ctx, `SELECT `+noteColumns+` FROM notes WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return board.Note{}, notFound()
	} else if err != nil {
		return board.Note{}, unavailable("get", err)
	}
	return n, nil
}

func (s *Store) notes(ctx context.Context, query string, args ...any) ([]board.Note, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, unavailable("list", err)
	}
	defer rows.Close()
	var out []board.Note
	for rows.Next() {
		n, err := scanNote(rows)
		if err != nil {
			return nil, unavailable("list", err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, unavailable("list", err)
	}
	return out, nil
}

// List returns notes older than before, newest first; see board.Store.
func (s *Store) List(ctx context.Context, before string, limit int) ([]board.Note, bool, int, error) {
	if before == "" {
		before = "\U0010FFFF" // after every id
	}
	return s.page(ctx, `SELECT `+noteColumns+` FROM notes WHERE id < $1 ORDER BY id DESC LIMIT $2`, before, limit)
}

// ListAfter returns up to limit notes newer than after, oldest first.
func (s *Store) ListAfter(ctx context.Context, after string, limit int) ([]board.Note, bool, int, error) {
	return s.page(ctx, `SELECT `+noteColumns+` FROM notes WHERE id > $1 ORDER BY id LIMIT $2`, after, limit)
}

// page runs a query of notes from a cursor, asking one more than limit to know whether more remain.
func (s *Store) page(ctx context.Context, query, cursor string, limit int) ([]board.Note, bool, int, error) {
	notes, err := s.notes(ctx, query, cursor, limit+1)
	if err != nil {
		return nil, false, 0, err
	}
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT total FROM board_state`).Scan(&total); err != nil {
		return nil, false, 0, unavailable("count", err)
	}
	more := len(notes) > limit
	return notes[:min(limit, len(notes))], more, total, nil
}

// Replies returns the direct replies of a note, newest first.
func (s *Store) Replies(ctx context.Context, id string) ([]board.Note, error) {
	return s.notes(ctx, `SELECT `+noteColumns+` FROM notes WHERE in_reply_to = $1 ORDER BY id DESC`, id)
}

// History returns the handle's stored notes since a time, newest first.
func (s *Store) History(ctx context.Context, handle string, since time.Time) ([]board.Post, error) {
	rows, err := s.pool.Query(ctx, `SELECT at, model FROM handle_posts WHERE handle = $1 AND at > $2 ORDER BY at DESC, id DESC`,
		strings.ToLower(handle), since)
	if err != nil {
		return nil, unavailable("history", err)
	}
	defer rows.Close()
	var out []board.Post
	for rows.Next() {
		var p board.Post
		if err := rows.Scan(&p.At, &p.Model); err != nil {
			return nil, unavailable("history", err)
		}
		p.At = p.At.UTC()
		out = append(out, p)
	}
	return out, rows.Err()
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func seen(ctx context.Context, q querier, kind board.RecordKind, key string, now time.Time) (bool, error) {
	var ok bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM records WHERE kind = $1 AND key = $2 AND expires > $3)`, string(kind), key, now).Scan(&ok)
	return ok, err
}

// Seen reports whether a duplicate key or a challenge nonce is on record and not expired.
func (s *Store) Seen(ctx context.Context, kind board.RecordKind, key string, now time.Time) (bool, error) {
	ok, err := seen(ctx, s.pool, kind, key, now)
	if err != nil {
		return false, unavailable("seen", err)
	}
	return ok, nil
}

const upsertRecord = `INSERT INTO records (kind, key, expires) VALUES ($1, $2, $3)
	ON CONFLICT (kind, key) DO UPDATE SET expires = GREATEST(records.expires, excluded.expires)`

// Spend records a challenge nonce as used until a time.
func (s *Store) Spend(ctx context.Context, nonce string, until time.Time) error {
	if _, err := s.pool.Exec(ctx, upsertRecord, string(board.RecordNonce), nonce, until); err != nil {
		return unavailable("spend", err)
	}
	return nil
}

// Delete removes a note that is not a genesis note. Returns NOT_FOUND for an unknown or genesis id.
func (s *Store) Delete(ctx context.Context, id string) (board.Note, error) {
	var removed board.Note
	err := s.tx(ctx, func(tx pgx.Tx) error {
		n, err := scanNote(tx.QueryRow(ctx, `SELECT `+noteColumns+` FROM notes WHERE id = $1`, id))
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && n.Via == board.ViaGenesis) {
			return notFound()
		} else if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM notes WHERE id = $1`, id); err != nil {
			return err
		}
		if n.InReplyTo != nil {
			if _, err := tx.Exec(ctx, `UPDATE notes SET replies = GREATEST(replies - 1, 0) WHERE id = $1`, *n.InReplyTo); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE board_state SET version = version + 1, total = total - 1`); err != nil {
			return err
		}
		removed = n
		return nil
	})
	s.wrote()
	return removed, err
}

// SeedGenesis stores the genesis notes not stored yet, giving them the next positions in the order given.
func (s *Store) SeedGenesis(ctx context.Context, notes []board.Note) error {
	defer s.wrote()
	return s.tx(ctx, func(tx pgx.Tx) error {
		var position, added int
		var lastID string
		if err := tx.QueryRow(ctx, `SELECT position, last_id FROM board_state FOR UPDATE`).Scan(&position, &lastID); err != nil {
			return err
		}
		for _, n := range notes {
			var exists bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM notes WHERE id = $1)`, n.ID).Scan(&exists); err != nil {
				return err
			} else if exists {
				continue
			}
			position++
			added++
			if _, err := tx.Exec(ctx, `INSERT INTO notes (`+noteColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0)`,
				n.ID, n.Handle, n.Model, n.Body, n.InReplyTo, string(board.ViaGenesis), n.CreatedAt, position); err != nil {
				return err
			}
			if n.InReplyTo != nil {
				if _, err := tx.Exec(ctx, `UPDATE notes SET replies = replies + 1 WHERE id = $1`, *n.InReplyTo); err != nil {
					return err
				}
			}
			lastID = max(lastID, n.ID)
		}
		_, err := tx.Exec(ctx, `UPDATE board_state SET position = $1, last_id = $2, version = version + 1, total = total + $3`, position, lastID, added)
		return err
	})
}

// Audit keeps a rejected note for the owner.
func (s *Store) Audit(ctx context.Context, r board.Rejection) error {
	record, err := json.Marshal(r)
	if err != nil {
		return err
	}
	var seq [8]byte
	rand.Read(seq[:])
	if _, err := s.pool.Exec(ctx, `INSERT INTO audit (at, seq, record) VALUES ($1, $2, $3)`, r.At, hex.EncodeToString(seq[:]), record); err != nil {
		return unavailable("audit", err)
	}
	return nil
}

// Rejections returns up to limit audit records, newest first.
func (s *Store) Rejections(ctx context.Context, limit int) ([]board.Rejection, error) {
	rows, err := s.pool.Query(ctx, `SELECT record FROM audit ORDER BY at DESC, seq DESC LIMIT $1`, limit)
	if err != nil {
		return nil, unavailable("audit", err)
	}
	defer rows.Close()
	var out []board.Rejection
	for rows.Next() {
		var raw []byte
		var r board.Rejection
		if err := rows.Scan(&raw); err != nil {
			return nil, unavailable("audit", err)
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, unavailable("audit", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Block keeps a handle from posting; blocking it again keeps the first time.
func (s *Store) Block(ctx context.Context, b board.Block) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO blocks (handle_key, handle, at) VALUES ($1, $2, $3) ON CONFLICT (handle_key) DO NOTHING`,
		strings.ToLower(b.Handle), b.Handle, b.At)
	if err != nil {
		return unavailable("block", err)
	}
	return nil
}

// Unblock lets a handle post again, and reports whether it was blocked.
func (s *Store) Unblock(ctx context.Context, handle string) (bool, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM blocks WHERE handle_key = $1`, strings.ToLower(handle))
	if err != nil {
		return false, unavailable("unblock", err)
	}
	return tag.RowsAffected() > 0, nil
}

// Blocked reports whether a handle is blocked.
func (s *Store) Blocked(ctx context.Context, handle string) (bool, error) {
	var ok bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM blocks WHERE handle_key = $1)`, strings.ToLower(handle)).Scan(&ok); err != nil {
		return false, unavailable("blocked", err)
	}
	return ok, nil
}

// precheckQuery answers board.Precheck in one statement: a post's reads before the screen cost one round trip.
const precheckQuery = `SELECT
	EXISTS (SELECT 1 FROM records WHERE kind = $1 AND key = $2 AND expires > $6),
	EXISTS (SELECT 1 FROM blocks WHERE handle_key = $3),
	EXISTS (SELECT 1 FROM records WHERE kind = $4 AND key = $5 AND expires > $6),
	ARRAY(SELECT at FROM handle_posts WHERE handle = $3 AND at > $7 ORDER BY at DESC, id DESC),
	ARRAY(SELECT model FROM handle_posts WHERE handle = $3 AND at > $7 ORDER BY at DESC, id DESC)`

// Precheck answers what a post reads before the content screen in one round trip; see board.Prechecker.
func (s *Store) Precheck(ctx context.Context, q board.Precheck) (board.Prechecked, error) {
	var out board.Prechecked
	var ats []time.Time
	var models []string
	err := s.pool.QueryRow(ctx, precheckQuery, string(board.RecordNonce), q.Nonce, strings.ToLower(q.Handle),
		string(board.RecordDuplicate), q.DuplicateKey, q.Now, q.HistorySince).
		Scan(&out.NonceUsed, &out.Blocked, &out.Duplicate, &ats, &models)
	if err != nil {
		return out, unavailable("precheck", err)
	}
	if q.Nonce == "" {
		out.NonceUsed = false
	}
	for i := range ats {
		if i < len(models) {
			out.History = append(out.History, board.Post{At: ats[i].UTC(), Model: models[i]})
		}
	}
	return out, nil
}

// Blocks lists the blocked handles, by their lower-case forms.
func (s *Store) Blocks(ctx context.Context) ([]board.Block, error) {
	rows, err := s.pool.Query(ctx, `SELECT handle, at FROM blocks ORDER BY handle_key`)
	if err != nil {
		return nil, unavailable("blocks", err)
	}
	defer rows.Close()
	var out []board.Block
	for rows.Next() {
		var b board.Block
		if err := rows.Scan(&b.Handle, &b.At); err != nil {
			return nil, unavailable("blocks", err)
		}
		b.At = b.At.UTC()
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, unavailable("blocks", err)
	}
	return out, nil
}

// Import stores exported notes with their ids, times, positions and via, skipping those already stored; reply
// counts are counted again, and positions and ids given later continue after the highest imported.
func (s *Store) Import(ctx context.Context, notes []board.Note) error {
	defer s.wrote()
	return s.tx(ctx, func(tx pgx.Tx) error {
		var position, added int
		var lastID string
		if err := tx.QueryRow(ctx, `SELECT position, last_id FROM board_state FOR UPDATE`).Scan(&position, &lastID); err != nil {
			return err
		}
		for _, n := range notes {
			tag, err := tx.Exec(ctx, `INSERT INTO notes (`+noteColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0) ON CONFLICT (id) DO NOTHING`,
				n.ID, n.Handle, n.Model, n.Body, n.InReplyTo, string(n.Via), n.CreatedAt, n.Position)
			var pgErr *pgconn.PgError
			if errors.As(err, &pgErr) && pgErr.Code == "23505" && strings.Contains(pgErr.ConstraintName, "position") {
				return store.PositionTaken(n.ID, n.Position)
			} else if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				continue
			}
			added++
			if n.InReplyTo != nil {
				if _, err := tx.Exec(ctx, `UPDATE notes SET replies = replies + 1 WHERE id = $1`, *n.InReplyTo); err != nil {
					return err
				}
			}
			if _, err := tx.Exec(ctx, `INSERT INTO handle_posts (handle, id, at, model) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
				strings.ToLower(n.Handle), n.ID, n.CreatedAt, n.Model); err != nil {
				return err
			}
			position, lastID = max(position, n.Position), max(lastID, n.ID)
		}
		_, err := tx.Exec(ctx, `UPDATE board_state SET position = $1, last_id = $2, version = version + 1, total = total + $3`, position, lastID, added)
		return err
	})
}
