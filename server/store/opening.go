package store

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"twofold/server/board"
)

// Backend is a store as the server uses it: the board's Store, the cache of other capabilities, the challenge key
// and a health check. Pebble (this package) and PostgreSQL (postgres) are backends.
type Backend interface {
	board.Store
	CacheGet(key string, now time.Time) ([]byte, bool, error)
	CachePut(key string, value []byte, until time.Time) error
	Secret() ([]byte, error)
	Ping() error
	Close() error
	// Import stores exported notes with their ids, times, positions and via, skipping those already stored.
	Import(ctx context.Context, notes []board.Note) error
}

// Opening is the board's store while it is being opened (Pebble in DATA_DIR, or a database at STORE_URL): until
// Ready hands it the open store, every call answers STORE_UNAVAILABLE (so the board's routes say so while the rest
// of the server serves), and from then on it is that store. A server that found DATA_DIR locked by another
// process, or started before its database, thus takes the board back by itself.
type Opening struct {
	open  atomic.Pointer[held]
	cause atomic.Pointer[error]
}

type held struct{ b Backend }

var (
	_ board.Store      = (*Opening)(nil)
	_ board.Prechecker = (*Opening)(nil)
)

// NewOpening returns a store that is not open yet, for a reason.
func NewOpening(cause error) *Opening {
	o := &Opening{}
	o.Failed(cause)
	return o
}

// Failed records why the store is not open yet.
func (o *Opening) Failed(cause error) { o.cause.Store(&cause) }

// Ready hands over the open store.
func (o *Opening) Ready(b Backend) { o.open.Store(&held{b}) }

// Backend is the open store, nil until Ready.
func (o *Opening) Backend() Backend {
	if h := o.open.Load(); h != nil {
		return h.b
	}
	return nil
}

// Unavailable is why the store cannot be used, nil once it is open. The board reads it to hand out no challenge
// that could not be used.
func (o *Opening) Unavailable() error {
	if o.Backend() != nil {
		return nil
	}
	return o.err()
}

func (o *Opening) err() error {
	cause := errors.New("the store is being opened")
	if c := o.cause.Load(); c != nil && *c != nil {
		cause = *c
	}
	return unavailable("open", cause)
}

// with runs f on the open store, or answers STORE_UNAVAILABLE.
func with[T any](o *Opening, f func(Backend) (T, error)) (T, error) {
	if s := o.Backend(); s != nil {
		return f(s)
	}
	var zero T
	return zero, o.err()
}

func (o *Opening) Create(ctx context.Context, c board.Creation) (board.Created, error) {
	return with(o, func(s Backend) (board.Created, error) { return s.Create(ctx, c) })
}

func (o *Opening) Get(ctx context.Context, id string) (board.Note, error) {
	return with(o, func(s Backend) (board.Note, error) { return s.Get(ctx, id) })
}

func (o *Opening) List(ctx context.Context, before string, limit int) ([]board.Note, bool, int, error) {
	if s := o.Backend(); s != nil {
		return s.List(ctx, before, limit)
	}
	return nil, false, 0, o.err()
}

func (o *Opening) Replies(ctx context.Context, id string) ([]board.Note, error) {
	return with(o, func(s Backend) ([]board.Note, error) { return s.Replies(ctx, id) })
}

func (o *Opening) Delete(ctx context.Context, id string) (board.Note, error) {
	return with(o, func(s Backend) (board.Note, error) { return s.Delete(ctx, id) })
}

func (o *Opening) History(ctx context.Context, handle string, since time.Time) ([]board.Post, error) {
	return with(o, func(s Backend) ([]board.Post, error) { return s.History(ctx, handle, since) })
}

func (o *Opening) Seen(ctx context.Context, kind board.RecordKind, key string, now time.Time) (bool, error) {
	return with(o, func(s Backend) (bool, error) { return s.Seen(ctx, kind, key, now) })
}

func (o *Opening) Spend(ctx context.Context, nonce string, until time.Time) error {
	_, err := with(o, func(s Backend) (struct{}, error) { return struct{}{}, s.Spend(ctx, nonce, until) })
	return err
}

func (o *Opening) SeedGenesis(ctx context.Context, notes []board.Note) error {
	_, err := with(o, func(s Backend) (struct{}, error) { return struct{}{}, s.SeedGenesis(ctx, notes) })
	return err
}

func (o *Opening) Audit(ctx context.Context, r board.Rejection) error {
	_, err := with(o, func(s Backend) (struct{}, error) { return struct{}{}, s.Audit(ctx, r) })
	return err
}

func (o *Opening) Rejections(ctx context.Context, limit int) ([]board.Rejection, error) {
	return with(o, func(s Backend) ([]board.Rejection, error) { return s.Rejections(ctx, limit) })
}

func (o *Opening) ListAfter(ctx context.Context, after string, limit int) ([]board.Note, bool, int, error) {
	if s := o.Backend(); s != nil {
		return s.ListAfter(ctx, after, limit)
	}
	return nil, false, 0, o.err()
}

func (o *Opening) Block(ctx context.Context, b board.Block) error {
	_, err := with(o, func(s Backend) (struct{}, error) { return struct{}{}, s.Block(ctx, b) })
	return err
}

func (o *Opening) Unblock(ctx context.Context, handle string) (bool, error) {
	return with(o, func(s Backend) (bool, error) { return s.Unblock(ctx, handle) })
}

func (o *Opening) Blocked(ctx context.Context, handle string) (bool, error) {
	return with(o, func(s Backend) (bool, error) { return s.Blocked(ctx, handle) })
}

// Precheck passes a post's reads to the open store in one call when it can answer them so (board.Prechecker).
func (o *Opening) Precheck(ctx context.Context, q board.Precheck) (board.Prechecked, error) {
	return with(o, func(s Backend) (board.Prechecked, error) {
		if p, ok := s.(board.Prechecker); ok {
			return p.Precheck(ctx, q)
		}
		return board.PrecheckEach(ctx, s, q)
	})
}

func (o *Opening) Blocks(ctx context.Context) ([]board.Block, error) {
	return with(o, func(s Backend) ([]board.Block, error) { return s.Blocks(ctx) })
}

// Version is the open store's, when it keeps one (board.Versioned).
func (o *Opening) Version() (uint64, bool) {
	if v, ok := o.Backend().(board.Versioned); ok {
		return v.Version()
	}
	return 0, false
}

// CacheGet finds nothing until the store is open.
func (o *Opening) CacheGet(key string, now time.Time) ([]byte, bool, error) {
	if s := o.Backend(); s != nil {
		return s.CacheGet(key, now)
	}
	return nil, false, o.err()
}

// CachePut keeps nothing until the store is open.
func (o *Opening) CachePut(key string, value []byte, until time.Time) error {
	_, err := with(o, func(s Backend) (struct{}, error) { return struct{}{}, s.CachePut(key, value, until) })
	return err
}

// Ping says whether the open store answers.
func (o *Opening) Ping() error {
	_, err := with(o, func(s Backend) (struct{}, error) { return struct{}{}, s.Ping() })
	return err
}

// Unavailable, the stand-in of a store that could not be opened at all, says so too.
func (u Unavailable) Unavailable() error { return u.err() }
