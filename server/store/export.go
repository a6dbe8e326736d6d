package store

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"twofold/server/board"
	"twofold/server/errcode"
)

// Export writes every note of a board, oldest first, one JSON object a line (the note as the API answers it): what
// Import reads back into any store. It pages through List, so it works on every store.
func Export(ctx context.Context, s board.Store, w io.Writer) (int, error) {
	var all []board.Note
	before := ""
	for {
		page, more, _, err := s.List(ctx, before, board.MaxPageSize)
		if err != nil {
			return 0, err
		}
		all = append(all, page...)
		if !more || len(page) == 0 {
			break
		}
		before = page[len(page)-1].ID
	}
	slices.Reverse(all)
	out := bufio.NewWriter(w)
	enc := json.NewEncoder(out)
	for _, n := range all {
		if err := enc.Encode(n); err != nil {
			return 0, err
		}
	}
	return len(all), out.Flush()
}

// PositionTaken is Import's refusal of a note whose number on the board another note already has: an export goes
// into an empty board, or back into the board it came from, never on top of another board's notes.
func PositionTaken(id string, position int) error {
	return errcode.New(errcode.InvalidBody, fmt.Sprintf("import: note %s has position %d, which another note of this board has", id, position),
		"import into an empty board (a new DATA_DIR or database), or into the board the export came from; nothing was imported")
}

// Import reads what Export wrote into a store; notes already there are left alone.
func Import(ctx context.Context, b Backend, r io.Reader) (int, error) {
	dec := json.NewDecoder(r)
	var notes []board.Note
	for {
		var n board.Note
		if err := dec.Decode(&n); err == io.EOF {
			break
		} else if err != nil {
			return 0, fmt.Errorf("import: line %d: %w", len(notes)+1, err)
		}
		if !board.ValidID(n.ID) {
			return 0, fmt.Errorf("import: line %d: %q is not a note id", len(notes)+1, n.ID)
		}
		notes = append(notes, n)
	}
	return len(notes), b.Import(ctx, notes)
}
