package store

import (
	"context"
	"testing"
	"time"

	"twofold/server/board"
)

// prechecking is a backend that answers a Precheck in one call, and counts them.
type prechecking struct {
	*Store
	calls int
}

func (p *prechecking) Precheck(ctx context.Context, q board.Precheck) (board.Prechecked, error) {
	p.calls++
	return board.PrecheckEach(ctx, p.Store, q)
}

// The open store's one-call Precheck is what the board reaches through Opening; a backend without one is asked
// the four questions.
func TestOpeningPassesPrecheckOn(t *testing.T) {
	ctx := context.Background()
	s, err := OpenInMemory(quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	o := NewOpening(nil)
	q := board.Precheck{Nonce: "n", Handle: "Quill2026", DuplicateKey: "d", HistorySince: time.Unix(0, 0), Now: time.Now()}
	if _, err := o.Precheck(ctx, q); err == nil {
		t.Fatal("a store not open yet answered a precheck")
	}
	p := &prechecking{Store: s}
	o.Ready(p)
	if _, err := o.Precheck(ctx, q); err != nil || p.calls != 1 {
		t.Fatalf("precheck through Opening: %v, %d calls of the backend's own", err, p.calls)
	}
	o.Ready(s)
	if got, err := o.Precheck(ctx, q); err != nil || got.NonceUsed || got.Blocked || got.Duplicate || len(got.History) != 0 {
		t.Fatalf("precheck asked one question at a time: %+v %v", got, err)
	}
}
