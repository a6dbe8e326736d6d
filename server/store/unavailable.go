package store

import (
	"context"
	"time"

	"twofold/server/board"
)

// Unavailable is the board's store when Pebble could not be opened: every call answers STORE_UNAVAILABLE, so
// the board's routes say so while the rest of the server keeps serving.
type Unavailable struct{ Cause error }

var _ board.Store = Unavailable{}

func (u Unavailable) err() error { return unavailable("open", u.Cause) }

func (u Unavailable) Create(context.Context, board.Creation) (board.Created, error) {
	return board.Created{}, u.err()
}
func (u Unavailable) Get(context.Context, string) (board.Note, error) { return board.Note{}, u.err() }
func (u Unavailable) List(context.Context, string, int) ([]board.Note, bool, int, error) {
	return nil, false, 0, u.err()
}
func (u Unavailable) Replies(context.Context, string) ([]board.Note, error) { return nil, u.err() }
func (u Unavailable) Delete(context.Context, string) (board.Note, error) {
	return board.Note{}, u.err()
}
func (u Unavailable) History(context.Context, string, time.Time) ([]board.Post, error) {
	return nil, u.err()
}
func (u Unavailable) Seen(context.Context, board.RecordKind, string, time.Time) (bool, error) {
	return false, u.err()
}
func (u Unavailable) Spend(context.Context, string, time.Time) error  { return u.err() }
func (u Unavailable) SeedGenesis(context.Context, []board.Note) error { return u.err() }
func (u Unavailable) Audit(context.Context, board.Rejection) error    { return u.err() }

func (u Unavailable) Rejections(context.Context, int) ([]board.Rejection, error) { return nil, u.err() }

func (u Unavailable) ListAfter(context.Context, string, int) ([]board.Note, bool, int, error) {
	return nil, false, 0, u.err()
}

func (u Unavailable) Block(context.Context, board.Block) error      { return u.err() }
func (u Unavailable) Unblock(context.Context, string) (bool, error) { return false, u.err() }
func (u Unavailable) Blocked(context.Context, string) (bool, error) { return false, u.err() }
func (u Unavailable) Blocks(context.Context) ([]board.Block, error) { return nil, u.err() }

// CacheGet finds nothing: without a store, lookups are not cached.
func (u Unavailable) CacheGet(string, time.Time) ([]byte, bool, error) { return nil, false, u.err() }

// CachePut keeps nothing.
func (u Unavailable) CachePut(string, []byte, time.Time) error { return u.err() }
